"""Level jumps: many picks of the batched loop at once on a pool.

The batched loop of :class:`~models.discrete.run.Run` (Ghodsi et al., NSDI
2011, Algorithm 1 with linear keys) allocates, on a single machine, every
pick whose key lies below the largest level at which all of them fit.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np

from ..tolerances import KEY_NEAR
from .state import INT64_SAFE, FillState


class Pool(Protocol):
    """What a level jump reads and extends of the batched loop
    (:class:`~models.discrete.run.Run` is one; it calls this module, which
    is below it): the state, the users' ranks, the recording of decisions
    and a user's room."""

    state: FillState
    rank: list[int]
    record: bool
    chunks: list[tuple[np.ndarray, np.ndarray]]

    def flush(self) -> None: ...

    def _room(self, i: int) -> int | None: ...

#: A level jump is tried only when at least this many picks may remain
#: (below it, bisection costs more than single decisions).
JUMP_MIN_PICKS: int = 512


@dataclass(eq=False)
class LevelJump:
    """Vectorised level jumps on a pool (see :meth:`~models.discrete.run.Run.batched`).

    The level is searched in floating point (integer keys may exceed
    int64); the counts it gives are then recomputed from an exact integer
    level and checked exactly, so a jump never places a task that the
    one-by-one loop would not place, in the same order.
    """

    run_: Pool
    S: list[int]
    Sf: np.ndarray
    P: np.ndarray
    Q: np.ndarray
    caps: np.ndarray

    @classmethod
    def make(cls, run: Pool, S: list[int], rates: list[Fraction]) -> LevelJump | None:
        """A jumper, or ``None`` when int64 usage sums could overflow."""
        st = run.state
        D = st.data.demands
        if D.dtype != np.int64:
            return None
        n = st.instance.n
        free_max = max(st.free[0])
        if n * (free_max + 2) * int(D.max()) >= INT64_SAFE:
            return None
        big = free_max + 2  # no user ever holds more tasks than this on the pool
        caps = np.array([big if c is None else min(c, big) for c in st.caps], dtype=np.int64)
        small = all(r.numerator < INT64_SAFE and r.denominator < INT64_SAFE for r in rates)
        P = np.array([r.numerator for r in rates] if small else [0] * n, dtype=np.int64)
        Q = np.array([r.denominator for r in rates] if small else [0] * n, dtype=np.int64)
        return cls(run_=run, S=S, Sf=np.array([float(v) for v in S]), P=P, Q=Q, caps=caps)

    def run(self, heap: list[tuple[int, int, int]]) -> tuple[bool, list[tuple[int, int, int]]]:
        """Allocate every pick below the largest fitting level; return
        whether anything was allocated and the rebuilt heap."""
        run = self.run_
        st = run.state
        act = np.fromiter((e[2] for e in heap), dtype=np.int64, count=len(heap))
        x = np.asarray(st.tasks, dtype=np.int64)[act]
        sf = self.Sf[act]
        D = st.data.demands[act]
        free = np.asarray(st.free[0], dtype=np.int64)
        pos = D > 0
        alone = np.where(pos, free // np.where(pos, D, 1), np.iinfo(np.int64).max).min(axis=1)
        top = np.minimum(self.caps[act], x + np.minimum(alone, self.caps[act]) + 1)
        if int((top - x).sum()) < JUMP_MIN_PICKS:
            return False, heap  # few picks remain: single decisions are cheaper
        topf = top.astype(float)

        def fits(cnt: np.ndarray) -> bool:
            return bool(np.all((cnt - x) @ D <= free))

        def approx(level: float) -> np.ndarray:
            return np.maximum(x, np.minimum(topf, np.ceil(level / sf)).astype(np.int64))

        low = min(e[0] for e in heap)  # exact: nothing lies below it
        lo, hi = float(low), float((topf * sf).max()) * 2 + 1
        if fits(approx(hi)):
            lo = hi
        else:
            while hi - lo > max(1.0, lo * KEY_NEAR):
                mid = (lo + hi) / 2
                if fits(approx(mid)):
                    lo = mid
                else:
                    hi = mid
        # exact counts at an integer level at or below the float one
        S = self.S
        xs, tops, users = x.tolist(), top.tolist(), act.tolist()
        level = max(int(lo), low)
        while True:
            cnt = np.array([max(xi, min(ti, -(-level // S[u]))) for xi, ti, u in zip(xs, tops, users, strict=True)],
                           dtype=np.int64)
            if fits(cnt) or level <= low:
                break
            level = low + (level - low) // 2
        inc = cnt - x
        if not inc.any() or not fits(cnt):
            return False, heap
        grow = np.flatnonzero(inc)
        if run.record:
            run.flush()
            self._record(act[grow], x[grow], inc[grow])
        st.free[0] = [int(v) for v in free - inc @ D]
        slot = st.slot(0)
        for i, c, t in zip(act[grow].tolist(), inc[grow].tolist(), cnt[grow].tolist(), strict=True):
            slot[i] = slot.get(i, 0) + c
            st.tasks[i] = t
        rest = [(t * S[u], run.rank[u], u) for t, u in zip(cnt.tolist(), users, strict=True) if run._room(u) != 0]
        heapq.heapify(rest)
        return True, rest

    def _record(self, who: np.ndarray, first_task: np.ndarray, inc: np.ndarray) -> None:
        """Append the new picks in exact (key, rank) order, run-length
        encoded."""
        run = self.run_
        users = np.repeat(who, inc)
        start = np.repeat(np.cumsum(inc) - inc, inc)
        j = np.repeat(first_task, inc) + (np.arange(users.size) - start)
        rank = np.asarray(run.rank, dtype=np.int64)[users]
        keys = j * self.Sf[users]
        order = np.lexsort((rank, keys))
        if float(keys.max(initial=0.0)) >= 2.0**53 or max(self.S) >= 2**53:
            order = self._exact_order(order, users, j, keys, rank)
        seq = users[order]
        cut = np.flatnonzero(np.r_[True, seq[1:] != seq[:-1]])
        run.chunks.append((seq[cut], np.diff(np.r_[cut, seq.size])))

    def _exact_order(self, order: np.ndarray, users: np.ndarray, j: np.ndarray, keys: np.ndarray,
                     rank: np.ndarray) -> np.ndarray:
        """Repair a float-key order where floats are not exact: neighbours
        with close float keys are compared exactly (``j_a p_a q_b`` against
        ``j_b p_b q_a`` in int64 when it cannot overflow, else in Python
        integers); equal keys are put in rank order."""
        ks = keys[order]
        near = np.flatnonzero(np.diff(ks) <= KEY_NEAR * np.abs(ks[1:]))
        if not near.size:
            return order
        a, b = users[order[near]], users[order[near + 1]]
        ja, jb = j[order[near]], j[order[near + 1]]
        P, Q = self.P, self.Q
        bound = int(j.max()) * int(P.max()) * int(Q.max())
        if P.any() and bound < INT64_SAFE:
            equal = ja * P[a] * Q[b] == jb * P[b] * Q[a]
        else:
            S = self.S
            equal = np.array([int(x) * S[int(u)] == int(y) * S[int(v)]
                              for x, u, y, v in zip(ja, a, jb, b, strict=True)], dtype=bool)
        if equal.all():
            # runs of exactly equal keys, each put in rank order
            tie = np.zeros(order.size, dtype=bool)
            tie[near + 1] = True
            group = np.cumsum(~tie)
            return order[np.lexsort((rank[order], group))]
        # close but unequal keys (rare): sort those stretches exactly
        S, R = self.S, self.run_.rank
        edges = np.zeros(order.size + 1, dtype=np.int64)
        np.add.at(edges, near, 1)
        np.add.at(edges, near + 2, -1)
        inside = np.cumsum(edges[:-1]) > 0
        bounds = np.flatnonzero(np.diff(np.r_[0, inside.astype(np.int8), 0]))
        out = order.copy()
        for lo, hi in zip(bounds[::2], bounds[1::2], strict=True):
            seg = out[lo:hi].tolist()
            seg.sort(key=lambda p: (int(j[p]) * S[int(users[p])], R[int(users[p])]))
            out[lo:hi] = seg
        return out


__all__ = ["JUMP_MIN_PICKS", "LevelJump"]
