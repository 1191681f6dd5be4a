"""One round of Mesos coarse offers (see :mod:`models.variants.mesos`).

Without roles the round is a loop over agents and a sorted array of
clients keyed ``(double share, allocation count, path rank)``; it is
written once, on numpy arrays, and registered as the ``mesos-offers``
kernel of :mod:`models.kernels`: compiled with numba for a round of at
least ``COMPILE_MIN_WORK["placements"]`` (its estimated placements plus
its agents, at :data:`OFFER_COST`), else run as Python (numba not imported). Both give identical
results: the same IEEE ``double`` operations in the same order, integer
arithmetic elsewhere. With roles every agent sorts the role tree again
(Python).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._fill_kernel import fill_work
from ..discrete import Run, merge_placed
from ..hierarchy import Tree
from ..kernels import choose, register_kernel
from ._common import demand_floor

if TYPE_CHECKING:
    from .mesos import MesosShare

#: More tasks than any machine can hold (caps of unbounded users).
_ALL = 1 << 62
#: Python cost of a placement or an agent of an offer round, in first-fit
#: placements (the unit of ``COMPILE_MIN_WORK["placements"]``): about 1.5 us
#: against 3 us (``benchmarks/bench_cold_start.py``).
OFFER_COST: float = 1 / 2


def _user_share(i: int, tasks: np.ndarray, num: np.ndarray, den: np.ndarray, T: np.ndarray,
                w: np.ndarray) -> float:
    """``calculateShare`` of user ``i`` in ``double`` (same operations, same
    order as :func:`models.variants.mesos.drf_share`)."""
    s = 0.0
    for j in range(num.shape[1]):
        if T[j] > 0.0:
            s = max(s, (float(tasks[i]) * num[i, j] / den[j]) / T[j])
    return s / w[i]


def _before(a: int, b: int, share: np.ndarray, counts: np.ndarray, rank: np.ndarray) -> bool:
    """``compareDRF``: share, then allocation count, then path."""
    if share[a] != share[b]:
        return share[a] < share[b]
    if counts[a] != counts[b]:
        return counts[a] < counts[b]
    return rank[a] < rank[b]


#: Clients per block of the sorted client list (see :func:`_flat_kernel`).
_BLOCK = 32


def _block_insert(i: int, blk: np.ndarray, cnt: np.ndarray, order: np.ndarray, nb: int, spare: np.ndarray,
                  n_spare: int, share: np.ndarray, counts: np.ndarray, rank: np.ndarray) -> tuple[int, int]:
    """Insert client ``i`` into the blocked sorted list; returns the new
    number of blocks and of spare block ids."""
    B = blk.shape[1]
    if nb == 0:
        n_spare -= 1
        b = spare[n_spare]
        cnt[b] = 0
        order[0] = b
        nb = 1
        q = 0
    else:
        lo, hi = 0, nb - 1  # the first block whose last client comes after i (else the last block)
        while lo < hi:
            mid = (lo + hi) // 2
            b = order[mid]
            if _before(i, blk[b, cnt[b] - 1], share, counts, rank):
                hi = mid
            else:
                lo = mid + 1
        q = lo
    b = order[q]
    if cnt[b] == B:  # split the full block: its upper half moves to a new block after it
        n_spare -= 1
        b2 = spare[n_spare]
        half = B // 2
        blk[b2, :B - half] = blk[b, half:B]
        cnt[b2] = B - half
        cnt[b] = half
        for p in range(nb, q + 1, -1):
            order[p] = order[p - 1]
        order[q + 1] = b2
        nb += 1
        if not _before(i, blk[b2, 0], share, counts, rank):
            b = b2
    lo, hi = 0, cnt[b]
    while lo < hi:
        mid = (lo + hi) // 2
        if _before(blk[b, mid], i, share, counts, rank):
            lo = mid + 1
        else:
            hi = mid
    for p in range(cnt[b], lo, -1):
        blk[b, p] = blk[b, p - 1]
    blk[b, lo] = i
    cnt[b] += 1
    return nb, n_spare


def _flat_kernel(agents: np.ndarray, free: np.ndarray, D: np.ndarray, caps: np.ndarray, num: np.ndarray,
                 den: np.ndarray, T: np.ndarray, w: np.ndarray, rank: np.ndarray, counts: np.ndarray,
                 tasks: np.ndarray, floor: np.ndarray, active: np.ndarray) -> tuple[np.ndarray, int]:
    """The round without roles; returns the accepted offers as rows
    ``(agent, user, tasks)`` and the number of offers made. ``tasks``,
    ``counts`` and ``free`` are updated in place.

    The clients are kept sorted by ``compareDRF`` in a list of small
    blocks; each agent walks it from the front (a client that takes
    nothing keeps its place, as it would in a re-sorted heap); the clients
    that accepted are taken out of the walked blocks and re-inserted after
    the agent with their new keys (a binary search over the blocks, a
    shift inside one block, a split when it is full).

    One piece: one function on purpose, compiled by numba
    (:mod:`models.compiled`), where every call out of the loop over agents
    costs a compiled call per offer, and the block list (five arrays
    updated together) has no cheap representation to pass between helpers.
    """
    n = D.shape[0]
    m = D.shape[1]
    share = np.zeros(n)
    for i in active:
        share[i] = _user_share(i, tasks, num, den, T, w)
    first = active[np.argsort(rank[active], kind="mergesort")]
    first = first[np.argsort(counts[first], kind="mergesort")]
    first = first[np.argsort(share[first], kind="mergesort")]
    B = _BLOCK
    n_blocks = n + 2
    blk = np.empty((n_blocks, B), dtype=np.int64)
    cnt = np.zeros(n_blocks, dtype=np.int64)
    order = np.empty(n_blocks, dtype=np.int64)
    spare = np.arange(n_blocks - 1, -1, -1).astype(np.int64)
    n_spare = n_blocks
    nb = 0
    half = B // 2
    for s0 in range(0, first.size, half):  # half-full blocks leave room for insertions
        n_spare -= 1
        b = spare[n_spare]
        size = min(half, first.size - s0)
        blk[b, :size] = first[s0:s0 + size]
        cnt[b] = size
        order[nb] = b
        nb += 1
    out = np.empty((16, 3), dtype=np.int64)
    n_out = 0
    decisions = 0
    took = np.zeros(n, dtype=np.bool_)
    moved = np.empty(n, dtype=np.int64)
    for k in agents:
        n_moved = 0
        full = False
        for j in range(m):
            if free[k, j] < floor[j]:
                full = True
        walked = 0
        while walked < nb and not full:
            b = order[walked]
            walked += 1
            c = 0
            while c < cnt[b] and not full:
                i = blk[b, c]
                c += 1
                decisions += 1
                take = caps[i] - tasks[i]
                for j in range(m):
                    d = D[i, j]
                    if d > 0:
                        f = free[k, j]
                        if f < d:  # declines: nothing of it fits (the common case, no division)
                            take = 0
                            break
                        take = min(take, f // d)
                if take > 0:
                    for j in range(m):
                        free[k, j] -= D[i, j] * take
                        if free[k, j] < floor[j]:
                            full = True
                    tasks[i] += take
                    counts[i] += 1
                    took[i] = True
                    moved[n_moved] = i
                    n_moved += 1
                    if n_out == out.shape[0]:
                        bigger = np.empty((2 * n_out, 3), dtype=np.int64)
                        bigger[:n_out] = out
                        out = bigger
                    out[n_out, 0] = k
                    out[n_out, 1] = i
                    out[n_out, 2] = take
                    n_out += 1
        if n_moved == 0:
            continue
        # take the clients that accepted out of the walked blocks (the others keep their order)
        kept = 0
        for q in range(walked):
            b = order[q]
            write = 0
            for c in range(cnt[b]):
                if not took[blk[b, c]]:
                    blk[b, write] = blk[b, c]
                    write += 1
            cnt[b] = write
            if write > 0:
                order[kept] = b
                kept += 1
            else:
                spare[n_spare] = b
                n_spare += 1
        for q in range(walked, nb):
            order[kept] = order[q]
            kept += 1
        nb = kept
        for q in range(n_moved):
            i = moved[q]
            took[i] = False
            if caps[i] - tasks[i] <= 0:
                continue
            share[i] = _user_share(i, tasks, num, den, T, w)
            nb, n_spare = _block_insert(i, blk, cnt, order, nb, spare, n_spare, share, counts, rank)
    return out[:n_out], decisions


#: Callees first, for :func:`models.compiled.compiled`.
HELPERS = (_user_share, _before, _block_insert)


def _sample() -> tuple[Any, ...]:
    """Arguments typed as :func:`_flat` passes them."""
    i1, i2, f1, f2 = (np.zeros(1, dtype=np.int64), np.zeros((1, 1), dtype=np.int64), np.zeros(1),
                      np.zeros((1, 1)))
    return i1, i2, i2, i1, f2, f1, f1, f1, i1, i1, i1, i1, i1


register_kernel("mesos-offers", _flat_kernel, HELPERS, _sample, "placements")


def _flat(share: MesosShare, run: Run, agents: np.ndarray, kernel: Callable[..., Any] | None = None) -> None:
    st = run.state
    data = st.data
    prep = share.constants(st)
    n = st.instance.n
    counts = st.extra.setdefault("mesos_counts", [0] * n)
    big = np.int64(_ALL)
    caps = np.array([big if c is None else c for c in st.caps], dtype=np.int64)
    tasks = np.asarray(st.tasks, dtype=np.int64)
    active = np.flatnonzero(caps - tasks > 0)
    counted = prep["counted"]
    num = np.ascontiguousarray(np.asarray(data.demands, dtype=np.int64)[:, counted], dtype=np.float64)
    den = np.array([float(data.scale[j]) for j in counted], dtype=np.float64)
    free = np.array(st.free, dtype=np.int64).reshape(len(st.free), st.instance.m)
    floor = np.asarray(demand_floor(data, active.tolist()), dtype=np.int64)
    cnt = np.asarray(counts, dtype=np.int64)
    work = OFFER_COST * (fill_work(data.demands[active], free, (caps - tasks)[active]) + free.shape[0])
    rows, decisions = (kernel or choose("mesos-offers", work))(
        agents.astype(np.int64), free, np.asarray(data.demands, dtype=np.int64), caps, num, den,
        np.asarray(prep["T"], dtype=np.float64), np.asarray(prep["w"], dtype=np.float64),
        np.asarray(prep["path_rank"], dtype=np.int64), cnt, tasks, floor, active.astype(np.int64))
    run.decisions += int(decisions)
    st.tasks[:] = tasks.tolist()
    merge_placed(st.placed, rows, n)
    if run.record and rows.size:
        run.flush()
        run.chunks.append((rows[:, 1].copy(), rows[:, 2].copy()))
    st.free[:] = free.tolist()
    st.extra["mesos_counts"] = cnt.tolist()


def _nested(share: MesosShare, run: Run, agents: np.ndarray) -> None:
    st = run.state
    data = st.data
    tree: Tree = share.tree(st.instance)
    counts = st.extra.setdefault("mesos_node_counts", [0] * len(tree.parent))

    def room(i: int) -> int:
        cap = st.caps[i]
        return _ALL if cap is None else cap - int(st.tasks[i])

    active = [i for i in range(st.instance.n) if room(i) > 0]
    floor = [int(v) for v in demand_floor(data, active)]
    for k in agents.tolist():
        nodes = share.node_keys(st, counts)
        for i in sorted(active, key=lambda u: tuple(nodes[x] for x in tree.path[u])):
            if any(f < d for f, d in zip(st.free[k], floor, strict=True)):
                break
            run.decisions += 1
            if run.take(i, room(i), k):
                for node in tree.path[i]:
                    counts[node] += 1
        active = [i for i in active if room(i) > 0]


def offer_round(share: MesosShare, run: Run, seed: int) -> None:
    """One pass over the agents in the seeded random order."""
    st = run.state
    # one generator per engine state: every allocation step (Engine.allocate) visits the agents in a
    # new order, the first step in the order fill() has always used
    rng = st.extra.setdefault("mesos_rng", np.random.default_rng(seed))
    agents = rng.permutation(len(st.free))
    if share.prepared(st.instance)["flat"] and _whole(st.data.demands):
        _flat(share, run, agents)
    else:
        _nested(share, run, agents)


def _whole(D: np.ndarray) -> bool:
    """Scaled demands fit the kernel's int64 and exact-double arithmetic."""
    return D.dtype == np.int64 and (D.size == 0 or int(D.max()) < 2**40)


__all__ = ["HELPERS", "OFFER_COST", "offer_round"]
