"""Competitive Equilibrium from Equal Incomes (Nash product).

Ghodsi et al., NSDI 2011, Section 5.2: with Leontief users, CEEI is the
allocation maximising the Nash product ``prod_i x_i`` (weighted:
``sum_i w_i log x_i``, the Eisenberg-Gale program) under the capacities and
caps.

:meth:`CEEI.solve` (the fast path) solves the program's dual, one price per
resource, by a projected Newton method in numpy
(:mod:`models.ceei_newton`), and accepts the answer only with an optimality
certificate (primal feasibility, duality gap, complementary slackness);
otherwise it falls back to :meth:`CEEI.solve_program`, the program itself in
cvxpy (Clarabel, then SCS), which is also the cross-check
(:meth:`CEEI.crosscheck`). cvxpy is imported only when it is used.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..allocation import OPTIMAL, Allocation
from ..ceei_newton import ceei_batch, solve_eisenberg_gale
from ..errors import SolverError, SolverFailure
from ..instance import Instance
from ..policy import BatchSolver, Policy, register
from ..solvers import CONIC_SOLVERS, solve_problem
from ..tolerances import COMPARE_ATOL, FEASIBILITY_RTOL


@register
class CEEI(Policy):
    """Weighted CEEI / Eisenberg-Gale program with task caps.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> [round(float(v) * 11, 6) for v in CEEI().solve(inst).x]
    [45.0, 18.0]
    """

    name = "ceei"
    description = "CEEI: maximise the (weighted) Nash product of task counts"
    source = "Ghodsi et al., NSDI 2011, Section 5.2"
    scale_invariant = True  # sum_i w_i log x_i changes by the constant -w_i log c

    def program(self, instance: Instance) -> list[Any]:
        """The Eisenberg-Gale program, in scaled variables ``y_i = x_i / r_i``
        (``r_i`` the tasks of a weighted equal share, see :func:`build_program`), unsolved."""
        import cvxpy as cp

        prob, _ = build_program(instance)
        assert isinstance(prob, cp.Problem)
        return [prob]

    def solve(self, instance: Instance) -> Allocation:
        """Solve the dual by projected Newton (:mod:`models.ceei_newton`);
        fall back to :meth:`solve_program` when the result is not certified,
        and raise :class:`~models.errors.SolverFailure` (naming the instance)
        when that fails too.

        ``stats`` records the solver (``"newton"`` or ``"cvxpy-..."``), the
        iterations, the duality gap, the largest capacity violation and,
        after a fallback, why Newton's answer was rejected (``fallback``).
        The certificate is the :class:`~models.ceei_newton.NewtonResult`
        (resource prices included).
        """
        t0 = time.perf_counter()
        res = solve_eisenberg_gale(instance.capacity, instance.demands, instance.weights, instance.max_tasks)
        alloc = Allocation(instance=instance, x=res.x, policy=self.label, status=OPTIMAL, certificate=res,
                           stats={"solver": "newton", "iterations": res.iterations, "duality_gap": res.gap,
                                  "residual": res.residual})
        viol = alloc.max_violation()
        reason = res.failure() or (f"infeasible by {viol:.2e}" if viol > FEASIBILITY_RTOL else None)
        if reason is not None:
            try:
                fallback = self.solve_program(instance)
            except SolverError as exc:  # neither solver answers: the failure of this instance
                raise SolverFailure(self.label, instance, f"Newton's method rejected ({reason}) and the conic "
                                    f"program failed ({SolverFailure.of(exc, instance).reason})") from exc
            fallback.stats["fallback"] = f"newton rejected: {reason}"
            return fallback
        alloc.stats["max_violation"] = viol
        alloc.stats["seconds"] = time.perf_counter() - t0
        return alloc

    def batch_solver(self) -> BatchSolver | None:
        """The projected Newton method of :meth:`solve`, vectorised over a
        batch (:func:`models.ceei_newton.ceei_batch`): every member is
        solved as if alone and kept only when certified, as :meth:`solve`
        keeps Newton's answer."""
        return ceei_batch

    def crosscheck(self, instance: Instance) -> float:
        """Largest relative difference between the fast solution and the
        cvxpy one, ``max_i |x_i - x_i^cvxpy| / max(|x_i^cvxpy|, COMPARE_ATOL)``."""
        a, b = self.solve(instance).x, self.solve_program(instance).x
        return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), COMPARE_ATOL), initial=0.0))

    def solve_program(self, instance: Instance) -> Allocation:
        """Solve the Eisenberg-Gale program with cvxpy (Clarabel, falling
        back to SCS): the definition, the cross-check and the fallback."""
        t0 = time.perf_counter()
        if not np.any(instance.max_tasks > 0):  # everybody capped at 0: nothing to solve
            return Allocation(instance=instance, x=np.zeros(instance.n), policy=self.label, status=OPTIMAL,
                              stats={"solver": "trivial", "seconds": time.perf_counter() - t0})
        prob, recover = build_program(instance)

        def feasible(_: Any) -> str | None:
            viol = Allocation(instance=instance, x=recover(), policy=self.label).max_violation()
            return None if viol <= FEASIBILITY_RTOL else f"optimal but infeasible by {viol:.2e}"

        solver = solve_problem(prob, self.label, CONIC_SOLVERS, accept=feasible)
        alloc = Allocation(instance=instance, x=recover(), policy=self.label, status=OPTIMAL,
                           stats={"solver": f"cvxpy-{solver.lower()}", "seconds": time.perf_counter() - t0})
        alloc.stats["max_violation"] = alloc.max_violation()
        return alloc


def build_program(instance: Instance) -> tuple[Any, Any]:
    """The Eisenberg-Gale program of ``instance`` in cvxpy (unsolved) and a
    function recovering the task counts ``x`` after it is solved.

    The program in variables scaled to be of order 1 (Clarabel's
    tolerances are absolute in the scaled data; with ``x_i`` or
    ``x_i * s_i`` as variables it returns infeasible answers from 10^3 users
    on): ``y_i = x_i / r_i`` where ``r_i = (w_i / W) / s_i`` is what user
    ``i`` runs with the weighted equal share ``w_i / W`` of its dominant
    resource (``s_i`` the dominant share of one task), and the objective
    ``sum_i (w_i / mean w) log y_i`` (equal to the Eisenberg-Gale objective
    up to a positive factor and a constant)."""
    import cvxpy as cp

    D, R, w, k = instance.demands, instance.capacity, instance.weights, instance.max_tasks
    idx = np.flatnonzero(~(k <= 0))  # users capped at zero get nothing
    A = D[idx] / R
    s = A.max(axis=1)  # dominant share of one task
    wl = w[idx]
    r = (wl / wl.sum()) / s
    y = cp.Variable(idx.size, pos=True)
    used = np.flatnonzero((A > 0).any(axis=0))  # resources nobody uses are dropped
    cons = [(A[:, used] * r[:, None]).T @ y <= 1]
    kl = k[idx]
    fin = np.isfinite(kl)
    if fin.any():
        cons.append(y[np.flatnonzero(fin)] <= kl[fin] / r[fin])
    prob = cp.Problem(cp.Maximize((wl / wl.mean()) @ cp.log(y)), cons)

    def recover() -> np.ndarray:
        x = np.zeros(instance.n)
        x[idx] = np.asarray(y.value, dtype=float) * r
        return x

    return prob, recover
