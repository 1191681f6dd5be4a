"""Continuous progressive filling in floats, vectorised over a batch.

Ghodsi et al., NSDI 2011, Sections 4.2 and 5: every active user's weighted
share rises at the same rate; a user stops when a resource it uses
saturates or when it reaches its task cap. With rates ``r_i`` (tasks per
unit level) active user ``i`` holds ``min(t r_i, k_i)`` tasks at level
``t``. This module is the one numeric implementation of that algorithm:
:meth:`models.filling.FillingPolicy.solve` runs it on a batch of one
instance, the property screens on many instances at once
(:meth:`models.filling.FillingPolicy.solve_batch`), and
:func:`fill_numeric` (used by other policies' own filling stages) on one
instance with given rates.

Each round finds, per member of the batch and with vectorised
piecewise-linear algebra over the capped users sorted by cap level, the
level at which the next resource saturates; users capped before it and the
users of the saturated resources freeze. Every round saturates a resource
or ends a member's filling, so there are at most ``m + 1`` rounds.

Vector-matrix products over the users are written with ``np.einsum``, not
``@``: a threaded BLAS gemv on a tall 8-column matrix measured up to 100x
slower on a loaded 2-core machine (benchmarks/bench_drf.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .errors import PolicyError
from .tolerances import SATURATION_RTOL


@dataclass(frozen=True)
class Stage:
    """One event of progressive filling (exact or float).

    Attributes
    ----------
    level : number
        The common weighted share reached (``t``).
    saturated : tuple of int
        Resources that saturate at this level.
    frozen : sequence of int
        Users that stop at this level (capped or blocked); an index array in
        the numeric solver.
    capped : sequence of int
        The subset of ``frozen`` that stopped at its task cap.
    phase : int
        1 for the filling of the policy's own share; 2 for the second phase,
        in which the users whose share of one task is 0 share the leftover by
        DRF (the level is then their weighted dominant share).
    """

    level: Any
    saturated: tuple[int, ...]
    frozen: Any
    capped: Any
    phase: int = 1


@dataclass(frozen=True)
class Round:
    """One round of :func:`fill_levels` over a batch of ``K`` members.

    Attributes
    ----------
    live : ndarray of bool, shape (K,)
        Members that still had active users (the others did nothing).
    level : ndarray, shape (K,)
        The level reached by each live member.
    saturated : ndarray of bool, shape (K, m)
    frozen : ndarray of int
        The users that stopped, as sorted flat indices ``k * n + i``.
    capped : ndarray of int
        The subset of ``frozen`` that stopped at its cap (flat, sorted).
    n : int
        Users per member.
    phase : int
        As in :class:`Stage`.
    """

    live: np.ndarray
    level: np.ndarray
    saturated: np.ndarray
    frozen: np.ndarray
    capped: np.ndarray
    n: int
    phase: int = 1

    def stage(self, k: int) -> Stage:
        """Member ``k``'s event in this round."""
        def users(flat: np.ndarray) -> np.ndarray:
            lo, hi = np.searchsorted(flat, [k * self.n, (k + 1) * self.n])
            return flat[lo:hi] - k * self.n

        return Stage(level=float(self.level[k]), saturated=tuple(np.flatnonzero(self.saturated[k]).tolist()),
                     frozen=users(self.frozen), capped=users(self.capped), phase=self.phase)


def stages(rounds: list[Round], k: int) -> list[Stage]:
    """Member ``k``'s events, in order (the rounds in which it was live)."""
    return [r.stage(k) for r in rounds if r.live[k]]


#: Reductions over a last axis at most this long run as a loop over its
#: columns (:func:`last_max`): numpy's reduce along a short contiguous axis
#: costs 10-20x the elementwise ufunc of its columns.
SHORT_AXIS = 16
#: Sums over a last axis shorter than this run as a loop over its columns
#: (:func:`last_sum`): numpy adds fewer than 8 contiguous terms one after
#: the other (its pairwise summation starts at blocks of 8), which is the
#: loop's order, so the numbers are the same.
SEQUENTIAL_SUM = 8


def _by_columns(a: np.ndarray, op: np.ufunc, longest: int) -> np.ndarray:
    """``op.reduce(a, axis=-1)``: a loop over the columns when the last
    axis has at most ``longest`` entries, else numpy's reduce."""
    if a.shape[-1] > longest or a.shape[-1] == 0:
        return np.asarray(op.reduce(a, axis=-1))
    out = a[..., 0].copy()
    for j in range(1, a.shape[-1]):
        op(out, a[..., j], out=out)
    return out


def last_max(a: np.ndarray) -> np.ndarray:
    """``a.max(axis=-1)``, the same numbers (an exact reduction), as a loop
    over the columns when the axis is short (the resources of a batch of
    instances)."""
    return _by_columns(np.asarray(a), np.maximum, SHORT_AXIS)


def last_min(a: np.ndarray) -> np.ndarray:
    """``a.min(axis=-1)``, as :func:`last_max`."""
    return _by_columns(np.asarray(a), np.minimum, SHORT_AXIS)


def last_any(a: np.ndarray) -> np.ndarray:
    """``a.any(axis=-1)`` of a boolean array, as :func:`last_max`."""
    return _by_columns(np.asarray(a, dtype=bool), np.logical_or, SHORT_AXIS)


def last_all(a: np.ndarray) -> np.ndarray:
    """``a.all(axis=-1)`` of a boolean array, as :func:`last_max`."""
    return _by_columns(np.asarray(a, dtype=bool), np.logical_and, SHORT_AXIS)


def last_sum(a: np.ndarray) -> np.ndarray:
    """``a.sum(axis=-1)`` of a float array, the same numbers, as a loop over
    the columns when the axis is shorter than :data:`SEQUENTIAL_SUM`."""
    a = np.asarray(a)
    return _by_columns(a, np.add, SEQUENTIAL_SUM - 1 if a.dtype == np.float64 else 0)


#: Members with at most this many users sort their capped users by a row-wise argsort.
_ROW_SORT_USERS = 64


def _capped_order(capped: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per member, the capped active users sorted by cap level (ties by
    index), padded: ``order`` (K, nmax) user indices and ``inc`` (K, nmax)
    True where the entry is a real user. Few users a member (the screens'
    batches): one stable argsort per row; many (one large instance): only
    the capped users are sorted. Both order by (cap level, index)."""
    K, n = capped.shape
    if n <= _ROW_SORT_USERS:
        o = np.argsort(np.where(capped, T, np.inf), axis=1, kind="stable")[:, :int(capped.sum(axis=1).max(initial=0))]
        return o, np.take_along_axis(capped, o, axis=1)
    kk, ii = np.nonzero(capped)
    o = np.lexsort((T[kk, ii], kk))
    kk, ii = kk[o], ii[o]
    counts = np.bincount(kk, minlength=K)
    nmax = int(counts.max(initial=0))
    pos = np.arange(kk.size) - (np.cumsum(counts) - counts)[kk]
    order = np.zeros((K, nmax), dtype=np.intp)
    inc = np.zeros((K, nmax), dtype=bool)
    order[kk, pos] = ii
    inc[kk, pos] = True
    return order, inc


def _resource_levels(D: np.ndarray, R: np.ndarray, r: np.ndarray, k: np.ndarray, T: np.ndarray,
                     active: np.ndarray, has_cap: np.ndarray, base: np.ndarray, rtol: float
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(K, m): the level at which each resource fills, the active users
    rising (each up to its cap level ``T``) from the usage ``base`` of the
    frozen ones; and (K, m) whether any active user uses the resource."""
    K, n, m = D.shape
    capped = active & has_cap
    if not np.count_nonzero(capped):  # no breakpoints: every resource fills at (R - base) / slope
        slope = np.einsum("kn,knm->km", np.where(active, r, 0.0), D)
        rising = slope > 0
        return np.divide(R - base, slope, out=np.full((K, m), np.inf), where=rising), rising
    order, inc = _capped_order(capped, T)
    nmax = order.shape[1]
    rows = np.arange(K)[:, None]
    Ts = np.where(inc, T[rows, order], np.inf)
    Ds = D[rows, order]  # (K, nmax, m)
    capped_use = np.cumsum(np.where(inc, k[rows, order], 0.0)[:, :, None] * Ds, axis=1)
    # usage rate of the users still rising after each breakpoint, summed
    # directly (never as slope minus the rates gone: with rates 1e15 apart
    # that difference cancels to 0)
    free_slope = np.einsum("kn,knm->km", np.where(active & ~has_cap, r, 0.0), D)
    rate_use = np.where(inc, r[rows, order], 0.0)[:, :, None] * Ds
    rising = np.concatenate([np.cumsum(rate_use[:, ::-1], axis=1)[:, ::-1], np.zeros((K, 1, m))], axis=1)
    with np.errstate(invalid="ignore"):
        at_bp = base[:, None] + capped_use + Ts[:, :, None] * (free_slope[:, None] + rising[:, 1:])
    over = inc[:, :, None] & (at_bp >= R[:, None] * (1 - rtol))
    hit = over.any(axis=1)
    first = np.argmax(over, axis=1) if nmax else np.zeros((K, m), dtype=np.intp)
    q = np.where(hit, first, inc.sum(axis=1)[:, None])  # first breakpoint at/over R (K, m)
    prev_cap = np.concatenate([np.zeros((K, 1, m)), capped_use], axis=1)[rows, q, np.arange(m)]
    denom = free_slope + rising[rows, q, np.arange(m)]
    with np.errstate(divide="ignore", invalid="ignore"):
        tj = np.where(denom > 0, (R - base - prev_cap) / denom, np.inf)
    used = (free_slope > 0) | (rising[:, 0] > 0)
    if not nmax:
        return tj, used
    # the breakpoint itself may be where the resource fills
    return np.minimum(tj, np.where(hit, Ts[rows, np.minimum(q, nmax - 1)], np.inf)), used


def _unsaturated_end(tstar: np.ndarray, live: np.ndarray, active: np.ndarray, has_cap: np.ndarray,
                     T: np.ndarray) -> np.ndarray:
    """``tstar`` where some resource still fills; for a live member where
    none does (only capped users left), the level at which they all reach
    their caps."""
    stuck = live & ~np.isfinite(tstar)
    if not np.count_nonzero(stuck):
        return tstar
    if not (has_cap | ~active)[stuck].all():  # cannot happen: every user uses some resource
        raise PolicyError("progressive filling is unbounded (a user demands nothing)")
    return np.where(stuck, np.where(active, T, -np.inf).max(axis=1), tstar)


def _freeze(stop: np.ndarray, cap_now: np.ndarray, tstar: np.ndarray, k: np.ndarray, r: np.ndarray,
            rows_D: np.ndarray, x: np.ndarray, base: np.ndarray, last: bool) -> tuple[np.ndarray, np.ndarray]:
    """Freeze the users ``stop`` (K, n) at level ``tstar`` (their cap when
    ``cap_now``): their tasks go into ``x`` and, unless this is the ``last``
    round (no user left active: nobody reads it), their usage into ``base``
    (both updated in place). Returns the frozen and the capped users as
    sorted flat indices ``k * n + i``."""
    got = np.where(cap_now, k, np.minimum(tstar[:, None] * r, k))  # level inf (not live) * rate > 0: inf
    np.copyto(x, got, where=stop)
    flat = np.flatnonzero(stop)  # sorted by member
    if flat.size and not last:
        kk = flat // stop.shape[1]
        starts = np.flatnonzero(np.r_[True, kk[1:] != kk[:-1]])
        base[kk[starts]] += np.add.reduceat(got.reshape(-1)[flat][:, None] * rows_D[flat], starts, axis=0)
    return flat, np.flatnonzero(cap_now)  # cap_now is within stop

def _uses(D: np.ndarray, sat: np.ndarray) -> np.ndarray:
    """(K, n): whether each user demands some resource of ``sat`` (K, m)."""
    sub = np.flatnonzero(np.ascontiguousarray(sat.T).any(axis=1))  # 5x sat.any(axis=0) on a few columns
    if len(sub) > SHORT_AXIS:  # demands are >= 0: a user uses them iff its demand on them sums > 0
        return np.einsum("knm,km->kn", D[:, :, sub], sat[:, sub].astype(float)) > 0
    out = np.zeros(D.shape[:2], dtype=bool)
    for j in sub.tolist():
        out |= sat[:, j, None] & (D[:, :, j] > 0)
    return out


def _rows(a: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``a`` as floats broadcast to ``shape`` (itself when it has it: numpy's
    ``broadcast_to`` costs more than a small fill's arithmetic)."""
    a = np.asarray(a, dtype=float)
    return a if a.shape == shape else np.broadcast_to(a, shape)


def fill_levels(demands: np.ndarray, capacity: np.ndarray, rates: np.ndarray, caps: np.ndarray,
                rtol: float = SATURATION_RTOL) -> tuple[np.ndarray, list[Round], np.ndarray]:
    """Progressive filling with rates of a batch of instances, each member
    independent of the others.

    Parameters
    ----------
    demands : ndarray, shape (K, n, m)
    capacity : ndarray, shape (K, m)
    rates : ndarray, shape (K, n) or (n,)
        Tasks per unit level, ``> 0``.
    caps : ndarray, shape (K, n)
        Task caps (``inf`` for none; 0 freezes the user from the start).
    rtol : float
        Relative tolerance of a saturation or cap event.

    Returns
    -------
    x : ndarray, shape (K, n)
        Tasks per user.
    rounds : list of Round
        The events, levels as floats.
    saturated : ndarray of bool, shape (K, m)
        The resources saturated at the end.
    """
    D = np.asarray(demands, dtype=float)
    K, n, m = D.shape
    R = _rows(capacity, (K, m))
    r = np.ascontiguousarray(_rows(rates, (K, n)))
    k = np.ascontiguousarray(_rows(caps, (K, n)))
    rows_D = D.reshape(K * n, m)  # the users of all members, flat (k * n + i)
    x = np.zeros((K, n))
    T = k / r  # level at which each user reaches its cap (inf if uncapped)
    has_cap = np.isfinite(T)
    active = T > 0  # users capped at zero are frozen from the start
    if not np.count_nonzero(active & has_cap) and last_all(D > 0)[active].all():
        once = _one_round(D, R, r, k, active, n, rtol)
        if once is not None:
            return once
    base = np.zeros((K, m))  # usage by frozen users
    saturated = np.zeros((K, m), dtype=bool)
    rounds: list[Round] = []
    while np.count_nonzero(active):
        live = last_any(active)
        tj, rising = _resource_levels(D, R, r, k, T, active, has_cap, base, rtol)
        tj = np.where(saturated | ~rising, np.inf, tj)
        tstar = last_min(tj)
        tstar = _unsaturated_end(tstar, live, active, has_cap, T)
        lim = (tstar * (1 + rtol))[:, None]
        sat_now = (tj <= lim) & ~saturated & live[:, None]
        cap_now = active & has_cap & (T <= lim)
        stop = cap_now
        if np.count_nonzero(sat_now):
            stop = stop | (active & _uses(D, sat_now))
        active &= ~stop
        flat, capped = _freeze(stop, cap_now, tstar, k, r, rows_D, x, base, last=not np.count_nonzero(active))
        saturated |= sat_now
        rounds.append(Round(live=live, level=tstar, saturated=sat_now, frozen=flat, capped=capped, n=n))
    return x, rounds, saturated


def _one_round(D: np.ndarray, R: np.ndarray, r: np.ndarray, k: np.ndarray, active: np.ndarray, n: int,
               rtol: float) -> tuple[np.ndarray, list[Round], np.ndarray] | None:
    """:func:`fill_levels` when no active user is capped and every one
    demands every resource (the paper's class; padded users are inactive):
    its first round saturates some resource of each live member, which
    every active user uses, so all of them freeze there and that round is
    the last. The same operations on the same numbers as the loop's round;
    ``None`` (the loop then runs) where a live member's level is not finite."""
    K, m = R.shape
    live = last_any(active)
    slope = np.einsum("kn,knm->km", np.where(active, r, 0.0), D)
    rising = slope > 0
    tj = np.divide(R, slope, out=np.full((K, m), np.inf), where=rising)  # R - 0 (nobody frozen yet) is R
    tj = np.where(~rising, np.inf, tj)
    tstar = last_min(tj)
    if not np.isfinite(tstar[live]).all():
        return None
    sat_now = (tj <= (tstar * (1 + rtol))[:, None]) & live[:, None]
    x = np.where(active, np.minimum(tstar[:, None] * r, k), 0.0)
    frozen = np.flatnonzero(active)
    return x, [Round(live=live, level=tstar, saturated=sat_now, frozen=frozen, capped=frozen[:0], n=n)], sat_now


def fill_shares(shares: np.ndarray, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
                caps: np.ndarray) -> tuple[np.ndarray, list[Round]]:
    """Progressive filling of the weighted shares ``x_i c_i / w_i`` (the
    leximin vector), for a batch; ``shares`` (K, n) is the share of one task
    ``c_i``, ``capacity`` (K, m) or (m,), ``weights`` (K, n) or (n,),
    ``caps`` (K, n).

    Users whose share of one task is 0 are not constrained by the share:
    leximin fills the users with a positive share first, and the zero-share
    users then share what is left by DRF (max-min on their weighted dominant
    shares), a second phase whose rounds have ``phase == 2``. A resource
    saturated in the first phase leaves exactly 0 to the second (not a
    roundoff residual).
    """
    D = np.asarray(demands, dtype=float)
    K, n, m = D.shape
    R = _rows(capacity, (K, m))
    c = np.asarray(shares, dtype=float)
    w = np.asarray(weights, dtype=float)
    zero = c == 0
    x, rounds, saturated = fill_levels(D, R, w / np.where(zero, 1.0, c), np.where(zero, 0.0, caps))
    if not np.count_nonzero(zero):
        return x, rounds
    dom = last_max(D / R[:, None, :])
    left = np.where(saturated, 0.0, np.maximum(R - np.einsum("kn,knm->km", x, D), 0.0))
    x2, rounds2, _ = fill_levels(D, left, w / dom, np.where(zero, caps, 0.0))
    return x + x2, rounds + [replace(st, phase=2) for st in rounds2]


def fill_numeric(demands: np.ndarray, capacity: np.ndarray, rates: np.ndarray, caps: np.ndarray,
                 rtol: float = SATURATION_RTOL) -> tuple[np.ndarray, list[Stage]]:
    """:func:`fill_levels` on one instance: demands (n, m), capacity (m,),
    rates and caps (n,); returns the tasks (n,) and the events."""
    D = np.asarray(demands, dtype=float)
    x, rounds, _ = fill_levels(D[None], np.asarray(capacity, dtype=float)[None],
                               np.asarray(rates, dtype=float)[None], np.asarray(caps, dtype=float)[None], rtol)
    return x[0], stages(rounds, 0)


__all__ = ["Round", "Stage", "fill_levels", "fill_numeric", "fill_shares", "last_all", "last_any", "last_max",
           "last_min", "last_sum", "stages"]
