"""Slot-based sharing: slot counts are exact integers in both paths (issue 12)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from models import Instance, get_policy


def _inst(cap: list, demands: list, **extra: object) -> Instance:
    res = [f"r{j}" for j in range(len(cap))]
    return Instance.from_dict({"resources": dict(zip(res, cap, strict=True)),
                               "users": {f"U{i}": {"demand": dict(zip(res, d, strict=True)), **extra}
                                         for i, d in enumerate(demands)}})


@pytest.mark.parametrize("slots", [3, 5, 6, 7])
def test_exact_slot_shares_are_fractions_with_small_denominators(slots: int) -> None:
    inst = _inst([10, 7], [[1, 2], [3, 1], [2, 0]])
    alloc = get_policy(f"slots:slots={slots}").solve_exact(inst)
    for v in alloc.x_exact:
        assert isinstance(v, Fraction) and v.denominator <= 10 ** 6, v
    np.testing.assert_allclose(get_policy(f"slots:slots={slots}").solve(inst).x,
                               [float(v) for v in alloc.x_exact], rtol=1e-12)


@pytest.mark.parametrize("need", ["2.0000000001", "1.9999999999", "3", "5.00000000000001"])
def test_numeric_and_exact_slot_counts_agree_near_whole_numbers(need: str) -> None:
    # one resource of capacity 1, 4 slots: the task of U0 needs `need` slots
    d = Fraction(need) / 4
    inst = _inst(["1"], [[str(d)], ["1/4"]])
    pol = get_policy("slots:slots=4")
    c_float = pol._coefficients(inst)
    c_exact = pol._coefficients_exact(inst)
    assert c_exact[0] == Fraction(-(-Fraction(need).numerator // Fraction(need).denominator), 4)
    np.testing.assert_array_equal(c_float, [float(v) for v in c_exact])
    np.testing.assert_allclose(pol.solve(inst).x, [float(v) for v in pol.solve_exact(inst).x_exact], rtol=1e-12)


def test_near_whole_slot_counts_from_float_arrays() -> None:
    # Instance.from_arrays: the floats are the numbers as written
    need = 2 + 1e-10
    inst = Instance.from_arrays(capacity=[1.0], demands=np.array([[need / 4], [0.25]]), resources=["cpu"])
    pol = get_policy("slots:slots=4")
    assert pol._coefficients(inst)[0] == 3 / 4
    assert pol._coefficients_exact(inst)[0] == Fraction(3, 4)
