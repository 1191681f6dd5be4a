"""Seeded random instance generators shared by the tests."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from models import Instance


def random_instance(
    rng: np.random.Generator,
    n_max: int = 5,
    m_max: int = 3,
    zeros: bool = True,
    weights: bool = True,
    caps: bool = True,
) -> Instance:
    """A small instance with integer data: zero demand entries, weights and
    caps each appear with some probability when allowed."""
    n = int(rng.integers(1, n_max + 1))
    m = int(rng.integers(1, m_max + 1))
    cap = [int(v) for v in rng.integers(1, 30, size=m)]
    dem = rng.integers(1, 10, size=(n, m))
    if zeros and m > 1:
        mask = rng.random((n, m)) < 0.3
        dem = np.where(mask, 0, dem)
        for i in range(n):
            if not dem[i].any():
                dem[i, rng.integers(m)] = int(rng.integers(1, 10))
    w = [Fraction(int(rng.integers(1, 5)), int(rng.integers(1, 3))) for _ in range(n)] if weights else None
    k = None
    if caps:
        k = [int(rng.integers(0, 8)) if rng.random() < 0.35 else None for _ in range(n)]
    return Instance.from_exact(cap, [[int(v) for v in row] for row in dem], weights=w, max_tasks=k)
