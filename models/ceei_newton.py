"""CEEI without a conic solver: a projected Newton method on the dual.

Ghodsi et al., NSDI 2011, Section 5.2: with Leontief users, CEEI is the
allocation maximising ``sum_i w_i log x_i`` (the weighted Eisenberg-Gale
program) subject to the capacities ``sum_i x_i d_ij <= R_j`` and the caps
``0 <= x_i <= k_i``. This module solves its Lagrange dual, which has one
variable per *resource*, so a Newton step costs ``O(n m^2)`` numpy work and
a ``m x m`` linear solve however many users there are.

The dual
--------
Scale resource ``j`` to capacity 1 (``a_ij = d_ij / R_j``) and the weights to
sum 1 (``v_i = w_i / W``); the price of resource ``j`` is ``pi_j >= 0`` and
user ``i`` pays ``q_i = pi . a_i`` per task. Maximising the Lagrangian over
``0 <= x_i <= k_i`` user by user gives ``x_i(pi) = min(k_i, v_i / q_i)`` and
the concave conjugate of ``v_i log x`` restricted to ``x <= k_i``::

    h_i(q) = v_i log v_i - v_i - v_i log q    if q >= v_i / k_i  (uncapped)
    h_i(q) = v_i log k_i - k_i q              if q <= v_i / k_i  (capped)

``h_i`` is convex and continuously differentiable (both pieces equal
``v_i log k_i - v_i`` with slope ``-k_i`` at ``q = v_i / k_i``). The dual is::

    minimise  G(pi) = sum_j pi_j + sum_i h_i(pi . a_i)   over pi >= 0,

with gradient ``1 - sum_i x_i(pi) a_i`` (the relative slack of each resource)
and generalised Hessian ``sum_{i uncapped} v_i / q_i^2 a_i a_i^T``. For every
``pi >= 0``, ``G(pi) - sum_i v_i log x_i(pi) = sum_j pi_j slack_j``: the
duality gap *is* complementary slackness, so ``pi`` with a zero projected
gradient certifies ``x(pi)`` optimal. The prices in resource units are
``p_j = W pi_j / R_j`` (the multipliers of the unscaled program).

The method
----------
Bertsekas' projected Newton method for bound constraints (Bertsekas,
"Projected Newton methods for optimization problems with simple
constraints", SIAM J. Control Optim. 20(2), 1982): prices within ``eps`` of
0 whose gradient pushes them down are held at 0 (the resources nobody
saturates); the others take a Newton step regularised by ``mu I`` with ``mu``
proportional to the residual (which keeps quadratic convergence and handles
a singular Hessian, e.g. when every user of a resource is capped); an
Armijo search along the projection arc keeps ``pi >= 0`` and the iterates in
the domain (``q_i > 0`` for uncapped users). Once objective changes are at
roundoff level (:data:`~models.tolerances.CEEI_VALUE_RTOL`) a step is judged
by its residual instead.

Examples
--------
The paper's example (Section 5.2): CEEI gives A 45/11 tasks and B 18/11.

>>> import numpy as np
>>> r = solve_eisenberg_gale([9, 18], np.array([[1.0, 4.0], [3.0, 1.0]]))
>>> [round(float(v) * 11, 9) for v in r.x]
[45.0, 18.0]
>>> r.converged, r.failure() is None
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .tolerances import (
    CEEI_ARMIJO,
    CEEI_CERTIFICATE_RTOL,
    CEEI_KKT_RTOL,
    CEEI_LINE_SEARCH_STEPS,
    CEEI_NEWTON_REGULARIZATION,
    CEEI_NEWTON_TOL,
    CEEI_VALUE_RTOL,
    FEASIBILITY_RTOL,
)

#: Newton iterations before giving up (the caller then falls back to cvxpy).
MAX_ITERATIONS: int = 200
#: Step halvings of one Armijo search before giving up. Steps along a price
#: of zero curvature (every user of the resource capped) may have to shrink
#: from the size of the largest demand ratio to that of the smallest, so the
#: search stops earlier only when the trial point no longer moves.
MAX_HALVINGS: int = 240
#: Factors by which the batched solver's damping shrinks after a good Newton
#: step and grows after a failed one.
_DAMPING_DOWN = 10.0
_DAMPING_UP = 1e3
#: Levenberg-Marquardt factor: the Newton system is ``H + mu I`` with
#: ``mu = REGULARIZATION * residual * max(mean diag H, 1)``.
REGULARIZATION: float = 1e-3


@dataclass(frozen=True)
class NewtonResult:
    """Outcome of :func:`solve_eisenberg_gale`.

    Attributes
    ----------
    x : ndarray, shape (n,)
        Tasks per user, ``min(k_i, w_i / (p . d_i))`` (0 for users capped at 0).
    prices : ndarray, shape (m,)
        Resource prices ``p_j >= 0`` in resource units: the Lagrange
        multipliers of the capacities in ``max sum_i w_i log x_i``.
    iterations : int
        Newton iterations taken.
    residual : float
        Final projected-gradient norm (largest relative slack of a priced
        resource or relative excess of any resource).
    gap : float
        Duality gap ``G(pi) - sum_i v_i log x_i`` in normalised units.
    complementary_slackness : float
        ``max_j pi_j |slack_j|`` in normalised units (weights summing to 1,
        so comparable with the duality gap ``sum_j pi_j slack_j``).
    excess : float
        Largest relative capacity excess ``max_j (usage_j / R_j - 1)``.
    converged : bool
        True when the residual reached :data:`~models.tolerances.CEEI_NEWTON_TOL`.
    """

    x: np.ndarray
    prices: np.ndarray
    iterations: int
    residual: float
    gap: float
    complementary_slackness: float
    excess: float
    converged: bool

    def failure(self) -> str | None:
        """``None`` when the solution is certified optimal (primal
        feasibility within :data:`~models.tolerances.FEASIBILITY_RTOL`,
        duality gap and complementary slackness within
        :data:`~models.tolerances.CEEI_CERTIFICATE_RTOL`), otherwise why not."""
        if not np.all(np.isfinite(self.x)):
            return "non-finite task counts"
        if self.excess > FEASIBILITY_RTOL:
            return f"capacity exceeded by {self.excess:.2e} (relative)"
        if abs(self.gap) > CEEI_CERTIFICATE_RTOL:
            return f"duality gap {self.gap:.2e}"
        if self.complementary_slackness > CEEI_CERTIFICATE_RTOL:
            return f"complementary slackness violated by {self.complementary_slackness:.2e}"
        if not self.converged:
            return f"no convergence in {self.iterations} iterations (residual {self.residual:.2e})"
        return None


class _Dual:
    """The normalised dual ``G`` of one instance, vectorised over users.

    The scaled demands are stored transposed (``AT``, shape (m, n),
    C-contiguous): every pass over the users is then ``m`` long
    contiguous dot products. Matrix-vector products use ``np.einsum``, not
    ``@``: a threaded BLAS ``gemv`` on a tall, 8-column matrix measured up to
    100x slower on a loaded 2-core machine (benchmarks/bench_ceei.py).
    """

    def __init__(self, AT: np.ndarray, v: np.ndarray, k: np.ndarray) -> None:
        self.AT = AT
        self.v = v
        self.k = k
        fin = np.isfinite(k)
        self.unbounded = ~fin
        self.k_fin = np.where(fin, k, 0.0)
        self.thr = np.where(fin, v / np.where(fin, k, 1.0), 0.0)  # capped iff q <= thr
        self.cap_const = np.where(fin, v * np.log(np.where(fin, k, 1.0)), 0.0)  # v log k
        self.free_const = v * np.log(v) - v  # v log v - v

    def evaluate(self, pi: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        """Value, ``q``, ``x(pi)`` and the uncapped mask; value ``inf``
        outside the domain (a user without cap and with ``q <= 0``)."""
        q = np.einsum("j,ji->i", pi, self.AT)
        unc = q > self.thr
        if np.any(self.unbounded & (q <= 0.0)):
            return np.inf, q, np.zeros_like(q), unc
        qu = np.where(unc, q, 1.0)
        x = np.where(unc, self.v / qu, self.k)
        h = np.where(unc, self.free_const - self.v * np.log(qu), self.cap_const - self.k_fin * q)
        return float(pi.sum() + h.sum()), q, x, unc

    def gradient(self, x: np.ndarray) -> np.ndarray:
        """``1 - sum_i x_i a_i``: the relative slack of each resource."""
        return 1.0 - np.einsum("ji,i->j", self.AT, x)

    def hessian(self, q: np.ndarray, unc: np.ndarray) -> np.ndarray:
        """``sum_{i uncapped} v_i / q_i^2 a_i a_i^T``."""
        c = np.where(unc, self.v / np.where(unc, q * q, 1.0), 0.0)
        return (self.AT * c) @ self.AT.T


def _residual(pi: np.ndarray, grad: np.ndarray) -> float:
    """Infinity norm of the projected gradient ``pi - max(0, pi - grad)``."""
    return float(np.max(np.abs(pi - np.maximum(pi - grad, 0.0)), initial=0.0))


def solve_eisenberg_gale(
    capacity: Sequence[float] | np.ndarray,
    demands: np.ndarray,
    weights: Sequence[float] | np.ndarray | None = None,
    max_tasks: Sequence[float] | np.ndarray | None = None,
    tol: float = CEEI_NEWTON_TOL,
) -> NewtonResult:
    """Solve ``max sum_i w_i log x_i`` s.t. ``sum_i x_i d_i <= R``,
    ``0 <= x_i <= k_i`` through its dual (Ghodsi et al., NSDI 2011, Section
    5.2; the derivation is in the module docstring).

    Parameters
    ----------
    capacity : array_like, shape (m,)
        Capacities ``R_j > 0``.
    demands : ndarray, shape (n, m)
        Demand vectors ``d_i >= 0``, none all zero.
    weights : array_like, shape (n,), optional
        Weights ``w_i > 0`` (default 1).
    max_tasks : array_like, shape (n,), optional
        Caps ``k_i >= 0``, ``inf`` for none (default: no caps).
    tol : float
        Stopping tolerance on the projected-gradient residual.

    Returns
    -------
    NewtonResult
        The allocation, the prices and the optimality measures; call
        :meth:`NewtonResult.failure` to know whether it is certified.
    """
    R = np.asarray(capacity, dtype=float)
    D = np.asarray(demands, dtype=float)
    n, m = D.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    k = np.full(n, np.inf) if max_tasks is None else np.asarray(max_tasks, dtype=float)
    x = np.zeros(n)
    prices = np.zeros(m)
    live = np.flatnonzero(k > 0)  # users capped at 0 get nothing and leave the program
    if live.size == 0:
        return NewtonResult(x, prices, 0, 0.0, 0.0, 0.0, 0.0, True)
    everyone = live.size == n
    DT = D.T if everyone else D[live].T  # a view when nobody is capped at 0
    used = np.flatnonzero((DT > 0).any(axis=1))  # a resource nobody uses has price 0
    AT = DT[used] / R[used, None]  # scaled demands, transposed, C-contiguous
    W = float(w[live].sum())
    dual = _Dual(AT, (w if everyone else w[live]) / W, k if everyone else k[live])

    pi = np.full(used.size, 1.0 / used.size)  # every user's q > 0: in the domain
    value, q, xl, unc = dual.evaluate(pi)
    grad = dual.gradient(xl)
    res = _residual(pi, grad)
    it = 0
    while res > tol and it < MAX_ITERATIONS:
        it += 1
        active = (pi <= min(res, 1.0)) & (grad > 0.0)
        free = ~active
        d = -pi.copy()  # active prices go to 0
        if free.any():
            H = dual.hessian(q, unc)[np.ix_(free, free)]
            diag = np.diagonal(H)
            floor = max(float(diag.max()), 1.0) * np.finfo(float).eps
            mu = REGULARIZATION * min(res, 1.0) * np.maximum(diag, floor)  # Marquardt: scaled per price
            d[free] = np.linalg.solve(H + np.diag(mu + (diag <= floor)), -grad[free])
        alpha = 1.0
        accepted = False
        for _ in range(MAX_HALVINGS):
            trial = np.maximum(pi + alpha * d, 0.0)
            if np.array_equal(trial, pi):
                break
            t_value, t_q, t_x, t_unc = dual.evaluate(trial)
            if np.isfinite(t_value):
                decrease = float(grad @ (trial - pi))  # <= 0 along a descent arc
                if abs(decrease) <= CEEI_VALUE_RTOL * (1.0 + abs(value)):
                    t_grad = dual.gradient(t_x)
                    accepted = t_value <= value or _residual(trial, t_grad) < res
                elif t_value <= value + CEEI_ARMIJO * decrease:
                    t_grad = dual.gradient(t_x)
                    accepted = True
            if accepted:
                break
            alpha *= 0.5
        if not accepted:
            break
        pi, value, q, xl, unc, grad = trial, t_value, t_q, t_x, t_unc, t_grad
        res = _residual(pi, grad)

    x[live] = xl
    prices[used] = pi * W / R[used]
    primal = float(dual.v @ np.log(xl))
    slack = grad  # 1 - usage, per used resource
    cs = float(np.max(pi * np.abs(slack)))
    usage_share = np.einsum("i,ij->j", x, D) / R
    return NewtonResult(
        x=x,
        prices=prices,
        iterations=it,
        residual=res,
        gap=value - primal,
        complementary_slackness=cs,
        excess=float(np.max(usage_share - 1.0, initial=0.0)),
        converged=res <= tol,
    )


def ceei_batch(
    demands: np.ndarray,
    capacity: np.ndarray,
    weights: np.ndarray,
    caps: np.ndarray,
    iterations: int = 80,
    freeze: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted CEEI (Eisenberg-Gale) tasks for a batch of instances, by a
    projected Newton method on the prices, vectorised over the batch.

    Ghodsi et al., NSDI 2011, Section 5.2: with Leontief users CEEI
    maximises ``sum_i w_i log x_i`` under the capacities and caps. Its dual
    minimises over prices ``p >= 0``

    ``g(p) = sum_j p_j R_j + sum_i max_{0 <= x <= k_i} (w_i log x - x d_i.p)``

    whose minimiser gives ``x_i = min(k_i, w_i / d_i.p)``. ``g`` is convex
    with gradient ``R - sum_i x_i d_i`` and Hessian
    ``sum_{i uncapped} w_i / (d_i.p)^2 d_i d_i^T``. Users capped at zero take
    nothing. A screen only: every reported violation is re-verified by the
    policy's own exact solver.

    Parameters
    ----------
    demands : ndarray, shape (K, n, m)
    capacity : ndarray, shape (m,) or (K, m)
    weights : ndarray, shape (n,)
    caps : ndarray, shape (K, n)
    iterations : int
        Newton steps (each with a vectorised backtracking line search).
    freeze : bool
        Stop updating a member once its KKT residuals are small, so that
        each member ends exactly where a batch of that member alone would
        (used to screen many unrelated instances at once).

    Returns
    -------
    x : ndarray, shape (K, n)
    converged : ndarray of bool, shape (K,)
        Whether every KKT residual fell below
        :data:`~models.tolerances.CEEI_KKT_RTOL` (callers re-solve the
        others with the policy's own solver).
    """
    K, n, m = demands.shape
    R = np.broadcast_to(capacity, (K, m)).astype(float)
    live = caps > 0
    w = np.where(live, weights[None, :], 0.0)
    D = np.where(live[:, :, None], demands, 0.0)
    used = D.sum(axis=1) > 0  # (K, m) resources some live user needs
    # start: prices making each user's uncapped demand use 1/n of its scarcest resource
    p = np.where(used, w.sum(axis=1, keepdims=True) / (m * R), 0.0)
    alphas = 0.5 ** np.arange(CEEI_LINE_SEARCH_STEPS)
    mu = np.full(K, CEEI_NEWTON_REGULARIZATION)  # Levenberg-Marquardt damping, relative to the Hessian's scale

    def value(P: np.ndarray) -> np.ndarray:  # P (..., K, m) -> g (..., K)
        c = np.einsum("knm,...km->...kn", D, P)
        with np.errstate(divide="ignore", invalid="ignore"):
            unc = np.where(c > 0, w * (np.log(w / np.where(c > 0, c, 1.0)) - 1.0), np.inf)
            unc = np.where(w > 0, unc, 0.0)
            capped = np.where(np.isfinite(caps), w * np.log(np.where(caps > 0, caps, 1.0)) - caps * c, -np.inf)
            phi = np.where(live & (c * caps >= w), unc, np.where(live, capped, 0.0))
        phi = np.where(live & ~np.isfinite(caps), unc, phi)
        return (P * R).sum(axis=-1) + phi.sum(axis=-1)

    for _ in range(iterations):
        c = np.einsum("knm,km->kn", D, p)
        with np.errstate(divide="ignore", invalid="ignore"):
            xu = np.where(c > 0, w / np.where(c > 0, c, 1.0), np.inf)
        x = np.where(live, np.minimum(xu, caps), 0.0)
        G = R - np.einsum("kn,knm->km", x, D)
        pg = np.where(used & (p > 0), G, np.minimum(G, 0.0))  # projected gradient (KKT residual)
        done = np.all(np.abs(pg) <= CEEI_KKT_RTOL * R, axis=1)
        if done.all():
            break
        unc = live & (xu < caps)
        with np.errstate(divide="ignore", invalid="ignore"):
            h = np.where(unc & (c > 0), w / np.where(c > 0, c, 1.0) ** 2, 0.0)
        H = np.einsum("kn,kni,knj->kij", h, D, D)
        # epsilon-active set (Bertsekas): a price whose gradient step would cross zero goes to zero
        active = (~used) | ((G > 0) & (p * np.diagonal(H, axis1=1, axis2=2) <= G))
        free = ~active
        scale = np.maximum(np.trace(H, axis1=1, axis2=2) / m, 1.0 / (R * R).max(axis=1))
        Hr = np.where(free[:, :, None] & free[:, None, :], H, 0.0)
        Hr = Hr + np.eye(m)[None] * np.where(free, (scale * mu)[:, None], 1.0)[:, None, :]
        step = -np.linalg.solve(Hr, np.where(free, G, 0.0)[:, :, None])[:, :, 0]
        step = np.where(free, step, -p)
        trial = np.maximum(p[None] + alphas[:, None, None] * step[None], 0.0)  # (A, K, m)
        g0 = value(p)
        gt = value(trial)
        noise = CEEI_VALUE_RTOL * (np.abs(g0) + 1.0)  # near the optimum g changes below its rounding
        armijo = gt <= g0[None] + CEEI_ARMIJO * np.einsum("km,akm->ak", G, trial - p[None]) + noise[None]
        pick = np.where(armijo.any(axis=0), armijo.argmax(axis=0), np.argmin(gt, axis=0))
        better = gt[pick, np.arange(K)] <= g0 + noise
        if freeze:
            better &= ~done
        ok = better & armijo.any(axis=0)
        p = np.where(better[:, None], trial[pick, np.arange(K)], p)
        mu = np.where(ok, np.maximum(mu / _DAMPING_DOWN, CEEI_NEWTON_REGULARIZATION), mu * _DAMPING_UP)
    c = np.einsum("knm,km->kn", D, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        xu = np.where(c > 0, w / np.where(c > 0, c, 1.0), np.inf)
    x = np.where(live, np.minimum(xu, caps), 0.0)
    G = R - np.einsum("kn,knm->km", x, D)
    pg = np.where(used & (p > 0), G, np.minimum(G, 0.0))
    return x, np.all(np.abs(pg) <= CEEI_KKT_RTOL * R, axis=1) & np.isfinite(x).all(axis=1)
