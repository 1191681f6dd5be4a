"""Exact arithmetic in ``Q(alpha)``, ``alpha`` one real algebraic number
isolated in a rational interval: what the exact CEEI certificate is checked
in (Ghodsi et al., NSDI 2011, Section 5.2; see :mod:`proofs.ceei_exact`)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

#: Bisections allowed when deciding the sign of a nonzero algebraic number.
MAX_SIGN_BISECTIONS: int = 100_000


class RealAlgebraic:
    """The real root ``alpha`` of an irreducible polynomial ``f`` over Q,
    isolated in a rational interval; elements of ``Q(alpha)`` are sympy
    polynomials in ``alpha`` reduced modulo ``f``.

    Equality is decided by reduction, signs by exact rational interval
    arithmetic on a refined isolating interval (both exact: a nonzero
    element has a sign the bisection eventually separates from 0).

    Examples
    --------
    >>> import sympy as sp
    >>> t = sp.Symbol("t")
    >>> a = RealAlgebraic(sp.Poly(t**2 - 2, t, domain="QQ"), Fraction(1), Fraction(2))
    >>> a.sign(a.element(t**2 - 2)), a.sign(a.element(t - Fraction(141, 100)))
    (0, 1)
    >>> a.to_sympy(a.element(3 * t + 1))
    1 + 3*sqrt(2)
    """

    def __init__(self, f: Any, lo: Fraction, hi: Fraction) -> None:
        self.f = f
        self.gen = f.gen
        self.lo, self.hi = lo, hi
        self.degree = f.degree()
        if self.degree == 1:
            c1, c0 = (fraction_of(c) for c in f.all_coeffs())
            self.rational: Fraction | None = -c0 / c1
        else:
            self.rational = None
            self._f_coeffs = [fraction_of(c) for c in f.all_coeffs()]
            if _horner(self._f_coeffs, lo) * _horner(self._f_coeffs, hi) >= 0:
                raise ValueError("interval does not isolate a simple root")

    def element(self, expr: Any) -> Any:
        """``expr`` (a polynomial in the generator) reduced modulo ``f``."""
        import sympy as sp

        return sp.Poly(expr, self.gen, domain="QQ").rem(self.f)

    def inverse(self, g: Any) -> Any:
        """``1 / g`` in ``Q(alpha)`` (``g`` nonzero)."""
        return g.invert(self.f)

    def is_zero(self, g: Any) -> bool:
        return bool(g.rem(self.f).is_zero)

    def sign(self, g: Any) -> int:
        """Exact sign of ``g(alpha)``."""
        g = g.rem(self.f)
        if g.is_zero:
            return 0
        coeffs = [fraction_of(c) for c in g.all_coeffs()]
        if self.rational is not None:
            v = _horner(coeffs, self.rational)
            return (v > 0) - (v < 0)
        for _ in range(MAX_SIGN_BISECTIONS):
            lo, hi = _interval_horner(coeffs, self.lo, self.hi)
            if lo > 0:
                return 1
            if hi < 0:
                return -1
            self._bisect()
        raise ArithmeticError("sign of a nonzero algebraic number not separated")  # pragma: no cover

    def _bisect(self) -> None:
        mid = (self.lo + self.hi) / 2
        if (_horner(self._f_coeffs, mid) > 0) == (_horner(self._f_coeffs, self.lo) > 0):
            self.lo = mid
        else:
            self.hi = mid

    def alpha_sympy(self) -> Any:
        """``alpha`` as a sympy number: Rational, radicals (degree 2) or CRootOf."""
        import sympy as sp

        if self.rational is not None:
            return sp.Rational(self.rational.numerator, self.rational.denominator)
        if self.degree == 2:
            a, b, c = (sp.Rational(fraction_of(v).numerator, fraction_of(v).denominator) for v in self.f.all_coeffs())
            lo = sp.Rational(self.lo.numerator, self.lo.denominator)
            hi = sp.Rational(self.hi.numerator, self.hi.denominator)
            for sgn in (-1, 1):
                r = sp.radsimp((-b + sgn * sp.sqrt(b * b - 4 * a * c)) / (2 * a))
                if bool(lo <= r) and bool(r <= hi):
                    return r
        roots = sorted(real_root_intervals(self.f), key=lambda ab: ab[0])
        for idx, (lo, hi) in enumerate(roots):
            if lo <= self.hi and self.lo <= hi and _same_root(self.f, (lo, hi), (self.lo, self.hi)):
                return sp.CRootOf(self.f.as_expr(), idx)
        raise ArithmeticError("root index not found")  # pragma: no cover

    def to_sympy(self, g: Any) -> Any:
        """The sympy number ``g(alpha)``."""
        import sympy as sp

        g = g.rem(self.f)
        if self.rational is not None:
            v = _horner([fraction_of(c) for c in g.all_coeffs()], self.rational)
            return sp.Rational(v.numerator, v.denominator)
        alpha = self.alpha_sympy()
        value = g.as_expr().subs(self.gen, alpha)
        return sp.expand(value) if self.degree == 2 else value

    def to_float(self, g: Any) -> float:
        """``g(alpha)`` as the nearest float (from a refined interval)."""
        g = g.rem(self.f)
        coeffs = [fraction_of(c) for c in g.all_coeffs()] or [Fraction(0)]
        if self.rational is not None:
            return float(_horner(coeffs, self.rational))
        while True:
            lo, hi = _interval_horner(coeffs, self.lo, self.hi)
            if float(lo) == float(hi) or hi - lo <= abs(lo + hi) * Fraction(1, 2**60):
                return float((lo + hi) / 2)
            self._bisect()

    def describe(self) -> str:
        if self.rational is not None:
            return "Q"
        return f"Q(alpha), alpha the root of {self.f.as_expr()} in [{self.lo}, {self.hi}]"


def fraction_of(c: Any) -> Fraction:
    """A sympy or Python rational as a Fraction."""
    return Fraction(int(c.numerator), int(c.denominator)) if hasattr(c, "numerator") else Fraction(c)


def _horner(coeffs: Sequence[Fraction], x: Fraction) -> Fraction:
    v = Fraction(0)
    for c in coeffs:
        v = v * x + c
    return v


def _interval_horner(coeffs: Sequence[Fraction], a: Fraction, b: Fraction) -> tuple[Fraction, Fraction]:
    """Exact bounds of a polynomial over ``[a, b]`` (interval Horner)."""
    lo = hi = Fraction(0)
    for c in coeffs:
        prods = (lo * a, lo * b, hi * a, hi * b)
        lo, hi = min(prods) + c, max(prods) + c
    return lo, hi


def real_root_intervals(f: Any) -> list[tuple[Fraction, Fraction]]:
    """Isolating intervals of the real roots of the sympy polynomial ``f``."""
    return [(fraction_of(a), fraction_of(b)) for (a, b), _ in f.intervals()]


def _same_root(f: Any, i1: tuple[Fraction, Fraction], i2: tuple[Fraction, Fraction]) -> bool:
    """Both intervals isolate the same root of the squarefree ``f``: their
    intersection still holds a sign change."""
    lo, hi = max(i1[0], i2[0]), min(i1[1], i2[1])
    if lo > hi:
        return False
    coeffs = [fraction_of(c) for c in f.all_coeffs()]
    a, b = _horner(coeffs, lo), _horner(coeffs, hi)
    return a == 0 or b == 0 or (a > 0) != (b > 0)

