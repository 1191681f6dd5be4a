"""Everyday command-line use and the remaining bad inputs (issue 16):
--version, scenarios on stdin, typo hints, --solver, corrupt --resume files,
oversized tasks, long exact numbers."""

import io
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from test_cli import PAPER, ROOT, run

from analyzer import Instance, InstanceError, solve
from analyzer.formats import render_tables
from analyzer.render import MAX_EXACT_CHARS, Table, fmt_number


def test_version_comes_from_the_package_metadata(capsys) -> None:
    from importlib.metadata import version

    code, out, err = run(capsys, "--version")
    assert code == 0 and out == f"fairalloc {version('fairalloc')}\n" and not err


def test_help_returns_zero(capsys) -> None:
    code, out, _ = run(capsys, "solve", "--help")
    assert code == 0 and "- reads standard input" in " ".join(out.split())


@pytest.mark.parametrize("command", [["solve"], ["check", "--policy", "drf", "--property", "envy-freeness"],
                                     ["discrete"]])
def test_dash_reads_the_scenario_from_stdin(capsys, monkeypatch, command: list[str]) -> None:
    expected = run(capsys, command[0], str(PAPER), *command[1:])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(PAPER.read_bytes())))
    got = run(capsys, command[0], "-", *command[1:])
    assert got == expected


def test_stdin_json_and_bad_stdin(capsys, monkeypatch) -> None:
    text = json.dumps(Instance.load(PAPER).to_dict())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    code, out, _ = run(capsys, "solve", "-", "--policy", "drf", "--format", "json")
    assert code == 0 and json.loads(out)["allocations"][0]["users"]["A"]["tasks"] == 3.0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    code, _, err = run(capsys, "solve", "-")
    assert code == 2 and err == "fairalloc: error: <stdin>: file is empty\n"


@pytest.mark.parametrize(("argv", "hint"), [
    (["sovle", "x"], "unknown command 'sovle'; did you mean 'solve'?"),
    (["solve", str(PAPER), "--policy", "dfr"], "unknown policy 'dfr'; did you mean 'drf'?"),
    (["check", str(PAPER), "--policy", "drf", "--property", "envy-freenes"],
     "unknown property 'envy-freenes'; did you mean 'envy-freeness'?"),
    (["table", "--property", "sharing-incentiv", "--budget", "1"], "did you mean 'sharing-incentive'?"),
    (["solve", str(PAPER), "--polcy", "drf"], "unrecognized arguments: --polcy drf; did you mean '--policy'?"),
    (["table", "--budgte=3"], "did you mean '--budget'?"),
])
def test_typo_hints(capsys, argv: list[str], hint: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out and hint in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["solve", str(PAPER), "--bogus"], [], ["--policy-file"], ["solve"]])
def test_usage_errors_say_fairalloc_once(capsys, argv: list[str]) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.startswith("fairalloc: error: ") and err.count("fairalloc") == 1


def test_solver_and_its_options_reach_cvxpy(capsys) -> None:
    # utilitarian is a sequence of cvxpy LPs: SCS with two iterations cannot
    # reach an optimum, so the option really reaches SCS (exit 3, a solver failure)
    assert run(capsys, "solve", str(PAPER), "--policy", "utilitarian", "--solver", "scs")[0] == 0
    code, _, err = run(capsys, "solve", str(PAPER), "--policy", "utilitarian", "--solver", "SCS",
                       "--solver-option", "max_iters=2")
    assert code == 3 and "SCS" in err


@pytest.mark.parametrize(("flags", "message"), [
    (["--solver", "CLARABL"], "did you mean 'CLARABEL'?"),
    (["--solver", "CLARABEL", "--solver-option", "no_such_setting=1"], "no_such_setting"),
    (["--solver-option", "max_iter"], "expected KEY=VALUE"),
])
def test_bad_solver_names_exit_2(capsys, flags: list[str], message: str) -> None:
    code, _, err = run(capsys, "solve", str(PAPER), "--policy", "utilitarian", *flags)
    assert code == 2 and message in err and err.count("\n") == 1


def test_solver_choice_is_scoped() -> None:
    import cvxpy as cp

    from models.solvers import current_choice, solve_problem, solver_choice

    x = cp.Variable(3, pos=True)
    prob = cp.Problem(cp.Maximize(cp.sum(cp.log(x))), [cp.sum(x) <= 3])
    with solver_choice("scs", {"eps": 1e-9}):
        assert current_choice().solver == "SCS" and dict(current_choice().options) == {"eps": 1e-9}
        assert solve_problem(prob, "test") == "SCS"
    assert current_choice().solver is None
    assert solve_problem(prob, "test") in ("CLARABEL", "SCS")  # the default chain again


def test_json_duplicate_user_is_rejected_like_toml(tmp_path: Path, capsys) -> None:
    f = tmp_path / "dup.json"
    f.write_text('{"resources": {"cpu": 1}, "users": {"A": {"demand": {"cpu": 1}}, "A": {"demand": {"cpu": 2}}}}')
    code, _, err = run(capsys, "solve", str(f))
    assert code == 2 and err == f"fairalloc: error: {f}: malformed JSON: key 'A' given twice\n"
    t = tmp_path / "dup.toml"
    t.write_text('[resources]\ncpu = 1\n[users.A]\ndemand = {cpu = 1}\n[users.A]\ndemand = {cpu = 2}\n')
    assert run(capsys, "solve", str(t))[0] == 2


@pytest.mark.parametrize("value", [42, None, 1.5, [1, 2]])
def test_solve_of_a_non_instance_is_an_instance_error(value: object) -> None:
    with pytest.raises(InstanceError) as info:
        solve(value)  # type: ignore[arg-type]
    assert (
        str(info.value) == f"instance: must be an Instance, a scenario dict or a file path, got {type(value).__name__}"
    )


@pytest.mark.parametrize("build", [
    lambda: Instance.from_arrays([1, 1], [[np.nan, 1]]),
    lambda: Instance.from_arrays([np.nan, 1], [[1, 1]]),
    lambda: Instance.from_arrays([1, 1], [[1, 1]], weights=[np.nan]),
    lambda: Instance.from_arrays([1, 1], [[1, 1]], max_tasks=[np.nan]),
    lambda: Instance.from_dict({"resources": {"cpu": float("nan")}, "users": {"A": {"demand": [1]}}}),
])
def test_nan_is_said_once(build) -> None:
    with pytest.raises(InstanceError) as info:
        build()
    msg = str(info.value)
    assert msg.endswith("must be a number, got NaN") and msg.lower().count("nan") == 1


def test_fractional_max_tasks_is_a_continuous_cap_and_floors_in_discrete() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
                               "users": {"A": {"demand": [1, 4], "max_tasks": 2.5}, "B": {"demand": [3, 1]}}})
    assert solve(inst, "drf", exact=True).tasks["A"] == Fraction(5, 2)
    from analyzer import progressive_filling

    assert progressive_filling(inst, "drf").tasks["A"] == 2


def test_a_task_larger_than_every_machine_is_warned_about(tmp_path: Path, capsys) -> None:
    f = tmp_path / "big.toml"
    f.write_text("[resources]\ncpu = 9\nmem = 18\n[users.A]\ndemand = { cpu = 1, mem = 4 }\n"
                 "[users.B]\ndemand = { cpu = 4, mem = 1 }\n"
                 "[[machines]]\ncount = 3\ncpu = 3\nmem = 6\n")
    code, out, err = run(capsys, "solve", str(f), "--policy", "drf")
    assert code == 0 and "Tasks per user" in out
    assert err == ("fairalloc: warning: B: one task is larger than every machine; it gets less than one task "
                   "(none in the discrete setting)\n")
    assert run(capsys, "solve", str(PAPER), "--policy", "drf")[2] == ""


def test_oversized_users_is_vectorised_over_many_users() -> None:
    dem = np.ones((100_000, 2))
    dem[[7, 99_999], 0] = 10
    inst = Instance.from_arrays([9, 9], dem)
    assert inst.oversized_users().tolist() == [7, 99_999]


@pytest.mark.parametrize("content", [b"garbage\n", b"\x00\xff\xfe", b'{"type": "progress"}\n',
                                     b'{"type": "header", "config": {}}\n{"type": "cell"}\n{}\n'])
def test_resume_on_a_corrupt_file_exits_2_and_keeps_the_file(tmp_path: Path, capsys, content: bytes) -> None:
    f = tmp_path / "run.jsonl"
    f.write_bytes(content)
    for cmd in (["search", "--policy", "drf", "--property", "sharing-incentive"],
                ["table", "--policy", "drf", "--property", "sharing-incentive"]):
        code, _, err = run(capsys, *cmd, "--budget", "5", "--workers", "1", "--out", str(f), "--resume")
        assert code == 2 and "cannot resume" in err and err.count("\n") == 1
        assert f.read_bytes() == content  # not silently started over


def test_runtime_warnings_do_not_reach_the_terminal(tmp_path: Path) -> None:
    policy = tmp_path / "noisy.py"
    policy.write_text(
        "import numpy as np\nfrom models import FillingPolicy, register\n\n\n@register\n"
        "class Noisy(FillingPolicy):\n    name = 'noisy-drf'\n    description = 'DRF that warns'\n\n"
        "    def share_per_task(self, demands, capacity):\n"
        "        np.log(np.zeros(1))  # RuntimeWarning: divide by zero\n"
        "        return (demands / capacity).max(axis=1)\n")
    proc = subprocess.run([sys.executable, "-W", "default", "-m", "analyzer", "--policy-file", str(policy), "search",
                           "--policy", "noisy-drf", "--property", "sharing-incentive", "--budget", "20",
                           "--workers", "2"], capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "RuntimeWarning" not in proc.stderr and proc.stderr == ""


def test_long_exact_numbers_are_abbreviated_except_in_json_and_csv() -> None:
    huge = Fraction(3**300, 7**200)
    text = fmt_number(huge)
    assert len(text) < 80 and "full value in --format json" in text and text.startswith(f"{float(huge):.6g}")
    assert fmt_number(Fraction(45, 11)) == "45/11 (4.09091)"
    assert len(fmt_number(Fraction(10**60))) < 80
    for fmt in ("text", "md", "latex"):
        assert str(huge.numerator) not in render_tables([Table("t", ["x"], [[huge]])], fmt)
    assert str(huge.numerator) in render_tables([Table("t", ["x"], [[huge]])], "csv")
    assert MAX_EXACT_CHARS >= len("3125/63 - 125*sqrt(373)/63")  # the README's algebraic CEEI stays whole


def test_no_fork_while_other_threads_run() -> None:
    import threading

    from analyzer.searching.pool import process_pool

    stop = threading.Event()
    t = threading.Thread(target=stop.wait, daemon=True)
    t.start()
    try:
        with process_pool(2) as pool:
            assert pool is None  # one process, same result, no deadlock risk
    finally:
        stop.set()
        t.join()
