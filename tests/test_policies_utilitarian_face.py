"""utilitarian's leximin tie-break stays on the optimal face (a price
blocking rule borrowed from the filling family froze users below their face
values and the solve failed; the exact answer is 1/3, 1/3, 4/3)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from analyzer import Instance, solve


def test_tie_break_on_three_users_matches_the_exact_answer() -> None:
    inst = Instance.from_dict({"resources": {"r1": 2, "r2": 3},
                               "users": {"A": {"demand": [1, 2]}, "B": {"demand": [1, 3]}, "C": {"demand": [1, 1]}}})
    exact = solve(inst, "utilitarian", exact=True)
    assert [exact.tasks[u] for u in "ABC"] == [Fraction(1, 3), Fraction(1, 3), Fraction(4, 3)]
    numeric = solve(inst, "utilitarian")
    assert np.allclose(numeric.x, [1 / 3, 1 / 3, 4 / 3], rtol=1e-9)
