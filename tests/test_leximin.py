"""The leximin LP sequence (models.leximin): the price-blocking rule."""

from __future__ import annotations

import numpy as np

from models.leximin import leximin_lp


def test_price_blocking_rule() -> None:
    """Leximin of the task counts under cpu x0 + 1e-9 x1 <= 1, mem x1 <= 2:
    both stop at 1 / (1 + 1e-9) (cpu is full). x1's level dual is ~1e-9
    (below DUAL_TOL), so only the price rule freezes it; without the rule
    x1 rises to 2 in the next stage by the LP_LEVEL_RTOL slack of x0."""
    import cvxpy as cp

    D = np.array([[1.0, 0.0], [1e-9, 1.0]])
    R = np.array([1.0, 2.0])

    def run(blocking: object) -> np.ndarray:
        x = cp.Variable(2, nonneg=True)
        return leximin_lp(x, [D.T @ x <= R], "test", blocking=blocking)[0]  # type: ignore[arg-type]

    np.testing.assert_allclose(run(lambda priced: (D[:, priced] > 0).any(axis=1)), [1 / (1 + 1e-9)] * 2, rtol=1e-7)
    assert run(None)[1] > 1.5  # the rule is what freezes x1
