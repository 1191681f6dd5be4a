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

from .tolerances import ALPHA_FAIR_KKT_RTOL, CEEI_ARMIJO, CEEI_LINE_SEARCH_STEPS, FEASIBILITY_RTOL

#: Newton iterations before giving up.
MAX_ITERATIONS: int = 200
#: A priced, under-used resource whose share of every user's price is below
#: this leaves the priced set (its price is 0 at the optimum).
PRICE_DROP: float = 1e-14


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


class _KKT:
    """The KKT map of one instance (live users, used resources), in logs."""

    def __init__(self, A: np.ndarray, unit: np.ndarray, w: np.ndarray, k: np.ndarray, beta: float) -> None:
        self.A, self.k, self.beta = A, k, beta
        with np.errstate(divide="ignore"):
            self.logA = np.log(A)  # -inf where a user does not use a resource
        self.log_base = np.log(w / unit) + np.log(unit) / beta  # log x_i = log_base_i - log q_i / beta

    def tasks(self, z: np.ndarray, priced: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``x(p)``, ``theta`` (shape (n, m), 0 off the priced set) and the
        uncapped mask, for log-prices ``z`` on ``priced``."""
        terms = np.where(priced[None, :], self.logA + np.where(priced, z, 0.0)[None, :], -np.inf)
        top = terms.max(axis=1)
        safe = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            logq = safe + np.log(np.exp(terms - safe[:, None]).sum(axis=1))
            theta = np.where(np.isfinite(top)[:, None], np.exp(terms - logq[:, None]), 0.0)
            free = np.exp(np.where(np.isfinite(top), self.log_base - logq / self.beta, np.inf))
        x = np.minimum(free, self.k)
        return x, theta, free < self.k

    def residuals(self, x: np.ndarray, priced: np.ndarray) -> tuple[np.ndarray, float]:
        """``log usage`` per resource and the KKT residual."""
        with np.errstate(divide="ignore", invalid="ignore"):
            F = np.log(np.einsum("i,ij->j", x, self.A))
        if not np.all(np.isfinite(F[priced])) or np.any(np.isnan(F)):
            return F, np.inf
        res = max(float(np.max(np.abs(F[priced]), initial=0.0)), float(np.max(F[~priced], initial=0.0)))
        return F, res

    def step(self, x: np.ndarray, theta: np.ndarray, unc: np.ndarray, F: np.ndarray, priced: np.ndarray
             ) -> np.ndarray:
        """Newton direction for ``z`` on the priced resources."""
        J = np.flatnonzero(priced)
        usage = np.exp(F[J])
        weight = np.where(unc, x, 0.0)[:, None] * self.A[:, J] / usage[None, :]  # (n, |J|)
        M = weight.T @ theta[:, J] / self.beta  # -dF/dz
        diag = np.diagonal(M).copy()
        tiny = diag <= np.finfo(float).eps * max(float(diag.max(initial=0.0)), 1.0)
        # a resource whose users are all capped: step as if one uncapped user held it
        M = M + np.diag(np.where(tiny, 1.0 / self.beta, 0.0))
        try:
            return np.linalg.solve(M, F[J])
        except np.linalg.LinAlgError:
            return np.linalg.lstsq(M, F[J], rcond=None)[0]


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
    """Solve the weighted alpha-fair program (module docstring) for finite ``beta > 0``.

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
    R = np.asarray(capacity, dtype=float)
    D = np.asarray(demands, dtype=float)
    n, m = D.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    k = np.full(n, np.inf) if max_tasks is None else np.asarray(max_tasks, dtype=float)
    x, log_prices = np.zeros(n), np.full(m, -np.inf)
    live = np.flatnonzero(k > 0)
    used = np.flatnonzero((D[live] > 0).any(axis=0))
    if live.size == 0:
        return AlphaFairResult(x, log_prices, 0, 0.0)
    kkt = _KKT(D[np.ix_(live, used)] / R[used], np.asarray(unit, dtype=float)[live], w[live], k[live], beta)
    z, priced = _start(kkt, np.asarray(start, dtype=float)[live], w[live], np.asarray(unit, dtype=float)[live])
    z, priced, xl, it, res = _newton(kkt, z, priced, tol)
    x[live] = xl
    log_prices[used] = np.where(priced, z, -np.inf)
    return AlphaFairResult(x, log_prices, it, res)


def _newton(kkt: _KKT, z: np.ndarray, priced: np.ndarray, tol: float
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, float]:
    """Newton iterations on the log-prices ``z`` of the priced set, which
    is updated as resources fill or empty; returns ``(z, priced, x,
    iterations, residual)``."""
    xl, theta, unc = kkt.tasks(z, priced)
    F, res = kkt.residuals(xl, priced)
    it = 0
    while res > tol and it < MAX_ITERATIONS:
        it += 1
        priced, z = _update_priced(kkt, z, priced, xl, theta, F)
        xl, theta, unc = kkt.tasks(z, priced)
        F, res = kkt.residuals(xl, priced)
        if not priced.any() or res <= tol:
            continue
        found = _line_search(kkt, z, priced, kkt.step(xl, theta, unc, F, priced), F, res)
        if found is None:
            # no progress on the priced set: a priced resource that cannot be
            # filled (its price belongs at 0) is the usual cause; drop the
            # most under-used one and go on, otherwise give up
            under = np.flatnonzero(priced & (F < 0))
            if under.size == 0:
                break
            priced = np.where(np.arange(priced.size) == under[np.argmin(F[under])], False, priced)
            xl, theta, unc = kkt.tasks(z, priced)
            F, res = kkt.residuals(xl, priced)
            continue
        z, xl, theta, unc, F, res = found
    return z, priced, xl, it, res


def _line_search(kkt: _KKT, z: np.ndarray, priced: np.ndarray, d: np.ndarray, F: np.ndarray, res: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float] | None:
    """Armijo search on the merit ``sum F^2`` over the priced set along the
    Newton direction ``d`` (a step that lowers the residual is also taken):
    the new ``(z, x, theta, uncapped, F, residual)``, or ``None`` when no
    step of :data:`~models.tolerances.CEEI_LINE_SEARCH_STEPS` halvings does."""
    merit = float(np.sum(F[priced] ** 2))
    alpha = 1.0
    for _ in range(CEEI_LINE_SEARCH_STEPS):
        trial = z.copy()
        trial[priced] += alpha * d
        t_x, t_theta, t_unc = kkt.tasks(trial, priced)
        t_F, t_res = kkt.residuals(t_x, priced)
        t_merit = float(np.sum(t_F[priced] ** 2)) if np.isfinite(t_res) else np.inf
        if t_merit <= (1.0 - 2.0 * CEEI_ARMIJO * alpha) * merit or t_res < res:
            return trial, t_x, t_theta, t_unc, t_F, t_res
        alpha *= 0.5
    return None


def _start(kkt: _KKT, x0: np.ndarray, w: np.ndarray, unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Log-prices from the ``beta = inf`` limit ``x0``: the price a user's
    level asks for (``q_i = u_i level_i^-beta``), on each saturated
    resource the smallest over its uncapped users (the richest user of a
    resource bounds its price)."""
    with np.errstate(divide="ignore"):
        logq = np.log(unit) - kkt.beta * np.log(unit * np.maximum(x0, 0.0) / w)
    uncapped = x0 < kkt.k
    usage = np.einsum("i,ij->j", x0, kkt.A)
    cand = np.where(uncapped[:, None] & (kkt.A > 0), logq[:, None] - kkt.logA, np.inf)
    z = cand.min(axis=0)
    priced = (usage >= 1.0 - FEASIBILITY_RTOL) & np.isfinite(z)
    return np.where(priced, z, 0.0), priced


def _update_priced(kkt: _KKT, z: np.ndarray, priced: np.ndarray, x: np.ndarray, theta: np.ndarray,
                   F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop under-used priced resources whose price no longer matters; price
    over-used resources (at a level that just starts to bind their users)."""
    priced, z = priced.copy(), z.copy()
    drop = priced & (F < 0) & (theta.max(axis=0) < PRICE_DROP)
    priced &= ~drop
    add = ~priced & (F > ALPHA_FAIR_KKT_RTOL)
    if add.any():
        terms = np.where(priced[None, :], kkt.logA + np.where(priced, z, 0.0)[None, :], -np.inf)
        logq = np.logaddexp.reduce(terms, axis=1)
        for j in np.flatnonzero(add):
            users = (kkt.A[:, j] > 0) & np.isfinite(logq)
            z[j] = float(np.min(logq[users] - kkt.logA[users, j])) if users.any() else 0.0
        priced |= add
    return priced, z


__all__ = ["AlphaFairResult", "solve_alpha_fair"]
