"""Streaming to --out, Ctrl-C and --resume: an interrupted search or table
continues to the same result as an uninterrupted run with the same seed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analyzer import property_table, search
from analyzer.properties import Property, get_property, register_property
from analyzer.properties.base import PROPERTIES
from analyzer.searching import stream
from analyzer.searching.engine import CHUNK
from analyzer.searching.stream import read_records

ROOT = Path(__file__).resolve().parents[1]


class Interruptible(Property):
    """Test-only: drf-style sharing incentive that raises KeyboardInterrupt
    (like Ctrl-C) on its ``STOP_AT``-th check while armed."""

    name = "test-interruptible"
    STOP_AT: int | None = None
    calls = 0

    def check(self, policy, instance, mode="continuous"):
        cls = type(self)
        cls.calls += 1
        if cls.STOP_AT is not None and cls.calls >= cls.STOP_AT:
            raise KeyboardInterrupt
        return get_property("sharing-incentive").check(policy, instance, mode)


@pytest.fixture(autouse=True)
def _registered(monkeypatch):
    register_property(Interruptible)
    monkeypatch.setattr(stream, "CHECKPOINT_SECONDS", 0.0)
    yield
    Interruptible.STOP_AT = None
    PROPERTIES.unregister(Interruptible.name)


@pytest.mark.parametrize("policy", ["drf", "asset"])
def test_search_resumes_after_an_interrupt_to_the_same_result(tmp_path, policy):
    BUDGET = CHUNK + 44  # more than one chunk of positions
    full = search(policy, "test-interruptible", budget=BUDGET, seed=4)
    out = tmp_path / "run.jsonl"
    # drf: interrupted after the first chunk of positions was checkpointed
    Interruptible.calls, Interruptible.STOP_AT = 0, CHUNK + 24 if policy == "drf" else 2
    with pytest.raises(KeyboardInterrupt):  # raised by the check itself: in this process (workers=1); pool
        # workers ignore Ctrl-C, and a KeyboardInterrupt raised inside one kills it and leaves the pool waiting
        search(policy, "test-interruptible", budget=BUDGET, seed=4, out=str(out), workers=1)
    state = read_records(out)
    assert state.config is not None and not state.finished
    if policy == "drf":
        assert state.progress["drf|test-interruptible"]["checked"] > 0
    Interruptible.STOP_AT = None
    resumed = search(policy, "test-interruptible", budget=BUDGET, seed=4, out=str(out), resume=True)
    assert resumed.outcome() == full.outcome()
    # a finished search is read back, not searched again
    again = search(policy, "test-interruptible", budget=BUDGET, seed=4, out=str(out), resume=True)
    assert again.outcome() == full.outcome()


def test_resume_refuses_other_parameters(tmp_path):
    out = tmp_path / "run.jsonl"
    search("drf", "sharing-incentive", budget=20, seed=1, out=str(out))
    with pytest.raises(ValueError, match="other parameters"):
        search("drf", "sharing-incentive", budget=20, seed=2, out=str(out), resume=True)
    with pytest.raises(ValueError, match="--out"):
        search("drf", "sharing-incentive", budget=20, resume=True)


def test_stream_records_are_json_lines(tmp_path):
    out = tmp_path / "t.jsonl"
    property_table(["asset", "drf"], ["sharing-incentive"], budget=60, seed=0, out=str(out), workers=1)
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    kinds = [r["type"] for r in recs]
    assert kinds[0] == "header" and kinds.count("cell") == 2 and "found" in kinds
    found = next(r for r in recs if r["type"] == "found")
    assert found["cell"] == "asset|sharing-incentive" and found["violation"]["exact"] is True


def test_a_cut_last_line_is_ignored(tmp_path):
    out = tmp_path / "t.jsonl"
    search("drf", "sharing-incentive", budget=30, seed=0, out=str(out))
    with out.open("a") as f:
        f.write('{"type": "progress", "cell": "drf|shar')
    assert read_records(out).finished


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "analyzer", *args]


TABLE_ARGS = ("table", "--policy", "asset,drf", "--property", "envy-freeness,sharing-incentive,pareto-efficiency",
              "--budget", "300", "--seed", "3", "--format", "json", "--quiet")


def _cells(text: str) -> list[dict]:
    cells = json.loads(text)["cells"]
    for c in cells:
        c.pop("seconds", None)
    return cells


#: The command line with ``--out``'s first record of type ``sys.argv[1]`` held:
#: once written, the run waits there for Ctrl-C, so it cannot end before the
#: test interrupts it (however busy the machine), and the test sends SIGINT
#: once it sees that record: an event, not a delay.
GATED_CLI = """
import sys, time
from analyzer.searching import stream

kind = sys.argv.pop(1)
emit = stream.Recorder.emit


def held(self, record):
    emit(self, record)
    if record.get("type") == kind:
        while True:
            time.sleep(0.05)


stream.Recorder.emit = held
from analyzer.cli.entry import main

main()
"""


def _streamed(out: Path) -> str:
    """What the run streamed so far: ``out``'s text, or with ``out`` a
    directory, the text of every file in it."""
    if out.is_dir():
        return "".join(_streamed(f) for f in sorted(out.iterdir()))
    try:
        return out.read_text()
    except FileNotFoundError:  # not written yet, or a spool file removed meanwhile
        return ""


def _interrupted_run(args: list[str], out: Path, kind: str, env: dict[str, str]) -> tuple[str, str]:
    """Run the CLI until it has streamed a record of type ``kind`` to ``out``
    (a file, or a directory holding the file), then send SIGINT; return its
    stdout and stderr (exit code 130 asserted)."""
    proc = subprocess.Popen([sys.executable, "-c", GATED_CLI, kind, *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    marker = f'"type":"{kind}"'
    give_up = time.monotonic() + 300  # generous: only a run that never streams the record fails (not hangs)
    while marker not in _streamed(out):
        assert proc.poll() is None, proc.communicate()
        if time.monotonic() > give_up:
            os.killpg(proc.pid, signal.SIGKILL)  # its pool's workers too: they hold the pipes open
            raise AssertionError(f"no {kind!r} record in {out} after 300 s: {proc.communicate()}")
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    return stdout, stderr


def test_sigint_then_resume_matches_an_uninterrupted_run(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "table.jsonl"
    stdout, stderr = _interrupted_run([*TABLE_ARGS, "--out", str(out), "--workers", "2"], out, "cell", env)
    assert "interrupted" in stderr and "--resume" in stderr and "Traceback" not in stderr
    partial = json.loads(stdout)
    assert partial["interrupted"] is True
    done = [c for c in partial["cells"] if c.get("searched", True)]
    assert 1 <= len(done) < 6
    resumed = subprocess.run(_cli(*TABLE_ARGS, "--out", str(out), "--resume", "--workers", "2"), cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    straight = subprocess.run(_cli(*TABLE_ARGS, "--workers", "1"), cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=300)
    assert straight.returncode == 0, straight.stderr
    assert _cells(resumed.stdout) == _cells(straight.stdout)
    # cells finished before the interrupt were not searched again
    assert sum(1 for line in out.read_text().splitlines() if '"type":"cell"' in line) == 6


def test_sigint_without_out_keeps_the_cells_workers_finished(tmp_path):
    # a worker runs a table row's cells in turn and returns them together; a cell it finished before
    # the Ctrl-C reaches the printed table through the run's private spool file (in TMPDIR, removed after)
    spool = tmp_path / "spool"
    spool.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(spool)}
    stdout, stderr = _interrupted_run([*TABLE_ARGS, "--workers", "2"], spool, "cell", env)
    assert "interrupted" in stderr and "--resume" not in stderr and "Traceback" not in stderr
    partial = json.loads(stdout)
    assert partial["interrupted"] is True
    done = [c for c in partial["cells"] if c.get("holds") is not None]
    assert 1 <= len(done) < 6
    straight = {(c["policy"], c["property"]): c for c in _cells(subprocess.run(
        _cli(*TABLE_ARGS, "--workers", "1"), cwd=ROOT, env=env, capture_output=True, text=True, timeout=300).stdout)}
    for c in done:
        c.pop("seconds", None)
        assert c == straight[c["policy"], c["property"]]
    assert list(spool.iterdir()) == []


SEARCH_ARGS = ("search", "--policy", "drf", "--property", "envy-freeness", "--budget", "1500", "--seed", "9",
               "--format", "json", "--quiet")


def test_sigint_on_a_search_then_resume(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "search.jsonl"
    _, stderr = _interrupted_run([*SEARCH_ARGS, "--out", str(out), "--workers", "1"], out, "progress", env)
    assert "interrupted after" in stderr and "Traceback" not in stderr
    assert read_records(out).progress["drf|envy-freeness"]["checked"] > 0
    resumed = subprocess.run(_cli(*SEARCH_ARGS, "--out", str(out), "--resume", "--workers", "1"), cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=300)
    straight = subprocess.run(_cli(*SEARCH_ARGS, "--workers", "1"), cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=300)
    assert resumed.returncode == straight.returncode == 0, resumed.stderr + straight.stderr
    a, b = json.loads(resumed.stdout), json.loads(straight.stdout)
    a.pop("seconds"), b.pop("seconds")
    assert a == b and a["instances"] == 1500


def test_a_ctrl_c_while_the_header_is_written_leaves_no_empty_file(tmp_path, monkeypatch):
    # the --out file appears with its header or not at all (it was emptied first, then written: a Ctrl-C
    # in between left an empty file that --resume cannot continue; seen in test_interrupts on a busy machine)
    out = tmp_path / "run.jsonl"

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(stream.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        stream.open_stream(str(out), {"command": "search"}, resume=False)
    assert list(tmp_path.iterdir()) == []  # neither an empty file nor a temporary one
    monkeypatch.undo()
    stream.open_stream(str(out), {"command": "search"}, resume=False)
    assert read_records(out).config == {"command": "search"} and list(tmp_path.iterdir()) == [out]
