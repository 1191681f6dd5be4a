"""Trace readers: real cluster traces as simulation workloads.

Ghodsi et al., NSDI 2011, Section 7.3 replay a 2,000-node Facebook trace on
400 nodes. Here the machines are given (count and shape) and the trace
gives the tasks. Formats (:data:`TRACE_FORMATS`):

``alibaba-2017``
    The batch-task table of Alibaba cluster-trace-v2017 (header line, then
    ``task_create_time, task_end_time, job_id, task_id,
    number_of_instances, status, cpus per instance (1/100 core), memory
    per instance (normalized, largest machine = 1.0)``). One spec per
    ``Terminated`` task with both requests; arrival = create time,
    duration of every instance = end - create (the table has no
    per-instance times; at least :data:`MIN_DURATION`). Resources ``cpu``
    (cores, resolution 1/100) and ``mem`` (resolution 1e-9).
``alibaba-2018``
    cluster-trace-v2018 ``batch_task.csv`` (no header: ``task_name,
    instance_num, job_name, task_type, status, start_time, end_time,
    plan_cpu (100 = 1 core), plan_mem (normalized, [0, 100])``).
    ``Terminated`` tasks; arrival = start, duration = end - start.
    Resources ``cpu`` (cores, resolution 1/100) and ``mem`` (the trace's
    [0, 100] unit, resolution 1/100).
``csv``
    fairalloc's own CSV: a header with ``job, arrival, tasks, duration``,
    optionally ``user``, and one column per resource (the demand of one
    task, resolution 1e-6). Lines may come in any order within the
    look-ahead window.

Each job is a user unless a ``user`` column says otherwise. Amounts are
rounded to the format's resolution. Files are read in chunks and sorted by
arrival within a bounded look-ahead (:data:`LOOKAHEAD_ROWS` rows): memory
does not grow with the trace. A row that arrives after a later row was
already handed to the simulator is admitted at the current time and
counted (``stats["late_arrivals"]``); the 80,553-row 2017 table fits in
the window and is replayed in exact arrival order.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models import InstanceError

from .streams import SpecStream
from .workload import JobSpec, Workload, machines_array

#: Rows read at a time.
CHUNK_ROWS: int = 50_000
#: Rows held back to sort arrivals.
LOOKAHEAD_ROWS: int = 200_000
#: Shortest task duration (seconds) given to a trace task.
MIN_DURATION: float = 1.0


@dataclass(frozen=True)
class TraceFormat:
    """How to read one format: the header, units and a reader turning a
    list of CSV rows into columns (filtered)."""

    name: str
    header: bool
    resources: tuple[str, ...]
    scale: tuple[int, ...]
    read: Callable[[list[list[str]]], dict[str, np.ndarray]]


def _col(rows: list[list[str]], k: int, dtype: Any = float) -> np.ndarray:
    return np.array([r[k].strip() for r in rows], dtype=dtype)


def _terminated(rows: list[list[str]], status: int, needed: tuple[int, ...]) -> list[list[str]]:
    width = max(status, *needed) + 1
    return [r for r in rows
            if len(r) >= width and r[status].strip() == "Terminated" and all(r[k].strip() for k in needed)]


def _alibaba_2017(rows: list[list[str]]) -> dict[str, np.ndarray]:
    rows = _terminated(rows, 5, (0, 1, 4, 6, 7))
    create, end = _col(rows, 0), _col(rows, 1)
    return {"arrival": create, "duration": end - create, "job": _col(rows, 2, object), "tasks": _col(rows, 4),
            "demand": np.column_stack([_col(rows, 6) / 100.0, _col(rows, 7)]).reshape(-1, 2)}


def _alibaba_2018(rows: list[list[str]]) -> dict[str, np.ndarray]:
    rows = _terminated(rows, 4, (1, 5, 6, 7, 8))
    start, end = _col(rows, 5), _col(rows, 6)
    return {"arrival": start, "duration": end - start, "job": _col(rows, 2, object), "tasks": _col(rows, 1),
            "demand": np.column_stack([_col(rows, 7) / 100.0, _col(rows, 8)]).reshape(-1, 2)}


TRACE_FORMATS: dict[str, TraceFormat] = {
    "alibaba-2017": TraceFormat("alibaba-2017", True, ("cpu", "mem"), (100, 10**9), _alibaba_2017),
    "alibaba-2018": TraceFormat("alibaba-2018", False, ("cpu", "mem"), (100, 100), _alibaba_2018),
}
_CSV_REQUIRED = ("job", "arrival", "tasks", "duration")
#: Resolution of the ``csv`` format's resource columns (units per resource unit).
CSV_SCALE: int = 10**6


def _csv_format(path: Path) -> TraceFormat:
    with path.open(newline="") as fh:
        header = [c.strip() for c in next(csv.reader(fh), [])]
    for c in _CSV_REQUIRED:
        if c not in header:
            raise InstanceError(f"{path}: column {c!r}: missing (csv needs {', '.join(_CSV_REQUIRED)} and resources)")
    res = tuple(c for c in header if c not in (*_CSV_REQUIRED, "user"))
    if not res:
        raise InstanceError(f"{path}: no resource columns")
    at = {c: k for k, c in enumerate(header)}

    def read(rows: list[list[str]]) -> dict[str, np.ndarray]:
        out = {"arrival": _col(rows, at["arrival"]), "duration": _col(rows, at["duration"]),
               "job": _col(rows, at["job"], object), "tasks": _col(rows, at["tasks"]),
               "demand": np.column_stack([_col(rows, at[r]) for r in res]).reshape(-1, len(res))}
        if "user" in at:
            out["user"] = _col(rows, at["user"], object)
        return out

    return TraceFormat("csv", True, res, (CSV_SCALE,) * len(res), read)


def _check(path: Path, rows: dict[str, np.ndarray], first: int) -> None:
    """Reject negative or non-finite values, naming the column."""
    for col in ("arrival", "duration", "tasks", "demand"):
        v = rows[col]
        bad = ~np.isfinite(v) | (v < 0) if col != "arrival" else ~np.isfinite(v)
        if col == "tasks":
            bad |= v != np.floor(v)
        if bad.any():
            r = int(np.flatnonzero(bad.reshape(len(v), -1).any(axis=1))[0])
            raise InstanceError(f"{path}: row {first + r + 1}: {col}: must be a finite number >= 0")


def _chunks(path: Path, fmt: TraceFormat) -> Iterator[dict[str, np.ndarray]]:
    first = 0
    with path.open(newline="") as fh:
        reader = csv.reader(fh)
        if fmt.header:
            next(reader, None)
        try:
            while True:
                rows = list(itertools.islice(reader, CHUNK_ROWS))
                if not rows:
                    return
                try:
                    cols = fmt.read(rows)
                except (ValueError, IndexError) as exc:
                    raise InstanceError(f"{path}: rows {first + 1}-{first + len(rows)}: not in {fmt.name} format "
                                        f"({exc})") from None
                _check(path, cols, first)
                first += len(rows)
                yield cols
        except (csv.Error, UnicodeDecodeError) as exc:
            raise InstanceError(f"{path}: not a {fmt.name} CSV file ({' '.join(str(exc).split())})") from None


def _sorted_rows(path: Path, fmt: TraceFormat, late: list[int]) -> Iterator[dict[str, np.ndarray]]:
    """Chunks in arrival order within :data:`LOOKAHEAD_ROWS` (see the module docstring)."""
    buf: dict[str, np.ndarray] | None = None
    last = -np.inf
    for rows in _chunks(path, fmt):
        late[0] += int((rows["arrival"] < last).sum())
        buf = rows if buf is None else {k: np.concatenate([buf[k], rows[k]]) for k in rows}
        order = np.argsort(buf["arrival"], kind="stable")
        buf = {k: v[order] for k, v in buf.items()}
        cut = len(buf["arrival"]) - LOOKAHEAD_ROWS
        if cut > 0:
            out = {k: v[:cut] for k, v in buf.items()}
            buf = {k: v[cut:] for k, v in buf.items()}
            last = float(out["arrival"][-1])
            yield out
    if buf is not None:
        yield buf


def _batches(path: Path, fmt: TraceFormat, late: list[int]) -> Iterator[tuple[np.ndarray, Callable[[int], JobSpec]]]:
    """The specs of each sorted chunk: their arrivals and a maker (:class:`.streams.SpecStream`)."""
    late[0] = 0  # counted afresh by every pass over the file
    scale = np.asarray(fmt.scale, dtype=float)
    for rows in _sorted_rows(path, fmt, late):
        dem = np.rint(rows["demand"] * scale).astype(np.int64)
        keep = np.flatnonzero((rows["tasks"] > 0) & dem.any(axis=1))
        dem, arrival = dem[keep], rows["arrival"][keep]
        job, tasks = rows["job"][keep].tolist(), rows["tasks"][keep].tolist()
        user = rows["user"][keep].tolist() if "user" in rows else job
        dur = np.maximum(rows["duration"][keep], MIN_DURATION).tolist()
        arr = arrival.tolist()

        def make(k: int, job: list[Any] = job, user: list[Any] = user, arr: list[float] = arr,
                 tasks: list[float] = tasks, dem: np.ndarray = dem, dur: list[float] = dur) -> JobSpec:
            return JobSpec(job=str(job[k]), user=str(user[k]), arrival=arr[k], tasks=int(tasks[k]), demand=dem[k],
                           durations=(dur[k],))

        yield arrival, make


def _specs(path: Path, fmt: TraceFormat, late: list[int]) -> SpecStream[JobSpec]:
    return SpecStream(_batches(path, fmt, late))


def load_trace(path: str | Path, format: str = "alibaba-2017",
               machines: Mapping[str, Any] | list[Mapping[str, Any]] | None = None, *, name: str = "") -> Workload:
    """A trace as a :class:`~analyzer.simulation.workload.Workload`
    (streamed: the file is read while the simulation runs).

    Parameters
    ----------
    path : str or Path
    format : str
        A key of :data:`TRACE_FORMATS` or ``"csv"``.
    machines : dict or list of dict
        The cluster: ``{"count": 400, "cpu": 64, "mem": 1.0}`` (required),
        in the format's units.

    Raises
    ------
    InstanceError
        For a missing file, an unknown format or bad machines (the file's
        rows are checked as they are read).
    """
    p = Path(path)
    if not p.is_file():
        raise InstanceError(f"{path}: no such trace file")
    if format == "csv":
        fmt = _csv_format(p)
    elif format in TRACE_FORMATS:
        fmt = TRACE_FORMATS[format]
    else:
        raise InstanceError(f"format: unknown trace format {format!r} (known: {', '.join([*TRACE_FORMATS, 'csv'])})")
    if machines is None:
        raise InstanceError("machines: required for a trace (e.g. {\"count\": 400, \"cpu\": 64, \"mem\": 1.0})")
    _res, rows = machines_array(machines, list(fmt.resources))
    cap = np.array(rows, dtype=float) * np.asarray(fmt.scale, dtype=float)
    if np.any(np.abs(cap - np.rint(cap)) > 0) or np.any(cap > 2**50):
        raise InstanceError(f"machines: capacities must be multiples of the {fmt.name} resolution")
    late = [0]
    return Workload(name=name or p.stem, resources=fmt.resources, scale=fmt.scale,
                    machines=np.rint(cap).astype(np.int64), specs=lambda: _specs(p, fmt, late), late=late)


__all__ = ["CHUNK_ROWS", "LOOKAHEAD_ROWS", "MIN_DURATION", "TRACE_FORMATS", "TraceFormat", "load_trace"]
