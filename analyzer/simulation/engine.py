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

Batching (the instances of a job are identical): a chosen user launches at
once every task it would win before the next user's key, found by a k-ary
search over vectorised evaluations of the policy's share
(:meth:`.keys.ShareModel.shares`), and they are placed first-fit (lowest
machine index first) with numpy cumulative counts of how many fit on each
machine. Tasks of one batch that finish at the same time are one event, so
the cost grows with decisions and events, not with task instances.

Level jumps: at the start of a round, when the policy's share has the form
``max_j a_j u_j`` or ``sum_j a_j u_j`` (:func:`.keys.detect_form`), every
waiting user gets at once its tasks whose key is below the highest level
``L`` at which all of them fit in the pooled free space (found by a k-ary
search over vectorised closed-form counts; counts are re-checked with the
policy's own share). They are placed user by user in key order; a user
whose tasks first-fit cannot all place gets those that fit and is blocked
(its task then fits nowhere, as a single decision would find), and the
jump goes on with the next user. On one machine this is exactly the one-task-at-a-time
order; on several, a user's tasks of one jump are placed together. Users
unblocked because a machine freed space can fit only on the freed
machines: after the jump they are re-checked there at once, vectorised.

Over-commit: a machine can be given more than it has of a resource the
scheduler does not check (slots, CPU-only fairness). Tasks launched on it
then run slower, as if swapping: their duration is multiplied by
``1 + sum_j penalty_j * max(0, used_j / capacity_j - 1)`` on that machine
at launch (``overcommit_penalty``, default :data:`DEFAULT_PENALTY` per
resource). Tasks already running keep their durations (a simplification).
"""

from __future__ import annotations

import heapq
import math
import time
from array import array
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from models import PolicyError

from .keys import ShareModel
from .result import JobRecord, SimulationResult
from .workload import JobSpec, Workload

#: Slow-down per unit of over-commit of a resource (see the module docstring).
DEFAULT_PENALTY: float = 1.0
#: Tie-breaks among equal keys: the user seen first, or a seeded random rank.
TIE_BREAKS: tuple[str, ...] = ("index", "random")
#: Largest task range evaluated at once by the batch search.
_DENSE: int = 256
#: Points per step of the k-ary batch search.
_GRID: int = 64
_COMPLETE, _CANCEL = 0, 1
#: A level jump is taken when it launches at least this many tasks.
JUMP_MIN_PICKS: int = 16
#: Bisection steps of the count check.
_BISECT: int = 60
#: The user heap is compacted when it holds this many entries per user.
_HEAP_SLACK: int = 4
#: Rounds of the k-ary level search (each evaluates ``_GRID`` levels at once).
_GRID_ROUNDS: int = 4


def _level_counts(form: tuple[str, np.ndarray], U: np.ndarray, D: np.ndarray, w: np.ndarray,
                  pend: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """``counts(levels)``: for each level ``L`` (shape (G,)) and user, the
    tasks ``j >= 0`` whose key (share of ``U + j D`` over the weight) is
    below ``L``, at most ``pend``; shape (G, a). For a share of the form
    ``max_r a_r u_r`` or ``sum_r a_r u_r``."""
    name, a = form
    if name == "max":
        A = D * a
        pos = A > 0
        base = np.where(pos, U * a, 0.0)
        inv = np.where(pos, 1.0 / np.where(pos, A, 1.0), 0.0)
        wide = np.where(pos, 0.0, np.inf)

        cols = [(base[:, j], inv[:, j], wide[:, j]) for j in range(A.shape[1]) if pos[:, j].any()]

        def counts(levels: np.ndarray) -> np.ndarray:
            lw = levels[:, None] * w[None, :]
            bound = np.full(lw.shape, np.inf)
            for b, v, x in cols:  # one resource at a time: (G, a) arrays, no reduce over a short axis
                np.minimum(bound, (lw - b) * v + x, out=bound)
            return np.clip(np.ceil(bound), 0, pend)
    else:
        per, base_s = D @ a, U @ a
        inv_s = np.where(per > 0, 1.0 / np.where(per > 0, per, 1.0), np.inf)

        def counts(levels: np.ndarray) -> np.ndarray:
            return np.clip(np.ceil((levels[:, None] * w - base_s) * inv_s), 0, pend)
    return counts


@dataclass(eq=False)
class _Spec:
    spec: JobSpec
    user: int
    demand: np.ndarray  # scaled, with the slot column
    pending: int
    index: int  # demand table row
    running: int = 0
    done: int = 0
    started: int = 0  # tasks launched so far (cycles the durations)
    truncated: bool = False
    generation: int = 0
    need: tuple[int, ...] = ()  # demand in the placement columns
    record: Any = None  # the JobRecord of its job
    real: Any = None  # demand in resource units (work accounting)


@dataclass(eq=False)
class _User:
    name: str
    weight: float
    rank: float
    queue: deque[_Spec] = field(default_factory=deque)
    version: int = 0
    blocked: bool = False


class Engine:
    """One simulation run (see the module docstring)."""

    def __init__(self, workload: Workload, model: ShareModel, *, until: float | None, seed: int,
                 overcommit_penalty: dict[str, float] | None, tie_break: str, check_properties: bool,
                 record_users: bool, progress: Callable[[int], None] | None, batch: bool = True) -> None:
        if tie_break not in TIE_BREAKS:
            raise PolicyError(f"tie_break: must be one of {', '.join(TIE_BREAKS)}, got {tie_break!r}")
        self.w, self.model = workload, model
        self.until = until
        self.rng = np.random.default_rng(seed)
        self.random_ties = tie_break == "random"
        m = len(workload.resources)
        pen = dict(overcommit_penalty or {})
        for r, v in pen.items():
            if r not in workload.resources:
                raise PolicyError(f"overcommit_penalty.{r}: unknown resource (known: {', '.join(workload.resources)})")
            if isinstance(v, bool) or not isinstance(v, int | float) or not v >= 0:
                raise PolicyError(f"overcommit_penalty.{r}: must be a number >= 0, got {v!r}")
        self.penalty = np.array([float(pen.get(r, DEFAULT_PENALTY)) for r in workload.resources])
        unchecked = np.setdiff1d(np.arange(m), model.place_cols)
        self.over_cols = unchecked[model.machines[:, unchecked].sum(axis=0) > 0] if unchecked.size else unchecked
        self.cap = model.machines
        # free space, stored column by column (``free_cols[j]`` is contiguous: fit counts read it per resource)
        self.free_cols = np.ascontiguousarray(model.machines.T)
        self.free = self.free_cols.T  # a (K, columns) view of the same memory
        self.used = np.zeros(model.columns, dtype=np.int64)
        self.U = np.zeros((16, model.columns), dtype=np.int64)
        self.users: list[_User] = []
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
        self.launched = self.finished = self.decisions = self.nevents = self.jumps = 0
        self._reopened_heads: dict[int, _Spec] = {}

    # ------------------------------------------------------------ users
    def _user(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = len(self.users)
            self.index[name] = i
            rank = float(self.rng.random()) if self.random_ties else float(i)
            self.users.append(_User(name=name, weight=float(self.w.weights.get(name, 1.0)), rank=rank))
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
        s = _Spec(spec=spec, user=i, demand=demand, pending=spec.tasks, index=len(self.demands), generation=generation,
                  need=tuple(int(v) for v in demand[self.model.place_cols]))
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

    def _complete(self, t: float, payload: tuple[_Spec, np.ndarray, np.ndarray, int]) -> None:
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

    def _cancel(self, t: float, s: _Spec) -> None:
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

    def _spec_done(self, s: _Spec, t: float) -> None:
        rec = s.record
        rec.open -= 1
        rec.truncated = rec.truncated or s.truncated
        if rec.finish is None:
            rec.finish = t
        if s.spec.repeat and not s.truncated:
            self._admit(s.spec, t, generation=s.generation + 1)

    def _log(self, t: float, s: _Spec, k: int) -> None:
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
        self._reopened_heads = {i: self.users[i].queue[0] for i in cand}
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

    def _reblock(self, reopened: list[int], ch: np.ndarray) -> None:
        """After a level jump, block again at once the reopened users whose
        task no longer fits on the freed machines (instead of one decision
        each)."""
        users = self.users
        heads = self._reopened_heads
        live = [i for i in reopened if users[i].queue and not users[i].blocked and users[i].queue[0] is heads[i]]
        if len(live) < 2:
            return
        keep = set(self._fit_somewhere(live, ch))
        for i in live:
            if i not in keep:
                users[i].blocked = True
                users[i].version += 1
                self.blocked.add(i)

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

    def _jump(self, t: float) -> None:
        """Level jump (see the module docstring): every waiting user gets,
        at once, its tasks whose key is below the largest level ``L`` at
        which all of them fit in the pooled free space; placed user by user
        in key order; a user whose tasks first-fit cannot all place is
        blocked after those that fit."""
        form = self.model.form
        users = self.users
        live = {i: (k, r) for k, r, v, i in self.heap if v == users[i].version and users[i].queue}
        if form is None or len(live) < 2:
            return
        idx = np.fromiter(live, dtype=np.int64, count=len(live))
        heads = [users[i].queue[0] for i in idx.tolist()]
        D = np.array([s.demand for s in heads], dtype=float)
        pend = np.array([s.pending for s in heads], dtype=float)
        U = self.U[idx].astype(float)
        w = np.array([users[i].weight for i in idx.tolist()])
        cols = self.model.place_cols
        F = self.free[:, cols].sum(axis=0).astype(float)
        need = D[:, cols]
        with np.errstate(divide="ignore"):
            room = np.where(need > 0, F / np.where(need > 0, need, 1.0), np.inf).min(axis=1)
        if np.minimum(room, pend).sum() < JUMP_MIN_PICKS:
            return  # even the pooled space cannot hold a worthwhile jump
        counts = _level_counts(form, U, D, w, pend)
        lo = min(k for k, _ in live.values())
        hi = float((self.model.shares(U + pend[:, None] * D) / w).max()) * (1 + 2.0**-20) + 2.0**-60
        c_lo = counts(np.array([lo]))[0]
        for _ in range(_GRID_ROUNDS):
            grid = np.linspace(lo, hi, _GRID + 1)[1:]
            C = counts(grid)  # (G, a)
            ok = np.all(C @ need <= F, axis=1)
            f = int(np.argmin(ok)) if not ok.all() else ok.size
            if f:
                lo, c_lo = float(grid[f - 1]), C[f - 1]
            if f == ok.size:
                break
            hi = float(grid[f])
            if np.array_equal(c_lo, C[f]):
                break
        if c_lo.sum() < JUMP_MIN_PICKS:
            return
        c = c_lo.astype(np.int64)
        # the closed form is checked against the policy's own share: drop picks at or above the level
        for _ in range(_BISECT):
            has = np.flatnonzero(c > 0)
            over = has[self.model.shares(U[has] + (c[has] - 1)[:, None] * D[has]) / w[has] >= lo]
            if not over.size:
                break
            c[over] -= 1
        self.jumps += 1
        order = sorted(np.flatnonzero(c > 0).tolist(), key=lambda p: live[int(idx[p])])
        for p in order:
            i, s = int(idx[p]), heads[p]
            fit = self._fits(s.demand, int(c[p]))
            got = min(int(c[p]), int(fit.sum()))
            if got:
                self._launch(t, s, fit, got)
                if s.pending == 0:
                    users[i].queue.popleft()
            if got < c[p]:  # its task now fits nowhere: blocked, as a single decision would find; go on
                users[i].blocked = True
                users[i].version += 1
                self.blocked.add(i)
            else:
                self._push(i)

    def _compact(self) -> None:
        """Drop stale heap entries (superseded by a later push) once they
        outnumber the users: they cost memory and the level jump's scan.
        Valid entries are distinct tuples, so the pop order is unchanged."""
        users = self.users
        if len(self.heap) > _HEAP_SLACK * (len(users) + 1):
            self.heap[:] = [e for e in self.heap if e[2] == users[e[3]].version]
            heapq.heapify(self.heap)

    def _round(self, t: float) -> None:
        self._compact()
        reopened, ch = self._unblock()
        if self.batch:
            self._jump(t)
            if reopened:
                self._reblock(reopened, ch)
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

    def _launch(self, t: float, s: _Spec, counts: np.ndarray, k: int) -> None:
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
        for when, mk, ck, dur in self._finish_groups(t, s, mach, take, k):
            self._event(when, _COMPLETE, (s, mk, ck, int(ck.sum())))
            self.work += dur * s.real
        s.started += k

    def _finish_groups(self, t: float, s: _Spec, mach: np.ndarray, take: np.ndarray,
                       k: int) -> list[tuple[float, np.ndarray, np.ndarray, float]]:
        """``(finish time, machines, counts, task-seconds)`` per group of
        tasks of the batch that finish together."""
        durs = s.spec.durations
        factor = self._slowdown(mach)
        if len(durs) == 1 and (factor is None or np.all(factor == factor[0])):
            f = 1.0 if factor is None else float(factor[0])
            return [(t + durs[0] * f, mach, take, durs[0] * f * k)]
        per_task = np.asarray(durs)[(s.started + np.arange(k)) % len(durs)]
        where = np.repeat(np.arange(mach.size), take)
        actual = per_task * (1.0 if factor is None else factor[where])
        out = []
        for value in np.unique(actual):
            sel = actual == value
            cnt = np.bincount(where[sel], minlength=mach.size)
            nz = np.flatnonzero(cnt)
            out.append((t + float(value), mach[nz], cnt[nz], float(value) * int(sel.sum())))
        return out

    def _slowdown(self, mach: np.ndarray) -> np.ndarray | None:
        cols = self.over_cols
        if not cols.size:
            return None
        cap = self.cap[mach][:, cols].astype(float)
        used = cap - self.free[mach][:, cols]
        over = np.maximum(0.0, used / np.where(cap > 0, cap, 1.0) - 1.0)
        return 1.0 + over @ self.penalty[cols]

    # ------------------------------------------------------------ main loop
    def run(self) -> SimulationResult:
        t0 = time.perf_counter()
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
        return self._result(start, end, interrupted, time.perf_counter() - t0)

    def _check(self, t: float) -> None:
        from .properties import check_round

        n = len(self.users)
        wanting = [i for i in range(n) if self.users[i].queue]
        if len(wanting) < 1:
            return
        m = len(self.w.resources)
        heads = np.array([self.users[i].queue[0].spec.demand for i in wanting], dtype=np.int64)
        for v in check_round(self.U[wanting][:, :m], heads, self.w.capacity, n):
            self.violations.append({"time": t, **v, "user": self.users[wanting[v["user"]]].name,
                                    **({"other": self.users[wanting[v["other"]]].name} if "other" in v else {})})

    def _result(self, start: float, end: float, interrupted: bool, seconds: float) -> SimulationResult:
        m = len(self.w.resources)
        return SimulationResult(
            policy=self.model.label,
            workload=self.w.name,
            resources=self.w.resources,
            scale=np.asarray(self.w.scale, dtype=float),
            capacity=self.w.capacity[:m].astype(np.int64),
            start=start,
            end=end,
            times=np.frombuffer(self.times, dtype=float).copy(),
            used=np.frombuffer(self.util, dtype=np.int64).reshape(-1, m).copy(),
            users=tuple(u.name for u in self.users),
            weights=np.array([u.weight for u in self.users]),
            log=(
                np.frombuffer(self.log_t, dtype=float).copy(),
                np.frombuffer(self.log_u, dtype=np.int64).copy(),
                np.frombuffer(self.log_k, dtype=np.int64).copy(),
                np.frombuffer(self.log_d, dtype=np.int64).copy(),
            )
            if self.record_users
            else None,
            demands=np.array(self.demands, dtype=np.int64).reshape(-1, m),
            job_records=tuple(self.jobs.values()),
            violations=tuple(self.violations),
            work=self.work.copy(),
            stats={
                "decisions": self.decisions,
                "jumps": self.jumps,
                "events": self.nevents,
                "tasks_launched": self.launched,
                "seconds": seconds,
                "interrupted": interrupted,
                "late_arrivals": self.w.late[0],
                "tasks_running": self.launched - self.finished,
                "checked": self.check,
            },
        )
