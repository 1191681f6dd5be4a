"""The event engine: jobs arrive, tasks start and finish, the user with the
lowest share goes next.

Ghodsi et al., NSDI 2011, Section 7 (Mesos offers freed resources to the
user with the smallest dominant share, Section 4.2's Algorithm 1 run each
time resources free up). At every event time the engine

1. frees the resources of the task batches that finish and cancels the
   tasks of jobs past their ``until``;
2. admits the jobs that arrive;
3. runs a *scheduling round*: repeatedly the user with the smallest
   (weighted) share key, ties to the earlier user (or a seeded random
   rank), launches tasks of its oldest job with tasks left. A user whose
   task fits on no machine is skipped for the round (and until a machine
   it could use frees resources).

This is the reference engine, in numpy: with ``batch=False`` it launches
one task per decision (the specification the kernel engine
:mod:`.fast` is tested against, decision for decision); it also runs the
policies whose share is not a ``max`` or ``sum`` of per-resource terms.
With ``batch=True`` a chosen user launches at once every task it would win
before the next user's key, found by a k-ary search over vectorised
evaluations of the policy's share (:meth:`.keys.ShareModel.shares`),
placed first fit (lowest machine index first) with numpy cumulative
counts of how many fit on each machine. Tasks of one batch that finish at
the same time are one event.

Over-commit and its slow-down, and the tie-breaks: :mod:`.options`.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Callable
from typing import Any

import numpy as np

from models.kernels import Stopwatch

from .keys import ShareModel
from .options import finish_groups, penalties, random_ties, slowdown
from .queues import QueuedSpec, QueuedUser
from .result import JobRecord, SimulationResult
from .workload import JobSpec, Workload

#: Largest task range evaluated at once by the batch search.
_DENSE: int = 256
#: Points per step of the k-ary batch search.
_GRID: int = 64
_COMPLETE, _CANCEL = 0, 1
#: The user heap is compacted when it holds this many entries per user.
_HEAP_SLACK: int = 4


class Engine:
    """One simulation run (see the module docstring)."""

    def __init__(self, workload: Workload, model: ShareModel, *, until: float | None, seed: int,
                 overcommit_penalty: dict[str, float] | None, tie_break: str, check_properties: bool,
                 record_users: bool, progress: Callable[[int], None] | None, batch: bool = True) -> None:
        self.w, self.model = workload, model
        self.until = until
        self.rng = np.random.default_rng(seed)
        self.random_ties = random_ties(tie_break)
        m = len(workload.resources)
        self.penalty, self.over_cols = penalties(workload, model, overcommit_penalty)
        self.cap = model.machines
        # free space, stored column by column (``free_cols[j]`` is contiguous: fit counts read it per resource)
        self.free_cols = np.ascontiguousarray(model.machines.T)
        self.free = self.free_cols.T  # a (K, columns) view of the same memory
        self.used = np.zeros(model.columns, dtype=np.int64)
        self.U = np.zeros((16, model.columns), dtype=np.int64)
        self.users: list[QueuedUser] = []
        self.index: dict[str, int] = {}
        self.heap: list[tuple[float, float, int, int]] = []
        self.events: list[tuple[float, int, int, Any]] = []
        self.seq = 0
        self.blocked: set[int] = set()
        self.changed: list[np.ndarray] = []
        self.jobs: dict[str, JobRecord] = {}
        self.demands: list[np.ndarray] = []
        self.work = np.zeros(m)
        self.times, self.util = array("d"), array("q")
        self.record_users = record_users
        self.log_t, self.log_u, self.log_k, self.log_d = array("d"), array("q"), array("q"), array("q")
        self.check = check_properties
        self.batch = batch
        self.violations: list[dict[str, Any]] = []
        self.progress = progress
        self.launched = self.finished = self.decisions = self.nevents = 0

    # ------------------------------------------------------------ users
    def _user(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = len(self.users)
            self.index[name] = i
            rank = float(self.rng.random()) if self.random_ties else float(i)
            self.users.append(QueuedUser(name=name, weight=float(self.w.weights.get(name, 1.0)), rank=rank))
            if i >= self.U.shape[0]:
                self.U = np.vstack([self.U, np.zeros_like(self.U)])
        return i

    def _key(self, i: int) -> float:
        return float(self.model.shares(self.U[i][None, :])[0]) / self.users[i].weight

    def _push_many(self, idx: list[int]) -> None:
        """Unblock ``idx`` and push them, keys computed in one call."""
        if not idx:
            return
        users = self.users
        keys = self.model.shares(self.U[idx]).tolist()
        for i, key in zip(idx, keys, strict=True):
            u = users[i]
            u.blocked = False
            self.blocked.discard(i)
            u.version += 1
            if u.queue:
                heapq.heappush(self.heap, (key / u.weight, u.rank, u.version, i))

    def _push(self, i: int) -> None:
        u = self.users[i]
        u.version += 1
        if u.queue and not u.blocked:
            heapq.heappush(self.heap, (self._key(i), u.rank, u.version, i))

    # ------------------------------------------------------------ events
    def _admit(self, spec: JobSpec, t: float, generation: int = 0) -> None:
        i = self._user(spec.user)
        demand = self.model.extend(spec.demand)
        s = QueuedSpec(spec=spec, user=i, demand=demand, pending=spec.tasks, index=len(self.demands),
                       generation=generation, need=tuple(int(v) for v in demand[self.model.place_cols]))
        self.demands.append(spec.demand)
        job = spec.job if not generation else f"{spec.job}@{generation}"
        rec = self.jobs.get(job)
        if rec is None:
            self.jobs[job] = rec = JobRecord(job=job, user=spec.user, arrival=t)
        rec.open += 1
        s.record, s.real = rec, self.w.real(spec.demand)
        u = self.users[i]
        was_idle = not u.queue
        u.queue.append(s)
        if spec.until is not None:
            self._event(max(spec.until, t), _CANCEL, s)
        if was_idle and not u.blocked:
            self._push(i)

    def _event(self, when: float, kind: int, payload: Any) -> None:
        self.seq += 1
        heapq.heappush(self.events, (when, kind, self.seq, payload))

    def _complete(self, t: float, payload: tuple[QueuedSpec, np.ndarray, np.ndarray, int]) -> None:
        s, mach, counts, k = payload
        d = s.demand
        self.free[mach] += counts[:, None] * d
        self.changed.append(mach)
        self.U[s.user] -= k * d
        self.used -= k * d
        self._log(t, s, -k)
        s.running -= k
        s.done += k
        self.finished += k
        rec = s.record
        rec.finish = t
        rec.tasks += k
        if s.pending == 0 and s.running == 0:
            self._spec_done(s, t)
        self._push(s.user)

    def _cancel(self, t: float, s: QueuedSpec) -> None:
        if s.pending == 0:
            return
        s.pending, s.truncated = 0, True
        u = self.users[s.user]
        u.queue.remove(s)
        if s.running == 0:
            self._spec_done(s, t)
        if u.blocked:
            u.blocked = False
            self.blocked.discard(s.user)
        self._push(s.user)

    def _spec_done(self, s: QueuedSpec, t: float) -> None:
        rec = s.record
        rec.open -= 1
        rec.truncated = rec.truncated or s.truncated
        if rec.finish is None:
            rec.finish = t
        if s.spec.repeat and not s.truncated:
            self._admit(s.spec, t, generation=s.generation + 1)

    def _log(self, t: float, s: QueuedSpec, k: int) -> None:
        if self.record_users:
            self.log_t.append(t)
            self.log_u.append(s.user)
            self.log_k.append(k)
            self.log_d.append(s.index)

    # ------------------------------------------------------------ scheduling
    def _fits(self, d: np.ndarray, cap: int) -> np.ndarray:
        """How many tasks of demand ``d`` fit on each machine (at most ``cap``)."""
        out = None
        for c in self.model.place_cols.tolist():
            n = int(d[c])
            if n > 0:
                q = self.free_cols[c] // n
                out = q if out is None else np.minimum(out, q, out=out)
        return np.full(self.free.shape[0], cap, dtype=np.int64) if out is None else out

    def _unblock(self) -> tuple[list[int], np.ndarray]:
        """Give blocked users that fit on a machine freed since the last
        round a heap entry again; return them and those machines (the only
        ones where they can fit: they fitted nowhere when blocked)."""
        if not self.changed:
            return [], np.zeros(0, dtype=np.int64)
        ch = np.unique(np.concatenate(self.changed))
        self.changed = []
        if not self.blocked:
            return [], ch
        who = list(self.blocked)
        cand = self._fit_somewhere(who, ch)
        self._push_many(cand)
        return cand, ch

    def _fit_somewhere(self, who: list[int], ch: np.ndarray) -> list[int]:
        """The users of ``who`` whose next task fits on one of machines ``ch``."""
        F = self.free[ch][:, self.model.place_cols]
        N = np.array([self.users[i].queue[0].need for i in who], dtype=np.int64).reshape(len(who), -1)
        cand = np.flatnonzero(np.all(N <= F.max(axis=0, initial=0), axis=1))
        if not cand.size:
            return []
        ok = np.any(np.all(F[None, :, :] >= N[cand][:, None, :], axis=2), axis=1)
        return [who[p] for p in cand[ok].tolist()]

    def _count(self, i: int, d: np.ndarray, J: int, rank: float) -> int:
        """Tasks user ``i`` wins before the next user in the heap (at most ``J``)."""
        heap = self.heap
        while heap and heap[0][2] != self.users[heap[0][3]].version:
            heapq.heappop(heap)
        if not heap or J <= 1:
            return J
        s2, r2 = heap[0][0], heap[0][1]
        w, base = self.users[i].weight, self.U[i]

        def wins(js: np.ndarray) -> np.ndarray:
            s = self.model.shares(base[None, :] + js[:, None] * d) / w
            return (s < s2) | ((s == s2) & (rank < r2))

        lo, hi = 0, J  # j = lo wins; j = hi is past the end or loses
        while hi - lo > 1:
            if hi - lo <= _DENSE:
                js = np.arange(lo + 1, hi, dtype=np.int64)
                ok = wins(js)
                return int(hi if ok.all() else js[int(np.argmin(ok))])
            grid = np.unique(np.linspace(lo + 1, hi - 1, _GRID).astype(np.int64))
            ok = wins(grid)
            if ok.all():
                lo = int(grid[-1])
            else:
                f = int(np.argmin(ok))
                hi = int(grid[f])
                lo = int(grid[f - 1]) if f else lo
        return hi

    def _compact(self) -> None:
        """Drop stale heap entries (superseded by a later push) once they
        outnumber the users: they cost memory.
        Valid entries are distinct tuples, so the pop order is unchanged."""
        users = self.users
        if len(self.heap) > _HEAP_SLACK * (len(users) + 1):
            self.heap[:] = [e for e in self.heap if e[2] == users[e[3]].version]
            heapq.heapify(self.heap)

    def _round(self, t: float) -> None:
        self._compact()
        self._unblock()
        heap, users = self.heap, self.users
        failed: list[tuple[int, ...]] = []  # needs that fit nowhere this round (free space only shrinks)
        while heap:
            _key, rank, ver, i = heapq.heappop(heap)
            u = users[i]
            if ver != u.version or not u.queue:
                continue
            s = u.queue[0]
            self.decisions += 1
            need = s.need
            if any(all(a >= b for a, b in zip(need, f, strict=True)) for f in failed):
                total = 0
            else:
                counts = self._fits(s.demand, s.pending)
                total = int(counts.sum())
                if total == 0:
                    failed.append(need)
            if total == 0:
                u.blocked = True
                self.blocked.add(i)
                u.version += 1
                continue
            k = self._count(i, s.demand, min(total, s.pending), rank) if self.batch else 1
            self._launch(t, s, counts, k)
            if s.pending == 0:
                u.queue.popleft()
            self._push(i)

    def _launch(self, t: float, s: QueuedSpec, counts: np.ndarray, k: int) -> None:
        nz = np.flatnonzero(counts)
        cum = np.cumsum(counts[nz])
        last = int(np.searchsorted(cum, k))
        mach = nz[: last + 1].copy()  # a copy: the completion event keeps it, not all of ``nz``
        take = counts[mach]
        take[last] -= int(cum[last]) - k
        d = s.demand
        self.free[mach] -= take[:, None] * d
        self.U[s.user] += k * d
        self.used += k * d
        s.pending -= k
        s.running += k
        self.launched += k
        rec = s.record
        if rec.start is None:
            rec.start = t
        self._log(t, s, k)
        factor = slowdown(self.cap, self.free, mach, self.over_cols, self.penalty)
        for when, mk, ck, dur in finish_groups(t, s.spec.durations, s.started, mach, take, factor):
            self._event(when, _COMPLETE, (s, mk, ck, int(ck.sum())))
            self.work += dur * s.real
        s.started += k

    # ------------------------------------------------------------ main loop
    def run(self) -> SimulationResult:
        watch = Stopwatch()  # a discrete engine's kernels compiled or loaded meanwhile are not the run's time
        stream = self.w.specs()
        nxt = next(stream, None)
        t = start = nxt.arrival if nxt is not None else 0.0
        interrupted = False
        ev = self.events
        m = len(self.w.resources)
        try:
            while True:
                t_next = min(ev[0][0] if ev else math.inf, nxt.arrival if nxt is not None else math.inf)
                if t_next == math.inf or (self.until is not None and t_next > self.until):
                    break
                t = max(t, t_next)  # a late trace row arrives now
                while ev and ev[0][0] <= t:
                    _, kind, _, payload = heapq.heappop(ev)
                    self.nevents += 1
                    (self._complete if kind == _COMPLETE else self._cancel)(t, payload)
                while nxt is not None and nxt.arrival <= t:
                    self._admit(nxt, t)
                    nxt = next(stream, None)
                before = self.launched
                self._round(t)
                self.times.append(t)
                self.util.extend(self.used[:m].tolist())
                if self.check:
                    self._check(t)
                if self.progress is not None and self.launched != before:
                    self.progress(self.launched - before)
        except KeyboardInterrupt:
            interrupted = True
        end = t if self.until is None or interrupted else max(t, self.until)
        return self._result(start, end, interrupted, watch)

    def _check(self, t: float) -> None:
        from .properties import named_violations

        wanting = [i for i, u in enumerate(self.users) if u.queue]
        if wanting:
            m = len(self.w.resources)
            heads = np.array([self.users[i].queue[0].spec.demand for i in wanting], dtype=np.int64)
            self.violations += named_violations(t, self.U[wanting][:, :m], heads, self.w.capacity,
                                                np.array([u.weight for u in self.users]), np.array(wanting),
                                                [self.users[i].name for i in wanting])

    def _result(self, start: float, end: float, interrupted: bool, watch: Stopwatch) -> SimulationResult:
        m = len(self.w.resources)
        return SimulationResult(
            policy=self.model.label, workload=self.w.name, resources=self.w.resources,
            scale=np.asarray(self.w.scale, dtype=float), capacity=self.w.capacity[:m].astype(np.int64),
            start=start, end=end, times=np.frombuffer(self.times, dtype=float).copy(),
            used=np.frombuffer(self.util, dtype=np.int64).reshape(-1, m).copy(),
            users=tuple(u.name for u in self.users), weights=np.array([u.weight for u in self.users]),
            log=(np.frombuffer(self.log_t, dtype=float).copy(), np.frombuffer(self.log_u, dtype=np.int64).copy(),
                 np.frombuffer(self.log_k, dtype=np.int64).copy(), np.frombuffer(self.log_d, dtype=np.int64).copy())
            if self.record_users else None,
            demands=np.array(self.demands, dtype=np.int64).reshape(-1, m),
            job_records=tuple(self.jobs.values()), violations=tuple(self.violations), work=self.work.copy(),
            stats={"decisions": self.decisions, "events": self.nevents, "tasks_launched": self.launched,
                   "seconds": watch.seconds(), "kernel_seconds": watch.kernel_seconds(), "interrupted": interrupted,
                   "late_arrivals": self.w.late[0], "tasks_running": self.launched - self.finished,
                   "checked": self.check},
        )
