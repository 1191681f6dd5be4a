"""Sharing incentive and envy-freeness checks (Ghodsi et al., NSDI 2011,
Section 3) on hand-made instances, the paper's Theorem 1 instance (test
data only), weighted and capped variants, and random instances for DRF."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from analyzer import Instance, check
from analyzer.properties import get_property
from tests._policies import SerialDictatorship
from tests.strategies import random_instance

DICTATOR = SerialDictatorship()


def test_theorem1_asset_violates_sharing_incentive() -> None:
    inst = Instance.from_exact([30, 30], [[1, 3], [1, 1]], users=["A", "B"])
    v = check("asset", inst, "sharing-incentive")
    assert v is not None and v.exact and v.user == "B"
    assert v.before["tasks"] == "12" and v.after["tasks"] == "15"
    assert v.message == "B gets 12 tasks; 1/2 of every resource would give it 15"
    for pol in ("drf", "ceei"):
        assert check(pol, inst, "sharing-incentive") is None


def test_sharing_incentive_weighted_and_capped() -> None:
    # weights 1:3 -> u1 is owed 3/4 of every resource = 45/2 tasks of <1, 1>
    inst = Instance.from_exact([30, 30], [[1, 3], [1, 1]], weights=[1, 3])
    assert check("drf", inst, "sharing-incentive") is None
    v = check(DICTATOR, inst, "sharing-incentive")
    assert v is not None and v.user == "u1" and v.after["tasks"] == "45/2"
    # a cap lowers what is owed: u1 capped at 2 is still owed 2 (it gets 0) ...
    capped = Instance.from_exact([30, 30], [[1, 3], [1, 1]], weights=[1, 3], max_tasks=[None, 2])
    v = check(DICTATOR, capped, "sharing-incentive")
    assert v is not None and v.after["tasks"] == "2" and v.before["tasks"] == "0"
    # ... and capped at 0 it is owed nothing
    zero = Instance.from_exact([30, 30], [[1, 3], [1, 1]], weights=[1, 3], max_tasks=[None, 0])
    assert check(DICTATOR, zero, "sharing-incentive") is None


def test_envy_freeness_violated_by_dictator() -> None:
    inst = Instance.from_exact([12, 12], [[1, 1], [1, 1]], users=["A", "B"])
    v = get_property("envy-freeness").check(DICTATOR, inst)
    assert v is not None and v.exact and v.user == "B"
    assert v.deviation["envied"] == "A" and v.after["tasks"] == "12" and v.before["tasks"] == "0"


def test_envy_freeness_weights_scale_the_bundle() -> None:
    # u0 has weight 2: DRF gives it twice u1's dominant share; no envy either way
    inst = Instance.from_exact([12, 12], [[1, 1], [1, 1]], weights=[2, 1])
    assert check("drf", inst, "envy-freeness") is None
    # the dictator gives u0 everything; u1 (weight 1) envies half of it
    v = check(DICTATOR, inst, "envy-freeness")
    assert v is not None and v.user == "u1" and v.deviation["scale"] == "1/2" and v.after["tasks"] == "6"


def test_envy_freeness_cap_limits_envy() -> None:
    inst = Instance.from_exact([12, 12], [[1, 1], [1, 1]], max_tasks=[None, 0])
    assert check(DICTATOR, inst, "envy-freeness") is None


def test_asset_si_violation_on_random_positive_instances_is_exact() -> None:
    rng = np.random.default_rng(1)
    found = 0
    for _ in range(30):
        inst = random_instance(rng, n_max=3, m_max=3, zeros=False, weights=False, caps=False)
        v = check("asset", inst, "sharing-incentive")
        if v is not None:
            found += 1
            assert v.exact and v.user in inst.users
            assert Fraction(v.before["tasks"]) < Fraction(v.after["tasks"])
    assert found > 0
