"""Property checks in the discrete setting (whole tasks by progressive
filling, Ghodsi et al., NSDI 2011, Section 6); skipped until
:mod:`analyzer.discrete` is present."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from analyzer import Instance, check, progressive_filling
from analyzer.properties import get_property
from models import PolicyError
from tests.strategies import random_instance

ALL = ["sharing-incentive", "envy-freeness", "pareto-efficiency", "strategy-proofness",
       "population-monotonicity", "resource-monotonicity"]


def test_paper_example_discrete_drf() -> None:
    inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    for prop in ALL:
        if prop not in ("strategy-proofness", "resource-monotonicity"):
            assert check("drf", inst, prop, mode="discrete") is None, prop
    # DRF is not resource monotone (Table 2); here whole tasks lose one when r0 grows 16-fold
    v = check("drf", inst, "resource-monotonicity", mode="discrete")
    assert v is not None and v.exact and v.deviation["factor"] == "16"


def test_discrete_drf_pays_a_bundled_report() -> None:
    """Whole tasks make every policy scale-dependent (issue 12). By hand, on
    R = <6, 12>, A <1, 4>, B <3, 1> (discrete DRF, Algorithm 1): A gets 2
    tasks, B 1 (then A's third would need mem 13, B's second cpu 8). A
    reporting three tasks as one, <3, 12>, gets that task (mem 12) and B
    none (mem 13): 3 true tasks > 2. The search finds a paying lie."""
    inst = Instance.from_exact([6, 12], [[1, 4], [3, 1]], users=["A", "B"])
    assert progressive_filling(inst, "drf").tasks == {"A": 2, "B": 1}
    assert progressive_filling(inst.replace(demands=[[3, 12], [3, 1]]), "drf").tasks["A"] == 1  # = 3 true tasks
    v = check("drf", inst, "strategy-proofness", mode="discrete")
    assert v is not None and v.exact and v.mode == "discrete"
    i = inst.user_index[v.user]
    lie = [list(r) for r in inst.demands_exact]
    lie[i] = [Fraction(v.deviation["report"][r]) for r in inst.resources]
    got = progressive_filling(inst.replace(demands=lie), "drf").tasks[v.user]
    assert Fraction(v.after["reported_tasks"]) == got
    assert Fraction(v.after["tasks"]) > Fraction(v.before["tasks"])


def test_discrete_violations_are_whole_task_and_exact() -> None:
    rng = np.random.default_rng(1)
    seen = 0
    for k in range(24):
        inst = random_instance(rng, n_max=3, m_max=2, zeros=False, weights=False, caps=False)
        v = check("drf", inst, ALL[k % len(ALL)], mode="discrete")
        if v is None:
            continue
        seen += 1
        assert v.mode == "discrete" and v.exact
        for side in (v.before, v.after):
            vals = side["tasks"].values() if isinstance(side["tasks"], dict) else [side["tasks"]]
            assert all(Fraction(t).denominator == 1 for t in vals)
    assert seen > 0


def test_maxmin_properties_are_continuous_only() -> None:
    inst = Instance.from_exact([12], [[1], [2]])
    with pytest.raises(PolicyError, match="continuous setting only"):
        check("drf", inst, "single-resource-fairness", mode="discrete")


def test_discrete_envy_counts_whole_tasks_of_the_envied_bundle() -> None:
    """Section 6: a bundle is worth the whole tasks it runs. By hand, on
    R = <5>, A <2>, B <3> (discrete DRF): A and B get 1 task each (A's
    second would need 4 cpu, 1 is left). B's bundle, 3 cpu, runs 3/2 of A's
    tasks, i.e. 1 whole one: no envy, in the check and its margin (the
    case analyzer.discrete's former copy of the check was tested on)."""
    inst = Instance.from_exact([5], [[2], [3]], users=["A", "B"])
    assert progressive_filling(inst, "drf").tasks == {"A": 1, "B": 1}
    ef = get_property("envy-freeness")
    assert ef.check("drf", inst, mode="discrete") is None
    assert ef.margin("drf", inst, mode="discrete") >= 0


def test_discrete_envy_screen_does_not_flag_ties_of_whole_task_counts() -> None:
    """The batched screen of discrete envy-freeness flags an instance when
    the check's own screen finds a user strictly below a floored envied
    count: every violated instance, and not the instances whose only
    near-envy is a tie of whole-task counts (R = <5>, A <2>, B <3>: B's
    bundle runs 1 whole task of A's, A holds 1)."""
    from analyzer.searching.instance_stream import make_cell
    from models import get_policy

    ef, pol = get_property("envy-freeness"), get_policy("drf")
    tie = Instance.from_exact([5], [[2], [3]], users=["A", "B"])
    assert not ef.screen_many(pol, [tie], "discrete")[0]
    cell = make_cell("drf", "envy-freeness", 400, 0, None, "discrete")
    insts = [cell.at(p)[1] for p in range(60, 200)]
    flags = ef.screen_many(pol, insts, "discrete")
    violated = np.array([ef.check(pol, inst, mode="discrete") is not None for inst in insts])
    assert violated.any() and not (violated & ~flags).any()
    assert (~flags).any()
