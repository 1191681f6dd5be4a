"""Workloads of the dynamic simulation: machines, and jobs that arrive.

Ghodsi et al., NSDI 2011, Section 7 run jobs that arrive over time on a
cluster of machines. A workload is

* the machines (count and shape, ``[[machines]]`` as in scenario files);
* *job specs*: a group of identical tasks (a user, an arrival time, a task
  count, one demand vector, a duration per task, optionally a time after
  which no new task starts, and whether the job is resubmitted when it
  finishes). Traces give one spec per trace task (a group of identical
  instances); the ``job`` a spec belongs to groups specs for completion
  times.

Amounts are kept as integers: each resource ``j`` is multiplied by
``scale[j]`` so that "fits" is exact. A TOML workload uses the least common
multiple of the decimal denominators of its numbers (``0.5`` GB -> scale 2);
trace readers fix a resolution per resource (:mod:`.traces`).

TOML format (validated; a bad field raises :class:`models.InstanceError`
naming it)::

    name = "paper section 7.1"
    [[machines]]
    count = 48
    cpu = 4
    mem = 14
    [[jobs]]
    user = "job1"          # fairness is between users
    arrival = 0            # seconds
    tasks = 100000
    demand = { cpu = 1, mem = 10 }
    duration = 20          # seconds per task, or a list cycled over the tasks
    until = 120            # optional: no new task starts after this time
    repeat = false         # optional: resubmit the job when it finishes
    name = "phase 1"       # optional: the job's name in the records
    [users.job1]
    weight = 1             # optional
    [simulation]           # optional defaults of simulate()'s options
    until = 360
    overcommit_penalty = { mem = 4 }
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from models import InstanceError
from models.limits import MAX_SIM_MACHINES, refuse_above

from .streams import SpecStream

#: Largest scaled amount accepted (machine capacities times task counts
#: stay far below int64 overflow).
MAX_SCALED: int = 2**40
_JOB_KEYS = {"user", "arrival", "tasks", "demand", "duration", "until", "repeat", "name"}
_TOP_KEYS = {"name", "machines", "jobs", "users", "simulation"}


@dataclass(frozen=True, eq=False)
class JobSpec:
    """A group of identical tasks (see the module docstring).

    ``demand`` is scaled (int64, one entry per resource); ``durations`` are
    seconds, cycled over the tasks.
    """

    job: str
    user: str
    arrival: float
    tasks: int
    demand: np.ndarray
    durations: tuple[float, ...]
    until: float | None = None
    repeat: bool = False


@dataclass(frozen=True, eq=False)
class Workload:
    """Machines and a stream of job specs in arrival order.

    Attributes
    ----------
    name : str
    resources : tuple of str
    scale : tuple of int
        Units per resource unit (scaled = value * scale).
    machines : ndarray of int64, shape (K, m)
        Scaled capacity of every machine.
    specs : callable
        Returns a fresh iterator over the specs, sorted by arrival (a
        :class:`~.streams.SpecStream` for files: it says how many specs
        it has read ahead).
    weights : dict
        Per-user weight (1 when absent).
    options : dict
        Defaults for :func:`analyzer.simulate`'s options (``[simulation]``).
    total_tasks : int or None
        Task count when known (progress bars).
    late : list
        Filled by trace readers: ``[count]`` of rows that arrived after a
        later row was already emitted (their arrival is raised, see
        :mod:`.traces`).
    rounds : tuple or None
        ``(count, seconds per round)`` for a workload of repeated rounds
        (:mod:`.rounds`).
    """

    name: str
    resources: tuple[str, ...]
    scale: tuple[int, ...]
    machines: np.ndarray
    specs: Callable[[], Iterator[JobSpec]]
    weights: dict[str, float] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    total_tasks: int | None = None
    repeats: bool = False
    late: list[int] = field(default_factory=lambda: [0])
    rounds: tuple[int, float] | None = None

    @property
    def capacity(self) -> np.ndarray:
        """Scaled cluster total per resource."""
        return self.machines.sum(axis=0)

    def real(self, values: np.ndarray) -> np.ndarray:
        """Un-scale amounts (last axis = resources) to float units."""
        return np.asarray(values, dtype=float) / np.asarray(self.scale, dtype=float)


# ---------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------
def _number(path: str, v: Any, *, positive: bool = False, integer: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise InstanceError(f"{path}: must be a finite number, got {v!r}")
    if integer and not float(v).is_integer():
        raise InstanceError(f"{path}: must be a whole number, got {v!r}")
    if v < 0 or (positive and v == 0):
        raise InstanceError(f"{path}: must be {'> 0' if positive else '>= 0'}, got {v!r}")
    return float(v)


def _exact(v: float) -> Fraction:
    return Fraction(v) if isinstance(v, int) else Fraction(repr(float(v)))


def machines_array(raw: Any, resources: list[str] | None, path: str = "machines") -> tuple[list[str], list[list[Any]]]:
    """Validate ``[[machines]]`` (or one ``{count, cpu, mem}`` dict): the
    resource names (in first-seen order) and one row per machine of raw
    numbers."""
    if isinstance(raw, Mapping):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise InstanceError(f"{path}: must be a non-empty list of machine types")
    names: list[str] = list(resources or [])
    types: list[tuple[int, dict[str, Any]]] = []
    for t, mt in enumerate(raw):
        p = f"{path}[{t}]"
        if not isinstance(mt, Mapping):
            raise InstanceError(f"{p}: must be a table")
        count = int(_number(f"{p}.count", mt.get("count", 1), positive=True, integer=True))
        caps = {k: v for k, v in mt.items() if k not in ("count", "name")}
        if not caps:
            raise InstanceError(f"{p}: no resources given")
        for k, v in caps.items():
            _number(f"{p}.{k}", v)
            if k not in names:
                if resources is not None:
                    raise InstanceError(f"{p}.{k}: unknown resource (known: {', '.join(resources)})")
                names.append(k)
        types.append((count, caps))
    refuse_above(path, sum(c for c, _ in types), MAX_SIM_MACHINES, "machines in the simulated cluster",
                 "each is simulated; describe fewer, larger machines")
    rows = []
    for count, caps in types:
        rows += [[caps.get(r, 0) for r in names]] * count
    return names, rows


def scale_for(columns: list[list[Any]], path: str) -> list[int]:
    """Per column, the least common multiple of the decimal denominators."""
    out = []
    for j, col in enumerate(columns):
        s = 1
        for v in col:
            s = math.lcm(s, _exact(v).denominator)
        if s > MAX_SCALED:
            raise InstanceError(f"{path}: resource {j}: too many decimal places to be exact")
        out.append(s)
    return out


def _scaled(values: list[Any], scale: list[int], path: str) -> np.ndarray:
    out = [int(_exact(v) * s) for v, s in zip(values, scale, strict=True)]
    if any(v > MAX_SCALED * 2**10 for v in out):
        raise InstanceError(f"{path}: amount too large")
    return np.array(out, dtype=np.int64)


def _durations(path: str, v: Any) -> tuple[float, ...]:
    items = v if isinstance(v, list) else [v]
    if not items:
        raise InstanceError(f"{path}: must be a number or a non-empty list of numbers")
    return tuple(_number(f"{path}[{k}]" if isinstance(v, list) else path, x, positive=True)
                 for k, x in enumerate(items))


def launch_bound(w: Workload, until: float | None) -> float | None:
    """An upper bound on the task launches of a simulation of ``w`` up to
    ``until``, or ``None`` for a trace (its rows are streamed, not counted
    up front). Each job spec launches at most its tasks (unbounded when it
    repeats), and at most ``slots * (window / shortest duration + 1)``:
    ``slots`` tasks of it fit on the whole cluster at once, ``window`` runs
    from its arrival to ``until`` (or its own ``until``)."""
    if w.total_tasks is None and not w.repeats:
        return None
    shapes, counts = np.unique(w.machines, axis=0, return_counts=True)
    total = 0.0
    for spec in w.specs():
        use = spec.demand > 0
        fit = (shapes[:, use] // spec.demand[use]).min(axis=1, initial=np.iinfo(np.int64).max)
        slots = float((fit * counts).sum()) if use.any() else math.inf
        end = min(math.inf if until is None else until, math.inf if spec.until is None else spec.until)
        by_time = slots * ((end - spec.arrival) / min(spec.durations) + 1) if slots else 0.0
        total += min(math.inf if spec.repeat else float(spec.tasks), max(by_time, 0.0))
    return total


# ---------------------------------------------------------------------------
# TOML / dict workloads
# ---------------------------------------------------------------------------
def workload_from_dict(data: Mapping[str, Any], name: str = "") -> Workload:
    """Validate and build a :class:`Workload` from a parsed TOML/JSON dict.

    Raises
    ------
    InstanceError
        Naming the first bad field (``jobs[2].demand.mem: must be >= 0``).
    """
    if not isinstance(data, Mapping):
        raise InstanceError("workload: must be a table")
    if "rounds" in data:
        from .rounds import rounds_body

        body, count, length = rounds_body(data, name)
        return replace(workload_from_dict(body, name=name), rounds=(count, length))
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise InstanceError(f"{min(unknown)}: unknown key (known: {', '.join(sorted(_TOP_KEYS))})")
    if "machines" not in data:
        raise InstanceError("machines: missing (give [[machines]] with count and resources)")
    resources, rows = machines_array(data["machines"], None)
    jobs = data.get("jobs")
    if not isinstance(jobs, list) or not jobs:
        raise InstanceError("jobs: must be a non-empty list of [[jobs]]")
    raw_jobs = [_raw_job(f"jobs[{k}]", j, resources) for k, j in enumerate(jobs)]
    cols = [[r[j] for r in rows] + [jb["demand"][j] for jb in raw_jobs] for j in range(len(resources))]
    scale = scale_for(cols, "machines")
    machines = np.array([_scaled(r, scale, "machines") for r in rows], dtype=np.int64)
    specs = []
    for k, jb in enumerate(raw_jobs):
        dem = _scaled(jb["demand"], scale, f"jobs[{k}].demand")
        specs.append(JobSpec(job=jb["name"] or f"{jb['user']}#{k}", user=jb["user"], arrival=jb["arrival"],
                             tasks=jb["tasks"], demand=dem, durations=jb["duration"], until=jb["until"],
                             repeat=jb["repeat"]))
    specs.sort(key=lambda s: s.arrival)  # stable: file order among equal arrivals
    batch = (np.array([s.arrival for s in specs], dtype=float), specs.__getitem__)
    weights = _weights(data.get("users", {}))
    options = data.get("simulation", {})
    if not isinstance(options, Mapping):
        raise InstanceError("simulation: must be a table")
    return Workload(name=str(data.get("name", name)), resources=tuple(resources), scale=tuple(scale),
                    machines=machines, specs=lambda: SpecStream([batch]), weights=weights, options=dict(options),
                    total_tasks=sum(s.tasks for s in specs), repeats=any(s.repeat for s in specs))


def _raw_job(p: str, j: Any, resources: list[str]) -> dict[str, Any]:
    if not isinstance(j, Mapping):
        raise InstanceError(f"{p}: must be a table")
    unknown = set(j) - _JOB_KEYS
    if unknown:
        raise InstanceError(f"{p}.{min(unknown)}: unknown key (known: {', '.join(sorted(_JOB_KEYS))})")
    for key in ("user", "tasks", "demand", "duration"):
        if key not in j:
            raise InstanceError(f"{p}.{key}: missing")
    user = j["user"]
    if not isinstance(user, str) or not user:
        raise InstanceError(f"{p}.user: must be a non-empty string, got {user!r}")
    dem = j["demand"]
    if not isinstance(dem, Mapping):
        raise InstanceError(f"{p}.demand: must be a table such as {{ cpu = 1, mem = 2 }}")
    for r in dem:
        if r not in resources:
            raise InstanceError(f"{p}.demand.{r}: unknown resource (machines have {', '.join(resources)})")
    demand = [dem.get(r, 0) for r in resources]
    for r, v in zip(resources, demand, strict=True):
        _number(f"{p}.demand.{r}", v)
    if not any(v > 0 for v in demand):
        raise InstanceError(f"{p}.demand: must have a positive entry")
    until = j.get("until")
    if until is not None:
        until = _number(f"{p}.until", until)
    repeat = j.get("repeat", False)
    if not isinstance(repeat, bool):
        raise InstanceError(f"{p}.repeat: must be true or false, got {repeat!r}")
    name = j.get("name", "")
    if not isinstance(name, str):
        raise InstanceError(f"{p}.name: must be a string")
    return {"user": user, "arrival": _number(f"{p}.arrival", j.get("arrival", 0)),
            "tasks": int(_number(f"{p}.tasks", j["tasks"], positive=True, integer=True)),
            "demand": demand, "duration": _durations(f"{p}.duration", j["duration"]), "until": until,
            "repeat": repeat, "name": name}


def _weights(users: Any) -> dict[str, float]:
    if not isinstance(users, Mapping):
        raise InstanceError("users: must be a table of [users.NAME]")
    out = {}
    for u, body in users.items():
        if not isinstance(body, Mapping) or set(body) - {"weight"}:
            raise InstanceError(f"users.{u}: only 'weight' may be given")
        out[u] = _number(f"users.{u}.weight", body.get("weight", 1), positive=True)
    return out


def load_workload(path: str | Path) -> Workload:
    """Read a TOML (or JSON) workload file.

    Raises
    ------
    InstanceError
        For a missing or malformed file (one line naming the field).
    """
    import json

    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise InstanceError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        data = json.loads(text) if p.suffix.lower() == ".json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise InstanceError(f"{path}: not valid {'JSON' if p.suffix.lower() == '.json' else 'TOML'} ({exc})") from None
    return workload_from_dict(data, name=p.stem)


def as_workload(workload: Workload | Mapping[str, Any] | str | Path) -> Workload:
    """A :class:`Workload` from a workload, a dict or a file path."""
    if isinstance(workload, Workload):
        return workload
    if isinstance(workload, Mapping):
        return workload_from_dict(workload)
    if isinstance(workload, str | Path):
        return load_workload(workload)
    raise InstanceError(f"workload: must be a path, a dict or a loaded trace, got {type(workload).__name__}")
