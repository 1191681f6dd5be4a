"""One round of Mesos coarse offers (see :mod:`models.variants.mesos`).

Without roles the round is a loop over agents and a sorted array of
clients keyed ``(double share, allocation count, path rank)``; it is
written once, on numpy arrays, and compiled with numba when numba is
installed (imported lazily, on the first round); without numba the same
function runs as Python. Both give identical results: the same IEEE ``double`` operations in
the same order, integer arithmetic elsewhere. With roles every agent sorts
the role tree again (Python).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..compiled import compiled
from ..discrete import _merge_placed, _Run
from ..hierarchy import Tree
from ._common import demand_floor

if TYPE_CHECKING:
    from .mesos import MesosShare

#: More tasks than any machine can hold (caps of unbounded users).
_ALL = 1 << 62


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


def _flat_kernel(agents: np.ndarray, free: np.ndarray, D: np.ndarray, caps: np.ndarray, num: np.ndarray,
                 den: np.ndarray, T: np.ndarray, w: np.ndarray, rank: np.ndarray, counts: np.ndarray,
                 tasks: np.ndarray, floor: np.ndarray, active: np.ndarray) -> tuple[np.ndarray, int]:
    """The round without roles; returns the accepted offers as rows
    ``(agent, user, tasks)`` and the number of offers made. ``tasks``,
    ``counts`` and ``free`` are updated in place.

    The clients are kept in an array sorted by ``compareDRF``; each agent
    walks it from the front (a client that takes nothing keeps its place,
    as it would in a re-sorted heap); the clients that accepted are taken
    out of the walked prefix and re-inserted after the agent with their
    new keys, shifting the shorter side of the array.
    """
    n = D.shape[0]
    m = D.shape[1]
    share = np.zeros(n)
    for i in active:
        share[i] = _user_share(i, tasks, num, den, T, w)
    first = active[np.argsort(rank[active], kind="mergesort")]
    first = first[np.argsort(counts[first], kind="mergesort")]
    first = first[np.argsort(share[first], kind="mergesort")]
    # the sorted clients live in buf[start:end], with room on both sides for cheap insertions
    cap = 3 * n + 3
    buf = np.empty(cap, dtype=np.int64)
    start = n + 1
    end = start + first.size
    buf[start:end] = first
    out = np.empty((16, 3), dtype=np.int64)
    n_out = 0
    decisions = 0
    took = np.zeros(n, dtype=np.bool_)
    moved = np.empty(n, dtype=np.int64)
    for k in agents:
        pos = start
        n_moved = 0
        full = False
        for j in range(m):
            if free[k, j] < floor[j]:
                full = True
        while pos < end and not full:
            i = buf[pos]
            pos += 1
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
        # drop the clients that accepted from the walked prefix (the others keep their order)
        write = pos
        for p in range(pos - 1, start - 1, -1):
            if not took[buf[p]]:
                write -= 1
                buf[write] = buf[p]
        start = write
        for q in range(n_moved):
            i = moved[q]
            took[i] = False
            if caps[i] - tasks[i] <= 0:
                continue
            share[i] = _user_share(i, tasks, num, den, T, w)
            lo, hi = start, end
            while lo < hi:
                mid = (lo + hi) // 2
                if _before(buf[mid], i, share, counts, rank):
                    lo = mid + 1
                else:
                    hi = mid
            # (at most n clients in a buffer of 3n + 3: the two sides are never both full)
            if start > 0 and (lo - start <= end - lo or end == cap):
                for p in range(start, lo):
                    buf[p - 1] = buf[p]
                start -= 1
                buf[lo - 1] = i
            else:
                for p in range(end, lo, -1):
                    buf[p] = buf[p - 1]
                end += 1
                buf[lo] = i
    return out[:n_out], decisions


def flat_kernel() -> Callable[..., tuple[np.ndarray, int]]:
    """The numba-compiled :func:`_flat_kernel` when numba is installed,
    else the Python function itself (:func:`models.compiled.compiled`)."""
    return compiled(_flat_kernel, (_user_share, _before))


def _flat(share: MesosShare, run: _Run, agents: np.ndarray, kernel: Callable[..., Any] | None = None) -> None:
    st = run.state
    data = st.data
    prep = share.constants(st)
    n = st.instance.n
    counts = st.extra.setdefault("mesos_counts", [0] * n)
    big = np.int64(_ALL)
    caps = np.array([big if c is None else c for c in data.caps], dtype=np.int64)
    tasks = np.asarray(st.tasks, dtype=np.int64)
    active = np.flatnonzero(caps - tasks > 0)
    counted = prep["counted"]
    num = np.asarray(data.demands, dtype=np.int64)[:, counted].astype(np.float64)
    den = np.array([float(data.scale[j]) for j in counted], dtype=np.float64)
    free = np.array(st.free, dtype=np.int64).reshape(len(st.free), st.instance.m)
    floor = np.asarray(demand_floor(data, active.tolist()), dtype=np.int64)
    cnt = np.asarray(counts, dtype=np.int64)
    rows, decisions = (kernel or flat_kernel())(
        agents.astype(np.int64), free, np.asarray(data.demands, dtype=np.int64), caps, num, den,
        np.asarray(prep["T"], dtype=np.float64), np.asarray(prep["w"], dtype=np.float64),
        np.asarray(prep["path_rank"], dtype=np.int64), cnt, tasks, floor, active.astype(np.int64))
    run.decisions += int(decisions)
    st.tasks[:] = tasks.tolist()
    _merge_placed(st.placed, rows, n)
    if run.record and rows.size:
        run.flush()
        run.chunks.append((rows[:, 1].copy(), rows[:, 2].copy()))
    st.free[:] = free.tolist()
    st.extra["mesos_counts"] = cnt.tolist()


def _nested(share: MesosShare, run: _Run, agents: np.ndarray) -> None:
    st = run.state
    data = st.data
    tree: Tree = share.prepared(st.instance)["tree"]
    counts = st.extra.setdefault("mesos_node_counts", [0] * len(tree.parent))

    def room(i: int) -> int:
        cap = data.caps[i]
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


def offer_round(share: MesosShare, run: _Run, seed: int) -> None:
    """One pass over the agents in the seeded random order."""
    st = run.state
    # one generator per engine state: every allocation step (Engine.allocate) visits the agents in a
    # new order, the first step in the order fill() has always used
    rng = st.extra.setdefault("mesos_rng", np.random.default_rng(seed))
    agents = rng.permutation(len(st.free))
    if share.prepared(st.instance)["tree"].flat and _whole(st.data.demands):
        _flat(share, run, agents)
    else:
        _nested(share, run, agents)


def _whole(D: np.ndarray) -> bool:
    """Scaled demands fit the kernel's int64 and exact-double arithmetic."""
    return D.dtype == np.int64 and (D.size == 0 or int(D.max()) < 2**40)


__all__ = ["flat_kernel", "offer_round"]
