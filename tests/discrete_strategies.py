"""Seeded random instances with machines, for the discrete tests."""

from __future__ import annotations

from typing import Any

import numpy as np

from models import Instance


def random_cluster(
    rng: np.random.Generator,
    n_max: int = 5,
    m_max: int = 3,
    k_max: int = 4,
    positive: bool = False,
    weights: bool = True,
    caps: bool = True,
    fit_everywhere: bool = False,
    pooled: bool | None = None,
) -> Instance:
    """A small integer instance, on machines (one or two types) or a pool.

    ``positive`` makes every demand entry > 0 and ``fit_everywhere`` makes
    every machine hold the max-task (the assumptions of Theorem 7).
    """
    n = int(rng.integers(1, n_max + 1))
    m = int(rng.integers(1, m_max + 1))
    names = [f"r{j}" for j in range(m)]
    dem = rng.integers(1, 6, size=(n, m))
    if not positive and m > 1:
        dem = np.where(rng.random((n, m)) < 0.3, 0, dem)
        for i in range(n):
            if not dem[i].any():
                dem[i, rng.integers(m)] = int(rng.integers(1, 6))
    maxtask = dem.max(axis=0)
    if pooled is None:
        pooled = bool(rng.random() < 0.3)
    types = []
    if not pooled:
        for _ in range(int(rng.integers(1, 3))):
            lo = maxtask if fit_everywhere else np.ones(m, dtype=int)
            cap = lo + rng.integers(0, 12, size=m)
            types.append(
                {"count": int(rng.integers(1, k_max + 1)), **{r: int(c) for r, c in zip(names, cap, strict=True)}}
            )
        total = [sum(t["count"] * t[r] for t in types) for r in names]
    else:
        total = [int(v) for v in rng.integers(1, 40, size=m) + (maxtask if fit_everywhere else 0)]
    users: dict[str, Any] = {}
    for i in range(n):
        spec: dict[str, Any] = {"demand": {r: int(v) for r, v in zip(names, dem[i], strict=True)}}
        if weights and rng.random() < 0.4:
            spec["weight"] = int(rng.integers(1, 4))
        if caps and rng.random() < 0.3:
            spec["max_tasks"] = int(rng.integers(0, 8))
        users[f"u{i}"] = spec
    data: dict[str, Any] = {"resources": dict(zip(names, total, strict=True)), "users": users}
    if types:
        data["machines"] = types
    return Instance.from_dict(data)
