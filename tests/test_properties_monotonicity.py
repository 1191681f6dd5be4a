"""Population and resource monotonicity, single-resource and bottleneck
fairness (Ghodsi et al., NSDI 2011, Section 6), with the paper's Theorem 2,
5 and 6 instances as test data."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from analyzer import Instance, check
from analyzer.properties import get_property
from analyzer.properties._common import maxmin_on_resource
from analyzer.properties.resource_monotonicity import ResourceMonotonicity
from models import PolicyError


def test_theorem5_ceei_violates_population_monotonicity() -> None:
    inst = Instance.from_exact([100, 100], [[4, 1], [1, 16], [16, 1]])
    v = check("ceei", inst, "population-monotonicity")
    assert v is not None and v.deviation == {"kind": "remove", "user": "u2"} and v.user == "u1"
    before, after = sympy.sympify(v.before["tasks"]["u1"]), sympy.sympify(v.after["tasks"]["u1"])
    assert (before - after).is_positive
    assert v.exact  # CEEI's exact solver (proofs.EXACT_SOLVERS): sympy numbers with a square root
    for pol in ("drf", "asset"):
        assert check(pol, inst, "population-monotonicity") is None


def test_theorem6_drf_violates_resource_monotonicity() -> None:
    inst = Instance.from_exact([100, 100], [[2, 1], [1, 2]])
    v = check("drf", inst, "resource-monotonicity")
    assert v is not None and v.exact and v.user == "u1"
    assert v.before["tasks"]["u1"] == "100/3" and v.after["tasks"]["u1"] == "400/13"
    assert v.deviation["resources"] == ["r0"] and v.deviation["factor"] == "5/4"
    assert v.deviation["capacity"] == {"r0": "125", "r1": "100"}


def test_resource_monotonicity_factors_are_configurable() -> None:
    inst = Instance.from_exact([100, 100], [[2, 1], [1, 2]])
    # growing every resource together scales DRF's allocation: no loss
    only_all = ResourceMonotonicity(factors=(Fraction(2),))
    v = only_all.check("drf", inst)
    assert v is not None and v.deviation["resources"] == ["r0"]  # one resource alone still breaks it
    same = Instance.from_exact([100, 100], [[1, 1], [2, 2]])
    assert only_all.check("drf", same) is None


def test_drf_not_population_monotone_with_zero_demands() -> None:
    # known in the literature; on positive demands it is (test_properties_random.py)
    inst = Instance.from_exact([3, 11], [[7, 0], [3, 6], [0, 7], [0, 9]], weights=[2, 1, Fraction(1, 2), 1],
                               max_tasks=[None, None, 7, None])
    v = check("drf", inst, "population-monotonicity")
    assert v is not None and v.exact and v.deviation["user"] == "u0" and v.user == "u2"
    assert Fraction(v.after["tasks"]["u2"]) < Fraction(v.before["tasks"]["u2"])


def test_theorem2_asset_violates_bottleneck_fairness() -> None:
    inst = Instance.from_exact([21, 21], [[3, 2], [4, 1]])
    prop = get_property("bottleneck-fairness")
    assert prop.applies(inst) is None
    v = check("asset", inst, prop)
    assert v is not None and v.exact
    assert v.deviation["tasks"] == {"u0": "7/2", "u1": "21/8"}  # max-min on r0: 3 x0 = 4 x1, 3 x0 + 4 x1 = 21
    for pol in ("drf", "ceei"):
        assert check(pol, inst, prop) is None


def test_bottleneck_fairness_applies_only_with_a_common_dominant_resource() -> None:
    prop = get_property("bottleneck-fairness")
    assert prop.applies(Instance.from_exact([9, 18], [[1, 4], [3, 1]])) is not None
    assert check("asset", Instance.from_exact([9, 18], [[1, 4], [3, 1]]), prop) is None
    # ties: r1 is dominant for u0 (1/2 = 1/2) and u1
    assert prop.applies(Instance.from_exact([10, 10], [[5, 5], [1, 2]])) is None


def test_single_resource_fairness_weights_and_caps() -> None:
    prop = get_property("single-resource-fairness")
    inst = Instance.from_exact([12], [[1], [2], [1]], weights=[1, 2, 1], max_tasks=[None, None, 1])
    # water-filling: u2 capped at 1; then u0 (w=1, d=1) and u1 (w=2, d=2) share 11 at equal
    # weighted shares x0 = t, 2 x1 = 2 t -> t + 2 t = 11
    assert maxmin_on_resource(inst, 0) == [Fraction(11, 3), Fraction(11, 3), Fraction(1)]
    for pol in ("drf", "asset", "ceei"):
        assert check(pol, inst, prop) is None
    assert prop.applies(Instance.from_exact([1, 1], [[1, 1]])) is not None


def test_single_resource_fairness_catches_an_unfair_policy() -> None:
    from tests._policies import SerialDictatorship

    inst = Instance.from_exact([12], [[1], [2]])
    v = check(SerialDictatorship(), inst, "single-resource-fairness")
    assert v is not None and v.user == "u1" and v.after["tasks"] == {"u0": "6", "u1": "3"}
    assert v.message == "u1 gets 0 tasks; max-min on r0 gives it 3"


def test_unknown_mode_is_a_policy_error() -> None:
    inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    with pytest.raises(PolicyError, match="mode"):
        check("drf", inst, "population-monotonicity", mode="fuzzy")
