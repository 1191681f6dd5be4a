"""Progressive filling of many instances at once, for the numeric screens.

The strategy-proofness screen evaluates a user's many candidate reports;
for a policy of the progressive-filling family (:class:`models.filling.
FillingPolicy` that keeps the family's own ``solve``) the reports are filled
together, vectorised over the batch. The result only selects candidates:
every reported violation is re-verified with the policy's own exact solver.
"""

from __future__ import annotations

import numpy as np

from models import Policy
from models.filling import FillingPolicy
from models.tolerances import SATURATION_RTOL


def batchable(policy: Policy) -> bool:
    """True when ``policy`` is a filling policy with the family's solver."""
    return isinstance(policy, FillingPolicy) and type(policy).solve is FillingPolicy.solve


def fill_batch(
    policy: FillingPolicy,
    demands: np.ndarray,
    capacity: np.ndarray,
    weights: np.ndarray,
    caps: np.ndarray,
) -> np.ndarray:
    """Tasks per user for a batch of instances sharing capacities and weights.

    Parameters
    ----------
    policy : FillingPolicy
        Gives the share of one task, ``share_per_task``.
    demands : ndarray, shape (K, n, m)
    capacity : ndarray, shape (m,)
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
    c = _shares(policy, demands, capacity)
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
            ts = np.where((slope > 0) & ~sat, (capacity[None, :] - base) / slope, np.inf)
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


def _shares(policy: FillingPolicy, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """``share_per_task`` over the whole batch at once (the family's share
    functions are row-wise numpy expressions)."""
    K, n, m = demands.shape
    flat = np.asarray(policy.share_per_task(demands.reshape(K * n, m), capacity), dtype=float)
    return flat.reshape(K, n)
