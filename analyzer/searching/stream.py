"""Streaming search results to a JSON-lines file and resuming from it.

A long ``search`` or ``table`` run appends one JSON record per line to its
``--out`` file, flushed as written, so an interrupted run loses nothing:

* ``{"type": "header", "config": {...}}`` -- the run's parameters;
* ``{"type": "progress", "cell": "drf|sharing-incentive", ...}`` -- a
  checkpoint: stream position, instances checked, near misses so far;
* ``{"type": "found", "cell": ..., "pos": k, "violation": {...}}`` -- a
  counterexample as first found (before shrinking);
* ``{"type": "cell", "cell": ..., "result": {...}}`` -- a finished search.

Each record is written with a single ``write`` on a file opened for
appending, so processes of a pool can share the file. Resuming reads the
file back: finished cells are not searched again, and an unfinished cell
continues from its last checkpoint. Because every instance of a cell's
stream depends only on the seed and its position, the resumed run ends with
the same result as an uninterrupted one.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..render import _json_default

#: Seconds between two progress checkpoints of one cell.
CHECKPOINT_SECONDS: float = 0.5


def _line(record: dict[str, Any]) -> bytes:
    """One record as one JSON line."""
    return (json.dumps(record, default=_json_default, separators=(",", ":")) + "\n").encode()


@dataclass
class Recorder:
    """Appends records to a JSON-lines file (``path=None``: records nothing)."""

    path: str | None = None

    def emit(self, record: dict[str, Any]) -> None:
        """Append one record as one line, flushed."""
        if self.path is None:
            return
        line = _line(record)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


@dataclass
class Throttle:
    """True at most every :data:`CHECKPOINT_SECONDS`."""

    last: float = field(default_factory=time.monotonic)

    def due(self) -> bool:
        now = time.monotonic()
        if now - self.last >= CHECKPOINT_SECONDS:
            self.last = now
            return True
        return False


@dataclass
class ResumeState:
    """What a previous run left in its ``--out`` file."""

    config: dict[str, Any] | None = None
    finished: dict[str, dict[str, Any]] = field(default_factory=dict)
    progress: dict[str, dict[str, Any]] = field(default_factory=dict)


def read_records(path: str | Path) -> ResumeState:
    """Read an ``--out`` file. A last line cut short by an interruption is
    ignored; any other malformed line, a file that does not start with a
    header, or a file that is not text is an error (resuming must never
    silently start over).

    Raises
    ------
    ValueError
        When the file is not a fairalloc search stream.
    """
    state = ResumeState()
    p = Path(path)
    if not p.exists():
        return state
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except (UnicodeDecodeError, OSError) as exc:
        raise ValueError(f"{p}: cannot resume: not a fairalloc search stream ({type(exc).__name__})") from None
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            if no == len(lines) and state.config is not None:
                break
            raise ValueError(f"{p}: cannot resume: line {no} is not a JSON record") from None
        kind = rec.get("type") if isinstance(rec, dict) else None
        try:
            if kind == "header":
                state.config = rec["config"]
            elif state.config is None:
                raise KeyError("header")
            elif kind == "progress":
                state.progress[rec["cell"]] = rec
            elif kind == "cell":
                state.finished[rec["cell"]] = rec["result"]
            elif kind != "found":
                raise KeyError("type")
        except (KeyError, TypeError):
            raise ValueError(f"{p}: cannot resume: line {no} is not a fairalloc search record") from None
    if state.config is None and any(line.strip() for line in lines):
        raise ValueError(f"{p}: cannot resume: no header record (not a fairalloc search stream)")
    return state


def open_stream(path: str | None, config: dict[str, Any], resume: bool) -> tuple[Recorder, ResumeState]:
    """Prepare ``path`` for a run: a fresh file with a header, or (with
    ``resume``) the state of the earlier run, whose header must match.

    Raises
    ------
    ValueError
        When resuming a file written with other parameters, or resuming
        without a file.
    """
    if path is None:
        if resume:
            raise ValueError("--resume needs --out FILE (the stream to continue)")
        return Recorder(None), ResumeState()
    rec = Recorder(str(path))
    if resume:
        state = read_records(path)
        if state.config is not None:
            if _canon(state.config) != _canon(config):
                raise ValueError(f"{path}: was written with other parameters ({_diff(state.config, config)}); "
                                 "rerun without --resume or use another --out")
            return rec, state
    # the file appears with its header or not at all: a Ctrl-C between emptying it and writing the
    # header left an empty file that --resume cannot continue
    tmp = Path(f"{path}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(_line({"type": "header", "config": config}))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return rec, ResumeState(config=config)


@contextmanager
def spooled(recorder: Recorder, config: dict[str, Any], needed: bool) -> Iterator[Recorder]:
    """``recorder`` itself; or, when it records nothing and ``needed`` (the
    work runs in other processes, several results per task), a recorder on
    a private temporary file with ``config``'s header, removed on exit.
    What the workers finish streams there as it finishes, so a parent
    interrupted before a task's results reach it still collects them with
    :func:`read_records` (as from an ``--out`` file)."""
    if recorder.path is not None or not needed:
        yield recorder
        return
    fd, path = tempfile.mkstemp(prefix="fairalloc-", suffix=".jsonl")
    try:
        os.write(fd, _line({"type": "header", "config": config}))
        os.close(fd)
        yield Recorder(path)
    finally:
        Path(path).unlink(missing_ok=True)


def _canon(d: dict[str, Any]) -> str:
    return json.dumps(d, sort_keys=True, default=_json_default)


def _diff(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = sorted(k for k in set(old) | set(new) if _canon({k: old.get(k)}) != _canon({k: new.get(k)}))
    return ", ".join(f"{k}: {old.get(k)!r} vs {new.get(k)!r}" for k in keys[:3])
