"""Every policy is listed with a description and source, handles the
instance features every policy must handle, and runs through the property
table (unsupported instances give "n/a" cells, not errors)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analyzer import Instance, available, get_policy, solve
from analyzer.cli.main import main
from analyzer.tables.table import property_table

NEW = ["static", "single-resource", "slots", "leximin-tasks", "utilitarian", "fds", "gfj", "bbf", "drfh"]


def test_policies_lists_every_policy_with_a_description(capsys) -> None:
    assert main(["policies", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert set(NEW) <= set(listed)
    for name, info in listed.items():
        assert info["description"] and "\n" not in info["description"], name
        assert info["source"], name
    assert listed["fds"]["parameters"] == {"beta": 2.0}


EDGE = {
    # zero entries, a resource nobody uses, weights, caps (one at zero), a task that does not fit
    "resources": {"cpu": 4, "mem": 8, "gpu": 2, "disk": 5},
    "users": {
        "A": {"demand": {"cpu": 1, "mem": 1}, "weight": 2},
        "B": {"demand": {"mem": 2, "gpu": 1}, "max_tasks": 1},
        "C": {"demand": {"cpu": 5}},
        "D": {"demand": {"cpu": 1}, "max_tasks": 0},
    },
}


@pytest.mark.parametrize("policy", [p for p in NEW if p != "drfh"])
def test_edge_instance_is_feasible(policy: str) -> None:
    inst = Instance.from_dict(EDGE)
    alloc = solve(inst, policy)
    assert alloc.is_feasible(), (policy, alloc.x)
    assert alloc.x[3] == pytest.approx(0, abs=1e-9)  # capped at zero
    one = Instance.from_dict({"resources": {"cpu": 3}, "users": {"A": {"demand": {"cpu": 2}}}})
    assert solve(one, policy).x[0] == pytest.approx(1.5, rel=1e-6)  # one user, one resource: all of it


def test_every_policy_runs_through_the_property_table() -> None:
    names = [p for p in available() if p in NEW or p in ("drf", "asset", "ceei")]
    table = property_table(names, ["pareto-efficiency"], budget=3, seed=0, workers=1)
    assert table.complete
    for name in names:
        text = table.cell_text(get_policy(name).label, "pareto-efficiency")
        assert text[0] in "✓✗" or text.startswith("n/a"), (name, text)
    assert table.cell_text("drfh", "pareto-efficiency").startswith("n/a")
    assert table.cell_text("static", "pareto-efficiency").startswith("✗")
    assert table.cell_text("utilitarian", "pareto-efficiency").startswith("✓")


def test_fds_label_and_parameters() -> None:
    pol = get_policy("fds:beta=4")
    assert pol.label == "fds:beta=4" and pol.beta == 4.0
    assert get_policy("fds").label == "fds"
    assert np.isinf(get_policy("fds:beta=inf").beta)
