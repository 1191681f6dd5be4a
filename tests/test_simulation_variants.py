"""Production variants (YARN, Mesos, Volcano, Kueue) in the simulator
(analyzer/simulation/production.py): their own ordering code decides."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer import simulate
from models import Instance, PolicyError
from models.discrete import fill

VARIANTS = ["yarn", "mesos", "mesos:offers=false", "volcano", "kueue"]
MACHINES = [{"count": 3, "cpu": 4, "mem": 6}, {"count": 2, "cpu": 8, "mem": 3}]
DEMANDS = {"u0": (1, 2), "u1": (2, 1), "u2": (1, 1), "u3": (3, 1)}


@pytest.mark.parametrize("policy", VARIANTS)
def test_steady_state_pick_order_is_the_variants_static_allocation(policy: str) -> None:
    jobs = [{"user": u, "tasks": 1000, "demand": {"cpu": c, "mem": m}, "duration": 100}
            for u, (c, m) in DEMANDS.items()]
    r = simulate({"machines": MACHINES, "jobs": jobs}, policy)
    inst = Instance.from_dict({"resources": {"cpu": 28, "mem": 24}, "machines": MACHINES,
                               "users": {u: {"demand": {"cpu": c, "mem": m}} for u, (c, m) in DEMANDS.items()}})
    static = fill(inst, policy)
    held = r.usage_at(50)
    assert [int(held[i, 0] // DEMANDS[u][0]) for i, u in enumerate(r.users)] == static.tasks.tolist()
    assert r.stats["tasks_launched"] == 4000 and r.stats["tasks_running"] == 0


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("policy", VARIANTS)
def test_variant_invariants(seed: int, policy: str) -> None:
    rng = np.random.default_rng(seed)
    shape = {f"u{k}": (int(rng.integers(1, 4)), int(rng.integers(0, 5))) for k in range(4)}
    jobs = [{"user": u, "arrival": int(rng.integers(0, 30)), "tasks": int(rng.integers(1, 40)),
             "demand": {"cpu": shape[u][0], "mem": shape[u][1]}, "duration": [int(v) for v in rng.integers(1, 9, 2)]}
            for u in (f"u{rng.integers(4)}" for _ in range(8))]
    r = simulate({"machines": [{"count": 3, "cpu": 6, "mem": 8}], "jobs": jobs}, policy)
    total = sum(j["tasks"] for j in jobs)
    assert r.stats["tasks_launched"] == total and r.stats["tasks_running"] == 0  # every task ran once
    assert all(j.completed for j in r.jobs)
    np.testing.assert_allclose(r.busy(), r.work)  # busy time = work
    assert r.timeline()["utilization"].max() <= 1.0  # the variants check every resource


def test_variant_needs_one_demand_per_user() -> None:
    jobs = [{"user": "a", "tasks": 1, "demand": {"cpu": 1, "mem": 1}, "duration": 1},
            {"user": "a", "tasks": 1, "demand": {"cpu": 2, "mem": 1}, "duration": 1}]
    with pytest.raises(PolicyError, match="user 'a'"):
        simulate({"machines": [{"count": 1, "cpu": 4, "mem": 4}], "jobs": jobs}, "yarn")
