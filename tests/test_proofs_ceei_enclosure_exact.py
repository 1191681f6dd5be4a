"""The CEEI enclosure (proofs.ceei_exact.enclosure) proves a box around the
root of the EXACT price equations (Ghodsi et al., NSDI 2011, Section 5.2):
its rational data enter the interval arithmetic as intervals holding them."""

from __future__ import annotations

from fractions import Fraction


def test_enclosure_equations_hold_the_exact_rationals() -> None:
    """With data 1/3 and 1/10 (no finite binary expansion) ``F`` at ``p = 1``
    is an interval holding the exact ``1 * (1/3) / (1/3) - 1/10 = 9/10``,
    not a point of the equations rounded to the working precision."""
    from mpmath import iv

    from proofs.ceei_exact.enclosure import _PriceEquations, iv_bounds

    eq = _PriceEquations(Dm=[[Fraction(1, 3)]], w=[Fraction(1)], Rp=[Fraction(1, 10)], U=[0])
    (f,) = eq.F(iv.matrix([iv.mpf(1)]), iv)
    lo, hi = iv_bounds(f)
    assert lo <= Fraction(9, 10) <= hi and lo < hi
