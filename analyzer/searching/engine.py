"""The counterexample search: for one policy and one property, look for an
instance on which the policy violates the property.

The instances of a search form a *stream* that depends only on the seed,
the policy, the property, the instance class and the mode:

1. the exhaustive small-integer grid (:func:`~analyzer.searching.strategies.grid`),
   its first ``GRID_FRACTION * budget`` positions;
2. random instances, position ``k`` drawn from distribution ``k mod 4``
   (uniform, log-uniform, shared dominant resource, near-ties) with a
   generator seeded by ``(seed, cell, k)``;
3. optimisation of the violation margin (:mod:`~analyzer.searching.margins`)
   with scipy's Powell method from the closest near misses of phases 1-2, for the last
   ``OPT_FRACTION * budget`` checks (only for properties with a margin).

Instances the policy does not support, or the property says nothing about,
are skipped and not counted: the budget is the number of instances the
property was actually checked on. The first violation found is shrunk
(:mod:`~analyzer.searching.shrinking`) and checked once more; the property's check
verifies in exact arithmetic, so a returned counterexample is certified.

Because instance ``k`` depends only on its position, a search can be split
into chunks of positions run by a process pool, and resumed from a
checkpoint, with the same result as one uninterrupted single-process run.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance, InstanceError, Policy, PolicyError, SolverError, get_policy
from models.display import html_table, short_repr, to_frame

from ..properties.base import CONTINUOUS, MODES, Property, Violation, get_property
from .classes import InstanceClass
from .margins import margin_function
from .shrinking import SHRINK_CHECKS, shrink
from .strategies import build, grid, random_strategies
from .stream import Recorder, Throttle

#: Share of the budget given to the exhaustive grid.
GRID_FRACTION: float = 0.3
#: Share of the budget given to margin optimisation (when a margin exists).
OPT_FRACTION: float = 0.1
#: Positions a search may skip (unsupported / not applicable) per unit of budget.
GENERATE_FACTOR: int = 25
#: Positions per chunk of work.
CHUNK: int = 64
#: Fewest checks a shrink may spend, however small the search budget.
SHRINK_MIN_CHECKS: int = 60
#: Screen chunks of instances with one vectorised pass
#: (:meth:`~analyzer.properties.base.Property.screen_many`) before the full
#: checks. The result does not depend on it (a switch for benchmarks and
#: the equivalence tests).
BATCH_SCREEN: bool = True
#: Positions screened together when :data:`BATCH_SCREEN` is on.
SCREEN_BATCH: int = 64
#: Positions per chunk sent to a worker of a process pool.
POOL_CHUNK: int = 256
#: Near misses kept as starting points of the optimisation.
NEAR_MISSES: int = 8
#: The margin is computed on every ``MARGIN_EVERY``-th checked instance.
MARGIN_EVERY: int = 4
#: scipy.optimize method of the optimisation phase (derivative-free; line
#: searches along each parameter suit the piecewise-linear margins).
OPT_METHOD: str = "Powell"
#: The optimisation moves each capacity and demand by at most this factor
#: (in log space: ``log(1000)``) from its near-miss value.
OPT_LOG_SPAN: float = math.log(1000.0)
#: Evaluations planned per optimisation start (fewer starts on small budgets).
EVALS_PER_START: int = 60
#: Denominators tried when an optimised float instance is made exact.
EXACT_DENOMINATORS: tuple[int, ...] = (1, 10, 100, 1000)

Progress = Callable[[int], None]


#: Columns of :meth:`SearchResult.record`, one row per search (and per cell
#: of a property table's ``to_pandas()``).
RECORD_COLUMNS: tuple[str, ...] = ("policy", "property", "holds", "instances", "class", "seed", "budget", "mode",
                                   "counterexample", "exact", "message", "found_in", "seconds")


@dataclass
class SearchResult:
    """The outcome of :func:`search`; in a notebook it shows as a small
    table, and :meth:`to_pandas` gives it as one tidy row.

    Attributes
    ----------
    policy, property : str
        What was searched.
    counterexample : Violation or None
        The shrunk, exactly re-verified counterexample, or ``None``.
    instances : int
        Instances the property was checked on (at most ``budget``, more only
        by the checks spent shrinking, which are counted in ``shrink_checks``).
    generated : int
        Stream positions consumed (including skipped instances).
    unsupported : int
        Instances skipped because the policy does not support them (n/a).
    not_applicable : int
        Instances skipped because the property says nothing about them.
    errors : int
        Instances whose check failed with a solver error (see ``error``).
    found_in : str or None
        Phase that found the counterexample (``grid``, ``random:uniform``,
        ``optimise``...).
    original : Violation or None
        The counterexample as first found, before shrinking.
    complete : bool
        False for a search cut short (interrupted).
    """

    policy: str
    property: str
    counterexample: Violation | None
    instances: int
    seed: int
    budget: int
    instance_class: InstanceClass
    mode: str = CONTINUOUS
    seconds: float = 0.0
    generated: int = 0
    unsupported: int = 0
    not_applicable: int = 0
    errors: int = 0
    error: str | None = None
    found_in: str | None = None
    found_at: int | None = None
    original: Violation | None = None
    shrink_checks: int = 0
    complete: bool = True

    @property
    def holds(self) -> bool | None:
        """False with a counterexample; True when instances were checked and
        none violated; None (n/a) when nothing could be checked."""
        if self.counterexample is not None:
            return False
        return True if self.instances > 0 else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (round-trips through :meth:`from_dict`)."""
        return {
            "policy": self.policy, "property": self.property, "holds": self.holds,
            "counterexample": None if self.counterexample is None else self.counterexample.to_dict(),
            "instances": self.instances, "seed": self.seed, "budget": self.budget,
            "instance_class": self.instance_class.to_dict(), "mode": self.mode, "seconds": self.seconds,
            "generated": self.generated, "unsupported": self.unsupported, "not_applicable": self.not_applicable,
            "errors": self.errors, "error": self.error, "found_in": self.found_in, "found_at": self.found_at,
            "original": None if self.original is None else self.original.to_dict(),
            "shrink_checks": self.shrink_checks, "complete": self.complete,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SearchResult:
        """Inverse of :meth:`to_dict`."""
        keys = ("policy", "property", "instances", "seed", "budget", "mode", "seconds", "generated", "unsupported",
                "not_applicable", "errors", "error", "found_in", "found_at", "shrink_checks", "complete")
        return cls(**{k: d[k] for k in keys}, instance_class=InstanceClass.from_dict(d["instance_class"]),
                   counterexample=violation_from_dict(d["counterexample"]), original=violation_from_dict(d["original"]))

    # ------------------------------------------------------------ notebooks
    def record(self) -> list[Any]:
        """The result as one tidy row, in the order of :data:`RECORD_COLUMNS`
        (``holds`` is True, False or None for n/a)."""
        v = self.counterexample
        return [self.policy, self.property, self.holds, self.instances, self.instance_class.name, self.seed,
                self.budget, self.mode, None if v is None else v.instance.describe(), None if v is None else v.exact,
                None if v is None else v.message, self.found_in, self.seconds]

    def to_pandas(self) -> Any:
        """A one-row ``pandas.DataFrame`` (columns :data:`RECORD_COLUMNS`)."""
        return to_frame(RECORD_COLUMNS, [self.record()], "SearchResult.to_pandas()")

    def __repr__(self) -> str:
        outcome = "n/a" if self.holds is None else ("holds" if self.holds else "violated")
        fields: dict[str, Any] = {"policy": self.policy, "property": self.property, "outcome": outcome,
                                  "instances": self.instances, "seed": self.seed}
        if self.counterexample is not None:
            fields["counterexample"] = self.counterexample.instance.describe()
        return short_repr("SearchResult", **fields)

    def _repr_html_(self) -> str:
        rows = [[k, v] for k, v in zip(RECORD_COLUMNS, self.record(), strict=True) if v is not None]
        return html_table(["field", "value"], rows, f"search: {self.policy} / {self.property}")

    def outcome(self) -> dict[str, Any]:
        """The parts of the result that do not depend on timing (equal for
        equal seeds, however the work was split or resumed)."""
        d = self.to_dict()
        d.pop("seconds")
        return d

    def summary(self) -> str:
        """One line: ✗ with the counterexample, or ✓ with the evidence."""
        if self.counterexample is not None:
            return f"✗ {self.counterexample.one_line()}"
        if self.instances == 0:
            return f"n/a ({self.unsupported} instances unsupported by {self.policy})"
        return f"✓ no counterexample in {self.instances} instances of class {self.instance_class.name}"


def violation_from_dict(d: dict[str, Any] | None) -> Violation | None:
    """A :class:`Violation` from its ``to_dict`` form."""
    if d is None:
        return None
    return Violation(property=d["property"], policy=d["policy"], instance=Instance.from_dict(d["instance"]),
                     user=d["user"], message=d["message"], deviation=d.get("deviation", {}),
                     before=d.get("before", {}), after=d.get("after", {}), exact=bool(d.get("exact")),
                     mode=d.get("mode", CONTINUOUS))


# --------------------------------------------------------------------- stream
_GRIDS: dict[InstanceClass, tuple[list[Instance], Iterator[Instance]]] = {}


def grid_prefix(cls: InstanceClass, count: int) -> list[Instance]:
    """The first ``count`` grid instances of a class (cached per process;
    the returned list may be longer than ``count`` -- read it up to
    ``min(count, len)``)."""
    cached, it = _GRIDS.setdefault(cls, ([], grid(cls)))
    if len(cached) < count:
        cached.extend(itertools.islice(it, count - len(cached)))
    return cached


def cell_key(policy: str, prop: str) -> str:
    """The name of a (policy, property) cell in streams and tables."""
    return f"{policy}|{prop}"


@dataclass(frozen=True)
class Cell:
    """Everything that determines one search's instance stream."""

    policy: Policy
    prop: Property
    budget: int
    seed: int
    cls: InstanceClass
    mode: str

    @property
    def key(self) -> str:
        return cell_key(self.policy.label, self.prop.name)

    @functools.cached_property
    def entropy(self) -> list[int]:
        """Seed material: the master seed and stable hashes of the cell."""
        tags = (self.policy.label, self.prop.name, self.cls.name, self.mode)
        return [int(self.seed), *(zlib.crc32(t.encode()) for t in tags)]

    @functools.cached_property
    def grid_len(self) -> int:
        """Positions of the stream taken by the exhaustive grid."""
        want = int(self.budget * GRID_FRACTION)
        return min(want, len(grid_prefix(self.cls, want)))

    def at(self, pos: int) -> tuple[str, Instance]:
        """Phase name and instance at stream position ``pos``."""
        g = self.grid_len
        if pos < g:
            return "grid", grid_prefix(self.cls, g)[pos]
        k = pos - g
        strategies = _strategies(self.cls)
        strat = strategies[k % len(strategies)]
        rng = np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=(k,)))
        return f"random:{strat.name}", strat.draw(rng)


def _strategies(cls: InstanceClass) -> tuple[Any, ...]:
    """:func:`~analyzer.searching.strategies.random_strategies`, built once per
    class and process."""
    got = _RANDOM.get(cls)
    if got is None:
        got = _RANDOM[cls] = tuple(random_strategies(cls))
    return got


_RANDOM: dict[InstanceClass, tuple[Any, ...]] = {}


@dataclass
class Chunk:
    """Outcome of examining positions ``start .. start + len(events)``:
    one event letter per position (``c`` checked, ``u`` unsupported, ``a``
    not applicable, ``e`` solver error), the violation that ended it, near
    misses and the first error message."""

    start: int
    events: str = ""
    violation: Violation | None = None
    phase: str | None = None
    near: list[tuple[float, int]] = field(default_factory=list)
    error: str | None = None


def examine(cell: Cell, start: int, stop: int, limit: int, with_margin: bool) -> Chunk:
    """Check the instances at positions ``start..stop`` (at most ``limit``
    checks), stopping at the first violation.

    With :data:`BATCH_SCREEN` the positions are taken :data:`SCREEN_BATCH`
    at a time: the property's :meth:`~analyzer.properties.base.Property.screen_many`
    screens the batch in one vectorised pass and only the flagged instances
    get the full check; the outcome is the same as checking every instance
    (the screen flags every instance the check's own screen would)."""
    out = Chunk(start)
    margin = margin_function(cell.prop) if with_margin else None
    events: list[str] = []
    checked = 0
    step = SCREEN_BATCH if BATCH_SCREEN else 1
    for lo in range(start, stop, step):
        batch = [(pos, *cell.at(pos)) for pos in range(lo, min(lo + step, stop))]
        kinds = [_screenable(cell, inst) for _, _, inst in batch]
        flagged = np.ones(len(batch), dtype=bool)
        if BATCH_SCREEN:
            todo = [k for k, kind in enumerate(kinds) if kind == "c"]
            if todo:
                flagged[todo] = cell.prop.screen_many(cell.policy, [batch[k][2] for k in todo], cell.mode)
        for (pos, phase, inst), kind, flag in zip(batch, kinds, flagged, strict=True):
            v, err = None, None
            if kind == "c" and flag:
                kind, v, err = _checked(cell, inst)
            events.append(kind)
            if err and out.error is None:
                out.error = err
            if kind != "c":
                continue
            checked += 1
            if v is not None:
                out.violation, out.phase = v, phase
                break
            if margin is not None and pos % MARGIN_EVERY == 0:
                mg = _safe_margin(margin, cell.policy, inst)
                if mg is not None:
                    out.near.append((mg, pos))
            if checked >= limit:
                break
        else:
            continue
        break
    out.events = "".join(events)
    out.near = sorted(out.near)[:NEAR_MISSES]
    return out


def _screenable(cell: Cell, inst: Instance) -> str:
    """``u`` (unsupported by the policy), ``a`` (the property does not
    apply) or ``c`` (to be checked)."""
    if cell.policy.supports(inst) is not None:
        return "u"
    if cell.prop.applies(inst) is not None:
        return "a"
    return "c"


def _checked(cell: Cell, inst: Instance) -> tuple[str, Violation | None, str | None]:
    try:
        return "c", cell.prop.check(cell.policy, inst, cell.mode), None
    except SolverError as exc:
        return "e", None, str(exc)


def _check_one(cell: Cell, inst: Instance) -> tuple[str, Violation | None, str | None]:
    kind = _screenable(cell, inst)
    return _checked(cell, inst) if kind == "c" else (kind, None, None)


def _safe_margin(margin: Callable[[Policy, Instance], float], policy: Policy, inst: Instance) -> float | None:
    try:
        mg = float(margin(policy, inst))
    except (SolverError, PolicyError):  # PolicyError: no continuous solution (discrete-only policies)
        return None
    return mg if math.isfinite(mg) else None


# ---------------------------------------------------------------------- state
@dataclass
class _State:
    pos: int = 0
    checked: int = 0
    unsupported: int = 0
    not_applicable: int = 0
    errors: int = 0
    error: str | None = None
    near: list[tuple[float, int]] = field(default_factory=list)
    opt_start: int = 0

    def to_record(self, key: str, phase: str) -> dict[str, Any]:
        return {"type": "progress", "cell": key, "phase": phase, "pos": self.pos, "checked": self.checked,
                "unsupported": self.unsupported, "not_applicable": self.not_applicable, "errors": self.errors,
                "error": self.error, "near": [list(x) for x in self.near], "opt_start": self.opt_start}

    @classmethod
    def from_record(cls, r: dict[str, Any]) -> _State:
        return cls(pos=r["pos"], checked=r["checked"], unsupported=r["unsupported"],
                   not_applicable=r["not_applicable"], errors=r["errors"], error=r.get("error"),
                   near=[(float(a), int(b)) for a, b in r["near"]], opt_start=r.get("opt_start", 0))

    def absorb(self, chunk: Chunk, limit: int) -> tuple[Violation | None, str | None, int | None]:
        """Merge a chunk (in stream order), stopping after ``limit`` checks."""
        found: tuple[Violation | None, str | None, int | None] = (None, None, None)
        for off, ev in enumerate(chunk.events):
            if self.checked >= limit:
                return found
            pos = chunk.start + off
            self.pos = pos + 1
            if ev == "u":
                self.unsupported += 1
            elif ev == "a":
                self.not_applicable += 1
            elif ev == "e":
                self.errors += 1
                self.error = self.error or chunk.error
            else:
                self.checked += 1
        last = chunk.start + len(chunk.events) - 1
        self.near = sorted([*self.near, *((m, p) for m, p in chunk.near if p < self.pos)])[:NEAR_MISSES]
        if chunk.violation is not None:
            return chunk.violation, chunk.phase, last
        return found


# --------------------------------------------------------------------- search
def shrink_budget(budget: int) -> int:
    """Checks a shrink may spend: the search budget, at least
    :data:`SHRINK_MIN_CHECKS` and at most :data:`~analyzer.searching.shrinking.SHRINK_CHECKS`
    (shrinking effort scales with the search effort asked for)."""
    return max(SHRINK_MIN_CHECKS, min(SHRINK_CHECKS, budget))


class _Stop(Exception):
    pass


class _Found(Exception):
    def __init__(self, violation: Violation) -> None:
        self.violation = violation


def _run_stream(cell: Cell, st: _State, budget: int, recorder: Recorder, tick: Progress, pool: Any, workers: int,
                with_margin: bool, label: str) -> tuple[Violation | None, str | None, int | None]:
    """Examine stream positions from ``st.pos`` until ``budget`` checks, the
    end of the stream or a violation; chunks run speculatively in parallel
    on ``pool`` and are merged in stream order."""
    max_pos = cell.budget * GENERATE_FACTOR
    throttle = Throttle()
    found: tuple[Violation | None, str | None, int | None] = (None, None, None)
    while st.checked < budget and st.pos < max_pos:
        n_chunks = max(1, workers) if pool is not None else 1
        size = CHUNK if pool is None else POOL_CHUNK
        starts = [s for s in (st.pos + i * size for i in range(n_chunks)) if s < max_pos]
        args = [(cell, s, min(s + size, max_pos), budget - st.checked, with_margin) for s in starts]
        chunks = pool.starmap(examine, args) if pool is not None and len(args) > 1 else [examine(*a) for a in args]
        for ch in chunks:
            before = st.checked
            found = st.absorb(ch, budget)
            tick(st.checked - before)
            if found[0] is not None:
                recorder.emit({"type": "found", "cell": cell.key, "pos": found[2], "phase": found[1],
                               "violation": found[0].to_dict()})
                return found
            if st.checked >= budget:
                break
        if throttle.due():
            recorder.emit(st.to_record(cell.key, label))
    return found


def run_cell(cell: Cell, recorder: Recorder | None = None, resume: dict[str, Any] | None = None,
             progress: Progress | None = None, pool: Any = None, workers: int = 1) -> SearchResult:
    """Run one search (see the module docstring), streaming checkpoints to
    ``recorder`` and continuing from the checkpoint record ``resume``."""
    t0 = time.perf_counter()
    recorder = recorder or Recorder(None)
    tick = progress or (lambda k: None)
    st = _State.from_record(resume) if resume else _State()
    tick(st.checked)
    margin = margin_function(cell.prop)
    opt_budget = int(cell.budget * OPT_FRACTION) if margin is not None else 0
    stream_budget = cell.budget - opt_budget
    violation: Violation | None = None
    phase: str | None = None
    at: int | None = None
    resumed = resume.get("phase", "stream") if resume else "stream"
    # phases 1-2: the stream
    if resumed == "stream":
        violation, phase, at = _run_stream(cell, st, stream_budget, recorder, tick, pool, workers, margin is not None,
                                           "stream")
    # phase 3: optimisation of the margin from near misses
    if violation is None and margin is not None and resumed in ("stream", "optimise"):
        if resumed == "stream":
            recorder.emit(st.to_record(cell.key, "optimise"))
        violation = _optimise(cell, st, margin, cell.budget, recorder, tick)
        if violation is not None:
            phase, at = "optimise", None
            recorder.emit({"type": "found", "cell": cell.key, "pos": None, "phase": phase,
                           "violation": violation.to_dict()})
    # evaluations the optimisation did not use go back to the stream
    if violation is None and st.checked < cell.budget:
        violation, phase, at = _run_stream(cell, st, cell.budget, recorder, tick, pool, workers, False, "topup")
    # shrink and re-verify
    shrunk: Violation | None = None
    spent = 0
    if violation is not None:
        def still(cand: Instance) -> Violation | None:
            kind, v, _ = _check_one(cell, cand)
            return v if kind == "c" else None

        inst, _, spent = shrink(violation.instance, still, cell.cls, shrink_budget(cell.budget))
        shrunk = still(inst) or violation
    return SearchResult(policy=cell.policy.label, property=cell.prop.name, counterexample=shrunk,
                        instances=st.checked, seed=cell.seed, budget=cell.budget, instance_class=cell.cls,
                        mode=cell.mode, seconds=time.perf_counter() - t0, generated=st.pos,
                        unsupported=st.unsupported, not_applicable=st.not_applicable, errors=st.errors,
                        error=st.error, found_in=phase, found_at=at,
                        original=violation if shrunk is not None and shrunk.instance != violation.instance else None,
                        shrink_checks=spent)


def _optimise(cell: Cell, st: _State, margin: Callable[[Policy, Instance], float], budget: int,
              recorder: Recorder, tick: Progress) -> Violation | None:
    """Derivative-free minimisation (:data:`OPT_METHOD`) of the margin over
    the log of the positive capacities and demands of each near miss; an
    instance with a numerically negative margin goes to the exact check."""
    from scipy.optimize import minimize

    starts = list(st.near)[:max(1, int(budget * OPT_FRACTION) // EVALS_PER_START)]
    while st.opt_start < len(starts) and st.checked < budget:
        _, pos = starts[st.opt_start]
        _, base = cell.at(pos)
        per_start = max(1, (budget - st.checked) // (len(starts) - st.opt_start))
        stop_at = st.checked + per_start
        mask = np.concatenate([base.capacity > 0, (base.demands > 0).ravel()])
        x0 = np.log(np.concatenate([base.capacity, base.demands.ravel()])[mask])

        def unpack(theta: np.ndarray, base: Instance = base, mask: np.ndarray = mask) -> tuple[np.ndarray, np.ndarray]:
            full = np.zeros(mask.size)
            full[mask] = np.exp(theta)
            return full[:base.m], full[base.m:].reshape(base.n, base.m)

        def objective(theta: np.ndarray, base: Instance = base, stop_at: int = stop_at) -> float:
            if st.checked >= min(stop_at, budget):
                raise _Stop
            cap, dem = unpack(theta)
            try:
                inst = Instance.from_arrays(cap, dem, weights=base.weights, max_tasks=base.max_tasks)
            except InstanceError:  # outside the model (e.g. an entry underflowed to 0): not a candidate
                return float(np.inf)
            if cell.policy.supports(inst) is not None or cell.prop.applies(inst) is not None:
                return float(np.inf)
            st.checked += 1
            tick(1)
            mg = _safe_margin(margin, cell.policy, inst)
            if mg is None:
                return float(np.inf)
            if mg < 0:
                v = _first_violation(cell, list(_exact_versions(cap, dem, base)))
                if v is not None:
                    raise _Found(v)
            return mg

        try:
            bounds = [(v - OPT_LOG_SPAN, v + OPT_LOG_SPAN) for v in x0]
            minimize(objective, x0, method=OPT_METHOD, bounds=bounds, options={"maxfev": per_start})
        except _Stop:
            pass
        except _Found as f:
            return f.violation
        st.opt_start += 1
        recorder.emit(st.to_record(cell.key, "optimise"))
    return None


def _first_violation(cell: Cell, candidates: list[Instance]) -> Violation | None:
    """The first violation among ``candidates`` (in order), screening them
    together first when :data:`BATCH_SCREEN` is on (same outcome)."""
    kinds = [_screenable(cell, inst) for inst in candidates]
    flagged = np.ones(len(candidates), dtype=bool)
    todo = [k for k, kind in enumerate(kinds) if kind == "c"]
    if BATCH_SCREEN and todo:
        flagged[todo] = cell.prop.screen_many(cell.policy, [candidates[k] for k in todo], cell.mode)
    for inst, kind, flag in zip(candidates, kinds, flagged, strict=True):
        if kind == "c" and flag:
            _, v, _ = _checked(cell, inst)
            if v is not None:
                return v
    return None


def _exact_versions(cap: np.ndarray, dem: np.ndarray, base: Instance) -> Iterator[Instance]:
    """Exact instances near float data: rationals with small denominators,
    then the floats as written."""
    w = list(base.weights_exact) if base.weighted else None
    k = list(base.max_tasks_exact) if base.capped else None
    seen: set[str] = set()
    for den in (*EXACT_DENOMINATORS, None):
        def q(v: float, den: int | None = den) -> Fraction:
            f = Fraction(repr(float(v)))
            return f.limit_denominator(den) if den is not None and v > 0 else f

        c = [q(v) for v in cap]
        d = [[q(v) if v > 0 else Fraction(0) for v in row] for row in dem]
        if any(v <= 0 for v in c) or any(not any(row) for row in d):
            continue
        inst = build(c, d, w, k)
        key = inst.describe()
        if key not in seen:
            seen.add(key)
            yield inst


def make_cell(policy: str | Policy, prop: str | Property, budget: int, seed: int,
              instance_class: InstanceClass | str | None, mode: str) -> Cell:
    """Validate the search parameters and build the cell.

    Raises
    ------
    PolicyError
        Unknown policy or property, bad mode.
    ValueError
        Negative budget or a bad instance class.
    """
    from models import PolicyError

    if mode not in MODES:
        raise PolicyError(f"unknown mode {mode!r} (modes: {', '.join(MODES)})")
    if int(budget) < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    return Cell(policy=get_policy(policy), prop=get_property(prop), budget=int(budget), seed=int(seed),
                cls=InstanceClass.parse(instance_class), mode=mode)


def search(policy: str | Policy, property: str | Property, budget: int = 10_000, seed: int = 0,
           instance_class: InstanceClass | str | None = None, mode: str = CONTINUOUS, out: str | None = None,
           workers: int | None = None, resume: bool = False, progress: Progress | None = None,
           scheduler: Any = None) -> SearchResult:
    """Search for a counterexample to ``property`` under ``policy``.

    Parameters
    ----------
    policy : str or Policy
        ``"drf"``, ``"asset"``, ``"ceei"``, ... or a policy object.
    property : str or Property
        ``"sharing-incentive"``, ... or a property object.
    budget : int
        Instances to check (see :mod:`analyzer.searching.engine`).
    seed : int
        Master seed: the same seed gives the same result.
    instance_class : InstanceClass or str, optional
        Default: the paper's class (positive demands, unweighted, uncapped).
    mode : str
        ``"continuous"`` or ``"discrete"``.
    out : str, optional
        JSON-lines file the search streams checkpoints and findings to.
    workers : int or None
        Processes checking chunks of the stream in parallel (``None``, the
        default as for :func:`~analyzer.property_table`: all cores). The
        result does not depend on it.
    resume : bool
        Continue from the checkpoints in ``out``.
    progress : callable, optional
        Called with the number of newly checked instances.
    scheduler : str, distributed.Client or cluster, optional
        A Dask distributed scheduler's address (``tcp://host:8786``), a
        connected ``Client`` or a cluster object (``LocalCluster``): the
        chunks are checked on that cluster instead of local processes
        (``workers`` is then ignored); same result.

    Returns
    -------
    SearchResult
    """
    from .pool import resolve_workers, warm_up, worker_pool
    from .stream import open_stream

    cell = make_cell(policy, property, budget, seed, instance_class, mode)
    config = {"command": "search", "policy": cell.policy.label, "property": cell.prop.name, "budget": cell.budget,
              "seed": cell.seed, "class": cell.cls.to_dict(), "mode": cell.mode}
    recorder, state = open_stream(out, config, resume)
    if cell.key in state.finished:
        return SearchResult.from_dict(state.finished[cell.key])
    if scheduler is None and resolve_workers(workers) > 1:
        warm_up([cell])  # imports and the grid once, before the pool forks
    with worker_pool(workers, scheduler) as (pool, n):
        result = run_cell(cell, recorder, state.progress.get(cell.key), progress, pool, n)
    recorder.emit({"type": "cell", "cell": cell.key, "result": result.to_dict()})
    return result
