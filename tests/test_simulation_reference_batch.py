"""The reference engine's batched mode (analyzer/simulation/engine.py:
k-ary search over the policy's share) runs the filling policies whose
share is neither a max nor a sum of per-resource terms (a user's policy
such as examples/new_policy.py; every registered policy goes to the
kernel engine). It makes the decisions of one task per decision."""

from __future__ import annotations

import numpy as np
import pytest
from test_simulation_kernel import outcome, random_workload

from analyzer import simulate
from analyzer.simulation.fast import kernel_keys
from analyzer.simulation.keys import share_model
from analyzer.simulation.workload import as_workload
from models import FillingPolicy


class MeanOfDominantAndAsset(FillingPolicy):
    """examples/new_policy.py's share, not registered (no global state)."""

    name = "mean-of-dominant-and-asset-test"
    description = "(dominant share + mean share) / 2"

    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        s = demands / capacity
        return (s.max(axis=1) + s.sum(axis=1) / s.shape[1]) / 2


def test_the_mixed_share_is_not_for_the_kernel() -> None:
    model = share_model(MeanOfDominantAndAsset(), as_workload(random_workload(0)))
    assert model.form is None and kernel_keys(model) is None


@pytest.mark.parametrize("seed", range(4))
def test_batched_reference_equals_one_task_per_decision(seed: int) -> None:
    w = random_workload(seed)
    opts = {"until": 80, "overcommit_penalty": {"mem": 2.5}}
    batched = simulate(w, MeanOfDominantAndAsset(), **opts)
    single = simulate(w, MeanOfDominantAndAsset(), batch=False, **opts)
    assert "engine" not in batched.stats  # the reference engine, not the kernel
    assert outcome(batched) == outcome(single)
    np.testing.assert_allclose(batched.work, single.work)
    assert batched.stats["decisions"] < single.stats["decisions"]
