"""Progressive filling that never takes back: water-filling from floors.

Kash, Procaccia and Shah, "No Agent Left Behind: Dynamic Fair Division of
Multiple Resources", JAIR 51, 2014 (Dynamic DRF): at step ``k`` every
present user's weighted dominant share is raised from where the previous
step left it. With the level ``t`` of :mod:`models.filling` (user ``i``
holds ``t r_i`` tasks at level ``t``), user ``i`` with *floor* ``f_i`` holds
``max(f_i, t r_i)``: it waits at its floor until the level reaches
``f_i / r_i`` and then rises with the others, until a resource it uses
saturates or it reaches its cap. Users that wait keep the level rising
(as progressive filling's active users do), so a user above every other
one still rises when the others are blocked and its resources are free.

Between two consecutive floors the set of rising users is fixed, so every
segment is one ordinary progressive filling of the increments: the rising
users, each capped at the segment's end (and at its own task cap), on what
the others leave of the capacity. Each segment is one call of the one
numeric filling (:func:`models.filling_numeric.fill_levels`, vectorised
over a batch of instances) or of the exact one
(:func:`models.filling.fill_exact`); no second filling algorithm is
written here. A step takes at most one segment per distinct floor.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..filling_numeric import fill_levels
from ..tolerances import SATURATION_RTOL


def fill_from_floors(demands: np.ndarray, capacity: np.ndarray, rates: np.ndarray, caps: np.ndarray,
                     floors: np.ndarray, present: np.ndarray, rtol: float = SATURATION_RTOL) -> np.ndarray:
    """Water-filling from floors for a batch of ``K`` independent members.

    Parameters
    ----------
    demands : ndarray, shape (K, n, m)
    capacity : ndarray, shape (K, m)
        What the step may allocate in all (the floors included).
    rates : ndarray, shape (K, n)
        Tasks per unit level, ``> 0``.
    caps : ndarray, shape (K, n)
        Task caps (``inf`` for none).
    floors : ndarray, shape (K, n)
        Tasks each user holds already (never taken back).
    present : ndarray of bool, shape (K, n)
        The users taking part; the others hold 0 and are left out.

    Returns
    -------
    ndarray, shape (K, n)
        Tasks per user, ``>= floors`` where present.
    """
    D = np.asarray(demands, dtype=float)
    K, n, m = D.shape
    R = np.broadcast_to(np.asarray(capacity, dtype=float), (K, m))
    r = np.broadcast_to(np.asarray(rates, dtype=float), (K, n))
    k = np.broadcast_to(np.asarray(caps, dtype=float), (K, n))
    x = np.where(present, np.asarray(floors, dtype=float), 0.0)
    start = x / r  # the level at which each user starts rising
    done = ~present | (x >= k)
    level = np.where(done, np.inf, start).min(axis=1)  # (K,): the lowest floor still to rise
    while True:
        rising = ~done & (start <= level[:, None] * (1 + rtol))
        waiting = ~done & ~rising
        if not rising.any():
            break
        nxt = np.where(waiting, start, np.inf).min(axis=1)
        with np.errstate(invalid="ignore"):  # inf - inf where nothing waits: no end
            span = np.where(np.isfinite(nxt), nxt - level, np.inf)
        seg_caps = np.where(rising, np.minimum(span[:, None] * r, k - x), 0.0)
        left = np.maximum(R - np.einsum("kn,knm->km", x, D), 0.0)
        dx, _, saturated = fill_levels(D, left, r, seg_caps, rtol)
        x = x + dx
        blocked = np.einsum("knm,km->kn", D, saturated.astype(float)) > 0
        done |= rising & (blocked | (x >= k * (1 - rtol)) | ~np.isfinite(span)[:, None])
        level = np.where(rising.any(axis=1), nxt, level)
    return x


def fill_from_floors_exact(demands: Sequence[Sequence[Fraction]], capacity: Sequence[Fraction],
                           rates: Sequence[Fraction], caps: Sequence[Fraction | None],
                           floors: Sequence[Fraction], present: Sequence[bool]) -> list[Fraction]:
    """:func:`fill_from_floors` for one instance in exact arithmetic
    (Fractions; ``None`` for no cap), one :func:`models.filling.fill_exact`
    per segment."""
    from ..filling import fill_exact

    n, m = len(rates), len(capacity)
    x = [Fraction(f) if p else Fraction(0) for f, p in zip(floors, present, strict=True)]
    start = [xi / ri for xi, ri in zip(x, rates, strict=True)]
    done = [not p or (c is not None and xi >= c) for p, c, xi in zip(present, caps, x, strict=True)]
    todo = [start[i] for i in range(n) if not done[i]]
    level: Fraction | None = min(todo) if todo else None
    while level is not None:
        rising = [not done[i] and start[i] <= level for i in range(n)]
        later = [start[i] for i in range(n) if not done[i] and not rising[i]]
        nxt = min(later) if later else None
        seg: list[Any] = []
        for i in range(n):
            cap = caps[i]
            room = None if cap is None else cap - x[i]
            if not rising[i]:
                seg.append(Fraction(0))
            elif nxt is None:
                seg.append(room)
            else:
                end = (nxt - level) * rates[i]
                seg.append(end if room is None else min(end, room))
        left = [capacity[j] - sum((x[i] * demands[i][j] for i in range(n)), Fraction(0)) for j in range(m)]
        dx, _ = fill_exact(demands, left, list(rates), seg)
        x = [a + b for a, b in zip(x, dx, strict=True)]
        full = [sum((x[i] * demands[i][j] for i in range(n)), Fraction(0)) >= capacity[j] for j in range(m)]
        for i in range(n):
            cap = caps[i]
            blocked = any(full[j] and demands[i][j] > 0 for j in range(m))
            if rising[i] and (blocked or nxt is None or (cap is not None and x[i] >= cap)):
                done[i] = True
        level = nxt
    return x
