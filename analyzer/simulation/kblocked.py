"""Users whose next task fits nowhere, in the simulator's kernel
(:mod:`.kernel`; Ghodsi et al., NSDI 2011, Section 7): a blocked user
leaves the user heap until a machine where its task fits frees space, and
a round remembers the needs that fitted nowhere (free space only shrinks
within a round).

Plain functions on numpy arrays and scalars, compiled with the kernel or
run as they are.
"""

from __future__ import annotations

import numpy as np

from . import kstore as ks
from .kstore import push_user, set_blocked


def unblock(t: float, free: np.ndarray, sd: np.ndarray, place: np.ndarray, chl: np.ndarray, U: np.ndarray,
            den: np.ndarray, uw: np.ndarray, ur: np.ndarray, uh: np.ndarray, ublk: np.ndarray, bl: np.ndarray,
            blpos: np.ndarray, hk: np.ndarray, hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, um: np.ndarray,
            lam: float, c: np.ndarray) -> None:
    """Blocked users whose next task fits on a machine that freed space
    since the last round (the only machines where it can fit: it fitted
    nowhere when blocked) get their heap entry back. ``chl[:n]`` lists
    those machines, ``chl[K + k]`` flags them."""
    n, K = c[ks.CHANGED], c[ks.K_N]
    if n == 0:
        return
    top = chl[2 * K: 2 * K + place.size]  # scratch: the largest free amount per column on those machines
    top[:] = 0
    for q in range(n):
        for j in range(place.size):
            v = free[chl[q], place[j]]
            top[j] = max(top[j], v)
    b = 0
    while b < c[ks.BL_N]:
        i = bl[b]
        s = uh[i]
        fit = True
        for j in range(place.size):
            if sd[s, place[j]] > top[j]:
                fit = False
        if fit:
            fit = False
            for q in range(n):
                ok = True
                for j in range(place.size):
                    if sd[s, place[j]] > free[chl[q], place[j]]:
                        ok = False
                        break
                if ok:
                    fit = True
                    break
        if fit:
            set_blocked(ublk, bl, blpos, c, i, False)  # the last blocked user moves to b
            push_user(U, den, c, uw, ur, uh, ublk, hk, hr, hu, hpos, um, lam, t, i)
        else:
            b += 1
    for q in range(n):
        chl[K + chl[q]] = 0
    c[ks.CHANGED] = 0


def failed(fn: np.ndarray, need: np.ndarray, c: np.ndarray) -> bool:
    for f in range(c[ks.FAIL_N]):
        ok = True
        for j in range(need.size):
            if need[j] < fn[f, j]:
                ok = False
                break
        if ok:
            return True
    return False


def remember_failure(fn: np.ndarray, need: np.ndarray, c: np.ndarray) -> None:
    if c[ks.FAIL_N] < fn.shape[0]:
        for j in range(need.size):
            fn[c[ks.FAIL_N], j] = need[j]
        c[ks.FAIL_N] += 1


#: Callees first (after :data:`.kstore.HELPERS`).
HELPERS = (unblock, failed, remember_failure)
