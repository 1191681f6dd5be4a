"""The commands a new user runs first: ``check`` without ``--property``
checks every property (one line each, exit 1 when any is violated, JSON
too), and ``solve --exact`` is exact in every table."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

from analyzer.cli import main
from analyzer.properties.base import available_properties

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = str(ROOT / "examples" / "scenario.toml")
PAPER = str(ROOT / "examples" / "paper_two_users.toml")


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def test_check_without_property_checks_every_property_one_line_each() -> None:
    code, text = run("check", SCENARIO, "--policy", "asset")
    lines = text.splitlines()
    assert code == 1 and lines[0] == "asset on R=<30, 30>; A: <1, 3>, B: <1, 1> (continuous):"
    continuous = [name for name, cls in available_properties().items() if "continuous" in cls.modes]
    assert [line.split()[1] for line in lines[1:]] == continuous  # the paper's order
    assert lines[1] == ("✗ sharing-incentive          VIOLATED: B gets 12 tasks; 1/2 of every resource would "
                        "give it 15")
    assert "✓ envy-freeness" in text and "- single-resource-fairness   does not apply: needs a single resource" in text
    code, text = run("check", SCENARIO, "--policy", "drf")
    assert code == 0 and "✗" not in text and text.count("holds on this instance") == len(text.splitlines()) - 2


def test_check_without_property_in_json_and_markdown() -> None:
    code, text = run("check", SCENARIO, "--policy", "asset", "--format", "json")
    data = json.loads(text)
    assert code == 1 and data["holds"] is False and data["instance"] == "R=<30, 30>; A: <1, 3>, B: <1, 1>"
    verdicts = {p["property"]: p for p in data["properties"]}
    assert list(verdicts) == [name for name, cls in available_properties().items() if "continuous" in cls.modes]
    si = verdicts["sharing-incentive"]
    assert si["holds"] is False and si["violation"]["user"] == "B" and si["violation"]["exact"] is True
    assert verdicts["single-resource-fairness"]["applies"] is False and "reason" in verdicts["single-resource-fairness"]
    code, text = run("check", SCENARIO, "--policy", "asset", "--format", "md")
    assert code == 1 and "| sharing-incentive" in text and "| ✗" in text


def test_check_without_property_checks_the_properties_of_the_setting() -> None:
    code, text = run("check", PAPER, "--policy", "drf", "--mode", "discrete")
    discrete = [name for name, cls in available_properties().items() if "discrete" in cls.modes]
    assert code == 1 and [line.split()[1] for line in text.splitlines()[1:]] == discrete
    assert "bottleneck-based-fairness" not in text  # defined for the continuous setting only
    assert run("check", PAPER, "--policy", "drf", "--property", "bottleneck-based-fairness", "--mode",
               "discrete")[0] == 2  # asked for by name, it is bad input as before


def test_solve_exact_is_exact_in_every_table() -> None:
    code, text = run("solve", PAPER, "--exact")
    assert code == 0
    bundles = text.split("Bundle per user and resource")[1].split("Utilization")[0]
    assert "252/25 (10.08)" in bundles and "180/11 (16.3636)" in bundles and "54/11 (4.90909)" in bundles
    util = text.split("Utilization per resource")[1]
    assert "7/9 (0.777778)" in util and "17/25 (0.68)" in util
    data = json.loads(run("solve", PAPER, "--exact", "--format", "json")[1])
    ceei = data["allocations"][2]
    assert ceei["users"]["A"]["bundle_exact"] == {"cpu": "45/11", "mem": "180/11"}
    assert data["allocations"][1]["resources"]["mem"]["utilization_exact"] == "17/25"
    assert "bundle_exact" not in json.loads(run("solve", PAPER, "--format", "json")[1])["allocations"][0]["users"]["A"]
