"""What the fuzz campaign of issue 28 found, pinned as plain tests (each
case once, fast): a negative ``--seed`` named as such, a discrete run on
integers past int64, a simulation until an infinite time, a plot at a dpi
too small for its text, an output file that cannot be written."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
PAPER = str(ROOT / "examples" / "paper_two_users.toml")
SIM = str(ROOT / "examples" / "sim_section_7_1.toml")

SEEDED = [
    ["search", "--policy", "drf", "--property", "envy-freeness", "--budget", "3", "--workers", "1", "--quiet"],
    ["table", "--policy", "drf", "--property", "envy-freeness", "--budget", "3", "--workers", "1", "--quiet"],
    ["worst", "drf", "efficiency", "--budget", "3", "--bound", "no", "--quiet"],
    ["frontier", "fds", "--param", "beta", "--values", "1", "--budget", "3", "--quiet"],
    ["discrete", PAPER, "--tie-break", "random"],
    ["simulate", SIM, "--until", "1", "--quiet"],
    ["variants", "--find", "tie", "--budget", "3"],
]


@pytest.mark.parametrize("argv", SEEDED, ids=lambda a: a[0])
def test_a_negative_seed_is_bad_input_naming_the_flag(argv: list[str], capfd: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, "--seed", "-1"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "--seed" in err and "must be a whole number >= 0, got -1" in err, err


def test_a_negative_seed_from_python_names_the_seed() -> None:
    from analyzer import search

    with pytest.raises(ValueError, match="seed: must be >= 0, got -1"):
        search("drf", "envy-freeness", budget=3, seed=-1, workers=1)


def test_discrete_on_integers_past_int64(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Capacities of 10^20 (Python ints, an object array): the pending
    users' distinct demands were taken with numpy's row ``unique``, which
    refuses object arrays (a TypeError traceback)."""
    from analyzer import progressive_filling
    from models import Instance

    big = 10**20
    path = tmp_path / "big.toml"
    path.write_text(f"[resources]\ncpu = {big}\nmem = 3\n[users.A]\ndemand = {{ cpu = {3 * big // 10}, mem = 1 }}\n"
                    f"[users.B]\ndemand = {{ cpu = 1, mem = 1 }}\n[[machines]]\ncount = 1\ncpu = {big}\nmem = 3\n")
    assert main(["discrete", str(path), "--format", "json"]) == 0
    assert "Traceback" not in capfd.readouterr().err
    r = progressive_filling(Instance.load(path), "drf")
    assert (r.tasks["A"], r.tasks["B"]) == (2, 1)  # mem (3) is full: 2 + 1 tasks; cpu 0.6 * 10^20 used
    assert r.fragmentation == (4 * big // 10 - 1, 0)  # the free cpu, where no pending task fits (mem is out)



@pytest.mark.parametrize("until", ["inf", "1e400", "nan"])
def test_simulate_until_must_be_finite(until: str, capfd: pytest.CaptureFixture[str]) -> None:
    # accepted before: NaN mean utilisations and numpy's RuntimeWarning on the terminal
    assert main(["simulate", SIM, "--until", until, "--quiet"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "--until: must be a finite number of seconds" in err, err


@pytest.mark.parametrize("dpi", ["1.5", "2", "9.9"])
def test_plot_dpi_too_small_to_draw_text_is_bad_input(dpi: str, tmp_path: Path,
                                                      capfd: pytest.CaptureFixture[str]) -> None:
    # accepted before: FreeType's "invalid ppem value" RuntimeError traceback, exit 1
    assert main(["plot", PAPER, "--dpi", dpi, "-o", str(tmp_path / "p.png")]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and f"--dpi: must be between 10 and 2400, got {float(dpi):g}" in err, err
    assert not (tmp_path / "p.png").exists()


def test_a_policy_parameter_past_the_largest_float(capfd: pytest.CaptureFixture[str]) -> None:
    # fds:beta=<40 digits> was a TypeError traceback (numpy's isnan on a Python int); 10^400 is inf as a float
    from models import PolicyError, get_policy
    from models.convex import positive_parameter

    assert positive_parameter(get_policy("fds:beta=" + "9" * 40), "beta") == float("9" * 40)
    assert positive_parameter(get_policy(f"gfj:beta={10**400}"), "beta", allow_inf=True) == float("inf")
    with pytest.raises(PolicyError, match="parameter 'beta' must be a number > 0"):
        positive_parameter(get_policy(f"fds:beta={10**400}"), "beta")


@pytest.mark.parametrize("discrete", [[], ["--discrete", "--bound", "2"]])
def test_prove_timeout_past_the_clock_is_bad_input(discrete: list[str], capfd: pytest.CaptureFixture[str]) -> None:
    # was OverflowError: timestamp too large to convert to C _PyTime_t (a traceback); both settings refuse it
    # with the same line, from the one check of the proof's arguments (analyzer.proving.arguments)
    assert main(["prove", "drf", "envy-freeness", "--timeout", "9" * 40, "--workers", "1", *discrete]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "timeout: at most" in err, err


@pytest.mark.parametrize("setting", ["continuous", "discrete"])
def test_prove_timeout_past_the_clock_from_python_is_a_policy_error(setting: str) -> None:
    # the CLI refused it, but prove() from Python raised OverflowError deep in the proof's deadline
    from analyzer import prove
    from models import PolicyError

    extra = {"bound": 2} if setting == "discrete" else {}
    with pytest.raises(PolicyError, match="timeout: at most"):
        prove("drf", "envy-freeness", 2, 2, timeout=1e40, workers=1, setting=setting, **extra)


@pytest.mark.parametrize("until", [float("inf"), float("nan")])
def test_simulate_until_from_python_must_be_finite(until: float) -> None:
    # the CLI refused it, simulate() from Python ran and reported NaN mean utilisations
    from analyzer.simulation import simulate
    from models import PolicyError

    with pytest.raises(PolicyError, match="until: must be a finite number"):
        simulate(SIM, "drf", until=until)


UNWRITABLE = [
    (["worst", "drf", "efficiency", "--budget", "3", "--bound", "no", "--quiet", "--save"], "--save"),
    (["variants", "--find", "tie", "--budget", "3", "--out"], "--out"),
    (["plot", PAPER, "-o"], "-o"),
    (["search", "--policy", "drf", "--property", "envy-freeness", "--budget", "3", "--workers", "1", "--quiet",
      "--out"], "--out"),
    (["table", "--policy", "drf", "--property", "envy-freeness", "--budget", "3", "--workers", "1", "--quiet",
      "--out"], "--out"),
]


@pytest.mark.parametrize(("argv", "flag"), UNWRITABLE, ids=lambda a: a[0] if isinstance(a, list) else a)
def test_an_output_file_that_cannot_be_written_is_refused_before_the_work(
        argv: list[str], flag: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # worst --save, variants --out, search --out and table --out were FileNotFoundError tracebacks (the last
    # two from the searching's checkpoint file)
    target = str(tmp_path / "missing" / "out.toml") if flag != "-o" else str(tmp_path / "missing" / "out.png")
    assert main([*argv, target]) == 2
    out, err = capfd.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert err.startswith(f"fairalloc: error: {flag} {target}: directory") and "does not exist" in err, err


@pytest.mark.parametrize(("argv", "flag"), [
    (["worst", "--policies", "drf", "--metrics", "efficiency", "--save"], "--save"),
    (["variants", PAPER, "--out"], "--out"),
])
def test_an_output_file_the_command_would_not_write_is_refused(
        argv: list[str], flag: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # the worst table and variants on a file ignored --save / --out silently
    assert main([*argv, str(tmp_path / "x.toml")]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"fairalloc: error: {flag}: "), err
    assert not (tmp_path / "x.toml").exists()


@pytest.mark.parametrize("argv", [
    ["table", "--policy", "drf", "--property", "envy-freeness", "--budget", "3", "--workers", "1", "--quiet",
     "--prove", "2,2"],
    ["frontier", "fds", "--param", "beta", "--values", "1", "--budget", "3", "--properties", "envy-freeness",
     "--workers", "1", "--quiet"],
], ids=lambda a: a[0])
@pytest.mark.parametrize("seconds", ["1e300", "nan", "inf", "0"])
def test_a_prove_timeout_no_deadline_can_hold_is_refused_before_the_search(
        argv: list[str], seconds: str, capfd: pytest.CaptureFixture[str]) -> None:
    # 1e300 passed the commands' own checks, ran the whole search, then failed in the proof naming "timeout";
    # one check now (analyzer.proving.arguments.validate_timeout), as for prove --timeout
    assert main([*argv, "--prove-timeout", seconds]) == 2
    out, err = capfd.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("fairalloc: error: --prove-timeout: "), err


def test_a_prove_timeout_from_python_is_checked_before_the_search() -> None:
    from analyzer import frontier, property_table
    from models import PolicyError

    with pytest.raises(PolicyError, match="prove_timeout: at most"):
        property_table(["drf"], ["envy-freeness"], budget=3, prove=(2, 2), prove_timeout=1e300, workers=1)
    with pytest.raises(PolicyError, match="prove_timeout: at most"):
        frontier("fds", "beta", [1], properties=["envy-freeness"], budget=3, prove_timeout=1e300, workers=1)


@pytest.mark.parametrize("argv", [
    ["worst", "drf", "efficiency", "--budget", "3", "--quiet"],
    ["worst", "--policies", "drf", "--metrics", "efficiency", "--budget", "3", "--quiet"],
    ["frontier", "fds", "--param", "beta", "--values", "1", "--budget", "3", "--quiet"],
], ids=lambda a: " ".join(a[:2]))
def test_a_search_timeout_past_the_clock_is_bad_input(argv: list[str], capfd: pytest.CaptureFixture[str]) -> None:
    # was OverflowError: timestamp out of range for platform time_t (a traceback)
    assert main([*argv, "--timeout", "1e300"]) == 2
    out, err = capfd.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("fairalloc: error: --timeout: "), err
    assert "at most" in err


def test_a_search_timeout_past_the_clock_from_python_is_refused() -> None:
    from analyzer import worst_case

    with pytest.raises(ValueError, match="timeout: at most"):
        worst_case("drf", "efficiency", 2, 2, budget=3, timeout=1e300)
