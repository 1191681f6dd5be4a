"""Progressive filling of many instances at once, for the numeric screens.

The strategy-proofness screen evaluates a user's many candidate reports;
for a policy of the progressive-filling family (:class:`models.filling.
FillingPolicy` that keeps the family's own ``solve``) the reports are filled
together, vectorised over the batch. The result only selects candidates:
every reported violation is re-verified with the policy's own exact solver.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from models import Instance, Policy
from models.filling import FillingPolicy
from models.tolerances import (
    CEEI_ARMIJO,
    CEEI_KKT_RTOL,
    CEEI_LINE_SEARCH_STEPS,
    CEEI_NEWTON_REGULARIZATION,
    CEEI_VALUE_RTOL,
    SATURATION_RTOL,
    SCREEN_BATCH_ATOL,
    SCREEN_BATCH_RTOL,
)

from ._common import numeric_variant
from .base import CONTINUOUS

if TYPE_CHECKING:  # pragma: no cover
    from ._common import Evaluator


#: Factors by which the CEEI solver's damping shrinks after a good Newton
#: step and grows after a failed one.
_DAMPING_DOWN = 10.0
_DAMPING_UP = 1e3


#: A batch solver: (demands (K, n, m), capacity (m,) or (K, m), weights (n,),
#: caps (K, n)) -> (tasks (K, n), converged (K,)).
BatchSolver = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def is_filling(policy: Policy) -> bool:
    """True for a filling policy that keeps the family's own solver (its
    batch is as cheap as one solve)."""
    return isinstance(policy, FillingPolicy) and type(policy).solve is FillingPolicy.solve


def batch_solver(policy: Policy) -> BatchSolver | None:
    """The vectorised batch solver the screens may use for ``policy``:
    :func:`fill_batch` for the filling family, :func:`ceei_batch` for CEEI
    with its own program; ``None`` for any other policy (one solve per
    variant)."""
    if is_filling(policy):
        def filling(D: np.ndarray, R: np.ndarray, w: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return fill_batch(policy, D, R, w, k), np.ones(len(D), dtype=bool)  # type: ignore[arg-type]

        return filling
    from models.policies.ceei import CEEI

    return ceei_batch if type(policy) is CEEI else None


def batchable(policy: Policy) -> bool:
    """True when :func:`batch_solver` has a solver for ``policy``."""
    return batch_solver(policy) is not None


def fill_batch(
    policy: FillingPolicy,
    demands: np.ndarray,
    capacity: np.ndarray,
    weights: np.ndarray,
    caps: np.ndarray,
) -> np.ndarray:
    """Tasks per user for a batch of instances sharing their weights.

    Parameters
    ----------
    policy : FillingPolicy
        Gives the share of one task, ``share_per_task``.
    demands : ndarray, shape (K, n, m)
    capacity : ndarray, shape (m,) or (K, m)
    weights : ndarray, shape (n,)
    caps : ndarray, shape (K, n)
        Task caps (``inf`` for none).

    Returns
    -------
    ndarray, shape (K, n)

    Notes
    -----
    Event-driven filling (Ghodsi et al., NSDI 2011, Section 4.2): active
    user ``i`` holds ``t r_i`` tasks at level ``t`` (``r_i = w_i / c_i``);
    the next event is the lowest level at which an unsaturated resource
    fills or an active user reaches its cap. Users of a saturated resource
    and capped users freeze; each event freezes at least one user, so there
    are at most ``n`` rounds, each vectorised over the batch.
    """
    K, n, m = demands.shape
    if capacity.ndim == 1:
        c = shares(policy, demands, capacity)
        capacity = np.broadcast_to(capacity, (K, m))
    else:  # one share_per_task call per member: a share function may index the capacity vector
        c = np.stack([np.asarray(policy.share_per_task(demands[k], capacity[k]), dtype=float) for k in range(K)])
    return fill_shares(c, demands, capacity, weights, caps)


def fill_shares(c: np.ndarray, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
                caps: np.ndarray) -> np.ndarray:
    """The filling of :func:`fill_batch` from the shares of one task
    ``c`` (K, n) already computed; ``capacity`` has shape (K, m). Each
    member is filled independently of the others (the batch only
    vectorises).

    Users whose share of one task is 0 are not constrained by the share:
    as in :meth:`models.filling.FillingPolicy.solve` they wait while the
    others fill, then share the leftover by DRF (a second filling phase on
    dominant shares). Without this phase the batch would give a user-written
    policy with zero shares (e.g. CPU-only sharing) meaningless screens.
    """
    zero = c == 0
    if not zero.any():
        return _fill_phase(c, demands, capacity, weights, caps)
    capacity = np.broadcast_to(capacity, (demands.shape[0], demands.shape[2]))
    x = _fill_phase(np.where(zero, 1.0, c), demands, capacity, weights, np.where(zero, 0.0, caps))
    left = np.maximum(capacity - np.einsum("kn,knm->km", x, demands), 0.0)
    dom = (demands / capacity[:, None, :]).max(axis=2)
    return x + _fill_phase(dom, demands, left, weights, np.where(zero, caps, 0.0))


def _fill_phase(c: np.ndarray, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
                caps: np.ndarray) -> np.ndarray:
    """One filling phase of :func:`fill_shares` (every share positive)."""
    K, n, m = demands.shape
    r = weights[None, :] / c
    T = caps / r
    active = caps > 0
    x = np.zeros((K, n))
    base = np.zeros((K, m))
    sat = np.zeros((K, m), dtype=bool)
    uses = demands > 0
    for _ in range(n + 1):
        if not active.any():
            break
        slope = np.einsum("kn,knm->km", np.where(active, r, 0.0), demands)
        with np.errstate(divide="ignore", invalid="ignore"):
            ts = np.where((slope > 0) & ~sat, (capacity - base) / slope, np.inf)
        tc = np.where(active, T, np.inf)
        tstar = np.minimum(ts.min(axis=1), tc.min(axis=1))
        lim = tstar[:, None] * (1 + SATURATION_RTOL)
        sat_now = (ts <= lim) & ~sat
        cap_now = active & (tc <= lim)
        stop = cap_now | (active & (uses & sat_now[:, None, :]).any(axis=2))
        with np.errstate(invalid="ignore"):
            level = np.where(cap_now, caps, np.minimum(tstar[:, None] * r, caps))
        x = np.where(stop, level, x)
        base = base + np.einsum("kn,knm->km", np.where(stop, x, 0.0), demands)
        active &= ~stop
        sat |= sat_now
    return x


def shares(policy: FillingPolicy, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """``share_per_task`` over the whole batch at once (the family's share
    functions are row-wise numpy expressions)."""
    K, n, m = demands.shape
    flat = np.asarray(policy.share_per_task(demands.reshape(K * n, m), capacity), dtype=float)
    return flat.reshape(K, n)


def numeric_many(
    ev: Evaluator,
    instance: Instance,
    demands: np.ndarray | None = None,
    capacity: np.ndarray | None = None,
    caps: np.ndarray | None = None,
) -> np.ndarray:
    """Numeric tasks per user, shape (K, n), for K variants of ``instance``
    differing in demands (K, n, m), capacities (K, m) and/or caps (K, n):
    one vectorised batch for the filling family in the continuous setting,
    otherwise one solve per variant."""
    K = next(len(a) for a in (demands, capacity, caps) if a is not None)
    D = demands if demands is not None else np.broadcast_to(instance.demands, (K, instance.n, instance.m))
    R = capacity if capacity is not None else instance.capacity
    Kc = caps if caps is not None else np.broadcast_to(instance.max_tasks, (K, instance.n))
    solver = batch_solver(ev.policy) if ev.mode == CONTINUOUS else None
    todo: Any = range(K)
    out = np.empty((K, instance.n))
    if solver is not None:
        out, ok = solver(np.asarray(D, dtype=float), np.asarray(R, dtype=float), instance.weights,
                         np.asarray(Kc, dtype=float))
        todo = np.flatnonzero(~ok)  # not converged: the policy's own solver
    for k in todo:
        out[k] = ev.direct(numeric_variant(instance, capacity=R if R.ndim == 1 else R[k], demands=D[k],
                                           max_tasks=Kc[k]))
    return out


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


def numeric_batch(policy: Policy, instances: Sequence[Instance], mode: str) -> list[np.ndarray | None]:
    """Numeric tasks per user for many unrelated instances: one vectorised
    batch solve (:func:`batch_solver`) per group of instances with equal
    shape ``(n, m)`` and weights; ``None`` for an instance the batch cannot
    answer (no batch solver for the policy or the mode, or not converged),
    which the caller treats as a candidate for the full check.

    Each member is solved as :meth:`._common.Evaluator.numeric` would solve
    it alone (CEEI members are frozen once converged), up to rounding.
    """
    out: list[np.ndarray | None] = [None] * len(instances)
    if mode != CONTINUOUS:
        return out
    if is_filling(policy):
        def solve(D: np.ndarray, R: np.ndarray, w: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return fill_batch(policy, D, R, w, k), np.ones(len(D), dtype=bool)  # type: ignore[arg-type]
    else:
        from models.policies.ceei import CEEI

        if type(policy) is not CEEI:
            return out

        def solve(D: np.ndarray, R: np.ndarray, w: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return ceei_batch(D, R, w, k, freeze=True)
    _MEMO.clear()
    groups: dict[tuple[int, int, bytes], list[int]] = {}
    for idx, inst in enumerate(instances):
        groups.setdefault((inst.n, inst.m, inst.weights.tobytes()), []).append(idx)
    for idxs in groups.values():
        members = [instances[i] for i in idxs]
        D = np.stack([inst.demands for inst in members]).astype(float)
        R = np.stack([inst.capacity for inst in members]).astype(float)
        caps = np.stack([inst.max_tasks for inst in members]).astype(float)
        if len(members) == 1:
            R = R[0]
        x, ok = solve(D, R, members[0].weights, caps)
        for row, i, good in zip(x, idxs, ok, strict=True):
            if good:
                out[i] = row
                _MEMO[id(instances[i])] = (instances[i], policy.label, mode, row)
    return out


#: The answers of the last :func:`numeric_batch` call by ``id`` of the
#: instance (with the instance itself, so that a reused ``id`` never
#: matches): the check and the margin of an instance of the batch reuse
#: them instead of solving again.
_MEMO: dict[int, tuple[Instance, str, str, np.ndarray]] = {}


def remembered(policy: Policy, instance: Instance, mode: str) -> np.ndarray | None:
    """A copy of the tasks the last :func:`numeric_batch` computed for
    exactly this instance object, policy and mode, or ``None``."""
    hit = _MEMO.get(id(instance))
    if hit is None or hit[0] is not instance or hit[1] != policy.label or hit[2] != mode:
        return None
    return hit[3].copy()


def widened(x: np.ndarray, up: bool) -> np.ndarray:
    """``x`` moved by :data:`~models.tolerances.SCREEN_BATCH_RTOL` (plus the
    absolute floor) up or down: batched screens compare the unfavourable
    side, so that they flag every instance a one-at-a-time screen flags."""
    step = SCREEN_BATCH_RTOL * np.abs(x) + SCREEN_BATCH_ATOL
    return x + step if up else x - step
