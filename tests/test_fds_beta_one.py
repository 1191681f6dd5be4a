"""fds and gfj at beta = 1 are CEEI (the Eisenberg-Gale program) and are
solved by CEEI's solver: the same numbers, bit for bit, with weights and caps."""

from __future__ import annotations

import numpy as np
import pytest

from models import Instance, get_policy


@pytest.mark.parametrize("name", ["fds", "gfj"])
def test_beta_one_is_ceei(name: str) -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        n, m = int(rng.integers(1, 6)), int(rng.integers(1, 4))
        D = rng.integers(0, 5, (n, m)).astype(float)
        D[D.sum(axis=1) == 0, 0] = 1.0
        caps = [None if rng.random() < 0.6 else float(rng.integers(1, 4)) for _ in range(n)]
        inst = Instance.from_arrays(capacity=rng.integers(1, 20, m).astype(float), demands=D,
                                    weights=rng.integers(1, 4, n).astype(float), max_tasks=caps)
        got = get_policy(f"{name}:beta=1").solve(inst)
        want = get_policy("ceei").solve(inst)
        assert got.x.tolist() == want.x.tolist() and got.policy == f"{name}:beta=1"


def test_paper_numbers_at_beta_one() -> None:
    inst = Instance.load("examples/paper_two_users.toml")
    x = get_policy("fds:beta=1").solve(inst).x
    assert np.allclose(x, [45 / 11, 18 / 11], rtol=1e-9)
