"""The simulator's per-event sharing-incentive and envy-freeness checks
with weights (Ghodsi et al., NSDI 2011, Section 4.3): the slice is
``w_i / W`` of the cluster and an envied bundle is scaled by ``w_i / w_k``,
as in the static checks; both engines."""

from __future__ import annotations

import math
from fractions import Fraction

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


def _round(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a, m = int(rng.integers(2, 6)), int(rng.integers(1, 4))
    heads = rng.integers(0, 4, (a, m))
    heads[:, 0] += 1
    usage = heads * rng.integers(1, 6, (a, 1)) + rng.integers(0, 3, (a, m))
    return usage, heads, rng.integers(10, 60, m)


def _oracle(usage: np.ndarray, heads: np.ndarray, cap: np.ndarray, w: list[Fraction]) -> list[dict]:
    """The two definitions pair by pair in Fractions (every user waiting)."""
    def tasks(bundle: list[Fraction], d: np.ndarray) -> int:
        return min(math.floor(b / int(v)) for b, v in zip(bundle, d, strict=True) if v > 0)

    out: list[dict] = []
    own = [tasks([Fraction(int(v)) for v in u], d) for u, d in zip(usage, heads, strict=True)]
    for i, d in enumerate(heads):
        fair = tasks([Fraction(int(c)) * w[i] / sum(w) for c in cap], d)
        if own[i] + 1 < fair:
            out.append({"property": "sharing-incentive", "user": i, "holds": own[i], "bound": fair})
    for i, d in enumerate(heads):
        for k in range(len(heads)):
            worth = tasks([max(Fraction(int(u - h)), Fraction(0)) * w[i] / w[k]
                           for u, h in zip(usage[k], heads[k], strict=True)], d)
            if k != i and worth > own[i]:
                out.append({"property": "envy-freeness", "user": i, "other": k, "holds": own[i], "bound": worth})
    return out


@pytest.mark.parametrize("scale", [1.0, 0.1, 2.0 ** 60])  # int64; 2^55 denominators and 2^60: Python ints
def test_weighted_round_matches_the_definitions(scale: float) -> None:
    rng = np.random.default_rng(4)
    seen = 0
    for _ in range(60):
        usage, heads, cap = _round(rng)
        small = rng.integers(1, 4, len(heads)).astype(float)
        w = small * scale
        got = check_round(usage, heads, cap, len(w), w, np.arange(len(w)))
        key = {"sharing-incentive": 0, "envy-freeness": 1}
        want = _oracle(usage, heads, cap, [Fraction(float(v)) for v in w])
        assert sorted(got, key=lambda v: (key[v["property"]], v["user"], v.get("other", -1))) == want
        seen += len(got)
    assert seen > 0  # violations were found and compared
