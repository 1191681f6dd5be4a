"""The CEEI dual's batched iteration (models/ceei_dual.py): a member of a
batch of one shape comes out bit for bit as alone, whether the line search
ran on the whole batch (every member at one step size) or on the members
still searching (halved steps, members stopping at different iterations)."""

from __future__ import annotations

import numpy as np

from models.ceei_newton import solve_batch


def test_batch_members_equal_lone_solves_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    halved = 0
    for _ in range(40):
        n, m, K = int(rng.integers(1, 6)), int(rng.integers(1, 5)), 9
        D = rng.integers(0, 6, (K, n, m)).astype(float)
        D[D.sum(axis=2) == 0, 0] = 1.0
        R = rng.integers(1, 30, (K, m)).astype(float)
        caps = np.where(rng.random((K, n)) < 0.3, rng.integers(0, 4, (K, n)), np.inf).astype(float)
        with np.errstate(all="ignore"):
            batch = solve_batch(R, D, None, caps)
            alone = [solve_batch(R[k], D[k:k + 1], None, caps[k:k + 1]) for k in range(K)]
        halved += len(set(batch.iterations.tolist())) > 1  # members stopped at different iterations
        for k, one in enumerate(alone):
            assert np.array_equal(one.x[0], batch.x[k]) and np.array_equal(one.prices[0], batch.prices[k])
            assert one.iterations[0] == batch.iterations[k] and one.residual[0] == batch.residual[k]
    assert halved > 10  # the partial paths of the iteration were exercised
