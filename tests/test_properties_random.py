"""The paper's positive results (Ghodsi et al., NSDI 2011, Table 2) on
seeded random instances: no check may report a violation where the policy
provably keeps the property. Classes: ``positive`` (the paper's: positive
demands, unweighted, no caps) and ``general`` (zero entries, weights, caps).
"""

from __future__ import annotations

import numpy as np
import pytest

from analyzer import check
from tests.strategies import random_instance

POSITIVE = {"zeros": False, "weights": False, "caps": False}
GENERAL: dict[str, bool] = {}

CASES = [
    # policy, property, class, n_max, m_max, count, seed
    ("drf", "sharing-incentive", GENERAL, 4, 3, 40, 4),
    ("drf", "envy-freeness", GENERAL, 4, 3, 40, 4),
    ("drf", "pareto-efficiency", GENERAL, 4, 3, 30, 11),
    ("asset", "pareto-efficiency", GENERAL, 4, 3, 30, 11),
    ("drf", "strategy-proofness", POSITIVE, 3, 3, 30, 2),
    ("asset", "strategy-proofness", POSITIVE, 3, 3, 30, 2),
    ("drf", "strategy-proofness", GENERAL, 4, 4, 20, 9),
    ("drf", "population-monotonicity", {"zeros": False}, 4, 3, 25, 3),
    ("drf", "single-resource-fairness", GENERAL, 4, 2, 30, 8),
    ("drf", "bottleneck-fairness", GENERAL, 4, 2, 30, 8),
]


@pytest.mark.parametrize("policy, prop, klass, n_max, m_max, count, seed", CASES)
def test_no_violation_where_the_paper_proves_the_property(policy: str, prop: str, klass: dict[str, bool],
                                                          n_max: int, m_max: int, count: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(count):
        inst = random_instance(rng, n_max=n_max, m_max=m_max, **klass)
        assert check(policy, inst, prop) is None, inst.describe()
