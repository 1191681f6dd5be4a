"""Scenario keys of the production variants (models/extensions.py Extensions): validation,
round trips, and what the paper's policies do with them."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from analyzer import Instance, InstanceError, PolicyError, solve
from analyzer.comparing.variants import KINDS, find_difference, side_by_side

FULL = {"resources": {"cpu": 12, "mem": 24, "gpu": 0},
        "zero_capacity": ["gpu"], "excluded_resources": ["gpu"],
        "users": {"A": {"demand": {"cpu": 1, "mem": 4}, "group": "eng/ml", "min_share": {"cpu": 6},
                        "quota": {"cpu": 6, "mem": 12}},
                  "B": {"demand": {"cpu": 3, "mem": 1}, "group": "eng"},
                  "C": {"demand": {"cpu": 1, "mem": 1}, "quota": {"cpu": 6}}},
        "groups": {"eng": {"weight": 2}}}


def test_round_trips() -> None:
    inst = Instance.from_dict(FULL)
    assert Instance.from_dict(inst.to_dict()) == inst
    assert Instance.from_dict(tomllib.loads(inst.to_toml())) == inst
    assert inst.extensions.group == {"A": "eng/ml", "B": "eng"}


def test_replace_keeps_what_applies() -> None:
    inst = Instance.from_dict(FULL)
    out = inst.replace(demands=[list(r) for r in inst.demands_exact[1:]], users=["B", "C"], weights=[1, 1],
                       max_tasks=[None, None])
    assert out.extensions.group == {"B": "eng"} and "A" not in out.extensions.quota
    assert out.extensions.zero_capacity == ("gpu",)


@pytest.mark.parametrize(("change", "message"), [
    ({"resources": {"cpu": 12, "mem": 24, "gpu": 0}, "zero_capacity": []}, "resources.gpu: must be > 0"),
    ({"zero_capacity": ["gpu", "cpu"]}, "zero_capacity: resources.cpu is 12"),
    ({"excluded_resources": ["tpu"]}, "excluded_resources[0]: unknown resource 'tpu'"),
    ({"excluded_resources": "gpu"}, "excluded_resources: must be a list"),
    ({"groups": {"ops": {"weight": 1}}}, "groups.ops: no user is in this group"),
    ({"groups": {"eng": {"weight": 0}}}, "groups.eng.weight: must be > 0"),
    ({"groups": {"eng": {"share": 1}}}, "groups.eng.share: unknown key"),
])
def test_top_level_errors_name_the_field(change: dict, message: str) -> None:
    with pytest.raises(InstanceError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Instance.from_dict({**FULL, **change})


@pytest.mark.parametrize(("key", "value", "message"), [
    ("group", "eng//x", "users.A.group: empty group name"),
    ("group", 3, "users.A.group: must be a string"),
    ("min_share", {"tpu": 1}, "users.A.min_share.tpu: unknown resource"),
    ("quota", {"cpu": -1}, "users.A.quota.cpu: must be >= 0"),
    ("quota", 5, "users.A.quota: must be a table"),
])
def test_user_errors_name_the_field(key: str, value: object, message: str) -> None:
    users = {**FULL["users"], "A": {**FULL["users"]["A"], key: value}}
    with pytest.raises(InstanceError, match=message):
        Instance.from_dict({**FULL, "users": users})


def test_paper_policies_reject_zero_capacity() -> None:
    inst = Instance.from_dict(FULL)
    with pytest.raises(PolicyError, match="gpu has capacity 0"):
        solve(inst, "drf")
    out = side_by_side(inst, ["drf", "yarn"])
    assert out[0].tasks is None and out[1].tasks is not None


def test_variants_have_no_continuous_solution() -> None:
    with pytest.raises(PolicyError, match="whole tasks only"):
        solve(Instance.from_dict({**FULL, "zero_capacity": [], "resources": {"cpu": 1, "mem": 1, "gpu": 1}}), "yarn")


@pytest.mark.parametrize("kind", list(KINDS))
def test_sweeps_find_a_disagreement_reproducibly(kind: str) -> None:
    a, b = find_difference(kind, seed=0, budget=200), find_difference(kind, seed=0, budget=200)
    assert a.instance is not None and a.instance == b.instance and a.examined == b.examined
    compared = side_by_side(a.instance, KINDS[kind].compared)
    assert len({o.tasks for o in compared}) > 1 and KINDS[kind].differ(compared)


def test_cli_variants_bad_input_exits_2(tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[resources]\ncpu = 1\n[users.A]\ndemand = { cpu = 1 }\ngroup = ""\n')
    r = subprocess.run([sys.executable, "-m", "analyzer", "variants", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "users.A.group" in r.stderr


def test_cli_discrete_on_zero_capacity_exits_2() -> None:
    argv = [sys.executable, "-m", "analyzer", "discrete", "examples/variants_zero.toml", "--policy", "yarn"]
    r = subprocess.run(argv, capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "gpu has capacity 0" in r.stderr


def test_discrete_property_table_runs_on_every_variant() -> None:
    from analyzer.tables.table import property_table

    names = ["mesos", "mesos:offers=false", "yarn", "volcano", "kueue"]
    t = property_table(names, ["sharing-incentive", "population-monotonicity"], budget=10, seed=0,
                       mode="discrete", workers=1)
    for p in names:
        for q in ("sharing-incentive", "population-monotonicity"):
            cell = t[p, q]
            assert cell.holds is not None
            if not cell.holds:
                assert cell.counterexample is not None


@pytest.mark.parametrize("kind", list(KINDS))
def test_documented_examples_are_what_the_sweeps_find(kind: str) -> None:
    # docs/variants.md: `fairalloc variants --find KIND --seed 0 --out examples/variants_KIND.toml`
    assert Instance.load(f"examples/variants_{kind}.toml") == find_difference(kind, seed=0).instance
