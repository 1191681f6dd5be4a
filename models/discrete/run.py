"""The decision loops of the discrete engine (Ghodsi et al., NSDI 2011,
Section 4.2, Algorithm 1: pick the user with the smallest share key, place
one of its tasks) and their bookkeeping (picks, failures, placements)."""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from .level_jump import LevelJump
from .placements import FirstFit, Placement
from .state import INT64_SAFE, FillState

if TYPE_CHECKING:  # pragma: no cover
    from .policies import DiscretePolicy


def merge_placed(placed: list[Mapping[int, int]], rows: np.ndarray, n: int) -> None:
    """Add placement rows ``(machine, user, tasks)`` to the per-machine
    dicts: pairs summed with numpy, one dict built per machine touched."""
    if not rows.size:
        return
    key = rows[:, 0] * n + rows[:, 1]
    order = np.argsort(key, kind="stable")
    key, count = key[order], rows[order, 2]
    start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    key, count = key[start], np.add.reduceat(count, start)
    machine, user = np.divmod(key, n)
    cut = np.flatnonzero(np.r_[True, machine[1:] != machine[:-1], True])
    users, counts = user.tolist(), count.tolist()  # dicts straight from list slices: no pair tuples
    bounds = cut.tolist()
    for k, a, b in zip(machine[cut[:-1]].tolist(), bounds, bounds[1:], strict=False):
        slot = placed[k]
        if slot:
            assert isinstance(slot, dict)
            for i, c in zip(users[a:b], counts[a:b], strict=True):
                slot[i] = slot.get(i, 0) + c
        else:
            placed[k] = dict(zip(users[a:b], counts[a:b], strict=True))


#: The compiled first fit finds machines by a plain scan instead of its
#: max-tree (the same placements; a switch for the benchmark's baseline and
#: the equivalence test).
FIRST_FIT_SCAN: bool = False


@dataclass(eq=False)
class Run:
    """The decision loops of one allocation step: the engine's public type
    for policies with a loop of their own.

    One object is made per :func:`~models.discrete.fill` call (per
    :meth:`Engine.allocate <models.discrete.Engine.allocate>` step). It picks
    users by share key in one of three loops -- :meth:`heap` (one heap
    operation per decision, Algorithm 1 of Ghodsi et al., NSDI 2011,
    Section 4.2), :meth:`scan` (keys that depend on every user) and
    :meth:`batched` (linear keys, many picks per decision) -- or lets a
    policy's :meth:`DiscretePolicy.drive` run its own loop (e.g. Mesos
    offering one machine at a time, :mod:`models.variants.mesos`), which
    places tasks with :meth:`take` (on a given machine) or
    :meth:`place_tasks` (through the placement) and may call :meth:`flush`
    before appending a chunk of picks of its own to :attr:`chunks`.

    Attributes
    ----------
    state : FillState
        The cluster being filled (shared with the engine across steps).
    place : Placement
        Where tasks go.
    rank : list of int
        Tie-break rank per user (smaller wins a tie).
    stop : bool
        True for ``on_full="stop"`` (end at the first task that does not fit).
    record : bool
        Keep the order of picks.
    pick_users, pick_counts : list of int
        Picks recorded one run at a time (see :meth:`recorded`).
    failures : list of int
        Users whose chosen task did not fit, in order.
    decisions : int
        Heap operations (or policy decisions) made.
    chunks : list of (ndarray, ndarray)
        Picks already moved into run-length encoded arrays.
    final : bool
        True when the state is fresh and dropped after this step
        (:func:`fill`): the compiled first fit then starts from the data's
        machine array and leaves its placement rows in
        :attr:`placed_rows` and its free space in :attr:`free_out` instead
        of writing them into the state's per-machine dicts and lists.
    placed_rows : ndarray or None
        Rows ``(machine, user, tasks)`` not yet merged into ``state.placed``.
    free_out : ndarray or None
        Free space per machine after the step, when not written to ``state.free``.
    """

    state: FillState
    place: Placement
    rank: list[int]
    stop: bool
    record: bool
    pick_users: list[int] = field(default_factory=list)
    pick_counts: list[int] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)
    decisions: int = 0
    chunks: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    final: bool = False
    placed_rows: np.ndarray | None = None
    free_out: np.ndarray | None = None

    def _room(self, i: int) -> int | None:
        cap = self.state.caps[i]
        return None if cap is None else cap - self.state.tasks[i]

    def _starters(self) -> list[int]:
        return [i for i in range(self.state.instance.n) if self._room(i) != 0]

    def _take(self, i: int, count: int) -> int:
        """Place up to ``count``; record; return how many were placed."""
        got = self.place.place(self.state, i, count)
        if got:
            self._record(i, got)
        return got

    def place_tasks(self, i: int, count: int) -> int:
        """For :meth:`DiscretePolicy.drive` loops: place up to ``count``
        tasks of user ``i`` through the run's placement strategy; record;
        return how many were placed."""
        return self._take(i, count)

    def _record(self, i: int, got: int) -> None:
        self.state.tasks[i] += got
        if self.record:
            if self.pick_users and self.pick_users[-1] == i:
                self.pick_counts[-1] += got
            else:
                self.pick_users.append(i)
                self.pick_counts.append(got)

    def take(self, i: int, count: int, k: int) -> int:
        """Place up to ``count`` tasks of user ``i`` on machine ``k`` itself
        (for :meth:`DiscretePolicy.drive` loops; caps are the caller's
        business); record; return how many were placed."""
        st = self.state
        got = min(count, st.fits_on(k, i))
        if got > 0:
            st.put(k, i, got)
            self._record(i, got)
        return max(got, 0)

    def heap(self, pol: DiscretePolicy) -> None:
        """One heap operation per decision (Algorithm 1 with a binary heap)."""
        st = self.state
        heap = [(pol.key(st, i), self.rank[i], i) for i in self._starters()]
        heapq.heapify(heap)
        while heap:
            _, r, i = heapq.heappop(heap)
            self.decisions += 1
            if not self._take(i, 1):
                self.failures.append(i)
                if self.stop:
                    return
                continue
            if self._room(i) != 0:
                heapq.heappush(heap, (pol.key(st, i), r, i))

    def scan(self, pol: DiscretePolicy) -> None:
        """Keys that depend on everybody: re-evaluate all at each decision."""
        active = self._starters()
        while active:
            i = min(active, key=lambda u: (pol.key(self.state, u), self.rank[u]))
            self.decisions += 1
            if not self._take(i, 1):
                self.failures.append(i)
                active.remove(i)
                if self.stop:
                    return
                continue
            if self._room(i) == 0:
                active.remove(i)

    def batched(self, S: list[int], rates: list[Fraction]) -> None:
        """Linear keys ``tasks_i * S_i`` in exact integers.

        A popped user takes, in one placement call, every pick it would win
        before the next user's key. On a pool, a *level jump* moreover
        allocates at once every pick whose key is below the largest level
        ``L`` at which all of them fit (their total demand is at most the
        free space, so every prefix of them fits too); it is found by
        bisection over ``L`` with vectorised integer arithmetic and repeated
        whenever many single decisions have gone by.
        """
        st = self.state
        if self._compiled_first_fit(S):
            return
        heap, jump = self._batched_start(S, rates)
        every = 64
        since = every + len(heap)  # jump at once
        tasks, caps, place = st.tasks, st.caps, self.place.place
        pop, push = heapq.heappop, heapq.heappush
        record, users, counts = self.record, self.pick_users, self.pick_counts
        while heap:
            if jump is not None and since >= every + len(heap):
                self.pick_users, self.pick_counts = users, counts
                progressed, heap = jump.run(heap)
                users, counts = self.pick_users, self.pick_counts  # a jump flushes them into a chunk
                since = 0
                every = 64 if progressed else 2 * every
                if not heap:
                    break
            _key, r, i = pop(heap)
            self.decisions += 1
            since += 1
            s = S[i]
            x = tasks[i]
            if heap:
                k2, r2, _ = heap[0]
                # picks j >= x of user i with (j*s, r) < (k2, r2)
                want = (k2 // s + 1 if r < r2 else -(-k2 // s)) - x
            else:
                want = self._solo_bound(i)
            cap = caps[i]
            if cap is not None and cap - x < want:
                want = cap - x
            got = place(st, i, want)
            if got:
                tasks[i] = x + got
                if record:
                    if users and users[-1] == i:
                        counts[-1] += got
                    else:
                        users.append(i)
                        counts.append(got)
            if got < want:
                self.failures.append(i)
                if self.stop:
                    break
                continue
            if cap is None or x + got < cap:
                push(heap, ((x + got) * s, r, i))
        self.pick_users, self.pick_counts = users, counts

    def _batched_start(self, S: list[int], rates: list[Fraction]) -> tuple[list[tuple[int, int, int]],
                                                                          LevelJump | None]:
        """The heap of :meth:`batched` and, on a pool, its level jumper."""
        st = self.state
        heap = [(st.tasks[i] * S[i], self.rank[i], i) for i in self._starters()]
        heapq.heapify(heap)
        jump = LevelJump.make(self, S, rates) if len(st.free) == 1 and self.place.plain_on_one_machine else None
        return heap, jump

    def _compiled_first_fit(self, S: list[int]) -> bool:
        """On machines with first fit, when the work is large enough to pay
        for numba (:func:`models.kernels.runs_compiled`), run
        :func:`models._fill_kernel.first_fit_kernel` (the same decisions as
        the loop of :meth:`batched`, compiled) and return True; else False
        (small work, numba missing, a pool, another placement, or keys that
        could leave int64)."""
        st = self.state
        D = st.data.demands
        if type(self.place) is not FirstFit or len(st.free) < 2 or D.dtype != np.int64:
            return False
        # a fill step starts from the empty machines: no round trip through the lists
        free = st.data.machines.copy() if self.final else np.array(st.free, dtype=np.int64)
        if int(free.max(initial=0)) * free.shape[0] >= INT64_SAFE:
            return False
        tasks = np.asarray(st.tasks, dtype=np.int64)
        big = 1 << 62
        caps = np.array([big if c is None else c for c in st.caps], dtype=np.int64)
        from .._fill_kernel import CURSOR_STEP, fill_work
        from ..kernels import compiled_form, runs_compiled

        room = caps - tasks
        work = fill_work(D, free, room) + CURSOR_STEP * int((room > 0).sum()) * free.shape[0]
        if not runs_compiled("first-fit", work):
            return False
        # keys stay below INT64_SAFE: (most tasks user i can still get + 1 + its tasks) * S_i, in Python ints
        totals = free.sum(axis=0)  # < INT64_SAFE: checked just above
        most = np.where(D > 0, totals // np.maximum(D, 1), INT64_SAFE).min(axis=1, initial=INT64_SAFE) + 1 + tasks
        if any(a * s >= INT64_SAFE for a, s in zip(most.tolist(), S, strict=True)):
            return False
        kernel = compiled_form("first-fit")
        picks, placed, fails, decisions = kernel(
            np.asarray(S, dtype=np.int64), np.asarray(self.rank, dtype=np.int64), caps, D, free, tasks,
            np.flatnonzero(caps != tasks), self.stop, FIRST_FIT_SCAN)  # starters: users with room
        st.tasks[:] = tasks.tolist()
        if self.final:
            self.placed_rows, self.free_out = placed, free
        else:
            st.free[:] = free.tolist()
            merge_placed(st.placed, placed, st.instance.n)
        self.failures.extend(fails.tolist())
        self.decisions += int(decisions)
        if self.record and picks.size:
            self.flush()
            self.chunks.append((picks[:, 0].copy(), picks[:, 1].copy()))
        return True

    def flush(self) -> None:
        """Move the picks recorded one by one into a chunk."""
        if self.pick_users:
            self.chunks.append(
                (np.asarray(self.pick_users, dtype=np.int64), np.asarray(self.pick_counts, dtype=np.int64))
            )
            self.pick_users, self.pick_counts = [], []

    def recorded(self) -> tuple[np.ndarray, np.ndarray]:
        """All picks, run-length encoded."""
        self.flush()
        if not self.chunks:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        if len(self.chunks) == 1:
            users, counts = self.chunks[0]
        else:
            users = np.concatenate([c[0] for c in self.chunks])
            counts = np.concatenate([c[1] for c in self.chunks])
        # merge runs of one user split across chunks
        new = users[1:] != users[:-1]
        if new.all():
            return users, counts
        start = np.flatnonzero(np.r_[True, new])
        return users[start], np.add.reduceat(counts, start)

    def _solo_bound(self, i: int) -> int:
        """More tasks than user ``i`` alone can ever place (plus one)."""
        st = self.state
        return min(sum(row[j] for row in st.free) // d for j, d in st.demand(i)) + 1


__all__ = ["Run", "merge_placed"]
