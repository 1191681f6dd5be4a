"""The compiled event loop of the simulator (Ghodsi et al., NSDI 2011,
Section 7; the engine is described in :mod:`.fast`).

Plain functions on numpy arrays and scalars, compiled with numba when it is
installed (:func:`models.compiled.compiled`, ``FAIRALLOC_NO_NUMBA=1``
disables it) and otherwise run as they are: the same code either way, so
both forms make the same decisions bit for bit (integer amounts, and the
float keys computed by the same IEEE operations in the same order).

State lives in the arrays of :class:`.fast.State`; the indices below name
the entries of its counter vector ``c`` and of the per-spec integer table
``si``.
"""

from __future__ import annotations

import numpy as np

# counters (c)
EV_N, SEQ, HP_N, CHANGED, LOG_N, T_N, RD_N, LAUNCHED, FINISHED, DECISIONS, EVENTS, NU, NS, FAIL_N, BL_N, \
    FORM, ROUNDS, RECORD, K_N, S_N, PHASE, LMAX = range(22)
N_COUNTERS = 22
# per-spec integer fields (si)
S_USER, S_PEND, S_RUN, S_DONE, S_STARTED, S_NEXT, S_PREV, S_DUR, S_DURN, S_FLAGS = range(10)
N_SPEC_FIELDS = 10
# per-spec times (sf)
F_START, F_LAST, F_DONE = range(3)
FLAG_REPEAT, FLAG_TRUNC = 1, 2
COMPLETE, CANCEL = 0, 1
# return codes of :func:`run`
IDLE, GROW, REPEATS, ROUND_DONE, EVENTS_DONE = range(5)
# phases of :func:`run`
NEXT, EVENTS, ROUND = range(3)


# ---------------------------------------------------------------- keys
def key_of(U: np.ndarray, i: int, den: np.ndarray, form: int, w: float) -> float:
    """Share of user ``i`` (``max`` or ``sum`` over the columns of
    ``U[i, j] / den[j]``, ``den[j] > 0``) over its weight."""
    k = 0.0
    for j in range(U.shape[1]):
        if den[j] > 0:
            v = U[i, j] / den[j]
            if form == 0:
                k = max(k, v)
            else:
                k += v
    return k / w


def key_after(U: np.ndarray, i: int, d: np.ndarray, n: int, den: np.ndarray, form: int, w: float) -> float:
    """:func:`key_of` user ``i`` after ``n`` more tasks of demand ``d``."""
    k = 0.0
    for j in range(U.shape[1]):
        if den[j] > 0:
            v = (U[i, j] + n * d[j]) / den[j]
            if form == 0:
                k = max(k, v)
            else:
                k += v
    return k / w


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


# ---------------------------------------------------------------- event heap
# ``et[p]`` and ``ei[p, 0:2]`` (order key ``kind << 62 | seq``, slot) form a 4-ary heap by ``(time, kind, seq)``;
# the payload of slot ``x`` is ``ei[x, 3:7]`` (kind, spec, machine, count); ``ei[0 : len - size, 2]`` is the
# stack of free slots.
E_KIND, E_SPEC, E_MACHINE, E_COUNT = 3, 4, 5, 6
EVENT_COLUMNS = 7


def _ebefore(t1: float, o1: int, t2: float, o2: int) -> bool:
    return t1 < t2 or (t1 == t2 and o1 < o2)


def event_push(et: np.ndarray, ei: np.ndarray, c: np.ndarray, when: float, kind: int, spec: int, machine: int,
               count: int) -> None:
    """Push an event (the caller made room: ``c[EV_N] < len(et)``). The
    heap is 4-ary and ``ei`` column-major: a node's children share cache
    lines."""
    n = c[EV_N]
    slot = ei[et.size - n - 1, 2]
    c[EV_N] = n + 1
    c[SEQ] += 1
    order = (kind << 62) | c[SEQ]
    ei[slot, E_KIND], ei[slot, E_SPEC], ei[slot, E_MACHINE], ei[slot, E_COUNT] = kind, spec, machine, count
    p = n
    while p > 0:
        q = (p - 1) >> 2
        if not _ebefore(when, order, et[q], ei[q, 0]):
            break
        et[p], ei[p, 0], ei[p, 1] = et[q], ei[q, 0], ei[q, 1]
        p = q
    et[p], ei[p, 0], ei[p, 1] = when, order, slot


def event_pop(et: np.ndarray, ei: np.ndarray, c: np.ndarray) -> int:
    """Remove the earliest event; return its slot (read its payload before the next push)."""
    top = ei[0, 1]
    n = c[EV_N] - 1
    c[EV_N] = n
    ei[et.size - n - 1, 2] = top
    t, o, x = et[n], ei[n, 0], ei[n, 1]
    p = 0
    while True:
        a = 4 * p + 1
        if a >= n:
            break
        best = a
        for b in range(a + 1, min(a + 4, n)):
            if _ebefore(et[b], ei[b, 0], et[best], ei[best, 0]):
                best = b
        if not _ebefore(et[best], ei[best, 0], t, o):
            break
        et[p], ei[p, 0], ei[p, 1] = et[best], ei[best, 0], ei[best, 1]
        p = best
    if n > 0:
        et[p], ei[p, 0], ei[p, 1] = t, o, x
    return top


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
              ublk: np.ndarray, hk: np.ndarray, hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, i: int) -> None:
    """Give user ``i`` its current key, or no entry when it waits for nothing or is blocked."""
    if uh[i] >= 0 and ublk[i] == 0:
        heap_set(hk, hr, hu, hpos, c, i, key_of(U, i, den, c[FORM], uw[i]), ur[i])
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


# ---------------------------------------------------------------- launches and completions
def _wins(U: np.ndarray, i: int, d: np.ndarray, n: int, den: np.ndarray, form: int, w: float, rank: float,
          k2: float, r2: float) -> bool:
    k = key_after(U, i, d, n, den, form, w)
    return k < k2 or (k == k2 and rank < r2)


def tasks_won(U: np.ndarray, i: int, d: np.ndarray, pend: int, den: np.ndarray, form: int, w: float,
              rank: float, k2: float, r2: float) -> int:
    """Tasks user ``i`` (just popped) takes before the entry ``(k2, r2)``
    comes first: its first, and each next while its key after the previous
    ones still comes before ``(k2, r2)``; at most ``pend``. The key does not
    decrease with the task count, so a galloping then binary search finds
    the first task it loses."""
    if pend <= 1 or not _wins(U, i, d, 1, den, form, w, rank, k2, r2):
        return 1
    lo, hi, step = 1, pend, 1  # task lo is won; hi is the first lost (or pend, a sentinel)
    while lo + step < pend:
        if not _wins(U, i, d, lo + step, den, form, w, rank, k2, r2):
            hi = lo + step
            break
        lo += step
        step *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _wins(U, i, d, mid, den, form, w, rank, k2, r2):
            lo = mid
        else:
            hi = mid
    return hi


def _slowdown(free: np.ndarray, cap: np.ndarray, over: np.ndarray, pen: np.ndarray, k: int) -> float:
    f = 1.0
    for j in over:
        cj = cap[k, j]
        if cj > 0:
            x = (cj - free[k, j]) / cj - 1.0
            if x > 0:
                f += pen[j] * x
    return f


def _place_events(t: float, s: int, k: int, take: int, first: int, factor: float, si: np.ndarray, sreal: np.ndarray,
                  durs: np.ndarray, work: np.ndarray, et: np.ndarray, ei: np.ndarray, c: np.ndarray) -> None:
    """Completion events of ``take`` tasks of spec ``s`` on machine ``k``
    (task numbers ``first, first + 1, ...``; durations cycle), one per
    duration slot."""
    L, off = si[s, S_DURN], si[s, S_DUR]
    for q in range(min(L, take)):
        n = take // L + (1 if q < take % L else 0) if take >= L else 1
        dur = durs[off + (first + q) % L] * factor
        event_push(et, ei, c, t + dur, COMPLETE, s, k, n)
        for j in range(work.size):
            work[j] += dur * n * sreal[s, j]


def launch(t: float, i: int, s: int, want: int, need: np.ndarray, free: np.ndarray, cap: np.ndarray,
           tree: np.ndarray, place: np.ndarray, over: np.ndarray, pen: np.ndarray, sd: np.ndarray, si: np.ndarray,
           sf: np.ndarray, sreal: np.ndarray, durs: np.ndarray, U: np.ndarray, used: np.ndarray, work: np.ndarray,
           et: np.ndarray, ei: np.ndarray, lt: np.ndarray, li: np.ndarray, c: np.ndarray) -> int:
    """Place up to ``want`` tasks of spec ``s`` first fit (lowest machine
    first, as many on a machine as fit); return how many were placed."""
    K, S = c[K_N], c[S_N]
    d = sd[s]
    placed = 0
    free_any = True
    for j in range(need.size):
        if need[j] > 0:
            free_any = False
    k = 0 if free_any else first_fit(tree, S, K, need, 0)
    while placed < want and k >= 0:
        take = want - placed
        for j in range(need.size):
            if need[j] > 0:
                q = free[k, place[j]] // need[j]
                take = min(take, q)
        for j in range(d.size):
            free[k, j] -= take * d[j]
        tree_fix(tree, free, place, S, k)
        factor = _slowdown(free, cap, over, pen, k) if over.size else 1.0
        _place_events(t, s, k, take, si[s, S_STARTED] + placed, factor, si, sreal, durs, work, et, ei, c)
        placed += take
        if placed < want:
            k = first_fit(tree, S, K, need, k + 1)
    if placed:
        for j in range(d.size):
            U[i, j] += placed * d[j]
            used[j] += placed * d[j]
        si[s, S_PEND] -= placed
        si[s, S_RUN] += placed
        si[s, S_STARTED] += placed
        c[LAUNCHED] += placed
        if np.isnan(sf[s, F_START]):
            sf[s, F_START] = t
        log(t, i, placed, s, lt, li, c)
    return placed


def log(t: float, i: int, k: int, s: int, lt: np.ndarray, li: np.ndarray, c: np.ndarray) -> None:
    """Append a launch (``k > 0``) or completion to the per-user log when it is recorded."""
    if c[RECORD]:
        n = c[LOG_N]
        lt[n] = t
        li[n, 0], li[n, 1], li[n, 2] = i, k, s
        c[LOG_N] = n + 1


def _spec_done(t: float, s: int, si: np.ndarray, sf: np.ndarray, rd: np.ndarray, c: np.ndarray) -> None:
    sf[s, F_DONE] = t
    if si[s, S_FLAGS] & FLAG_REPEAT and not si[s, S_FLAGS] & FLAG_TRUNC:
        rd[c[RD_N]] = s
        c[RD_N] += 1


def events_at(t: float, free: np.ndarray, tree: np.ndarray, place: np.ndarray, sd: np.ndarray, si: np.ndarray,
              sf: np.ndarray, U: np.ndarray, used: np.ndarray, den: np.ndarray, uw: np.ndarray, ur: np.ndarray,
              uh: np.ndarray, ut: np.ndarray, ublk: np.ndarray, bl: np.ndarray, blpos: np.ndarray, hk: np.ndarray,
              hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, et: np.ndarray, ei: np.ndarray, lt: np.ndarray,
              li: np.ndarray, rd: np.ndarray, chl: np.ndarray, c: np.ndarray) -> bool:
    """Process the events due at ``t``: completions free their machines'
    space, cancellations (``until``) drop a spec's waiting tasks. False
    when the log is full (nothing half done)."""
    while c[EV_N] > 0 and et[0] <= t:
        if c[RECORD] and c[LOG_N] >= lt.size:
            return False
        x = event_pop(et, ei, c)
        s = ei[x, E_SPEC]
        i = si[s, S_USER]
        c[EVENTS] += 1
        if ei[x, E_KIND] == COMPLETE:
            k, cnt = ei[x, E_MACHINE], ei[x, E_COUNT]
            for j in range(sd.shape[1]):
                free[k, j] += cnt * sd[s, j]
                U[i, j] -= cnt * sd[s, j]
                used[j] -= cnt * sd[s, j]
            tree_fix(tree, free, place, c[S_N], k)
            if chl[c[K_N] + k] == 0:
                chl[c[K_N] + k] = 1
                chl[c[CHANGED]] = k
                c[CHANGED] += 1
            log(t, i, -cnt, s, lt, li, c)
            si[s, S_RUN] -= cnt
            si[s, S_DONE] += cnt
            c[FINISHED] += cnt
            sf[s, F_LAST] = t
            if si[s, S_PEND] == 0 and si[s, S_RUN] == 0:
                _spec_done(t, s, si, sf, rd, c)
        elif si[s, S_PEND] > 0:  # cancel: no new task of s starts
            si[s, S_PEND] = 0
            si[s, S_FLAGS] |= FLAG_TRUNC
            unlink(si, uh, ut, s)
            if si[s, S_RUN] == 0:
                _spec_done(t, s, si, sf, rd, c)
            set_blocked(ublk, bl, blpos, c, i, False)
        else:
            continue
        push_user(U, den, c, uw, ur, uh, ublk, hk, hr, hu, hpos, i)
    return True


def unblock(free: np.ndarray, sd: np.ndarray, place: np.ndarray, chl: np.ndarray, U: np.ndarray, den: np.ndarray,
            uw: np.ndarray, ur: np.ndarray, uh: np.ndarray, ublk: np.ndarray, bl: np.ndarray, blpos: np.ndarray,
            hk: np.ndarray, hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, c: np.ndarray) -> None:
    """Blocked users whose next task fits on a machine that freed space
    since the last round (the only machines where it can fit: it fitted
    nowhere when blocked) get their heap entry back. ``chl[:n]`` lists
    those machines, ``chl[K + k]`` flags them."""
    n, K = c[CHANGED], c[K_N]
    if n == 0:
        return
    top = chl[2 * K: 2 * K + place.size]  # scratch: the largest free amount per column on those machines
    top[:] = 0
    for q in range(n):
        for j in range(place.size):
            v = free[chl[q], place[j]]
            top[j] = max(top[j], v)
    b = 0
    while b < c[BL_N]:
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
            push_user(U, den, c, uw, ur, uh, ublk, hk, hr, hu, hpos, i)
        else:
            b += 1
    for q in range(n):
        chl[K + chl[q]] = 0
    c[CHANGED] = 0


def _failed(fn: np.ndarray, need: np.ndarray, c: np.ndarray) -> bool:
    for f in range(c[FAIL_N]):
        ok = True
        for j in range(need.size):
            if need[j] < fn[f, j]:
                ok = False
                break
        if ok:
            return True
    return False


def _remember_failure(fn: np.ndarray, need: np.ndarray, c: np.ndarray) -> None:
    if c[FAIL_N] < fn.shape[0]:
        for j in range(need.size):
            fn[c[FAIL_N], j] = need[j]
        c[FAIL_N] += 1


def round_(t: float, free: np.ndarray, cap: np.ndarray, tree: np.ndarray, place: np.ndarray, over: np.ndarray,
           pen: np.ndarray, sd: np.ndarray, si: np.ndarray, sf: np.ndarray, sreal: np.ndarray, durs: np.ndarray,
           U: np.ndarray, used: np.ndarray, work: np.ndarray, den: np.ndarray, uw: np.ndarray, ur: np.ndarray,
           uh: np.ndarray, ut: np.ndarray, ublk: np.ndarray, bl: np.ndarray, blpos: np.ndarray, hk: np.ndarray,
           hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, et: np.ndarray, ei: np.ndarray, lt: np.ndarray,
           li: np.ndarray, fn: np.ndarray, need: np.ndarray, chl: np.ndarray, c: np.ndarray) -> bool:
    """A scheduling round (Algorithm 1 of the paper, run when resources
    free up): the user with the smallest key launches tasks of its oldest
    spec, every task it wins before the next user's key at once, first
    fit; a user whose next task fits nowhere is blocked. False when the
    event heap or the log needs room first (the round resumes)."""
    unblock(free, sd, place, chl, U, den, uw, ur, uh, ublk, bl, blpos, hk, hr, hu, hpos, c)
    c[FAIL_N] = 0
    room = c[K_N] * c[LMAX] + 2
    while c[HP_N] > 0:
        if c[EV_N] + room > et.size or (c[RECORD] and c[LOG_N] >= lt.size):
            return False
        i = hu[0]
        rank = ur[i]
        heap_remove(hk, hr, hu, hpos, c, i)
        s = uh[i]
        c[DECISIONS] += 1
        for j in range(place.size):
            need[j] = sd[s, place[j]]
        pend = si[s, S_PEND]
        want = placed = 0
        if not _failed(fn, need, c):
            want = pend if c[HP_N] == 0 else tasks_won(U, i, sd[s], pend, den, c[FORM], uw[i], rank, hk[0], hr[0])
            placed = launch(t, i, s, want, need, free, cap, tree, place, over, pen, sd, si, sf, sreal, durs, U, used,
                            work, et, ei, lt, li, c)
        if si[s, S_PEND] == 0:
            unlink(si, uh, ut, s)
        if placed < want or placed == 0:  # its next task fits nowhere: blocked until a machine frees space
            _remember_failure(fn, need, c)
            set_blocked(ublk, bl, blpos, c, i, True)
        else:
            push_user(U, den, c, uw, ur, uh, ublk, hk, hr, hu, hpos, i)
    return True


def run(ft: np.ndarray, t_stop: float, until: float, stop_after_events: bool, return_each_round: bool, budget: int,
        free: np.ndarray, cap: np.ndarray, tree: np.ndarray, place: np.ndarray, over: np.ndarray, pen: np.ndarray,
        sd: np.ndarray, si: np.ndarray, sf: np.ndarray, sreal: np.ndarray, durs: np.ndarray, U: np.ndarray,
        used: np.ndarray, work: np.ndarray, den: np.ndarray, uw: np.ndarray, ur: np.ndarray, uh: np.ndarray,
        ut: np.ndarray, ublk: np.ndarray, bl: np.ndarray, blpos: np.ndarray, hk: np.ndarray, hr: np.ndarray,
        hu: np.ndarray, hpos: np.ndarray, et: np.ndarray, ei: np.ndarray, lt: np.ndarray, li: np.ndarray,
        tt: np.ndarray, tu: np.ndarray, rd: np.ndarray, fn: np.ndarray, need: np.ndarray, chl: np.ndarray,
        c: np.ndarray) -> int:
    """Advance through event times before ``t_stop`` (and not after
    ``until``): at each, the due events, then a round, then the time and
    the use of every resource are logged. The current time is ``ft[0]``
    and the step's phase ``c[PHASE]`` (``NEXT``, ``EVENTS``, ``ROUND``),
    so a call resumes where the last one returned. Returns ``IDLE`` (no
    event before ``t_stop``), ``GROW`` (an array needs room), ``REPEATS``
    (specs to resubmit in ``rd``, before the events go on),
    ``EVENTS_DONE`` (with ``stop_after_events``: arrivals are admitted
    before the round) or ``ROUND_DONE`` (after a round, with
    ``return_each_round``, or every ``budget`` rounds)."""
    m = tu.shape[1]
    while True:
        if c[PHASE] == NEXT:
            if c[EV_N] == 0 or et[0] >= t_stop or et[0] > until:
                return IDLE
            ft[0] = max(ft[0], et[0])
            c[PHASE] = EVENTS
        t = ft[0]
        if c[PHASE] == EVENTS:
            if not events_at(t, free, tree, place, sd, si, sf, U, used, den, uw, ur, uh, ut, ublk, bl, blpos, hk, hr,
                             hu, hpos, et, ei, lt, li, rd, chl, c):
                return GROW
            if c[RD_N] > 0:
                return REPEATS
            c[PHASE] = ROUND
            if stop_after_events:
                return EVENTS_DONE
        if c[T_N] >= tt.size:
            return GROW
        if not round_(t, free, cap, tree, place, over, pen, sd, si, sf, sreal, durs, U, used, work, den, uw, ur, uh,
                      ut, ublk, bl, blpos, hk, hr, hu, hpos, et, ei, lt, li, fn, need, chl, c):
            return GROW
        n = c[T_N]
        tt[n] = t
        for j in range(m):
            tu[n, j] = used[j]
        c[T_N] = n + 1
        c[ROUNDS] += 1
        c[PHASE] = NEXT
        budget -= 1
        if return_each_round or budget <= 0:
            return ROUND_DONE


def admit(t: float, s: int, cancel_at: float, si: np.ndarray, U: np.ndarray, den: np.ndarray, uw: np.ndarray,
          ur: np.ndarray, uh: np.ndarray, ut: np.ndarray, ublk: np.ndarray, hk: np.ndarray, hr: np.ndarray,
          hu: np.ndarray, hpos: np.ndarray, et: np.ndarray, ei: np.ndarray, c: np.ndarray) -> None:
    """Queue spec ``s`` (its row filled) behind its user's; a cancel event
    at ``cancel_at`` unless it is NaN (the caller made room)."""
    i = si[s, S_USER]
    was_idle = uh[i] < 0
    si[s, S_NEXT], si[s, S_PREV] = -1, ut[i]
    if ut[i] >= 0:
        si[ut[i], S_NEXT] = s
    else:
        uh[i] = s
    ut[i] = s
    if not np.isnan(cancel_at):
        event_push(et, ei, c, cancel_at, CANCEL, s, 0, 0)
    if was_idle and ublk[i] == 0:
        push_user(U, den, c, uw, ur, uh, ublk, hk, hr, hu, hpos, i)


#: Helpers called once per event time (compiled apart; the others are inlined: :func:`.fast.compiled`).
CALLED = ("events_at", "unblock", "round_")
#: Callees first, for :func:`.fast.compiled`.
HELPERS = (key_of, key_after, _hless, _hswap, _hsift, heap_set, heap_remove, _ebefore, event_push, event_pop,
           tree_fix, _tfits, first_fit, push_user, unlink, set_blocked, _wins, tasks_won, _slowdown, log,
           _place_events, launch, _spec_done, events_at, unblock, _failed, _remember_failure, round_)
