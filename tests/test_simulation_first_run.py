"""A run's first events (issue 31, item 3 on the path a user runs): a
streamed trace or a workload file knows how many job specs it has read
ahead (analyzer/simulation/streams.py), so a run whose work is known to be
large starts on the compiled event loop instead of running its first
events as Python; a small run still never looks for numba (issue 30), and
the form changes no outcome."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analyzer import load_trace, simulate
from analyzer.simulation import forms
from analyzer.simulation.streams import SpecStream, specs_known
from analyzer.simulation.workload import as_workload
from models import kernels
from models.compiled import numba_available

TRACE = Path("/work/shared/traces/alibaba_v2017_batch_task.csv")
#: The threshold these tests use: far below the real one, so that small traces cross it.
SWITCH = 40


def trace(tmp_path: Path, rows: int, seed: int = 0) -> Path:
    """A csv trace of ``rows`` jobs of three users on a small cluster, out of order within the file."""
    rng = np.random.default_rng(seed)
    lines = ["job,user,arrival,tasks,duration,cpu,mem"]
    for k in rng.permutation(rows).tolist():
        lines.append(f"j{k},u{k % 3},{k // 2},{int(rng.integers(1, 6))},{int(rng.integers(1, 9))},"
                     f"{int(rng.integers(1, 3))},{float(rng.integers(1, 5)) / 4}")
    p = tmp_path / f"t{rows}.csv"
    p.write_text("\n".join(lines) + "\n")
    return p


def outcome(r) -> tuple:
    jobs = [(j.job, j.arrival, j.start, j.finish, j.tasks, j.truncated, j.open) for j in r.jobs]
    log = [a.tolist() for a in r.log] if r.log is not None else None
    return jobs, r.times.tolist(), r.used.tolist(), r.work.tolist(), log, r.stats["decisions"], r.stats["events"]


def _fake_compiled(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Runs 'switch' to the kernels' Python functions (no numba needed) once their work reaches
    :data:`SWITCH`; the works asked about are returned in a list."""
    asked: list[int] = []
    monkeypatch.setitem(kernels.COMPILE_MIN_WORK, "events", SWITCH)

    def runs_compiled(name: str, work: float, **_: object) -> bool:
        asked.append(int(work))
        return work >= SWITCH

    monkeypatch.setattr(forms, "runs_compiled", runs_compiled)
    monkeypatch.setattr(forms, "compiled_form", lambda name: kernels.KERNELS.get(name).function)
    return asked


def test_a_stream_counts_the_specs_it_has_read_ahead(tmp_path: Path) -> None:
    w = load_trace(trace(tmp_path, 30), "csv", machines={"count": 2, "cpu": 4, "mem": 2})
    s = w.specs()
    assert isinstance(s, SpecStream) and s.known() == 0  # nothing read before the first spec is asked for
    first = next(s)
    assert first.arrival == 0.0 and s.known() == 29 and s.known(until=3) == 7  # arrivals 0,0 | 1,1 | 2,2 | 3,3
    assert len(list(s)) == 29 and s.known() == 0
    assert specs_known(iter([first])) == 0  # a hand-made iterator says nothing ahead
    wf = as_workload({"machines": [{"count": 1, "cpu": 2}],
                      "jobs": [{"user": "a", "arrival": t, "tasks": 1, "demand": {"cpu": 1}, "duration": 1}
                               for t in (4, 1, 9)]})
    s = wf.specs()
    assert [x.arrival for x in s] == [1.0, 4.0, 9.0]
    s = wf.specs()
    next(s)
    assert s.known() == 2 and s.known(until=5) == 1


def test_a_large_trace_starts_compiled_with_the_same_outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = trace(tmp_path, 120)
    machines = {"count": 2, "cpu": 4, "mem": 2}
    monkeypatch.setenv("FAIRALLOC_NO_NUMBA", "1")  # the reference: Python throughout, even with numba loaded
    python = simulate(load_trace(p, "csv", machines=machines))
    assert python.stats["engine"] == "python" and python.stats["compiled_after"] is None
    monkeypatch.delenv("FAIRALLOC_NO_NUMBA")
    asked = _fake_compiled(monkeypatch)
    first = simulate(load_trace(p, "csv", machines=machines))
    assert first.stats["engine"] == "compiled" and first.stats["compiled_after"] == 0  # no event ran as Python
    assert asked[-1] == 120  # the specs read ahead (the whole file fits one chunk) and the first one
    assert outcome(first) == outcome(python)
    off = simulate(load_trace(p, "csv", machines=machines), record_users=False)
    assert off.stats["compiled_after"] == 0 and off.log is None and outcome(off)[:4] == outcome(python)[:4]


def test_only_the_specs_arriving_in_time_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # until=10 leaves 22 of the 120 specs (arrivals 0..10, two each): below the threshold, so the run
    # starts as Python and switches only if its own work gets there
    asked = _fake_compiled(monkeypatch)
    r = simulate(load_trace(trace(tmp_path, 120), "csv", machines={"count": 2, "cpu": 4, "mem": 2}), until=10)
    assert asked[0] == 0  # the constructor's look (is the loop loaded?), then only the work done, never the 22
    assert all(work >= SWITCH for work in asked[1:])
    assert r.stats["compiled_after"] is None or r.stats["compiled_after"] >= SWITCH


def test_a_small_trace_never_looks_for_numba(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernels, "_FORMS", {})  # nothing loaded by this process
    monkeypatch.setattr(kernels, "numba_available", lambda: pytest.fail("numba looked for"))
    r = simulate(load_trace(trace(tmp_path, 12), "csv", machines={"count": 2, "cpu": 4, "mem": 2}))
    assert r.stats["engine"] == "python" and r.stats["tasks_launched"] > 0


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_started_compiled_equals_python_bit_for_bit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = trace(tmp_path, 200, seed=3)
    machines = {"count": 3, "cpu": 4, "mem": 2}
    monkeypatch.setitem(kernels.COMPILE_MIN_WORK, "events", SWITCH)
    monkeypatch.setattr(kernels, "_FORMS", {})  # not loaded yet: the run loads it before its first event
    compiled = simulate(load_trace(p, "csv", machines=machines), tie_break="random", seed=5)
    monkeypatch.setenv("FAIRALLOC_NO_NUMBA", "1")
    python = simulate(load_trace(p, "csv", machines=machines), tie_break="random", seed=5)
    assert (compiled.stats["engine"], compiled.stats["compiled_after"]) == ("compiled", 0)
    assert python.stats["engine"] == "python"
    assert outcome(compiled) == outcome(python)
    assert compiled.work.tobytes() == python.work.tobytes()


@pytest.mark.skipif(not TRACE.is_file(), reason="the Alibaba trace is not here")
def test_the_alibaba_table_is_known_large_before_its_first_event() -> None:
    # the whole 2017 table fits the look-ahead: its 67,003 specs are read before the first is handed over,
    # so `simulate(load_trace(...), "drf")` starts compiled (measured: benchmarks/bench_simulate.py)
    s = load_trace(TRACE, machines={"count": 1300, "cpu": 64, "mem": 1.0}).specs()
    next(s)
    assert s.known() == 67_002 >= kernels.COMPILE_MIN_WORK["events"]
    assert s.known(until=1500) < s.known()
