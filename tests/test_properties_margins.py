"""Numeric violation margins (used by the search to steer, never to decide):
negative on the paper's counterexamples, non-negative (up to the comparison
tolerance) where the property holds."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer import Instance, check
from analyzer.properties import available_properties, get_property
from models.tolerances import COMPARE_RTOL
from tests.strategies import random_instance

CASES = [
    ("asset", "sharing-incentive", [30, 30], [[1, 3], [1, 1]]),
    ("asset", "bottleneck-fairness", [21, 21], [[3, 2], [4, 1]]),
    ("drf", "resource-monotonicity", [100, 100], [[2, 1], [1, 2]]),
]


@pytest.mark.parametrize("policy, prop, cap, dem", CASES)
def test_margin_negative_on_counterexamples(policy: str, prop: str, cap: list[int], dem: list[list[int]]) -> None:
    inst = Instance.from_exact(cap, dem)
    assert get_property(prop).margin(policy, inst) < 0
    assert check(policy, inst, prop) is not None


def test_every_property_has_a_margin_and_it_agrees_with_drf_holding() -> None:
    rng = np.random.default_rng(6)
    insts = [random_instance(rng, n_max=3, m_max=3, zeros=False, weights=False, caps=False) for _ in range(10)]
    for name, cls in available_properties().items():
        prop = cls()
        for inst in insts:
            mg = prop.margin("drf", inst)
            if check("drf", inst, prop) is None:
                assert mg >= -COMPARE_RTOL, (name, inst.describe(), mg)
