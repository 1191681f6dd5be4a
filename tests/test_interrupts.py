"""Ctrl-C during a lazy import (analyzer/cli/interrupts.py): held until the
import ends, then an ordinary interrupt (exit 130, one line)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from analyzer.cli import interrupts

ROOT = Path(__file__).resolve().parents[1]


def _frame_during_import(tmp_path: Path):
    (tmp_path / "grab_frame_mod.py").write_text("import sys\nFRAME = sys._getframe()\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import grab_frame_mod  # type: ignore[import-not-found]
        return grab_frame_mod.FRAME
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("grab_frame_mod", None)


def test_an_import_on_the_stack_is_seen(tmp_path):
    assert interrupts._in_import(_frame_during_import(tmp_path))
    assert not interrupts._in_import(sys._getframe())


def test_held_during_an_import_raised_outside(tmp_path, monkeypatch):
    armed: list[float] = []
    monkeypatch.setattr(interrupts.signal, "setitimer", lambda which, t: armed.append(t))
    interrupts._deliver(signal.SIGINT, _frame_during_import(tmp_path))  # held: no exception
    assert armed == [interrupts.RETRY_SECONDS]
    with pytest.raises(KeyboardInterrupt):
        interrupts._deliver(signal.SIGALRM, sys._getframe())
    assert armed[-1] == 0


def test_not_installed_over_an_ignored_sigint():
    code = textwrap.dedent("""
        import signal
        from analyzer.cli import interrupts
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print(interrupts.install(), signal.getsignal(signal.SIGINT) is signal.SIG_IGN)
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "True"], out.stderr


#: Seconds from "the handler is installed" to Ctrl-C: while the command line
#: still imports (numpy, the search's solvers), searches, writes. Every
#: moment must give the same answer, so no assertion depends on which one
#: a delay hits.
DELAYS = (0.0, 0.02, 0.1, 0.3, 0.8, 2.0)
#: Commands that never finish on their own (so every delay interrupts them).
COMMANDS = {
    "search": ["search", "--policy", "drf", "--property", "envy-freeness", "--budget", str(10**9), "--seed", "9",
               "--quiet", "--workers", "1"],
    "table": ["table", "--policy", "drf,asset", "--property", "envy-freeness,sharing-incentive",
              "--budget", str(10**9), "--seed", "3", "--quiet", "--workers", "2"],
}


#: Overall bound on waiting for readiness (a generous one: it only turns a
#: run that never gets ready, which would otherwise hang the test, into a failure).
READY_TIMEOUT: float = 120.0


def _handler_installed(pid: int) -> bool:
    """Whether process ``pid`` catches SIGALRM, which only
    :func:`analyzer.cli.interrupts.install` makes it do (Linux: the SigCgt
    mask of /proc/PID/status): the entry point's first instruction ran."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signal.SIGALRM - 1) & 1)
    return False


def _popen(args: list[str]) -> subprocess.Popen:
    """``python -m analyzer ARGS`` in its own process group (Ctrl-C reaches
    the whole group, pool workers too)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "analyzer", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def _interrupt_each(runs: list[tuple[subprocess.Popen, float]]) -> None:
    """Wait until each run is ready (its handler installed, or it ended): an
    event, not a time; then Ctrl-C each ``delay`` seconds after that, the
    smallest delay first (each run is interrupted after at least its own)."""
    give_up = time.monotonic() + READY_TIMEOUT
    for proc, _ in runs:
        while proc.poll() is None and not _handler_installed(proc.pid):
            if time.monotonic() > give_up:  # stop every run (they never end on their own), then fail
                for p, _ in runs:
                    if p.poll() is None:
                        os.killpg(p.pid, signal.SIGKILL)
                raise AssertionError(f"no handler installed in {READY_TIMEOUT} s: {proc.args}")
            time.sleep(0.002)
    begin = time.monotonic()
    for proc, delay in sorted(runs, key=lambda r: r[1]):
        time.sleep(max(0.0, begin + delay - time.monotonic()))
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)


def _sweep(command: str, tmp_path: Path) -> None:
    """Start one run per delay, all at once, and interrupt each; each exits
    130 with one line and a readable --out file."""
    from analyzer.searching.stream import read_records

    outs = [tmp_path / f"{command}{k}.jsonl" for k in range(len(DELAYS))]
    runs = [(_popen([*COMMANDS[command], "--out", str(out)]), delay) for out, delay in zip(outs, DELAYS, strict=True)]
    _interrupt_each(runs)
    for (proc, delay), out in zip(runs, outs, strict=True):
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 130, (delay, stderr)
        assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, (delay, stderr)
        assert "interrupted" in stderr, (delay, stderr)
        if out.exists():  # what was streamed stays readable (a cut last line is ignored)
            assert read_records(out).config is not None, (delay, out.read_text()[:500])


pytestmark_linux = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")


@pytestmark_linux
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ctrl_c_at_any_moment_exits_130_with_one_line(command: str, tmp_path: Path) -> None:
    """Before the stdlib-only entry point (analyzer/cli/entry.py), a Ctrl-C while
    numpy or the solvers loaded gave tracebacks, exit 1 and deaths by SIGINT."""
    _sweep(command, tmp_path)


def _short_sweep() -> None:
    """A command that ends on its own: whatever moment Ctrl-C hits (imports,
    solving, writing, after the last write), the run either completed
    (exit 0, the whole output, nothing on stderr) or says so in one line
    (exit 130)."""
    args = ["solve", "examples/paper_two_users.toml", "--exact"]
    reference = _popen(args)  # not interrupted, beside the others
    runs = [(_popen(args), delay) for delay in (0.0, 0.05, 0.2, 0.5, 1.0, 2.0)]
    _interrupt_each(runs)
    full_stdout, full_stderr = reference.communicate(timeout=120)
    assert reference.returncode == 0, full_stderr
    for proc, delay in runs:
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode in (0, 130), (delay, proc.returncode, stderr)
        assert "Traceback" not in stderr, (delay, stderr)
        if proc.returncode == 0:
            assert stdout == full_stdout and stderr == "", (delay, stderr)
        else:
            assert stderr == "fairalloc: error: interrupted\n", (delay, stderr)


@pytest.fixture
def busy_machine():
    """Four processes spinning on the CPU beside the test (started and
    stopped here), as on a machine running other work."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4)]
    try:
        yield
    finally:
        for p in spinners:
            p.kill()
            p.wait()


@pytestmark_linux
def test_ctrl_c_up_to_the_last_write_of_a_short_command() -> None:
    _short_sweep()


@pytestmark_linux
def test_ctrl_c_at_any_moment_on_a_busy_machine(busy_machine, tmp_path: Path) -> None:
    _sweep("search", tmp_path)
    _short_sweep()


def test_console_script_entry_point_is_stdlib_only() -> None:
    """The entry point installs the handler before anything but the standard library loads."""
    code = textwrap.dedent("""
        import sys
        import analyzer.cli.entry
        print(sorted(m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("numpy", "models", "scipy")))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.split() == ["[]"], out.stderr
