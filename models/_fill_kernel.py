"""Batched progressive filling with first-fit placement, as one kernel.

The loop of :meth:`models.discrete.run.Run.batched` (Ghodsi et al., NSDI 2011,
Algorithm 1, with every run of picks one user wins before the next user's
key placed at once) and :class:`models.discrete.FirstFit` placement, on
int64 arrays: integer keys ``tasks_i * S_i``, ties by rank, a per-user
machine cursor. Compiled with numba (registered as the ``first-fit``
kernel of :mod:`models.kernels`); the engine uses it only for work of at
least ``COMPILE_MIN_WORK["placements"]`` (:func:`fill_work`), and otherwise
runs the same algorithm in :meth:`~models.discrete.run.Run.batched` (the
results are identical: both are exact integer computations of the same
sequence of decisions).
"""

from __future__ import annotations

import numpy as np

from .kernels import register_kernel

#: Python cost of one step of a first-fit cursor over the machines, in
#: placements (about 0.4 us against 3.4 us; ``benchmarks/bench_cold_start.py``).
CURSOR_STEP: float = 1 / 8


def _grow(a: np.ndarray, n: int) -> np.ndarray:
    """``a`` with room for at least ``n + 1`` rows."""
    if n < a.shape[0]:
        return a
    b = np.empty((2 * a.shape[0],) + a.shape[1:], dtype=a.dtype)
    b[:n] = a[:n]
    return b


def _fits(tree: np.ndarray, node: int, D: np.ndarray, i: int | np.integer) -> bool:
    """True when the most free space of each resource below ``node`` holds
    one task of user ``i`` (for a leaf: the machine holds it)."""
    for j in range(D.shape[1]):
        d = D[i, j]
        if d > 0 and tree[node, j] < d:
            return False
    return True


def _find(tree: np.ndarray, S: int, lo: int, D: np.ndarray, i: int | np.integer) -> int:
    """The lowest machine ``>= lo`` that holds one task of user ``i``, or
    -1: a left-first walk of the max-tree (leaves ``S..``), skipping every
    subtree whose per-resource maxima cannot hold the task."""
    node = lo + S
    while True:
        if _fits(tree, node, D, i):
            if node >= S:
                return node - S
            node = 2 * node  # a subtree that may hold it: try its left half first
            continue
        while node & 1:  # no room here: on to the next subtree to the right
            node >>= 1
        if node == 0:
            return -1
        node += 1


def _scan(free: np.ndarray, lo: int, D: np.ndarray, i: int | np.integer) -> int:
    """:func:`_find` by a plain scan of the machines from ``lo`` (the
    reference the max-tree is checked and measured against)."""
    for k in range(lo, free.shape[0]):
        if _fits(free, k, D, i):
            return k
    return -1


def _update(tree: np.ndarray, S: int, k: int, free: np.ndarray) -> None:
    """Machine ``k``'s free space into the max-tree, leaf to root; stops at
    the first node whose maxima do not change (its ancestors' cannot)."""
    node = k + S
    for j in range(free.shape[1]):
        tree[node, j] = free[k, j]
    node >>= 1
    while node > 0:
        same = True
        for j in range(free.shape[1]):
            a = tree[2 * node, j]
            b = tree[2 * node + 1, j]
            c = a if a > b else b
            if tree[node, j] != c:
                tree[node, j] = c
                same = False
        if same:
            return
        node >>= 1


def _before(hk: np.ndarray, hr: np.ndarray, hu: np.ndarray, a: int, b: int) -> bool:
    """Heap entry ``a`` orders before ``b``: ``(key, rank, user)`` compared
    as tuples (heapq's order on the same triples)."""
    if hk[a] != hk[b]:
        return bool(hk[a] < hk[b])
    if hr[a] != hr[b]:
        return bool(hr[a] < hr[b])
    return bool(hu[a] < hu[b])


def _sift_down(hk: np.ndarray, hr: np.ndarray, hu: np.ndarray, h: int, pos: int) -> None:
    """Restore the heap order of the ``h`` entries below ``pos`` (a binary
    min-heap in three parallel arrays: key, rank, user). The hole goes down
    the path of smaller children to a leaf and the entry climbs back from
    there (Floyd): one comparison per level on the way down, and a user put
    back after its picks mostly belongs near the bottom."""
    k, r, u = hk[pos], hr[pos], hu[pos]
    start = pos
    c = 2 * pos + 1
    while c < h:
        if c + 1 < h and _before(hk, hr, hu, c + 1, c):
            c += 1
        hk[pos], hr[pos], hu[pos] = hk[c], hr[c], hu[c]
        pos = c
        c = 2 * pos + 1
    while pos > start:
        p = (pos - 1) >> 1
        if hk[p] < k or (hk[p] == k and (hr[p] < r or (hr[p] == r and hu[p] < u))):
            break
        hk[pos], hr[pos], hu[pos] = hk[p], hr[p], hu[p]
        pos = p
    hk[pos], hr[pos], hu[pos] = k, r, u


def first_fit_kernel(S: np.ndarray, rank: np.ndarray, caps: np.ndarray, D: np.ndarray, free: np.ndarray,
                     tasks: np.ndarray, starters: np.ndarray, stop: bool, scan: bool = False
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Run the batched loop; ``tasks`` and ``free`` are updated in place.
    The lowest machine with room for a task is found in a max-tree over the
    machines' free space (:func:`_find`, O(m log K) per machine used)
    instead of a scan from the user's cursor (``scan=True``: the scan, the
    reference; same placements).

    Returns the picks run-length encoded (rows ``user, count``), the
    placements (rows ``machine, user, count``), the users whose chosen task
    did not fit (in order) and the number of heap decisions. ``caps`` holds
    a large number for unbounded users.

    One piece: longer than the 60-line habit on purpose: numba compiles
    this function as a whole with its heap and growing buffers as locals;
    helpers would be separate compiled functions passing those buffers
    back and forth, and the kernel exists to avoid exactly that overhead.
    """
    K, m = free.shape
    L = 1  # leaves of the max-tree
    while L < K:
        L *= 2
    tree = np.full((2 * L, m), -1, dtype=np.int64)  # max free space per resource below each node
    tree[L:L + K] = free
    for node in range(L - 1, 0, -1):
        for j in range(m):
            tree[node, j] = max(tree[2 * node, j], tree[2 * node + 1, j])
    h = starters.size  # the heap: (key, rank, user) in three arrays
    hu = starters.copy()
    hk = np.empty(h, dtype=np.int64)
    hr = np.empty(h, dtype=np.int64)
    for p in range(h):
        hk[p] = tasks[hu[p]] * S[hu[p]]
        hr[p] = rank[hu[p]]
    for p in range(h // 2 - 1, -1, -1):
        _sift_down(hk, hr, hu, h, p)
    cursor = np.zeros(S.size, dtype=np.int64)
    picks = np.empty((64, 2), dtype=np.int64)
    n_picks = 0
    placed = np.empty((64, 3), dtype=np.int64)
    n_placed = 0
    fails = np.empty(16, dtype=np.int64)
    n_fails = 0
    decisions = 0
    while h > 0:
        r = hr[0]
        i = hu[0]
        decisions += 1
        s = S[i]
        x = tasks[i]
        if h > 1:
            c = 2 if h > 2 and _before(hk, hr, hu, 2, 1) else 1  # the next smallest entry
            k2 = hk[c]
            want = (k2 // s + 1 if r < hr[c] else -(-k2 // s)) - x
        else:
            want = np.int64(1) << 62
            for j in range(m):
                d = D[i, j]
                if d > 0:
                    tot = np.int64(0)
                    for k in range(K):
                        tot += free[k, j]
                    want = min(want, tot // d + 1)
        want = min(want, caps[i] - x)
        done = np.int64(0)
        k = cursor[i]
        while done < want:
            if k >= K:
                k = -1
            elif scan:
                k = _scan(free, k, D, i)
            else:
                k = _find(tree, L, k, D, i)  # the lowest machine from the cursor with room
            if k < 0:
                k = K
                break
            take = want - done
            for j in range(m):
                d = D[i, j]
                if d > 0:
                    take = min(take, free[k, j] // d)
            for j in range(m):
                free[k, j] -= D[i, j] * take
            if not scan:
                _update(tree, L, k, free)
            if n_placed >= placed.shape[0]:  # grow here: a call per row costs more than the row
                placed = _grow(placed, n_placed)
            placed[n_placed, 0] = k
            placed[n_placed, 1] = i
            placed[n_placed, 2] = take
            n_placed += 1
            done += take
            if done < want:
                k += 1
        cursor[i] = k
        if done > 0:
            tasks[i] = x + done
            if n_picks > 0 and picks[n_picks - 1, 0] == i:
                picks[n_picks - 1, 1] += done
            else:
                if n_picks >= picks.shape[0]:  # grow here: a call per row costs more than the row
                    picks = _grow(picks, n_picks)
                picks[n_picks, 0] = i
                picks[n_picks, 1] = done
                n_picks += 1
        if done < want:
            if n_fails >= fails.shape[0]:  # grow here: a call per row costs more than the row
                fails = _grow(fails, n_fails)
            fails[n_fails] = i
            n_fails += 1
            if stop:
                break
        elif x + done < caps[i]:  # back into the heap: replace the top and sift it down
            hk[0] = (x + done) * s
            _sift_down(hk, hr, hu, h, 0)
            continue
        h -= 1  # the user leaves: the last entry replaces the top
        hk[0], hr[0], hu[0] = hk[h], hr[h], hu[h]
        _sift_down(hk, hr, hu, h, 0)
    return picks[:n_picks], placed[:n_placed], fails[:n_fails], decisions


def fill_work(D: np.ndarray, free: np.ndarray, room: np.ndarray) -> float:
    """The tasks an equal dominant share places, an estimate of how many a
    fill of machines ``free`` (K x m) places for users of demands ``D``
    (n x m) with ``room`` more tasks each (the continuous DRF allocation
    of the total free space, Ghodsi et al., NSDI 2011, Section 4, capped
    by ``room``): the work of a fill in placements."""
    totals = free.sum(axis=0).astype(float)
    Df = np.asarray(D, dtype=float)
    if not Df.size:
        return 0.0
    per = Df / np.where(totals > 0, totals, 1.0)  # share of each resource one task takes
    per[:, totals <= 0] = np.where(Df[:, totals <= 0] > 0, np.inf, 0.0)
    dom = per.max(axis=1)
    ok = np.isfinite(dom) & (dom > 0) & (room > 0)
    if not ok.any():
        return 0.0
    level = 1.0 / (per[ok] / dom[ok, None]).sum(axis=0).max()  # the dominant share that fills a resource
    return float(np.minimum(level / dom[ok], room[ok]).sum())


#: Callees first, for :func:`models.compiled.compiled`.
HELPERS = (_grow, _fits, _find, _scan, _update, _before, _sift_down)


def _sample() -> tuple[object, ...]:
    """Arguments typed as :meth:`models.discrete.run.Run._compiled_first_fit` passes them."""
    one, two = np.zeros(1, dtype=np.int64), np.zeros((1, 1), dtype=np.int64)
    return one, one, one, two, two, one, one, False, False


register_kernel("first-fit", first_fit_kernel, HELPERS, _sample, "placements")

__all__ = ["CURSOR_STEP", "HELPERS", "fill_work", "first_fit_kernel"]
