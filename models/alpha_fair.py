"""The alpha-fair program by Newton's method on its KKT system, in log-prices.

Joe-Wong, Sen, Lan, Chiang, INFOCOM 2012, Section III: FDS and GFJ maximise
``sum_i w_i U_beta(u_i x_i / w_i)`` (``U_beta(v) = v^(1-beta) / (1-beta)``,
``log`` at ``beta = 1``) subject to ``sum_i x_i a_ij <= 1`` (``a_ij = d_ij /
R_j``) and ``0 <= x_i <= k_i``; ``u_i`` is the utility of one task (FDS:
the dominant share, GFJ: 1).

Why not a conic solver
----------------------
For moderate ``beta`` the objective is dominated by the poorest users: a
user at ``6`` times the lowest level contributes ``6^-15`` of the objective
at ``beta = 16``, below any solver tolerance, so conic solvers return its
task count almost arbitrarily (and an objective comparison cannot see the
error). This module works on the optimality conditions instead, which are
scale-free.

The method
----------
KKT stationarity gives every user's tasks as a function of the resource
prices ``p_j >= 0``: with ``q_i = sum_j p_j a_ij``,
``x_i(p) = min(k_i, (w_i / u_i) (u_i / q_i)^(1/beta))``. The prices of the
*priced* resources ``J`` solve ``log usage_j(p) = 0`` (``j in J``); the
others have price 0 and must not be over-used. Prices span hundreds of
orders of magnitude for large ``beta`` (``p ~ level^-beta``), so the
unknowns are ``z_j = log p_j`` and every quantity is formed in logs
(``log q_i`` by log-sum-exp): nothing over- or underflows. Newton's method
on ``F_j(z) = log usage_j`` has the Jacobian
``dF_j/dz_l = -(1/beta) sum_{i uncapped} (x_i a_ij / usage_j) theta_il``,
``theta_il = p_l a_il / q_i`` (the part of user ``i``'s price due to
resource ``l``); a backtracking search on ``|F|`` damps it. A priced
resource whose price no longer matters to any user (``theta < PRICE_DROP``)
while it is under-used leaves ``J``; an over-used resource joins it.

The iteration lives in :mod:`models.alpha_fair_newton`. It runs on a batch
of instances at once (:func:`solve_alpha_fair_batch`), each member with its
own prices, priced set and stopping test, as if it were alone:
:meth:`models.policies.fds.FDS.solve` runs it on a batch of one
(:func:`solve_alpha_fair`), the property screens on many
(:meth:`models.policies.fds.FDS.batch_solver`), as CEEI's dual Newton
method does (:mod:`models.ceei_newton`).

Priced sets
-----------
From the max-min start, the first prices can over-use more resources than
there are users; all of them are then priced, and the Newton system of
``|J| > n`` resources has rank at most ``n``: it is inconsistent and the
iteration stalls (about 2 instances in 1,000 of the searches' classes, two
or three users on three or four resources). At the optimum at most one
priced resource per uncapped user is needed, so a member the iteration
does not certify is solved again, in one batch, with each candidate priced
set ``J`` held fixed (every subset of the resources its live users need,
of at most as many resources as live users, smallest first, while there
are at most :data:`PRICED_SETS_LIMIT` of them), started from the prices
of the max-min limit (:func:`models.alpha_fair_newton.start_prices`): the
first candidate whose answer passes the certificate below is the answer
(the program is strictly concave in ``x``, so any certified answer is the
optimum). A member no candidate certifies goes on with the rest of its
own iterations (alone: up to :data:`MAX_ITERATIONS`), and, still not
certified, is left to the caller's fallback (:meth:`models.policies.fds.FDS.solve`
then starts from the convex program's answer in cvxpy).

Certificate: stationarity holds by construction and prices are ``>= 0``;
the answer is accepted when every priced resource is used to within
:data:`~models.tolerances.ALPHA_FAIR_KKT_RTOL` of its capacity and no
resource is over-used by more: ``x`` is then the *exact* optimum of the
program with every capacity changed by at most that relative amount.

Examples
--------
R = <1, 6>, A: <1, 0>, B: <0, 1>, beta = 16 on task counts: A 1, B 6.

>>> import numpy as np
>>> r = solve_alpha_fair([1, 6], np.array([[1.0, 0.0], [0.0, 1.0]]), np.ones(2), beta=16.0,
...                      start=np.array([1.0, 6.0]))
>>> [round(float(v), 9) for v in r.x], r.failure() is None
([1.0, 6.0], True)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from math import comb as math_comb

import numpy as np

from .alpha_fair_newton import (
    BATCH_MAX_ITERATIONS,
    MAX_ITERATIONS,
    PRICE_DROP,
    KKTBatch,
    Solver,
    least_squares,
    newton,
    start,
    start_prices,
)
from .batching import solve_systems
from .tolerances import ALPHA_FAIR_KKT_RTOL

#: Most candidate priced sets tried for a member the Newton method does not
#: certify (module docstring, "Priced sets"): every instance of up to 6
#: resources, or of 3 users on 7.
PRICED_SETS_LIMIT: int = 64


@dataclass(frozen=True)
class AlphaFairResult:
    """Outcome of :func:`solve_alpha_fair`.

    Attributes
    ----------
    x : ndarray, shape (n,)
        Tasks per user (0 for users capped at 0).
    log_prices : ndarray, shape (m,)
        ``log p_j`` of the normalised program (capacities 1), ``-inf`` for
        resources of price 0.
    iterations : int
        Newton iterations taken.
    residual : float
        Largest ``|log usage_j|`` of a priced resource or ``log usage_j`` of
        another one (0 when it is under-used).
    """

    x: np.ndarray
    log_prices: np.ndarray
    iterations: int
    residual: float

    def explain(self) -> list[str]:
        """The certificate in plain words (``--explain``): floating point,
        so not an exact proof, but what it does establish."""
        priced = np.flatnonzero(np.isfinite(self.log_prices))
        verdict = self.failure()
        return [
            (f"KKT conditions in floating point (Newton on log-prices, {self.iterations} iterations): "
             f"{len(priced)} resource(s) priced, stationarity by construction, prices >= 0"),
            f"largest relative capacity residual {self.residual:.1e} (limit {ALPHA_FAIR_KKT_RTOL:g}) -> "
            + ("the exact optimum for capacities changed by at most that much" if verdict is None
               else f"NOT certified: {verdict}"),
        ]

    def failure(self) -> str | None:
        """``None`` when the KKT certificate holds (see the module
        docstring), otherwise why not."""
        if not np.all(np.isfinite(self.x)):
            return "non-finite task counts"
        if not self.residual <= ALPHA_FAIR_KKT_RTOL:
            return (f"KKT residual {self.residual:.2e} above {ALPHA_FAIR_KKT_RTOL:g} after "
                    f"{self.iterations} Newton iterations")
        return None


@dataclass(frozen=True)
class AlphaFairBatch:
    """Outcome of :func:`solve_alpha_fair_batch`: the fields of
    :class:`AlphaFairResult` with a leading batch axis (``K``)."""

    x: np.ndarray
    log_prices: np.ndarray
    iterations: np.ndarray
    residual: np.ndarray

    def result(self, k: int) -> AlphaFairResult:
        """Member ``k`` as an :class:`AlphaFairResult`."""
        return AlphaFairResult(self.x[k], self.log_prices[k], int(self.iterations[k]), float(self.residual[k]))

    def certified(self) -> np.ndarray:
        """(K,) bool: the members whose :meth:`AlphaFairResult.failure` is
        ``None`` (finite tasks, residual within
        :data:`~models.tolerances.ALPHA_FAIR_KKT_RTOL`)."""
        return np.isfinite(self.x).all(axis=1) & (self.residual <= ALPHA_FAIR_KKT_RTOL)


def solve_alpha_fair_batch(
    capacity: np.ndarray,
    demands: np.ndarray,
    unit: np.ndarray,
    beta: float,
    start_x: np.ndarray,
    weights: np.ndarray | None = None,
    max_tasks: np.ndarray | None = None,
    tol: float = ALPHA_FAIR_KKT_RTOL,
    solve: Solver = solve_systems,
    max_iterations: int = BATCH_MAX_ITERATIONS,
) -> AlphaFairBatch:
    """:func:`solve_alpha_fair` for a batch of instances: capacity (m,) or
    (K, m), demands (K, n, m), unit and start_x (K, n), weights (n,) or
    (K, n), max_tasks (K, n) (``inf`` for none). Each member has its own
    iterates and stopping test. The Newton systems are solved by
    :func:`models.batching.solve_systems` (a singular member takes a
    regularised step, one without a finite step stops uncertified) and a
    member stops after ``max_iterations``; a batch of one solved alone
    passes :func:`models.alpha_fair_newton.least_squares` and
    :data:`~models.alpha_fair_newton.MAX_ITERATIONS`. A member not
    certified after :data:`~models.alpha_fair_newton.BATCH_MAX_ITERATIONS`
    goes through the priced-set search (module docstring), and, if that
    does not certify it either, takes the rest of its ``max_iterations``
    from where it stopped."""
    D = np.asarray(demands, dtype=float)
    K, n, m = D.shape
    R = np.broadcast_to(np.asarray(capacity, dtype=float), (K, m))
    w = np.broadcast_to(np.ones(n) if weights is None else np.asarray(weights, dtype=float), (K, n))
    k = np.broadcast_to(np.inf if max_tasks is None else np.asarray(max_tasks, dtype=float), (K, n))
    u = np.broadcast_to(np.asarray(unit, dtype=float), (K, n))
    live = k > 0  # users capped at 0 get nothing and leave the program
    A = np.where(live[:, :, None], D / R[:, None, :], 0.0)
    used = np.any(A > 0, axis=1)  # a resource nobody live uses is never priced
    kkt = KKTBatch(A, u, w, k, beta)
    x0 = np.asarray(start_x, dtype=float)
    z, priced = start(kkt, x0, w, u)
    first = min(max_iterations, BATCH_MAX_ITERATIONS)
    st, it = newton(kkt, z, priced, tol, solve, first)
    state = (st.z, st.priced, st.x, st.res, it)
    failed = np.flatnonzero(~(np.isfinite(st.x).all(axis=1) & (st.res <= tol)))
    if failed.size:
        _priced_set_search(kkt, start_prices(kkt, x0, w, u)[0], used, live.sum(axis=1), failed, tol, state)
        failed = np.flatnonzero(~(np.isfinite(st.x).all(axis=1) & (st.res <= tol)))
    if failed.size and max_iterations > first:  # the rest of the iterations, from where the first ones stopped
        more, more_it = newton(kkt.take(failed), st.z[failed], st.priced[failed], tol, solve, max_iterations - first)
        _write(state, failed, (more.z, more.priced, more.x, more.res, more_it))
    x = np.where(live, st.x, 0.0)
    return AlphaFairBatch(x, np.where(used & st.priced, st.z, -np.inf), it, st.res)


@cache
def priced_sets(m: int, size: int) -> np.ndarray:
    """Every non-empty subset of ``m`` resources with at most ``size``
    members, as rows of a (S, m) bool array: smallest first, then in
    lexicographic order (module docstring, "Priced sets")."""
    subsets = [c for r in range(1, min(size, m) + 1) for c in itertools.combinations(range(m), r)]
    out = np.zeros((len(subsets), m), dtype=bool)
    for row, c in enumerate(subsets):
        out[row, list(c)] = True
    out.flags.writeable = False
    return out


def _priced_set_search(kkt: KKTBatch, z_all: np.ndarray, eligible: np.ndarray, n_live: np.ndarray,
                       rows: np.ndarray, tol: float, into: tuple[np.ndarray, ...]) -> None:
    """Solve the members ``rows`` again with each candidate priced set held
    fixed (module docstring, "Priced sets"), all candidates in one batch,
    from the log-prices ``z_all`` (K, m) of the max-min limit; resources
    outside ``eligible`` (K, m) and sets larger than ``n_live`` (K,) are
    not candidates. The first certified candidate of a member is written
    into ``into = (z, priced, x, residual, iterations)``; the others stay
    as they are."""
    m = z_all.shape[1]
    member, chosen = [], []
    for r in rows:
        size = int(min(n_live[r], m))
        if sum(math_comb(m, s) for s in range(1, size + 1)) > PRICED_SETS_LIMIT:
            continue
        sets = priced_sets(m, size)
        sets = sets[~(sets & ~(eligible[r] & np.isfinite(z_all[r]))).any(axis=1)]
        member.extend([r] * len(sets))
        chosen.append(sets)
    if not member:
        return
    rep, J = np.asarray(member), np.concatenate(chosen)
    st, it = newton(kkt.take(rep), np.where(J, z_all[rep], 0.0), J, tol, solve_systems, BATCH_MAX_ITERATIONS,
                    frozen=True)
    good = np.flatnonzero(np.isfinite(st.x).all(axis=1) & (st.res <= tol))
    first = good[np.unique(rep[good], return_index=True)[1]]  # each member's first certified candidate
    _write(into, rep[first], (st.z[first], st.priced[first], st.x[first], st.res[first], it[first]))


def _write(into: tuple[np.ndarray, ...], rows: np.ndarray, values: tuple[np.ndarray, ...]) -> None:
    """Write ``z, priced, x, residual`` of the members ``rows`` into
    ``into`` and add their iterations."""
    for target, value in zip(into[:4], values[:4], strict=True):
        target[rows] = value
    into[4][rows] += values[4]


def solve_alpha_fair(
    capacity: Sequence[float] | np.ndarray,
    demands: np.ndarray,
    unit: np.ndarray,
    beta: float,
    start: np.ndarray,
    weights: Sequence[float] | np.ndarray | None = None,
    max_tasks: Sequence[float] | np.ndarray | None = None,
    tol: float = ALPHA_FAIR_KKT_RTOL,
) -> AlphaFairResult:
    """Solve the weighted alpha-fair program (module docstring) for finite
    ``beta > 0``: :func:`solve_alpha_fair_batch` on a batch of one.

    Parameters
    ----------
    capacity, demands : array_like
        ``R`` (shape (m,)) and ``D`` (shape (n, m)).
    unit : ndarray, shape (n,)
        Utility of one task of each user (``> 0``).
    beta : float
        Fairness parameter, finite and ``> 0``.
    start : ndarray, shape (n,)
        A feasible allocation close in structure to the optimum (the
        ``beta = inf`` limit): it sets the first prices and priced set.
    weights, max_tasks : array_like, optional
        ``w_i > 0`` (default 1) and caps ``k_i`` (``inf`` for none).
    tol : float
        KKT residual to reach (the certificate of :meth:`AlphaFairResult.failure`
        is judged at :data:`~models.tolerances.ALPHA_FAIR_KKT_RTOL`).
    """
    D = np.asarray(demands, dtype=float)
    k = None if max_tasks is None else np.asarray(max_tasks, dtype=float)[None]
    w = None if weights is None else np.asarray(weights, dtype=float)
    return solve_alpha_fair_batch(np.asarray(capacity, dtype=float), D[None], np.asarray(unit, dtype=float)[None],
                                  beta, np.asarray(start, dtype=float)[None], w, k, tol, least_squares,
                                  MAX_ITERATIONS).result(0)


__all__ = ["MAX_ITERATIONS", "PRICED_SETS_LIMIT", "PRICE_DROP", "AlphaFairBatch", "AlphaFairResult", "priced_sets",
           "solve_alpha_fair", "solve_alpha_fair_batch"]
