"""The simulator's engine for policies whose share is ``max`` or ``sum`` of
per-resource terms (DRF, asset fairness, CPU-only fairness, slots).

Ghodsi et al., NSDI 2011, Section 7: jobs arrive, tasks finish, and each
time resources free up the allocator runs Algorithm 1 (Section 4.2) on the
free space: the user with the smallest (weighted) share launches its next
task, first fit on the lowest-numbered machine where it fits; a user whose
task fits nowhere waits until a machine frees space. This engine makes
exactly the decisions of that one-task-at-a-time loop (the reference
:class:`.engine.Engine` with ``batch=False``), batched without changing
them:

* a chosen user launches at once every task it would win in a row before
  the next user's key (a galloping search over exact evaluations of its
  key, which never decreases with its task count); first fit of ``k``
  identical tasks one at a time fills the lowest machines exactly as
  placing them together does;
* the lowest machine where a task fits is found in a max-tree over the
  machines' free space (:func:`.kernel.first_fit`);
* tasks of a batch on one machine that end at the same time are one event
  (on a machine that can be over-committed the tasks go on one at a time,
  each slowed down by the over-commit just after it, as in the reference).

The event loop (:mod:`.kernel`) runs as plain Python and, once a run's
work makes it pay (:mod:`.dispatch`), compiled with numba: the same code,
the same results.
Python admits arriving jobs and resubmissions between kernel calls, so the
trace is streamed. Keys are the policy's own share, computed as
``U[j] / den[j]`` combined by ``max`` or ``sum``: :func:`kernel_keys`
accepts a policy only when that expression equals
:meth:`.keys.ShareModel.shares` bit for bit on probe rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar, Literal

import numpy as np

from models.kernels import Stopwatch

from . import kernel as kn
from . import kevents as ke
from . import kstore as ks
from .forms import KernelForms
from .keys import ShareModel
from .options import penalties, random_ties
from .result import JobRecord, SimulationResult
from .streams import specs_known
from .workload import JobSpec, Workload

#: Probe rows checking a policy's share against the kernel's expression.
KEY_PROBES: int = 256
#: Rounds per kernel call when nothing asks for each round (bounds the time
#: before Ctrl-C is seen).
ROUNDS_PER_CALL: int = 20_000
#: Entries of the failed-needs memo of one round.
FAILED_MEMO: int = 64


def kernel_keys(model: ShareModel) -> tuple[int, np.ndarray] | None:
    """``(form, den)`` (form 0 = max, 1 = sum) when the model's share is
    exactly ``max_j U_j / den_j`` or ``sum_j U_j / den_j`` (``den_j > 0``
    columns) on probe rows, else ``None``."""
    if model.form is None:
        return None
    name, a = model.form
    form = 0 if name == "max" else 1
    pos = a > 0
    rng = np.random.default_rng(1)
    probe = np.floor(rng.random((KEY_PROBES, model.columns)) * model.total * rng.random((KEY_PROBES, 1)))
    probe[rng.random(probe.shape) < 0.2] = 0.0
    probe = np.vstack([probe, np.eye(model.columns), model.total[None, :]])
    want = model.shares(probe)
    for den in (np.where(pos, model.total, 0.0), np.where(pos, 1.0 / np.where(pos, a, 1.0), 0.0)):
        acc = np.zeros(len(probe))
        for j in np.flatnonzero(den > 0).tolist():
            v = probe[:, j] / den[j]
            acc = np.maximum(acc, v) if form == 0 else acc + v
        if np.array_equal(acc, want):
            return form, den
    return None


def _grown(a: np.ndarray, n: int, fill: Any = 0, order: Literal["C", "F"] = "C") -> np.ndarray:
    """``a`` with at least ``n`` rows (doubling), new rows ``fill``."""
    if a.shape[0] >= n:
        return a
    b = np.full((max(n, 2 * a.shape[0]),) + a.shape[1:], fill, dtype=a.dtype, order=order)
    b[: a.shape[0]] = a
    return b


class State:
    """The kernel's arrays (see :mod:`.kernel` for the layout)."""

    #: per-user arrays and their fill values
    USER: ClassVar[dict[str, Any]] = {"U": 0, "uw": 1.0, "ur": 0.0, "uh": -1, "ut": -1, "ublk": 0, "bl": -1,
                                      "blpos": -1, "hk": 0.0, "hr": 0.0, "hu": -1, "hpos": -1, "um": 0.0}
    SPEC: ClassVar[dict[str, Any]] = {"sd": 0, "si": -1, "sf": np.nan, "sreal": 0.0, "rd": -1}
    # the per-user arrays, set from USER in __init__ and grown by room_users
    uw: np.ndarray
    ur: np.ndarray
    uh: np.ndarray
    ut: np.ndarray
    ublk: np.ndarray
    bl: np.ndarray
    blpos: np.ndarray
    hk: np.ndarray
    hr: np.ndarray
    hu: np.ndarray
    hpos: np.ndarray
    um: np.ndarray

    def __init__(self, model: ShareModel, m: int, form: int, den: np.ndarray, penalty: np.ndarray,
                 over: np.ndarray, record: bool, rate: float = 0.0) -> None:
        K, C = model.machines.shape
        S = 1 << max(0, (K - 1).bit_length())
        P = model.place_cols.size
        self.free = model.machines.astype(np.int64).copy()
        self.cap = model.machines.astype(np.int64).copy()
        self.place = model.place_cols.astype(np.int64)
        self.tree = np.full((2 * S, P), -1, dtype=np.int64)
        self.tree[S: S + K] = self.free[:, self.place]
        for p in range(S - 1, 0, -1):
            self.tree[p] = np.maximum(self.tree[2 * p], self.tree[2 * p + 1])
        self.over, self.pen, self.den = over.astype(np.int64), penalty.astype(float), den.astype(float)
        self.c = np.zeros(ks.N_COUNTERS, dtype=np.int64)
        self.c[[ks.FORM, ks.RECORD, ks.K_N, ks.S_N, ks.LMAX]] = form, int(record), K, S, 1
        self.ft = np.zeros(1)
        self.U = np.zeros((16, C), dtype=np.int64)
        for name, fill in self.USER.items():
            if name not in ("U", "um"):  # the two 2-D arrays, made here and below
                setattr(self, name, np.full(16, fill, dtype=np.int64 if isinstance(fill, int) else float))
        self.ublk = self.ublk.astype(np.int8)
        self.um = np.zeros((16, ks.N_MEMORY_FIELDS))  # usage memory (:mod:`.memory`)
        self.rate = float(rate)  # ln 2 / half-life; 0: no memory
        self.sd = np.zeros((64, C), dtype=np.int64)
        self.si = np.full((64, ks.N_SPEC_FIELDS), -1, dtype=np.int64)
        self.sf = np.full((64, 3), np.nan)
        self.sreal = np.zeros((64, m))
        self.rd = np.full(64, -1, dtype=np.int64)
        self.durs = np.zeros(64)
        self.n_durs = 0
        self.et, self.ei = np.zeros(0), np.zeros((0, ke.EVENT_COLUMNS), dtype=np.int64, order="F")
        self.room_events(4 * K + 64)
        self.lt, self.li = np.zeros(4096), np.zeros((4096, 3), dtype=np.int64)
        self.tt, self.tu = np.zeros(4096), np.zeros((4096, m), dtype=np.int64)
        self.used = np.zeros(C, dtype=np.int64)
        self.work = np.zeros(m)
        self.fn = np.zeros((FAILED_MEMO, P), dtype=np.int64)
        self.need = np.zeros(P, dtype=np.int64)
        self.chl = np.zeros(2 * K + P, dtype=np.int64)  # machines freed since the last round, flags, scratch

    def room_users(self, n: int) -> None:
        if self.uw.shape[0] >= n:  # the per-user arrays grow together
            return
        for name, fill in self.USER.items():
            setattr(self, name, _grown(getattr(self, name), n, fill))

    def room_specs(self, n: int) -> None:
        if self.sd.shape[0] >= n:  # the per-spec arrays grow together
            return
        for name, fill in self.SPEC.items():
            setattr(self, name, _grown(getattr(self, name), n, fill))

    def room_durations(self, n: int) -> None:
        self.durs = _grown(self.durs, n)

    def room_events(self, n: int) -> None:
        """Room for at least ``n`` pending events (:func:`.kevents.grown`)."""
        self.et, self.ei = ke.grown(self.et, self.ei, self.c, n)

    def grow(self) -> None:
        """Room for the kernel to go on (called when it returned ``GROW``)."""
        c = self.c
        ev = int(c[ks.EV_N] + c[ks.K_N] * c[ks.LMAX] + 2)
        self.room_events(2 * ev)
        self.lt, self.li = _grown(self.lt, int(c[ks.LOG_N]) + 4096), _grown(self.li, int(c[ks.LOG_N]) + 4096)
        self.tt, self.tu = _grown(self.tt, int(c[ks.T_N]) + 4096), _grown(self.tu, int(c[ks.T_N]) + 4096)

    def run_args(self) -> tuple[Any, ...]:
        return (self.free, self.cap, self.tree, self.place, self.over, self.pen, self.sd, self.si, self.sf,
                self.sreal, self.durs, self.U, self.used, self.work, self.den, self.uw, self.ur, self.uh, self.ut,
                self.ublk, self.bl, self.blpos, self.hk, self.hr, self.hu, self.hpos, self.um, self.rate, self.et,
                self.ei, self.lt, self.li, self.tt, self.tu, self.rd, self.fn, self.need, self.chl, self.c)

    def admit_args(self) -> tuple[Any, ...]:
        return (self.si, self.U, self.den, self.uw, self.ur, self.uh, self.ut, self.ublk, self.hk, self.hr, self.hu,
                self.hpos, self.um, self.rate, self.et, self.ei, self.c)


class FastEngine:
    """One run of the kernel engine (see the module docstring); same
    options as :class:`.engine.Engine`."""

    def __init__(self, workload: Workload, model: ShareModel, keys: tuple[int, np.ndarray], *, until: float | None,
                 seed: int, overcommit_penalty: dict[str, float] | None, tie_break: str, check_properties: bool,
                 record_users: bool, progress: Callable[[int], None] | None, rate: float = 0.0) -> None:
        self.w, self.model, self.until = workload, model, until
        self.rng = np.random.default_rng(seed)
        self.random_ties, self.check, self.progress = random_ties(tie_break), check_properties, progress
        penalty, over = penalties(workload, model, overcommit_penalty)
        self.st = State(model, len(workload.resources), keys[0], keys[1], penalty, over, record_users, rate)
        self.users: list[str] = []
        self.index: dict[str, int] = {}
        self.specs: list[tuple[JobSpec, int, JobRecord]] = []
        self.jobs: dict[str, JobRecord] = {}
        self.durations: dict[tuple[float, ...], int] = {}
        self.violations: list[dict[str, Any]] = []
        self.forms = KernelForms(ROUNDS_PER_CALL)
        self._scale = np.asarray(workload.scale, dtype=float)

    # ------------------------------------------------------------ admission (Python: one call per job spec)
    def _user(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            st = self.st
            i = self.index[name] = len(self.users)
            self.users.append(name)
            st.room_users(i + 1)
            st.uw[i] = float(self.w.weights.get(name, 1.0))
            st.ur[i] = float(self.rng.random()) if self.random_ties else float(i)
            st.c[ks.NU] = i + 1
        return i

    def _durations(self, durs: tuple[float, ...]) -> int:
        off = self.durations.get(durs)
        if off is None:
            st = self.st
            off = self.durations[durs] = st.n_durs
            st.room_durations(off + len(durs))
            st.durs[off: off + len(durs)] = durs
            st.n_durs += len(durs)
            st.c[ks.LMAX] = max(int(st.c[ks.LMAX]), len(durs))
        return off

    def admit(self, spec: JobSpec, t: float, generation: int = 0) -> None:
        """Queue ``spec`` arriving at ``t``: its rows filled in place (one
        call per spec of a streamed trace, so no temporary arrays), then
        the kernel's admission."""
        st = self.st
        i = self.index.get(spec.user)
        if i is None:
            i = self._user(spec.user)
        s = len(self.specs)
        if s >= st.sd.shape[0]:
            st.room_specs(s + 1)
        st.c[ks.NS] = s + 1
        job = spec.job if not generation else f"{spec.job}@{generation}"
        rec = self.jobs.get(job)
        if rec is None:
            self.jobs[job] = rec = JobRecord(job=job, user=spec.user, arrival=t)
        self.specs.append((spec, generation, rec))
        demand = spec.demand
        st.sd[s] = self.model.extend(demand)
        np.divide(demand, self._scale, out=st.sreal[s])  # Workload.real, written in place
        st.si[s] = (i, spec.tasks, 0, 0, 0, -1, -1, self._durations(spec.durations), len(spec.durations),
                    ks.FLAG_REPEAT if spec.repeat else 0, -1)
        st.sf[s] = math.nan
        if not ke.has_room(st.et, st.c, 2):
            st.room_events(2 * int(st.c[ks.EV_N]) + 4)
        cancel = math.nan if spec.until is None else max(spec.until, t)
        self.forms.admit(t, s, cancel, *st.admit_args())

    def _readmit(self, t: float) -> None:
        st = self.st
        done = st.rd[: st.c[ks.RD_N]].tolist()
        st.c[ks.RD_N] = 0
        for s in done:
            spec, gen, _ = self.specs[s]
            self.admit(spec, t, gen + 1)

    # ------------------------------------------------------------ main loop
    def _call(self, t_stop: float, stop_after_events: bool) -> int:
        """Run the kernel until it reports something other than ``GROW`` or ``REPEATS``."""
        st = self.st
        until = math.inf if self.until is None else self.until
        each = self.check or self.progress is not None
        while True:
            before = int(st.c[ks.LAUNCHED])
            code = self.forms.run(st.ft, t_stop, until, stop_after_events, each, self.forms.rounds, *st.run_args())
            self.forms.update(st.c)
            if code == kn.GROW:
                st.grow()
            elif code == kn.REPEATS:
                self._readmit(float(st.ft[0]))
                st.c[ks.PHASE] = kn.EVENTS_PHASE
            else:
                if code == kn.ROUND_DONE:
                    if self.check:
                        self._check(float(st.ft[0]))
                    if self.progress is not None and st.c[ks.LAUNCHED] != before:
                        self.progress(int(st.c[ks.LAUNCHED]) - before)
                    continue
                return code

    def run(self) -> SimulationResult:
        watch = Stopwatch()  # compiling or loading the kernels is not the run's time
        st = self.st
        stream = self.w.specs()
        nxt = next(stream, None)
        self.forms.expect(specs_known(stream, self.until) + (nxt is not None), st.c)  # a large run starts compiled
        st.ft[0] = start = nxt.arrival if nxt is not None else 0.0
        interrupted = False
        try:
            while True:
                self._call(nxt.arrival if nxt is not None else math.inf, False)  # steps before the next arrival
                if nxt is None or (self.until is not None and nxt.arrival > self.until):
                    break
                st.ft[0] = max(float(st.ft[0]), nxt.arrival)  # a late trace row arrives now
                st.c[ks.PHASE] = kn.EVENTS_PHASE
                self._call(math.inf, True)
                t = float(st.ft[0])
                while nxt is not None and nxt.arrival <= t:
                    self.admit(nxt, t)
                    nxt = next(stream, None)
                self._call(-math.inf, False)  # this step's round
        except KeyboardInterrupt:
            interrupted = True
        t = float(st.ft[0])
        end = t if self.until is None or interrupted else max(t, self.until)
        return self._result(start, end, interrupted, watch)

    def _check(self, t: float) -> None:
        from .properties import named_violations

        st, m, n = self.st, len(self.w.resources), len(self.users)
        wanting = np.flatnonzero(st.uh[:n] >= 0)
        if wanting.size:
            self.violations += named_violations(t, st.U[wanting][:, :m], st.sd[st.uh[wanting], :m], self.w.capacity,
                                                st.uw[:n], wanting, [self.users[i] for i in wanting.tolist()])

    def _records(self) -> tuple[JobRecord, ...]:
        """Job records from the per-spec times (a job's finish is its last
        completion, or when its first spec was cancelled with none)."""
        st = self.st
        recs = list(self.jobs.values())
        slot = {id(rec): k for k, rec in enumerate(recs)}
        S, R = len(self.specs), len(recs)
        owner = np.fromiter((slot[id(rec)] for _spec, _gen, rec in self.specs), dtype=np.int64, count=S)
        sf, si = st.sf[:S], st.si[:S]
        first, last, done = np.full(R, math.inf), np.full(R, -math.inf), np.full(R, math.inf)
        np.fmin.at(first, owner, sf[:, 0])  # fmin/fmax skip the NaN of a spec that never started
        np.fmax.at(last, owner, sf[:, 1])
        np.fmin.at(done, owner, sf[:, 2])
        tasks, still_open, trunc = np.zeros(R, dtype=np.int64), np.zeros(R, dtype=np.int64), np.zeros(R, dtype=bool)
        np.add.at(tasks, owner, si[:, ks.S_DONE])
        np.add.at(still_open, owner, np.isnan(sf[:, 2]))
        np.logical_or.at(trunc, owner, (si[:, ks.S_FLAGS] & ks.FLAG_TRUNC) != 0)
        for rec, a, b, d, k, o, t in zip(recs, first.tolist(), last.tolist(), done.tolist(), tasks.tolist(),
                                         still_open.tolist(), trunc.tolist(), strict=True):
            rec.tasks += k
            rec.open += o
            rec.truncated = rec.truncated or t
            rec.start = a if a < math.inf else None
            rec.finish = b if b > -math.inf else d if d < math.inf else None
        return tuple(recs)

    def _result(self, start: float, end: float, interrupted: bool, watch: Stopwatch) -> SimulationResult:
        st, m, c = self.st, len(self.w.resources), self.st.c
        n_log, n_t, n_u = int(c[ks.LOG_N]), int(c[ks.T_N]), len(self.users)
        li = st.li[:n_log]
        return SimulationResult(
            policy=self.model.label, workload=self.w.name, resources=self.w.resources,
            scale=np.asarray(self.w.scale, dtype=float), capacity=self.w.capacity[:m].astype(np.int64),
            start=start, end=end, times=st.tt[:n_t].copy(), used=st.tu[:n_t].copy(), users=tuple(self.users),
            weights=st.uw[:n_u].copy(),
            log=(st.lt[:n_log].copy(), li[:, 0].copy(), li[:, 1].copy(), li[:, 2].copy()) if c[ks.RECORD] else None,
            demands=st.sd[: len(self.specs), :m].copy(), job_records=self._records(),
            violations=tuple(self.violations), rounds=self.w.rounds, work=st.work.copy(),
            stats={"decisions": int(c[ks.DECISIONS]), "events": int(c[ks.EVENTS]),
                   "tasks_launched": int(c[ks.LAUNCHED]), "seconds": watch.seconds(), "interrupted": interrupted,
                   "late_arrivals": self.w.late[0], "tasks_running": int(c[ks.LAUNCHED] - c[ks.FINISHED]),
                   "checked": self.check, "engine": "compiled" if self.forms.compiled else "python",
                   "kernel_seconds": watch.kernel_seconds(), "compiled_after": self.forms.compiled_after},
        )
