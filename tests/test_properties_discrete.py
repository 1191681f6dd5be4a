"""Property checks in the discrete setting (whole tasks by progressive
filling, Ghodsi et al., NSDI 2011, Section 6); skipped until
:mod:`analyzer.discrete` is present."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from analyzer import Instance, check
from models import PolicyError
from tests.strategies import random_instance

pytest.importorskip("analyzer.discrete")

ALL = ["sharing-incentive", "envy-freeness", "pareto-efficiency", "strategy-proofness",
       "population-monotonicity", "resource-monotonicity"]


def test_paper_example_discrete_drf() -> None:
    inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    for prop in ALL:
        assert check("drf", inst, prop, mode="discrete") is None, prop


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
