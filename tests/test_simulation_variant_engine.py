"""Production variants in the simulator (analyzer/simulation/production.py):
they never place a task over a user's cap (the cap of a round is the tasks
a user runs plus those waiting): random workloads with weights under every
variant, and a step that does is an error, never silently given back; a
bad placement option is refused for them as for the other policies."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import models.discrete
from analyzer import simulate
from models import PolicyError

VARIANTS = ["yarn", "mesos", "mesos:offers=false", "volcano", "kueue"]


def _workload(rng: np.random.Generator) -> dict:
    users = [f"u{i}" for i in range(int(rng.integers(2, 6)))]
    dem = {u: {"cpu": int(rng.integers(1, 4)), "mem": int(rng.integers(1, 4))} for u in users}
    jobs = []
    for _ in range(int(rng.integers(3, 10))):
        u = users[int(rng.integers(len(users)))]
        jobs.append({"user": u, "arrival": float(rng.integers(0, 20)), "tasks": int(rng.integers(1, 15)),
                     "demand": dem[u], "duration": float(rng.integers(1, 10))})
    machines = [{"count": int(rng.integers(1, 4)), "cpu": int(rng.integers(4, 10)), "mem": int(rng.integers(4, 10))}]
    return {"machines": machines, "jobs": jobs, "users": {u: {"weight": float(rng.integers(1, 3))} for u in users}}


@pytest.mark.parametrize("policy", VARIANTS)
def test_later_steps_respect_caps(policy: str) -> None:
    # before volcano's fix (b78ff5f) these workloads gave capped users 64 tasks over their caps
    rng = np.random.default_rng(0)
    for _ in range(15):
        w = _workload(rng)
        r = simulate(w, policy)
        assert r.stats["tasks_launched"] == sum(j["tasks"] for j in w["jobs"])
        assert r.stats["tasks_running"] == 0


def test_a_step_over_a_cap_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = models.discrete.Engine.allocate

    def over(self: models.discrete.Engine, limit: Sequence[int | None] | None = None) -> models.discrete.DiscreteFill:
        out = orig(self, limit)
        self.state.put(0, 0, 1)  # one task more for the first user, on machine 0
        self.state.tasks[0] += 1
        return out

    monkeypatch.setattr(models.discrete.Engine, "allocate", over)
    w = {"machines": [{"count": 1, "cpu": 8, "mem": 8}],
         "jobs": [{"user": "a", "tasks": 1, "demand": {"cpu": 1, "mem": 1}, "duration": 1}]}
    with pytest.raises(RuntimeError, match="user 'a' 2 new tasks, over its limit 1"):
        simulate(w, "yarn")


@pytest.mark.parametrize("option", ["slot_tasks", "aware"])
def test_bad_placement_option_is_refused_for_a_variant(option: str) -> None:
    w = {"machines": [{"count": 1, "cpu": 4, "mem": 4}],
         "jobs": [{"user": "a", "tasks": 1, "demand": {"cpu": 1, "mem": 1}, "duration": 1}],
         "simulation": {option: "bogus"}}
    for policy in ("drf", "yarn"):
        with pytest.raises(PolicyError, match=f"^{option}: must be one of"):
            simulate(w, policy)


def test_simulator_uses_the_engines_public_limit_only() -> None:
    # the production simulator once set the per-step caps by replacing the
    # engine's internal ``state.data``; it must go through ``allocate(limit=...)``
    src = (Path(__file__).resolve().parents[1] / "analyzer" / "simulation" / "production.py").read_text()
    assert "allocate(limit=" in src
    assert not re.search(r"\.state\b|\bst\.data\b|dataclasses\.replace", src), "production.py touches engine state"


def test_simulator_passes_waiting_tasks_as_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[int | None]] = []
    orig = models.discrete.Engine.allocate

    def spy(self: models.discrete.Engine, limit: Sequence[int | None] | None = None) -> models.discrete.DiscreteFill:
        seen.append(list(limit) if limit is not None else [])
        return orig(self, limit)

    monkeypatch.setattr(models.discrete.Engine, "allocate", spy)
    w = {"machines": [{"count": 1, "cpu": 8, "mem": 8}],
         "jobs": [{"user": "a", "tasks": 3, "demand": {"cpu": 1, "mem": 1}, "duration": 1},
                  {"user": "b", "arrival": 0.5, "tasks": 2, "demand": {"cpu": 1, "mem": 2}, "duration": 1}]}
    r = simulate(w, "yarn")
    assert r.stats["tasks_launched"] == 5
    assert seen[0] == [3, 0]
    assert [2] in [s[1:] for s in seen]
