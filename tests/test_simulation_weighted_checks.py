"""The simulator's per-event sharing-incentive and envy-freeness checks
with weights (Ghodsi et al., NSDI 2011, Section 4.3): the slice is
``w_i / W`` of the cluster and an envied bundle is scaled by ``w_i / w_k``,
as in the static checks; both engines."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer import simulate
from analyzer.simulation.properties import check_round


def _wl(jobs: list[dict], weights: dict[str, float]) -> dict:
    return {"machines": [{"count": 1, "cpu": 12, "mem": 12}], "jobs": jobs,
            "users": {u: {"weight": w} for u, w in weights.items()}}


@pytest.mark.parametrize("batch", [True, False])
def test_weighted_drf_has_no_violations(batch: bool) -> None:
    # weighted DRF gives A (weight 2) 8 tasks and B 4: exactly their slices, no envy of the scaled bundles
    jobs = [{"user": u, "tasks": 50, "demand": {"cpu": 1, "mem": 1}, "duration": 10} for u in ("A", "B")]
    r = simulate(_wl(jobs, {"A": 2, "B": 1}), "drf", check_properties=True, until=25, batch=batch)
    assert r.share_at(1) == {"A": {"cpu": 2 / 3, "mem": 2 / 3}, "B": {"cpu": 1 / 3, "mem": 1 / 3}}
    assert r.violations == ()


@pytest.mark.parametrize("batch", [True, False])
def test_weighted_violation_bounds(batch: bool) -> None:
    # B (weight 2) arrives at 1 to a cluster A (weight 1, tasks still waiting) fills: B's slice is 2/3 of 12
    # = 8 tasks; A's bundle minus one task (11), scaled by 2/1, is worth 22 of B's tasks
    jobs = [{"user": "A", "tasks": 20, "demand": {"cpu": 1, "mem": 1}, "duration": 10},
            {"user": "B", "arrival": 1, "tasks": 12, "demand": {"cpu": 1, "mem": 1}, "duration": 10}]
    r = simulate(_wl(jobs, {"A": 1, "B": 2}), "drf", check_properties=True, batch=batch)
    at1 = [v for v in r.violations if v["time"] == 1.0]
    assert {"time": 1.0, "property": "sharing-incentive", "user": "B", "holds": 0, "bound": 8} in at1
    assert {"time": 1.0, "property": "envy-freeness", "user": "B", "other": "A", "holds": 0, "bound": 22} in at1


def test_equal_weights_match_unweighted() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        a, m = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        heads = rng.integers(0, 4, (a, m))
        heads[:, 0] += 1
        usage = heads * rng.integers(1, 6, (a, 1)) + rng.integers(0, 3, (a, m))
        cap = rng.integers(10, 60, m)
        n = a + int(rng.integers(0, 3))
        w = np.full(n, 0.1)  # not a power of two: 2^55 denominators, Python-int path
        assert check_round(usage, heads, cap, n, w, np.arange(a)) == check_round(usage, heads, cap, n)
        # scaling every weight changes nothing
        w2 = rng.random(n) + 0.5
        assert check_round(usage, heads, cap, n, w2, np.arange(a)) == check_round(usage, heads, cap, n, 3 * w2,
                                                                                 np.arange(a))


def test_int64_and_python_int_paths_agree() -> None:
    rng = np.random.default_rng(4)
    for _ in range(50):
        a, m = int(rng.integers(2, 6)), int(rng.integers(1, 4))
        heads = rng.integers(0, 4, (a, m))
        heads[:, 0] += 1
        usage = heads * rng.integers(1, 6, (a, 1)) + rng.integers(0, 3, (a, m))
        cap = rng.integers(10, 60, m)
        small = rng.integers(1, 4, a).astype(float)  # integer weights: the int64 path
        got = check_round(usage, heads, cap, a, small, np.arange(a))
        assert got == check_round(usage, heads, cap, a, small * 2.0 ** 60, np.arange(a))  # same ratios, Python ints
