"""The common dominant resource of bottleneck fairness (Ghodsi et al., NSDI
2011, Section 6) is decided exactly although its screen reads float shares:
the same answer as comparing every share as a Fraction, also where floats
tie or reverse an exact order (huge integers, thirds)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from analyzer.properties._maxmin import common_dominant
from models import Instance


def by_fractions(instance: Instance) -> int | None:
    """The definition: the first resource whose exact share is every user's largest."""
    shares = [[d / c for d, c in zip(row, instance.capacity_exact, strict=True)] for row in instance.demands_exact]
    for j in range(instance.m):
        if all(row[j] == max(row) for row in shares):
            return j
    return None


def test_float_screen_decides_as_exact_arithmetic() -> None:
    rng = np.random.default_rng(0)
    found = 0
    for t in range(3000):
        n, m = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        R, D = rng.integers(1, 12, m), rng.integers(0, 6, (n, m))
        D[D.sum(axis=1) == 0, 0] = 1
        if t % 3 == 0:  # thirds: float shares off by roundoff
            inst = Instance.from_exact([Fraction(int(r), 3) for r in R],
                                       [[Fraction(int(v), int(rng.integers(1, 4))) for v in row] for row in D])
        elif t % 3 == 1:  # floats tie where the exact shares differ by 1e-17
            inst = Instance.from_exact([10**17 + int(r) for r in R],
                                       [[10**16 * int(v) + int(rng.integers(0, 2)) for v in row] for row in D])
        else:
            inst = Instance.from_arrays(R.astype(float), D.astype(float))
        j = by_fractions(inst)
        found += j is not None
        assert common_dominant(inst) == j, inst.describe()
    assert 0 < found < 3000


def test_an_exact_order_floats_cannot_see() -> None:
    # 1e17 + 1 and 1e17 are the same float: exactly, B's cpu share is the larger
    inst = Instance.from_exact([10**17, 10**17], [[1, 1], [10**16 + 1, 10**16]])
    assert common_dominant(inst) == 0
    assert common_dominant(Instance.from_exact([10**17, 10**17], [[1, 1], [10**16, 10**16 + 1]])) == 1
