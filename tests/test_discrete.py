"""analyzer.discrete and ``fairalloc discrete``: the paper's numbers
(Ghodsi et al., NSDI 2011: Table 1, Section 7.1, Theorem 7) and the discrete
property checks."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from discrete_strategies import random_cluster

from analyzer import Instance, progressive_filling
from analyzer.cli.main import main
from analyzer.comparing.whole_tasks import compare
from analyzer.discrete import DiscreteRun
from analyzer.properties import get_property
from models.discrete import PLACEMENTS

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"
SECTION_7_1 = ROOT / "examples" / "paper_section_7_1.toml"


def test_paper_example_front_door() -> None:
    r = progressive_filling(PAPER, "drf")
    assert (r.tasks["A"], r.tasks["B"]) == (3, 2)
    assert isinstance(r.tasks["A"], int)
    assert r.picks == ["B", "A", "A", "B", "A"]  # Table 1
    a = r.allocation
    assert a.exact and a.x_exact == (Fraction(3), Fraction(2))
    assert a.dominant_shares_exact == (Fraction(2, 3), Fraction(2, 3))
    assert r.utilization == (Fraction(1), Fraction(7, 9))
    # 4 GB are left and neither A (4 GB but 1 CPU) nor B fits: fragmented
    assert r.fragmentation == (Fraction(0), Fraction(4))


def test_positional_policy_object_as_the_property_helpers_call_it() -> None:
    from models import get_policy

    inst = Instance.load(PAPER)
    assert progressive_filling(inst, get_policy("asset")).allocation.x_exact == (Fraction(3), Fraction(2))


def test_section_7_1_shares() -> None:
    inst = Instance.load(SECTION_7_1)
    # Mesos keeps offering after job 1's tasks stop fitting: the skip variant
    r = progressive_filling(inst, "drf", on_full="skip")
    shares = r.allocation.shares
    assert r.tasks["job1"] == 48  # one 10 GB task per 14 GB node
    assert shares[0, 1] == pytest.approx(0.714, abs=1e-3)  # "around 70% of the RAM"
    assert shares[1, 0] == pytest.approx(0.75)  # "around 75% of the CPUs"
    assert r.utilization[0] == 1
    # the paper's pseudo-code stops as soon as job 1's next task fits nowhere
    stop = progressive_filling(inst, "drf")
    assert stop.tasks["job1"] == 48 and stop.tasks["job2"] < 144 and stop.failures == ["job1"]


def test_section_7_1_comparison_reports_the_bound_outside_its_assumptions() -> None:
    c = compare(SECTION_7_1, "drf", on_full="skip")
    t7 = c.theorem7
    assert not t7.applies and not t7.holds and t7.ratio == Fraction(12, 5)
    c = compare(SECTION_7_1, "drf")
    assert c.theorem7.applies and c.theorem7.holds


def theorem7_cases(count: int, seed: int):
    rng = np.random.default_rng(seed)
    variants = [(p, "stop") for p in sorted(PLACEMENTS)] + [("machine-by-machine", "skip")]
    for k in range(count):
        inst = random_cluster(rng, n_max=6, m_max=3, positive=True, caps=False, fit_everywhere=True)
        placement, on_full = variants[k % len(variants)]
        yield inst, ("drf", "asset")[k % 2], placement, on_full


def test_theorem7_bound_on_random_instances() -> None:
    runs = 0
    for inst, policy, placement, on_full in theorem7_cases(2000, seed=7):
        c = compare(inst, policy, placement=placement, on_full=on_full, properties=False)
        assert c.theorem7.applies
        assert c.theorem7.holds, (inst.to_dict(), policy, placement, on_full, c.theorem7)
        runs += 1
    assert runs == 2000


@pytest.mark.slow
def test_theorem7_bound_on_many_random_instances() -> None:
    for inst, policy, placement, on_full in theorem7_cases(30_000, seed=70):
        c = compare(inst, policy, placement=placement, on_full=on_full, properties=False)
        assert c.theorem7.holds, (inst.to_dict(), policy, placement, on_full, c.theorem7)


def test_property_rows_are_the_property_checks_on_the_run_shown() -> None:
    # one implementation of discrete sharing incentive and envy-freeness: the
    # properties' discrete mode, given the run's own settings (DiscreteRun);
    # the former copies in analyzer/discrete.py gave the same verdicts on
    # 1,300 random clusters (drf, asset and the four production variants;
    # every placement, tie-break and on-full),
    # their "up to one task" rows are gone and the witnesses are the checks'
    inst = Instance.from_dict({"resources": {"cpu": 10},
                               "users": {"A": {"demand": {"cpu": 3}}, "B": {"demand": {"cpu": 3}}}})
    ef = get_property("envy-freeness")
    for tie_break, short in (("index", "B"), ("reverse", "A")):
        c = compare(inst, "drf", tie_break=tie_break)
        rows = {name: (cont, disc) for name, cont, disc in c.properties}
        assert list(rows) == ["sharing-incentive", "envy-freeness"]
        assert rows["sharing-incentive"][0].holds and rows["envy-freeness"][0].holds
        cont, disc = rows["envy-freeness"]
        want = ef.check(DiscreteRun("drf", tie_break=tie_break), inst, mode="discrete")
        assert want is not None and disc.violation is not None
        assert not disc.holds and disc.witness == want.message
        assert disc.witness.startswith(f"{short} gets 1 tasks")
    # the default run is the properties' plain discrete mode
    assert ef.check("drf", inst, mode="discrete").message == \
        ef.check(DiscreteRun("drf"), inst, mode="discrete").message


def test_weighted_envy_and_caps() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 12},
                               "users": {"A": {"demand": {"cpu": 1}, "weight": 2},
                                         "B": {"demand": {"cpu": 1}, "max_tasks": 2}}})
    c = compare(inst, "drf")
    assert dict(c.discrete.tasks) == {"A": 10, "B": 2}
    assert all(d.holds for _, _, d in c.properties)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["discrete", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_text_and_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, str(PAPER))
    assert code == 0 and "picks: B, A x2, B, A" in out and "bound holds" in out
    for fmt in ("md", "latex", "csv"):
        code, out, _ = run_cli(capsys, str(PAPER), "--format", fmt)
        assert code == 0 and "sharing-incentive" in out
    code, out, _ = run_cli(capsys, str(SECTION_7_1), "--on-full", "skip", "--placement", "best-fit", "--format", "json")
    data = json.loads(out)
    assert data["discrete"]["tasks"] == {"job1": 48, "job2": 144}
    assert data["users"]["job2"]["discrete_dominant_share"] == "3/4"
    assert data["discrete"]["placement"]["node-0"] == {"job1": 1, "job2": 3}
    assert data["theorem7"]["holds"] is False


def test_cli_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, str(PAPER), "--tie-break", "index", "--policy", "asset")
    assert code == 0 and "picks: A, B, A, B, A" in out


@pytest.mark.parametrize("argv, needle", [
    (["missing.toml"], "no such file"),
    ([str(PAPER), "--policy", "ceei"], "no discrete form"),
    ([str(PAPER), "--policy", "nope"], "unknown policy"),
    ([str(PAPER), "--on-full", "wait"], "--on-full"),
    ([str(PAPER), "--tie-break", "coin"], "--tie-break"),
])
def test_cli_bad_input_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_discrete_command_does_not_import_cvxpy() -> None:
    import subprocess
    import sys

    code = ("import sys; from analyzer.cli.main import main; rc = main(['discrete', %r, '--format', 'json']); "
            "sys.stdout.flush(); assert rc == 0 and 'cvxpy' not in sys.modules, sorted(sys.modules)") % str(PAPER)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_compare_with_a_discrete_only_policy_measures_in_drf_shares() -> None:
    from models.discrete import DiscretePolicy

    class FewestTasks(DiscretePolicy):
        """Round robin on task counts (not a filling policy)."""

        name = "test-fewest-tasks"

        def key(self, state, i):
            return state.tasks[i]

    c = compare(PAPER, FewestTasks(), tie_break="index")
    assert c.continuous.policy == "drf"
    # A, B, A, B use 8 CPUs; A's third task takes the last one, B's third fits nowhere
    assert c.discrete.picks == ["A", "B", "A", "B", "A"]
    assert c.discrete.failures == ["B"]
    assert c.theorem7.holds and c.gap_max_tasks == (0, 0)
