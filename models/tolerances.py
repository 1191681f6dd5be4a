"""Every numerical tolerance of fairalloc, named, in one place.

No other module writes a tolerance as a literal: import it from here.
"""

from __future__ import annotations

#: Relative slack under which a resource counts as saturated during filling
#: (``R_j - usage_j <= SATURATION_RTOL * R_j``).
SATURATION_RTOL: float = 1e-10

#: Relative tolerance for primal feasibility of a numeric allocation
#: (``usage_j <= R_j * (1 + FEASIBILITY_RTOL)``).
FEASIBILITY_RTOL: float = 1e-7

#: Relative tolerance under which two numeric task counts are "equal" when
#: a property is checked numerically (the exact re-check decides).
COMPARE_RTOL: float = 1e-7

#: Absolute floor added to :data:`COMPARE_RTOL` comparisons near zero.
COMPARE_ATOL: float = 1e-9

#: Relative margin a violation must exceed to be reported from floating-point
#: numbers alone, when a policy has no exact solver (far above the solver
#: tolerances, so that solver noise is never reported as a violation).
NUMERIC_CONFIRM_RTOL: float = 1e-4

#: Absolute floor added to :data:`NUMERIC_CONFIRM_RTOL` near zero.
NUMERIC_CONFIRM_ATOL: float = 1e-6

#: Largest denominator used when a floating-point deviation (a report
#: direction found by an optimiser) is rationalised for exact re-checking.
RATIONALIZE_MAX_DENOMINATOR: int = 1000

#: Relative rounding allowance on the dual value in the line search of the
#: CEEI price solver (its last Newton steps change the value by less than its
#: rounding error); models/ceei_newton.py judges such a step by its KKT
#: residual instead.
CEEI_VALUE_RTOL: float = 1e-13

#: Sufficient-decrease constant of the line search of the CEEI price solver
#: (models/ceei_newton.py) and, with the number of halvings, of the alpha-fair
#: solver (models/alpha_fair.py).
CEEI_ARMIJO: float = 1e-4
CEEI_LINE_SEARCH_STEPS: int = 30

#: A cvxpy dual value above this marks a binding constraint (leximin LPs).
DUAL_TOL: float = 1e-7

#: Relative slack given to the level a frozen user must keep in the later
#: stage LPs of a leximin sequence (keeps roundoff from making them infeasible).
LP_LEVEL_RTOL: float = 1e-9

#: Agreement required between two numeric solvers of the same policy in tests
#: and cross-checks (relative, on task counts).
CROSSCHECK_RTOL: float = 1e-6

#: Gap and feasibility tolerance asked of conic solvers (Clarabel, SCS).
CONIC_SOLVER_TOL: float = 1e-12


#: Wall-clock limit (seconds) of one conic solver call: a solver that has
#: not converged by then reports a non-optimal status, and the fallback
#: chain of :func:`models.solvers.solve_problem` moves on or raises
#: (SCS at tight tolerances can otherwise run for many minutes).
CONIC_SOLVER_TIME_LIMIT: float = 120.0


def conic_solver_options(solver: str) -> dict[str, float]:
    """Keyword options giving ``solver`` the tolerance :data:`CONIC_SOLVER_TOL`
    and the time limit :data:`CONIC_SOLVER_TIME_LIMIT`."""
    if solver == "CLARABEL":
        return {"tol_gap_abs": CONIC_SOLVER_TOL, "tol_gap_rel": CONIC_SOLVER_TOL, "tol_feas": CONIC_SOLVER_TOL,
                "tol_ktratio": CONIC_SOLVER_TOL * 100, "time_limit": CONIC_SOLVER_TIME_LIMIT}
    if solver == "SCS":
        return {"eps": CONIC_SOLVER_TOL * 100, "time_limit_secs": CONIC_SOLVER_TIME_LIMIT}
    return {}

#: CEEI Newton method (models/ceei_newton.py): stop when the projected
#: gradient of the normalised dual (the largest relative slack of a priced
#: resource, or relative excess of any resource) is below this.
CEEI_NEWTON_TOL: float = 1e-13

#: CEEI Newton method: relative duality gap and complementary slackness
#: (normalised units, weights summing to 1) under which the Newton solution
#: is accepted as optimal; above it the policy falls back to cvxpy.
CEEI_CERTIFICATE_RTOL: float = 1e-9

#: CEEI Newton method (models/ceei_dual.py): Newton iterations before giving
#: up (the caller then falls back to cvxpy).
CEEI_MAX_ITERATIONS: int = 200

#: CEEI Newton method: step halvings of one Armijo search before giving up.
#: Steps along a price of zero curvature (every user of the resource capped)
#: may have to shrink from the size of the largest demand ratio to that of
#: the smallest, so the search stops earlier only when the trial point no
#: longer moves.
CEEI_MAX_HALVINGS: int = 240

#: CEEI Newton method: Levenberg-Marquardt factor; the Newton system is
#: ``H + mu I`` with ``mu = CEEI_REGULARIZATION * residual * max(mean diag H, 1)``.
CEEI_REGULARIZATION: float = 1e-3

#: Batched linear solves (models/batching.py): a member whose Newton system
#: is exactly singular, or whose solution is not finite, is solved again
#: with its diagonal raised by this times its largest diagonal entry (the
#: Marquardt term of the CEEI method vanishes with the residual, so a
#: system singular in exact terms, e.g. two resources used in the same
#: proportions by every user, stays singular in floating point).
BATCH_FALLBACK_REGULARIZATION: float = 1e-10

#: Exact CEEI (proofs/ceei_exact/enclosure.py): relative radius of the
#: starting box of the Krawczyk test around the Newton-polished prices
#: (inflated until the test succeeds or gives up).
ENCLOSURE_START_RADIUS: float = 1e-20

#: Slot-based sharing: a task's slot count ``ceil(need)`` is an exact integer.
#: The float path decides it by a float ``ceil`` unless ``need`` is within
#: this (relative) of a whole number, where roundoff could put it on the
#: wrong side; those tasks are decided in exact arithmetic
#: (:mod:`models.policies.slots`). Far above float roundoff (~1e-16).
SLOT_EXACT_RTOL: float = 1e-9

#: Float shares ``d_ij / R_j`` closer than this (relative) to a user's
#: largest one may hide an exact tie or an exact order other than theirs;
#: those pairs are compared in exact arithmetic, the others by their floats
#: (a common dominant resource, :mod:`analyzer.properties._maxmin`). Far
#: above float roundoff (~1e-16).
DOMINANT_NEAR: float = 1e-9

#: A convex-program answer whose objective is worse than that of a known
#: feasible point by more than this (relative) is rejected as inaccurate.
OBJECTIVE_RTOL: float = 1e-7

#: Relative widening of the numeric screens when a whole chunk of instances
#: is screened at once (:meth:`analyzer.properties.base.Property.screen_many`):
#: the batched task counts are perturbed by this much in the unfavourable
#: direction, so that any instance the one-at-a-time screen flags is flagged
#: too (the batched and the single solves may differ in the last bits).
SCREEN_BATCH_RTOL: float = 1e-9

#: Absolute floor added to :data:`SCREEN_BATCH_RTOL` near zero.
SCREEN_BATCH_ATOL: float = 1e-11

#: Agreement demanded between a certified exact optimum and the fast numeric
#: solver of the same policy (relative to max(1, |x|)), e.g. exact CEEI
#: against the Newton method.
EXACT_AGREEMENT_RTOL: float = 1e-9

#: Alpha-fair Newton method (models/alpha_fair.py): its answer is accepted
#: when every priced resource is used to within this (relative, in log
#: usage) of its capacity and none is over-used by more. Stationarity and
#: price signs hold by construction, so the answer is then the exact
#: optimum of the program with capacities changed by at most this much.
ALPHA_FAIR_KKT_RTOL: float = 1e-12

#: A violation confirmed only numerically (policy without an exact solver)
#: is reported only after every allocation it used has been re-solved at
#: tighter tolerance (:meth:`models.policy.Policy.solve_tight`, solver
#: tolerances multiplied by :data:`RESOLVE_TIGHTEN`) and the re-solved task
#: counts agree with the first ones to within :data:`RESOLVE_AGREE_RTOL`
#: (relative; far below :data:`NUMERIC_CONFIRM_RTOL`, so the confirmed
#: margin survives the re-solve).
RESOLVE_TIGHTEN: float = 1e-2
RESOLVE_AGREE_RTOL: float = 1e-6

#: Relative tolerance under which a policy's share function is recognised
#: as ``max_j a_j u_j`` or ``sum_j a_j u_j`` on probe rows (the simulator's
#: level jumps use the closed form, and re-check counts with the policy's
#: own function).
SHARE_FORM_RTOL: float = 1e-12

#: Box around a policy's numeric allocation inside which the SMT encoding of
#: the policy (:mod:`proofs.prover.encodings`) must have its only solution
#: when the instance is fixed (the encoding tests: a solution exists within
#: it, none outside it); absolute, on instances with capacities near 1.
ENCODING_CHECK_ATOL: float = 1e-6


#: Relative distance under which two float keys of the discrete engine's
#: level jump (:mod:`models.discrete.level_jump`) may hide an exact order
#: different from theirs (float64 keys carry a relative error of a few
#: 1e-16); such neighbours are re-sorted with exact integer keys.
KEY_NEAR: float = 1e-12

#: Worst-case search (analyzer/worst): a certificate (the optimiser's point,
#: rounded to small integers or converted exactly) stands for the point only
#: when its metric value, in floats and then exactly, is within this relative
#: distance of the float value found, on either side: shrinking never loses
#: more than this, and a certificate never claims more than the search found
#: by more than this (which keeps the reported value monotone in the budget:
#: :mod:`analyzer.worst.certify`).
WORST_SHRINK_RTOL: float = 1e-6

#: Worst-case search: the optimiser's log-demand coordinates lie in
#: ``[-WORST_LOG_SPAN, 0]`` (demands between ``e^-span`` and 1 of a unit
#: capacity); in the zeros domain a coordinate below ``-WORST_ZERO_CUT`` is
#: the demand 0.
WORST_LOG_SPAN: float = 12.0
WORST_ZERO_CUT: float = 10.0

#: Bisection of a proved bound (proofs/bounds): stop when the proved value
#: and the attained value are this close (absolute, on the metric).
BOUND_BISECTION_TOL: float = 1e-3

#: A violation margin (:meth:`analyzer.properties.base.Property.margin`,
#: relative to the quantities compared) above ``-MARGIN_TIE`` is a numeric
#: tie: the search's margin optimisation, which drives instances towards
#: ties, does not send such an instance to the exact check (the checks'
#: own screens need a gap of :data:`COMPARE_RTOL` too).
MARGIN_TIE: float = COMPARE_RTOL
