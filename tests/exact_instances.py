"""Seeded small-integer instances for the exactness tests (issue 12): weights,
task caps (0 included), zero demand entries and unused resources."""

from __future__ import annotations

import random
from typing import Any

from models import Instance


def small_integer_instance(rng: random.Random, *, max_users: int = 4, max_resources: int = 3,
                           caps: bool = True, weights: bool = True, groups: bool = False) -> Instance:
    """One instance with integer data: capacities 1..12, demands 0..4 (every
    user demands something), weights 1..3, caps 0..5 or none; with
    ``groups`` every user sits in a group of a small tree (``a``, ``b``,
    ``a/c``)."""
    m = rng.randint(1, max_resources)
    n = rng.randint(1, max_users)
    res = [f"r{j}" for j in range(m)]
    users: dict[str, Any] = {}
    for i in range(n):
        d = [rng.choice([0, 0, 1, 2, 3, 4]) for _ in range(m)]
        if not any(d):
            d[rng.randrange(m)] = rng.randint(1, 4)
        spec: dict[str, Any] = {"demand": dict(zip(res, d, strict=True))}
        if weights and rng.random() < 0.4:
            spec["weight"] = rng.randint(1, 3)
        if caps and rng.random() < 0.3:
            spec["max_tasks"] = rng.randint(0, 5)
        if groups:
            spec["group"] = rng.choice(["a", "b", "a/c"])
        users[f"U{i}"] = spec
    return Instance.from_dict({"resources": {r: rng.randint(1, 12) for r in res}, "users": users})


def small_integer_instances(seed: int, count: int, **kw: Any) -> list[Instance]:
    """``count`` instances from :func:`small_integer_instance`, seeded."""
    rng = random.Random(seed)
    return [small_integer_instance(rng, **kw) for _ in range(count)]
