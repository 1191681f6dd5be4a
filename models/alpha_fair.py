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

from collections.abc import Sequence
from dataclasses import dataclass

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
)
from .batching import solve_systems
from .tolerances import ALPHA_FAIR_KKT_RTOL


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
    :data:`~models.alpha_fair_newton.MAX_ITERATIONS`."""
    D = np.asarray(demands, dtype=float)
    K, n, m = D.shape
    R = np.broadcast_to(np.asarray(capacity, dtype=float), (K, m))
    w = np.broadcast_to(np.ones(n) if weights is None else np.asarray(weights, dtype=float), (K, n))
    k = np.broadcast_to(np.inf if max_tasks is None else np.asarray(max_tasks, dtype=float), (K, n))
    u = np.broadcast_to(np.asarray(unit, dtype=float), (K, n))
    live = k > 0  # users capped at 0 get nothing and leave the program
    A = np.where(live[:, :, None], D / R[:, None, :], 0.0)
    used = (A > 0).any(axis=1)  # a resource nobody live uses is never priced
    kkt = KKTBatch(A, u, w, k, beta)
    z, priced = start(kkt, np.asarray(start_x, dtype=float), w, u)
    st, it = newton(kkt, z, priced, tol, solve, max_iterations)
    x = np.where(live, st.x, 0.0)
    return AlphaFairBatch(x, np.where(used & st.priced, st.z, -np.inf), it, st.res)


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


__all__ = ["MAX_ITERATIONS", "PRICE_DROP", "AlphaFairBatch", "AlphaFairResult", "solve_alpha_fair",
           "solve_alpha_fair_batch"]
