"""Bottleneck-based fairness: the property (Dolev et al., ITCS 2012) and the
market-equilibrium policy that reaches it (Gutman and Nisan, AAMAS 2012)."""

from __future__ import annotations

import numpy as np
from strategies import random_instance

from analyzer import Instance
from analyzer.properties.bottleneck_based import BottleneckBasedFairness

BBF = BottleneckBasedFairness()
PAPER = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"], resources=["cpu", "mem"])


def test_drf_violates_bbf_on_the_paper_example() -> None:
    # DRF gives (3, 2): only cpu is full; A holds 3/9 < 1/2 of it and less than B's 6
    v = BBF.check("drf", PAPER)
    assert v is not None and v.user == "A" and v.exact
    assert v.deviation["bottlenecks"] == ["cpu"] and v.deviation["entitlement"] == "1/2"


def test_market_equilibrium_is_bbf_on_the_paper_example() -> None:
    # CEEI (45/11, 18/11) fills both: A holds 10/11 of mem, B 6/11 of cpu, both >= 1/2
    assert BBF.check("bbf", PAPER) is None
    assert BBF.check("ceei", PAPER) is None


def test_static_partition_leaves_nothing_full() -> None:
    v = BBF.check("static", PAPER)
    assert v is not None and "no resource it uses is full" in v.message


def test_weighted_entitlements_and_caps() -> None:
    # one resource, weights 3:1: weighted max-min (3/4, 1/4) gives B exactly its entitlement 1/4
    assert BBF.check("drf", Instance.from_exact([1], [[1], [1]], weights=[3, 1])) is None
    # static partition with entitlements 1/4, 3/4 and disjoint demands: u0 gets 1/4 of r0, u1 3/4
    # of r1, nothing is full, and u0 complains
    v = BBF.check("static", Instance.from_exact([1, 1], [[1, 0], [0, 1]], weights=[1, 3]))
    assert v is not None and v.user == "u0"
    # a user at its cap is satisfied, whatever it holds
    assert BBF.check("drf", Instance.from_exact([1], [[1], [1]], max_tasks=["1/10", None])) is None


def test_bbf_policy_is_bbf_on_random_instances() -> None:
    rng = np.random.default_rng(4)
    for _ in range(8):
        inst = random_instance(rng, n_max=4, m_max=3)
        assert BBF.check("bbf", inst) is None, inst.describe()


def test_margin_sign_matches_the_check() -> None:
    assert BBF.margin("drf", PAPER) < 0  # violated (see above)
    assert BBF.margin("static", PAPER) < 0
    assert abs(BBF.margin("bbf", PAPER)) <= 1e-6  # holds: 0 up to solver accuracy
    capped = Instance.from_exact([1], [[1], [1]], max_tasks=["1/10", None])
    assert BBF.margin("drf", capped) == 0
