"""State of the simulator's kernel (:mod:`.kernel`): the layout of its
arrays, the share keys, the user heap, the machine tree and the users'
queues (Ghodsi et al., NSDI 2011, Section 7); the pending events are in
:mod:`.kevents`.

Plain functions on numpy arrays and scalars, compiled with the kernel
(:func:`models.compiled.compiled`) or run as they are.
"""

from __future__ import annotations

import math

import numpy as np

# counters (c)
EV_N, SEQ, HP_N, CHANGED, LOG_N, T_N, RD_N, LAUNCHED, FINISHED, DECISIONS, EVENTS, NU, NS, FAIL_N, BL_N, \
    FORM, ROUNDS, RECORD, K_N, S_N, PHASE, LMAX, NB, REHASH = range(24)
N_COUNTERS = 24
# per-spec integer fields (si)
S_USER, S_PEND, S_RUN, S_DONE, S_STARTED, S_NEXT, S_PREV, S_DUR, S_DURN, S_FLAGS, S_LOG = range(11)
N_SPEC_FIELDS = 11
# per-spec times (sf)
F_START, F_LAST, F_DONE = range(3)
FLAG_REPEAT, FLAG_TRUNC = 1, 2
COMPLETE, CANCEL = 0, 1
# per-user usage memory (um): the share held since a time, that time, the memory then (:func:`memory_at`)
M_SHARE, M_SINCE, M_MEM = range(3)
N_MEMORY_FIELDS = 3


# ---------------------------------------------------------------- keys
def key_of(U: np.ndarray, i: int, den: np.ndarray, form: int, w: float, off: float) -> float:
    """Share of user ``i`` (``max`` or ``sum`` over the columns of
    ``U[i, j] / den[j]``, ``den[j] > 0``) plus ``off`` (its usage memory,
    0 without), over its weight."""
    k = 0.0
    for j in range(U.shape[1]):
        if den[j] > 0:
            v = U[i, j] / den[j]
            if form == 0:
                k = max(k, v)
            else:
                k += v
    return (k + off) / w


def key_after(U: np.ndarray, i: int, d: np.ndarray, n: int, den: np.ndarray, form: int, w: float,
              off: float) -> float:
    """:func:`key_of` user ``i`` after ``n`` more tasks of demand ``d``
    (launching changes the memory of no instant: ``off`` stays)."""
    k = 0.0
    for j in range(U.shape[1]):
        if den[j] > 0:
            v = (U[i, j] + n * d[j]) / den[j]
            if form == 0:
                k = max(k, v)
            else:
                k += v
    return (k + off) / w


# ---------------------------------------------------------------- usage memory (:mod:`.memory`)
def memory_at(um: np.ndarray, i: int, lam: float, t: float) -> float:
    """User ``i``'s usage memory at time ``t``: the exponential average,
    at rate ``lam`` (ln 2 / half-life), of its share over the past, with
    the share ``um[i, M_SHARE]`` held since ``um[i, M_SINCE]``; 0 when
    ``lam`` is 0 (no memory)."""
    if lam <= 0.0:
        return 0.0
    s = um[i, M_SHARE]
    return s + math.exp(-lam * (t - um[i, M_SINCE])) * (um[i, M_MEM] - s)


def memory_sync(U: np.ndarray, den: np.ndarray, form: int, um: np.ndarray, i: int, lam: float, t: float) -> None:
    """After user ``i``'s use changed at time ``t``: fold the share it held
    until now into its memory and hold the new one from ``t``."""
    if lam > 0.0:
        memory_hold(um, i, lam, t, key_of(U, i, den, form, 1.0, 0.0))


def memory_hold(um: np.ndarray, i: int, lam: float, t: float, share: float) -> None:
    """User ``i`` holds ``share`` from time ``t`` on (``lam > 0``): the share
    it held until now is folded into its memory first (one definition for
    both engines: the reference engine computes ``share`` its own way)."""
    if um[i, M_SINCE] != t:
        um[i, M_MEM] = memory_at(um, i, lam, t)
        um[i, M_SINCE] = t
    um[i, M_SHARE] = share


# ---------------------------------------------------------------- user heap (indexed: one entry per user)
def _hless(hk: np.ndarray, hr: np.ndarray, a: int, b: int) -> bool:
    return hk[a] < hk[b] or (hk[a] == hk[b] and hr[a] < hr[b])


def _hswap(hk: np.ndarray, hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, a: int, b: int) -> None:
    hk[a], hk[b] = hk[b], hk[a]
    hr[a], hr[b] = hr[b], hr[a]
    hu[a], hu[b] = hu[b], hu[a]
    hpos[hu[a]] = a
    hpos[hu[b]] = b


def _hsift(hk: np.ndarray, hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, p: int, n: int) -> None:
    while p > 0:
        q = (p - 1) // 2
        if not _hless(hk, hr, p, q):
            break
        _hswap(hk, hr, hu, hpos, p, q)
        p = q
    _hdown(hk, hr, hu, hpos, p, n)


def _hdown(hk: np.ndarray, hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, p: int, n: int) -> None:
    while True:
        a = 2 * p + 1
        if a >= n:
            break
        if a + 1 < n and _hless(hk, hr, a + 1, a):
            a += 1
        if not _hless(hk, hr, a, p):
            break
        _hswap(hk, hr, hu, hpos, p, a)
        p = a


def heap_set(hk: np.ndarray, hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, c: np.ndarray, i: int,
             key: float, rank: float) -> None:
    """Insert user ``i`` with ``(key, rank)`` or update its entry."""
    p = hpos[i]
    if p < 0:
        p = c[HP_N]
        c[HP_N] += 1
        hu[p] = i
        hpos[i] = p
    hk[p] = key
    hr[p] = rank
    _hsift(hk, hr, hu, hpos, p, c[HP_N])


def heap_rekey(U: np.ndarray, den: np.ndarray, c: np.ndarray, uw: np.ndarray, hk: np.ndarray, hr: np.ndarray,
               hu: np.ndarray, hpos: np.ndarray, um: np.ndarray, lam: float, t: float) -> None:
    """Every entry's key at time ``t`` (usage memory moves with time), then
    the heap rebuilt. Entries are distinct ``(key, rank)`` pairs, so the
    order they come out in does not depend on the heap's layout."""
    n = c[HP_N]
    for p in range(n):
        i = hu[p]
        hk[p] = key_of(U, i, den, c[FORM], uw[i], memory_at(um, i, lam, t))
    for p in range(n // 2 - 1, -1, -1):
        _hdown(hk, hr, hu, hpos, p, n)


def heap_remove(hk: np.ndarray, hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, c: np.ndarray, i: int) -> None:
    """Remove user ``i``'s entry if it has one."""
    p = hpos[i]
    if p < 0:
        return
    last = c[HP_N] - 1
    if p != last:
        _hswap(hk, hr, hu, hpos, p, last)
    hpos[i] = -1
    c[HP_N] = last
    if p < last:
        _hsift(hk, hr, hu, hpos, p, last)


# ---------------------------------------------------------------- machines: max tree over placement columns
def tree_fix(tree: np.ndarray, free: np.ndarray, place: np.ndarray, S: int, k: int) -> None:
    """Refresh machine ``k``'s leaf and its ancestors."""
    p = S + k
    for j in range(place.size):
        tree[p, j] = free[k, place[j]]
    p //= 2
    while p >= 1:
        for j in range(place.size):
            a, b = tree[2 * p, j], tree[2 * p + 1, j]
            tree[p, j] = max(b, a)
        p //= 2


def _tfits(tree: np.ndarray, node: int, need: np.ndarray) -> bool:
    for j in range(need.size):
        if tree[node, j] < need[j]:
            return False
    return True


def first_fit(tree: np.ndarray, S: int, K: int, need: np.ndarray, start: int) -> int:
    """The lowest machine ``>= start`` where one task of ``need`` (placement
    columns) fits, or -1. Subtrees whose column maxima cannot hold it are
    skipped; a node passing that test whose children both fail is left."""
    if start >= K:
        return -1
    node = S + start
    if _tfits(tree, node, need):
        return start
    while True:
        while node & 1:
            node >>= 1
            if node <= 1:
                return -1
        node += 1
        if not _tfits(tree, node, need):
            continue
        while node < S:
            node *= 2
            if not _tfits(tree, node, need):
                node += 1
                if not _tfits(tree, node, need):
                    break
        if node >= S and _tfits(tree, node, need):
            return node - S


# ---------------------------------------------------------------- queues
def push_user(U: np.ndarray, den: np.ndarray, c: np.ndarray, uw: np.ndarray, ur: np.ndarray, uh: np.ndarray,
              ublk: np.ndarray, hk: np.ndarray, hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, um: np.ndarray,
              lam: float, t: float, i: int) -> None:
    """Give user ``i`` its key at time ``t``, or no entry when it waits for nothing or is blocked."""
    if uh[i] >= 0 and ublk[i] == 0:
        heap_set(hk, hr, hu, hpos, c, i, key_of(U, i, den, c[FORM], uw[i], memory_at(um, i, lam, t)), ur[i])
    else:
        heap_remove(hk, hr, hu, hpos, c, i)


def unlink(si: np.ndarray, uh: np.ndarray, ut: np.ndarray, s: int) -> None:
    """Remove spec ``s`` from its user's queue."""
    i, p, n = si[s, S_USER], si[s, S_PREV], si[s, S_NEXT]
    if p >= 0:
        si[p, S_NEXT] = n
    else:
        uh[i] = n
    if n >= 0:
        si[n, S_PREV] = p
    else:
        ut[i] = p
    si[s, S_NEXT] = -1
    si[s, S_PREV] = -1


def set_blocked(ublk: np.ndarray, bl: np.ndarray, blpos: np.ndarray, c: np.ndarray, i: int, on: bool) -> None:
    """Mark user ``i`` blocked (its next task fits nowhere) or not."""
    if on and ublk[i] == 0:
        ublk[i] = 1
        blpos[i] = c[BL_N]
        bl[c[BL_N]] = i
        c[BL_N] += 1
    elif not on and ublk[i] != 0:
        ublk[i] = 0
        p, last = blpos[i], c[BL_N] - 1
        bl[p] = bl[last]
        blpos[bl[p]] = p
        blpos[i] = -1
        c[BL_N] = last


#: Callees first.
HELPERS = (key_of, key_after, memory_at, memory_hold, memory_sync, _hless, _hswap, _hdown, _hsift, heap_set,
           heap_rekey, heap_remove, tree_fix, _tfits, first_fit, push_user, unlink, set_blocked)
