"""Strategy-proofness (Ghodsi et al., NSDI 2011, Section 3): the paper's
Theorem 4 instance (test data only), DRF and asset on random instances, and
the exactness of a reported lie."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from analyzer import Instance, check
from analyzer.api import solve
from analyzer.properties._batch import fill_batch
from analyzer.properties.strategy_proofness import StrategyProofness
from models import get_policy
from models.tolerances import CROSSCHECK_RTOL
from tests._policies import BalancedFirst
from tests.strategies import random_instance


def _replay(policy: str, inst: Instance, deviation: dict) -> Fraction:
    """Re-verify a lie from the Violation's data alone: true tasks of the liar."""
    i = inst.user_index[deviation["user"]]
    report = [Fraction(deviation["report"][r]) for r in inst.resources]
    D = [list(row) for row in inst.demands_exact]
    D[i] = report
    K = list(inst.max_tasks_exact)
    if "report_cap" in deviation:
        K[i] = Fraction(deviation["report_cap"])
    x = solve(inst.replace(demands=D, max_tasks=K), policy, exact=True).x_exact[i]
    need = inst.demands_exact[i]
    t = min(x * r / d for r, d in zip(report, need, strict=True) if d > 0)
    return t if inst.max_tasks_exact[i] is None else min(t, inst.max_tasks_exact[i])


def test_theorem4_ceei_is_not_strategy_proof() -> None:
    inst = Instance.from_exact([100, 100], [[16, 1], [1, 2]])
    light = StrategyProofness(light=(8, 4, 8, 0))  # CEEI needs one conic solve per report: a coarse grid
    v = light.check("ceei", inst)
    assert v is not None and v.user == "u0" and v.deviation["kind"] == "lie"
    assert float(v.after["tasks"]) > float(v.before["tasks"]) * 1.1
    assert all(Fraction(q).denominator == 1 for q in v.deviation["report"].values())
    assert check("drf", inst, "strategy-proofness") is None


def test_a_lie_is_exact_and_replays() -> None:
    inst = Instance.from_exact([10, 10], [[1, 4], [1, 1]])
    pol = BalancedFirst()
    assert solve(inst, pol, exact=True).x_exact == (0, 10)
    v = check(pol, inst, "strategy-proofness")
    assert v is not None and v.exact and v.user == "u0" and v.before["tasks"] == "0"
    assert _replay(pol, inst, v.deviation) == Fraction(v.after["tasks"]) > 0


@pytest.mark.parametrize("policy", ["drf", "asset"])
def test_drf_and_asset_are_strategy_proof_on_random_positive_instances(policy: str) -> None:
    rng = np.random.default_rng(2)
    for _ in range(30):
        inst = random_instance(rng, n_max=3, m_max=3, zeros=False, weights=False, caps=False)
        assert check(policy, inst, "strategy-proofness") is None, inst.describe()


def test_drf_strategy_proof_with_weights_caps_zeros_and_four_resources() -> None:
    rng = np.random.default_rng(9)
    for _ in range(20):
        inst = random_instance(rng, n_max=4, m_max=4)
        assert check("drf", inst, "strategy-proofness") is None, inst.describe()


def test_search_is_seeded() -> None:
    inst = Instance.from_exact([100, 100, 100, 100, 100], [[16, 1, 1, 1, 1], [1, 2, 3, 4, 5]])
    a = StrategyProofness(seed=4)._directions(inst, 0, np.random.default_rng(4))
    b = StrategyProofness(seed=4)._directions(inst, 0, np.random.default_rng(4))
    assert np.array_equal(a, b)


def test_batch_filling_matches_the_policy_solver() -> None:
    rng = np.random.default_rng(0)
    for name in ("drf", "asset"):
        pol = get_policy(name)
        for _ in range(40):
            inst = random_instance(rng, n_max=5, m_max=4)
            D = np.stack([inst.demands, inst.demands * rng.uniform(0.5, 2, size=inst.demands.shape)])
            xb = fill_batch(pol, D, inst.capacity, inst.weights, np.stack([inst.max_tasks] * 2))
            for k in range(2):
                other = Instance.from_arrays(inst.capacity, D[k], weights=inst.weights, max_tasks=inst.max_tasks)
                np.testing.assert_allclose(xb[k], pol.solve(other).x, rtol=CROSSCHECK_RTOL)
