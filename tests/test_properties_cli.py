"""``fairalloc check`` and ``fairalloc properties``: exit codes and output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.cli import main

THEOREM1 = """
[resources]
cpu = 30
mem = 30

[users.A]
demand = { cpu = 1, mem = 3 }

[users.B]
demand = { cpu = 1, mem = 1 }
"""


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    p = tmp_path / "t1.toml"
    p.write_text(THEOREM1)
    return p


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_violated_exit_1(capsys: pytest.CaptureFixture[str], scenario: Path) -> None:
    code, out, _ = run(capsys, "check", str(scenario), "--policy", "asset", "--property", "sharing-incentive")
    assert code == 1
    assert "VIOLATED" in out and "B gets 12 tasks; 1/2 of every resource would give it 15" in out
    assert "exact arithmetic" in out


def test_check_holds_exit_0(capsys: pytest.CaptureFixture[str], scenario: Path) -> None:
    code, out, _ = run(capsys, "check", str(scenario), "--policy", "drf", "--property", "sharing-incentive")
    assert code == 0 and "holds on this instance" in out


def test_check_not_applicable(capsys: pytest.CaptureFixture[str], scenario: Path) -> None:
    code, out, _ = run(capsys, "check", str(scenario), "--policy", "asset", "--property", "single-resource-fairness")
    assert code == 0 and "does not apply" in out and "holds on this instance" in out


def test_check_json(capsys: pytest.CaptureFixture[str], scenario: Path) -> None:
    code, out, _ = run(capsys, "check", str(scenario), "--policy", "asset", "--property", "sharing-incentive",
                       "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["holds"] is False
    v = data["violation"]
    assert v["user"] == "B" and v["exact"] is True and v["before"] == {"tasks": "12"}
    assert v["instance"]["users"]["A"]["demand"] == {"cpu": 1, "mem": 3}


@pytest.mark.parametrize("argv, needle", [
    (["--policy", "nope", "--property", "sharing-incentive"], "unknown policy"),
    (["--policy", "drf", "--property", "nope"], "unknown property"),
    (["--policy", "drf", "--property", "envy-freeness", "--mode", "fuzzy"], "--mode"),
    (["--property", "envy-freeness"], "--policy"),  # without --property every property is checked (issue 30)
])
def test_check_bad_input_exit_2(capsys: pytest.CaptureFixture[str], scenario: Path, argv: list[str],
                                needle: str) -> None:
    code, out, err = run(capsys, "check", str(scenario), *argv)
    assert code == 2 and out == ""
    assert err.startswith("fairalloc: error:") and needle in err and len(err.strip().splitlines()) == 1


def test_check_missing_file_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "check", str(tmp_path / "none.toml"), "--policy", "drf", "--property", "envy-freeness")
    assert code == 2 and "no such file" in err


def test_properties_lists_all_eight(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "properties", "--format", "json")
    data = json.loads(out)
    assert code == 0
    paper = ["sharing-incentive", "strategy-proofness", "envy-freeness", "pareto-efficiency",
             "single-resource-fairness", "bottleneck-fairness", "population-monotonicity", "resource-monotonicity"]
    # the paper's eight, plus bottleneck-based fairness (Dolev et al., ITCS 2012; issue 6), and the
    # dynamic setting's (Kash, Procaccia and Shah, JAIR 2014; issue 32)
    static = [p for p in data if "dynamic" not in data[p]["settings"]]
    assert sorted(static) == sorted([*paper, "bottleneck-based-fairness"])
    assert sorted(set(data) - set(static)) == ["dynamic-envy-freeness", "dynamic-pareto-optimality",
                                               "dynamic-sharing-incentive", "dynamic-strategy-proofness",
                                               "irrevocability"]
    assert all(data[p]["definition"] and "NSDI 2011" in data[p]["source"] for p in paper)
    assert "ITCS 2012" in data["bottleneck-based-fairness"]["source"]
    code, out, _ = run(capsys, "properties")
    assert code == 0 and "bottleneck-fairness" in out
