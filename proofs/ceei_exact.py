"""Exact CEEI: the KKT system of the weighted Eisenberg-Gale program solved
in exact arithmetic, with a verified optimality certificate.

Ghodsi et al., NSDI 2011, Section 5.2: with Leontief users, CEEI maximises
``sum_i w_i log x_i`` subject to ``sum_i x_i d_ij <= R_j`` (every resource
``j``) and ``0 <= x_i <= k_i`` (caps). The program is convex, so a point
satisfying the KKT conditions is *the* optimum (the objective is strictly
concave in ``x``, so the task counts are unique). With prices ``p_j >= 0``
on the capacities and multipliers ``mu_i >= 0`` on the caps, the KKT
conditions read

* stationarity: ``w_i / x_i = p . d_i + mu_i``;
* primal feasibility: ``sum_i x_i d_ij <= R_j``, ``0 < x_i <= k_i``;
* dual feasibility: ``p >= 0``, ``mu >= 0``;
* complementary slackness: ``p_j (R_j - sum_i x_i d_ij) = 0`` and
  ``mu_i (k_i - x_i) = 0``.

The prices are in the normalisation where each user's budget is its weight
(``x_i (p . d_i) = w_i`` for an uncapped user); on the paper's example they
are ``1/5`` per CPU and ``1/90`` per GB.

Method. A numeric solve (:mod:`models.policies.ceei`) suggests the *active
set*: the resources with a positive price (``B``) and the users held at
their cap with a positive multiplier (``C``). For that guess the equalities
``x_i (p . d_i) = w_i`` (``i`` uncapped) and ``sum_i x_i d_ij = R_j``
(``j`` in ``B``) form a polynomial system; its lexicographic Groebner basis
gives every unknown as a polynomial in one algebraic number ``alpha`` (the
real root of an irreducible polynomial, chosen next to the numeric
solution). All KKT conditions are then checked in ``Q(alpha)``: equalities
by reduction modulo the minimal polynomial, signs by exact rational
interval arithmetic on an isolating interval of ``alpha``. If the guess
fails, neighbouring active sets are tried. When the system is too large
for Groebner bases, a Krawczyk interval-Newton test (``mpmath.iv``) proves
that the price system has a unique root in a small box and checks every
inequality on it: the result is then a rigorous *enclosure*, and the
allocation says so (``exact=False``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np

from models import Allocation, Instance, Policy
from models.allocation import OPTIMAL, exact_str
from models.tolerances import DUAL_TOL, FEASIBILITY_RTOL

from .checks import Check, Verified, all_hold, join_names

#: Reach of the exact path: most uncapped users for a given number of priced
#: resources (measured by benchmarks/bench_ceei_exact.py: within 10 s on the
#: 2-core development machine). With at most one priced resource the
#: solution is rational and always exact; above the last entry its value
#: applies. Beyond the reach an interval enclosure is returned instead.
EXACT_REACH: dict[int, int] = {2: 20, 3: 8, 4: 6}
#: How many of the most ambiguous active-set decisions are flipped in pairs
#: when the guessed active set fails verification.
PAIR_FLIP_DEPTH: int = 4
#: Bits of precision of the interval arithmetic of the enclosure.
ENCLOSURE_PRECISION_BITS: int = 200
#: Relative radius of the starting box of the Krawczyk test around the
#: Newton-polished prices (inflated until the test succeeds or gives up).
ENCLOSURE_START_RADIUS: float = 1e-20
#: Longest minimal-polynomial text shown in plain-words explanations.
MAX_FIELD_TEXT: int = 200
#: Bisections allowed when deciding the sign of a nonzero algebraic number.
MAX_SIGN_BISECTIONS: int = 100_000


# ---------------------------------------------------------------------------
# certificates
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class KKTCertificate(Verified):
    """Exact KKT certificate of a CEEI allocation.

    Attributes
    ----------
    resources, users : tuple of str
        Names, in instance order.
    prices : tuple
        ``p_j`` per resource (sympy numbers; 0 off the binding set), in the
        normalisation where budgets are the weights.
    multipliers : tuple
        ``mu_i`` per user (0 unless capped with a positive multiplier).
    binding : tuple of int
        Resources with a positive price (they are exhausted).
    capped : tuple of int
        Users held at their cap ``k_i``.
    number_field : str
        ``"Q"`` when everything is rational, otherwise the minimal
        polynomial and isolating interval of the algebraic number used.
    checks : tuple of Check
        Every KKT condition, verified exactly.
    active_sets_tried : int
        How many active sets were solved before this one verified.
    """

    resources: tuple[str, ...]
    users: tuple[str, ...]
    prices: tuple[Any, ...]
    multipliers: tuple[Any, ...]
    binding: tuple[int, ...]
    capped: tuple[int, ...]
    number_field: str
    checks: tuple[Check, ...]
    active_sets_tried: int

    def explain(self) -> list[str]:
        """Plain-words lines: prices, binding resources, capped users and the
        summary of the KKT check."""
        priced = [f"{self.resources[j]} {exact_str(self.prices[j])}" for j in self.binding]
        lines = [
            "prices (budgets = weights): " + (", ".join(priced) if priced else "all zero"),
            "exhausted resources: " + (join_names(self.resources[j] for j in self.binding) or "none"),
        ]
        if self.capped:
            lines.append("users held at their cap: " + ", ".join(
                f"{self.users[i]} (multiplier {exact_str(self.multipliers[i])})" for i in self.capped))
        if self.number_field == "Q":
            field = "rational numbers"
        elif len(self.number_field) <= MAX_FIELD_TEXT:
            field = f"the number field {self.number_field}"
        else:
            field = "Q(alpha), alpha a real algebraic number (minimal polynomial in certificate.number_field)"
        ok = sum(c.holds for c in self.checks)
        verdict = "optimal" if self.holds else "NOT verified"
        lines.append(f"KKT check in {field}: {ok}/{len(self.checks)} conditions hold "
                     "(stationarity, primal and dual feasibility, complementary slackness) -> " + verdict)
        return lines


@dataclass(frozen=True)
class CEEIEnclosure(Verified):
    """Rigorous interval enclosure of the CEEI optimum (Krawczyk test).

    Attributes
    ----------
    resources, users : tuple of str
        Names.
    prices, tasks : tuple of mpmath intervals
        Boxes guaranteed to contain the exact prices and task counts.
    binding, capped : tuple of int
        The active set the enclosure certifies.
    checks : tuple of Check
        The Krawczyk inclusion and every strict KKT inequality, decided in
        interval arithmetic.
    """

    resources: tuple[str, ...]
    users: tuple[str, ...]
    prices: tuple[Any, ...]
    tasks: tuple[Any, ...]
    binding: tuple[int, ...]
    capped: tuple[int, ...]
    checks: tuple[Check, ...]

    def bounds(self) -> list[tuple[Fraction, Fraction]]:
        """Exact rational endpoints of the task-count intervals."""
        return [iv_bounds(t) for t in self.tasks]

    def midpoints(self) -> np.ndarray:
        """Centres of the task-count intervals (floats)."""
        return np.array([float(t.mid) for t in self.tasks])

    @property
    def max_width(self) -> float:
        """Largest width of a task-count interval."""
        return max((float(t.delta) for t in self.tasks), default=0.0)

    def explain(self) -> list[str]:
        """Plain-words lines about the enclosure."""
        lines = ["not exact: the exact optimum lies in these intervals (interval Newton / Krawczyk proof)"]
        lines += [f"  {self.users[i]}: tasks in {_iv_str(t)}" for i, t in enumerate(self.tasks)]
        lines += [f"  price of {self.resources[j]} in {_iv_str(self.prices[j])}" for j in self.binding]
        ok = sum(c.holds for c in self.checks)
        lines.append(f"interval check: {ok}/{len(self.checks)} conditions hold -> "
                     + ("optimum enclosed" if self.holds else "NOT verified"))
        return lines


def iv_bounds(v: Any) -> tuple[Fraction, Fraction]:
    """Exact endpoints of an ``mpmath.iv`` interval, as Fractions."""
    from mpmath.libmp import to_rational

    lo, hi = v._mpi_
    return Fraction(*to_rational(lo)), Fraction(*to_rational(hi))


def _iv_str(v: Any) -> str:
    lo, hi = iv_bounds(v)
    return f"[{float(lo)!r}, {float(hi)!r}]"


# ---------------------------------------------------------------------------
# exact data and the active set
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Data:
    D: tuple[tuple[Fraction, ...], ...]
    R: tuple[Fraction, ...]
    w: tuple[Fraction, ...]
    k: tuple[Fraction | None, ...]

    @property
    def n(self) -> int:
        return len(self.D)

    @property
    def m(self) -> int:
        return len(self.R)

    def live(self) -> list[int]:
        """Users not capped at zero (the others hold nothing)."""
        return [i for i in range(self.n) if self.k[i] is None or self.k[i] > 0]


@dataclass(frozen=True)
class ActiveSet:
    """Priced resources ``binding`` and users at their cap ``capped``."""

    binding: tuple[int, ...]
    capped: tuple[int, ...]


def _data(instance: Instance) -> _Data:
    return _Data(D=instance.demands_exact, R=instance.capacity_exact, w=instance.weights_exact,
                 k=instance.max_tasks_exact)


def estimate_prices(instance: Instance, x: np.ndarray, capped: Sequence[int], tight: Sequence[int]) -> np.ndarray:
    """Prices from the stationarity of the uncapped users, ``w_i / x_i = p . d_i``,
    by non-negative least squares over the ``tight`` resources (float)."""
    from scipy.optimize import nnls

    p = np.zeros(instance.m)
    k = instance.max_tasks
    unc = [i for i in range(instance.n) if k[i] > 0 and i not in set(capped) and x[i] > 0]
    if not unc or not tight:
        return p
    A = instance.demands[np.ix_(unc, list(tight))]
    b = instance.weights[unc] / x[unc]
    scale = np.maximum(np.abs(b), np.finfo(float).tiny)
    sol, _ = nnls(A / scale[:, None], b / scale)
    p[list(tight)] = sol
    return p


def guess_active_set(instance: Instance, x: np.ndarray) -> tuple[ActiveSet, list[tuple[float, str, int]]]:
    """The active set suggested by a numeric solution ``x``, and the
    decisions ranked from most to least ambiguous (``(margin, kind, index)``
    with kind ``"resource"`` or ``"user"``) for the neighbour search."""
    D, R, w, k = instance.demands, instance.capacity, instance.weights, instance.max_tasks
    usage = x @ D
    slack = 1 - usage / R
    fin = np.isfinite(k) & (k > 0)
    at_cap = fin & (x >= k * (1 - FEASIBILITY_RTOL))
    capped = [int(i) for i in np.flatnonzero(at_cap)]
    tight = [int(j) for j in np.flatnonzero(slack <= FEASIBILITY_RTOL)]
    p = estimate_prices(instance, x, capped, tight)
    budget = float(w[(k > 0) & ~at_cap].sum()) or 1.0
    rel_price = p * R / budget
    binding = tuple(j for j in tight if rel_price[j] > DUAL_TOL)
    kk = np.where(fin, k, 1.0)
    mu = np.where(fin, (w / kk - D @ p) * kk / w, 0.0)  # multiplier as a fraction of the budget
    caps = tuple(i for i in capped if mu[i] > DUAL_TOL)
    margins: list[tuple[float, str, int]] = []
    for j in range(instance.m):
        margins.append((max(abs(float(slack[j])), float(rel_price[j])), "resource", j))
    for i in np.flatnonzero(fin):
        gap = abs(1 - float(x[i]) / float(k[i]))
        margins.append((max(gap, abs(float(mu[i]))), "user", int(i)))
    margins.sort()
    return ActiveSet(binding=binding, capped=caps), margins


def neighbour_sets(first: ActiveSet, margins: list[tuple[float, str, int]]) -> Iterator[ActiveSet]:
    """``first``, then every single flip of one decision (most ambiguous
    first), then pairs of flips among the :data:`PAIR_FLIP_DEPTH` most
    ambiguous decisions."""

    def flip(a: ActiveSet, kind: str, idx: int) -> ActiveSet:
        if kind == "resource":
            b = set(a.binding) ^ {idx}
            return ActiveSet(tuple(sorted(b)), a.capped)
        c = set(a.capped) ^ {idx}
        return ActiveSet(a.binding, tuple(sorted(c)))

    seen = {first}
    yield first
    decisions = [(kind, idx) for _, kind, idx in margins]
    for kind, idx in decisions:
        cand = flip(first, kind, idx)
        if cand not in seen:
            seen.add(cand)
            yield cand
    for (k1, i1), (k2, i2) in combinations(decisions[:PAIR_FLIP_DEPTH], 2):
        cand = flip(flip(first, k1, i1), k2, i2)
        if cand not in seen:
            seen.add(cand)
            yield cand


# ---------------------------------------------------------------------------
# Q(alpha): exact arithmetic with one real algebraic number
# ---------------------------------------------------------------------------
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
            c1, c0 = (_frac(c) for c in f.all_coeffs())
            self.rational: Fraction | None = -c0 / c1
        else:
            self.rational = None
            self._f_coeffs = [_frac(c) for c in f.all_coeffs()]
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
        coeffs = [_frac(c) for c in g.all_coeffs()]
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
            a, b, c = (sp.Rational(_frac(v).numerator, _frac(v).denominator) for v in self.f.all_coeffs())
            lo = sp.Rational(self.lo.numerator, self.lo.denominator)
            hi = sp.Rational(self.hi.numerator, self.hi.denominator)
            for sgn in (-1, 1):
                r = sp.radsimp((-b + sgn * sp.sqrt(b * b - 4 * a * c)) / (2 * a))
                if bool(lo <= r) and bool(r <= hi):
                    return r
        roots = sorted(_real_root_intervals(self.f), key=lambda ab: ab[0])
        for idx, (lo, hi) in enumerate(roots):
            if lo <= self.hi and self.lo <= hi and _same_root(self.f, (lo, hi), (self.lo, self.hi)):
                return sp.CRootOf(self.f.as_expr(), idx)
        raise ArithmeticError("root index not found")  # pragma: no cover

    def to_sympy(self, g: Any) -> Any:
        """The sympy number ``g(alpha)``."""
        import sympy as sp

        g = g.rem(self.f)
        if self.rational is not None:
            v = _horner([_frac(c) for c in g.all_coeffs()], self.rational)
            return sp.Rational(v.numerator, v.denominator)
        alpha = self.alpha_sympy()
        value = g.as_expr().subs(self.gen, alpha)
        return sp.expand(value) if self.degree == 2 else value

    def to_float(self, g: Any) -> float:
        """``g(alpha)`` as the nearest float (from a refined interval)."""
        g = g.rem(self.f)
        coeffs = [_frac(c) for c in g.all_coeffs()] or [Fraction(0)]
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


def _frac(c: Any) -> Fraction:
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


def _real_root_intervals(f: Any) -> list[tuple[Fraction, Fraction]]:
    return [(_frac(a), _frac(b)) for (a, b), _ in f.intervals()]


def _same_root(f: Any, i1: tuple[Fraction, Fraction], i2: tuple[Fraction, Fraction]) -> bool:
    """Both intervals isolate the same root of the squarefree ``f``: their
    intersection still holds a sign change."""
    lo, hi = max(i1[0], i2[0]), min(i1[1], i2[1])
    if lo > hi:
        return False
    coeffs = [_frac(c) for c in f.all_coeffs()]
    a, b = _horner(coeffs, lo), _horner(coeffs, hi)
    return a == 0 or b == 0 or (a > 0) != (b > 0)


# ---------------------------------------------------------------------------
# exact solve of one active set
# ---------------------------------------------------------------------------
@dataclass
class _Exact:
    field: RealAlgebraic
    x: list[Any]  # elements of Q(alpha) per user
    p: list[Any]  # per resource
    mu: list[Any]  # per user
    checks: list[Check]


def _solve_active_set(data: _Data, act: ActiveSet, x_num: np.ndarray, names: tuple[tuple[str, ...], tuple[str, ...]]
                      ) -> _Exact | None:
    """Solve the KKT equalities of ``act`` exactly and verify every KKT
    condition; ``None`` when the active set is not the optimal one."""
    import sympy as sp

    live = data.live()
    C = [i for i in act.capped if i in live and data.k[i] is not None]
    U = [i for i in live if i not in C]
    B = list(act.binding)
    Rp = {j: data.R[j] - sum((data.k[i] * data.D[i][j] for i in C), Fraction(0)) for j in B}
    if U and not B:
        return None
    if any(all(data.D[i][j] == 0 for j in B) for i in U):
        return None
    t = sp.Symbol("alpha")
    if not U:
        field = RealAlgebraic(sp.Poly(t, t, domain="QQ"), Fraction(-1), Fraction(1))
        xs: dict[int, Any] = {}
        ps: dict[int, Any] = {}
    else:
        solved = _groebner_solve(data, U, B, Rp, x_num, t)
        if solved is None:
            return None
        field, xs, ps = solved
    zero = field.element(0)
    x = [field.element(0) for _ in range(data.n)]
    for i in C:
        x[i] = field.element(data.k[i])
    for i in U:
        x[i] = xs[i]
    p = [zero] * data.m
    for j in B:
        p[j] = ps[j]
    checks = _kkt_checks(data, field, x, p, U, C, B, names)
    mu = [zero] * data.n
    for i in C:
        mu[i] = (field.element(data.w[i] / data.k[i]) - _dot(field, p, data.D[i])).rem(field.f)
    if not all_hold(checks):
        return None
    return _Exact(field=field, x=x, p=p, mu=mu, checks=checks)


def _dot(field: RealAlgebraic, p: Sequence[Any], d: Sequence[Fraction]) -> Any:
    acc = field.element(0)
    for pj, dj in zip(p, d, strict=True):
        if dj:
            acc = acc + pj * field.element(dj)
    return acc.rem(field.f)


def _groebner_solve(data: _Data, U: list[int], B: list[int], Rp: dict[int, Fraction], x_num: np.ndarray, t: Any
                    ) -> tuple[RealAlgebraic, dict[int, Any], dict[int, Any]] | None:
    """Every unknown as a polynomial in one algebraic number: first from the
    price equations alone, then (if those are not in shape position) from
    the bilinear system in task counts and prices."""
    return _price_system(data, U, B, Rp, x_num, t) or _bilinear_system(data, U, B, Rp, x_num, t)


def _Q(v: Fraction) -> Any:
    import sympy as sp

    return sp.Rational(v.numerator, v.denominator)


def _price_system(data: _Data, U: list[int], B: list[int], Rp: dict[int, Fraction], x_num: np.ndarray, t: Any
                  ) -> tuple[RealAlgebraic, dict[int, Any], dict[int, Any]] | None:
    """Eliminate the task counts, ``x_i = w_i / (p . d_i)``, and the last
    price by the budget identity ``p . R' = sum_i w_i``: ``|B| - 1``
    unknowns, one polynomial per remaining priced resource (users with
    proportional demands on ``B`` share one denominator)."""
    import sympy as sp

    groups: dict[tuple[Fraction, ...], Fraction] = {}
    for i in U:
        v = [data.D[i][j] for j in B]
        lead = next(c for c in v if c)
        key = tuple(c / lead for c in v)
        groups[key] = groups.get(key, Fraction(0)) + data.w[i]
    W = sum((data.w[i] for i in U), Fraction(0))
    q = [sp.Symbol(f"p{j}") for j in B[:-1]]
    p_last = (_Q(W) - sum((_Q(Rp[j]) * qa for j, qa in zip(B[:-1], q, strict=False)), sp.Integer(0))) / _Q(Rp[B[-1]])
    prices = [*q, p_last]
    L = {key: sp.expand(sum((_Q(c) * pa for c, pa in zip(key, prices, strict=True)), sp.Integer(0)))
         for key in groups}
    keys = list(groups)
    eqs = []
    for a in range(len(B) - 1):
        terms = []
        for g in keys:
            others = [L[h] for h in keys if h != g]
            terms.append(_Q(groups[g] * g[a]) * sp.Mul(*others))
        eqs.append(sp.expand(sp.Add(*terms) - _Q(Rp[B[a]]) * sp.Mul(*[L[h] for h in keys])))

    def tasks(values: dict[Any, Any]) -> dict[int, Any]:
        p = [values[v] for v in q] + [p_last.subs(values) if q else p_last]
        return {i: _Q(data.w[i]) / sum((_Q(data.D[i][j]) * pa for j, pa in zip(B, p, strict=True)), sp.Integer(0))
                for i in U}

    if not q:  # one priced resource: p = W / R'
        field = RealAlgebraic(sp.Poly(t - _Q(W / Rp[B[0]]), t, domain="QQ"), W / Rp[B[0]] - 1, W / Rp[B[0]] + 1)
        ps = {B[0]: field.element(t)}
    else:
        solved = _shape_solve(eqs, q, t, lambda vals: _x_distance(tasks(vals), x_num))
        if solved is None:
            return None
        field, values = solved
        ps = {j: values[qa] for j, qa in zip(B[:-1], q, strict=False)}
        last = field.element(_Q(W))
        for j, qa in zip(B[:-1], q, strict=False):
            last = last - values[qa] * field.element(_Q(Rp[j]))
        ps[B[-1]] = (last * field.element(1 / _Q(Rp[B[-1]]))).rem(field.f)
    xs = {}
    for i in U:
        Li = field.element(0)
        for j in B:
            if data.D[i][j]:
                Li = Li + ps[j] * field.element(_Q(data.D[i][j]))
        Li = Li.rem(field.f)
        if field.is_zero(Li):
            return None
        xs[i] = (field.inverse(Li) * field.element(_Q(data.w[i]))).rem(field.f)
    return field, xs, ps


def _bilinear_system(data: _Data, U: list[int], B: list[int], Rp: dict[int, Fraction], x_num: np.ndarray, t: Any
                     ) -> tuple[RealAlgebraic, dict[int, Any], dict[int, Any]] | None:
    """Unknowns ``x_i`` and ``p_j``: ``x_i (p . d_i) = w_i`` and
    ``sum_i x_i d_ij = R'_j`` (no spurious components where two
    denominators vanish)."""
    import sympy as sp

    X = {i: sp.Symbol(f"x{i}") for i in U}
    P = {j: sp.Symbol(f"p{j}") for j in B}
    eqs = [X[i] * sum(_Q(data.D[i][j]) * P[j] for j in B) - _Q(data.w[i]) for i in U]
    eqs += [sum(X[i] * _Q(data.D[i][j]) for i in U) - _Q(Rp[j]) for j in B]
    gens = [X[i] for i in U] + [P[j] for j in B]
    solved = _shape_solve(eqs, gens, t, lambda vals: _x_distance({i: vals[X[i]] for i in U}, x_num))
    if solved is None:
        return None
    field, values = solved
    return field, {i: values[X[i]] for i in U}, {j: values[P[j]] for j in B}


def _x_distance(xs: dict[int, Any], x_num: np.ndarray) -> float:
    """Largest relative distance of candidate task counts from the numeric ones."""
    worst = 0.0
    for i, v in xs.items():
        try:
            fv = float(v)
        except (TypeError, ZeroDivisionError):
            return float("inf")
        worst = max(worst, abs(fv - float(x_num[i])) / max(1.0, abs(float(x_num[i]))))
    return worst


def _shape_solve(eqs: list[Any], gens: list[Any], t: Any, distance: Any) -> tuple[RealAlgebraic, dict[Any, Any]] | None:
    """Solve a zero-dimensional polynomial system through a lexicographic
    Groebner basis in shape position ``[v_1 - g_1(s), ..., h(s)]``: every
    unknown becomes a polynomial in one real root of an irreducible factor
    of ``h``, the root whose solution ``distance`` puts nearest the numeric
    one. Tries up to three choices of the last variable."""
    import sympy as sp
    from mpmath import mp

    for last in list(reversed(gens))[:3]:
        order = [g for g in gens if g != last] + [last]
        if len(order) == 1:
            lex = [sp.Poly(eqs[0], last, domain="QQ").as_expr()]
            shape: dict[Any, Any] | None = {}
        else:
            G = sp.groebner(eqs, *order, order="grevlex", domain="QQ")
            if G.exprs == [1] or not G.is_zero_dimensional:
                return None
            lex = list(G.fglm("lex").exprs)
            shape = _shape(lex, order)
        if shape is None:
            continue
        h = sp.Poly(lex[-1], last, domain="QQ")
        if h.degree() < 1:
            return None
        best: tuple[float, Any, Fraction, Fraction] | None = None
        for fac, _ in h.factor_list()[1]:
            fac = sp.Poly(fac.as_expr().subs(last, t), t, domain="QQ").monic()
            if fac.degree() == 1:  # the root itself (sympy's interval for it may be wide)
                c1, c0 = (_frac(c) for c in fac.all_coeffs())
                isolated = [(-c0 / c1, -c0 / c1)]
            else:
                isolated = [tuple(_frac(v) for v in fac.refine_root(lo, hi, eps=Fraction(1, 10**30)))
                            for lo, hi in _real_root_intervals(fac)]
            for lo, hi in isolated:
                with mp.workdps(40):
                    root = sp.Float((mp.mpf(lo.numerator) / lo.denominator + mp.mpf(hi.numerator) / hi.denominator)
                                    / 2, 40)
                    vals = {v: sp.Float(g.evalf(40, subs={last: root}), 40) for v, g in shape.items()}
                    vals[last] = root
                    dist = distance(vals)
                if best is None or dist < best[0]:
                    best = (dist, fac, lo, hi)
        if best is None:
            return None
        _, fac, lo, hi = best
        if fac.degree() == 1:
            c1, c0 = (_frac(c) for c in fac.all_coeffs())
            lo, hi = -c0 / c1 - 1, -c0 / c1 + 1
        field = RealAlgebraic(fac, lo, hi)
        values = {v: field.element(g.subs(last, t)) for v, g in shape.items()}
        values[last] = field.element(t)
        return field, values
    return None


def _shape(polys: list[Any], gens: list[Any]) -> dict[Any, Any] | None:
    """``{var: g(last)}`` when the lex basis is ``[v_1 - g_1(t), ..., h(t)]``."""
    import sympy as sp

    if len(polys) != len(gens):
        return None
    last = gens[-1]
    out = {}
    for v, e in zip(gens[:-1], polys[:-1], strict=True):
        rest = sp.expand(v - e)
        if rest.free_symbols - {last}:
            return None
        out[v] = rest
    if sp.Poly(polys[-1], *gens).free_symbols - {last}:
        return None
    return out


def _kkt_checks(data: _Data, field: RealAlgebraic, x: list[Any], p: list[Any], U: list[int], C: list[int],
                B: list[int], names: tuple[tuple[str, ...], tuple[str, ...]]) -> list[Check]:
    users, resources = names
    checks: list[Check] = []
    for i in U:
        resid = (x[i] * _dot(field, p, data.D[i]) - field.element(data.w[i])).rem(field.f)
        checks.append(Check(f"stationarity: {users[i]} spends its budget, x (p . d) = w", field.is_zero(resid)))
        checks.append(Check(f"primal feasibility: {users[i]} has x > 0", field.sign(x[i]) > 0))
        if data.k[i] is not None:
            checks.append(Check(f"primal feasibility: {users[i]} within its cap",
                                field.sign(field.element(data.k[i]) - x[i]) >= 0))
    for i in C:
        mu = (field.element(data.w[i] / data.k[i]) - _dot(field, p, data.D[i])).rem(field.f)
        checks.append(Check(f"dual feasibility: cap multiplier of {users[i]} >= 0", field.sign(mu) >= 0))
    for j in range(data.m):
        used = field.element(0)
        for i in range(data.n):
            if data.D[i][j]:
                used = used + x[i] * field.element(data.D[i][j])
        slack = (field.element(data.R[j]) - used).rem(field.f)
        if j in B:
            checks.append(Check(f"dual feasibility: price of {resources[j]} > 0", field.sign(p[j]) > 0))
            checks.append(Check(f"complementary slackness: priced {resources[j]} is exhausted", field.is_zero(slack)))
        else:
            checks.append(Check(f"primal feasibility: {resources[j]} within capacity (price 0)",
                                field.sign(slack) >= 0))
    return checks


# ---------------------------------------------------------------------------
# interval enclosure (Krawczyk)
# ---------------------------------------------------------------------------
def enclose(instance: Instance, act: ActiveSet, x_num: np.ndarray) -> CEEIEnclosure | None:
    """Rigorous enclosure of the KKT point of active set ``act``.

    The prices of the binding resources solve ``F_j(p) = sum_{i uncapped}
    w_i d_ij / (p . d_i) - R'_j = 0``. A Krawczyk test in ``mpmath.iv``
    proves that ``F`` has exactly one zero in a box around the
    Newton-polished numeric prices; every KKT inequality is then checked to
    hold strictly on the whole box. ``None`` when the test fails (e.g. a
    degenerate active set with a zero slack off the binding set).
    """
    from mpmath import iv, mp

    data = _data(instance)
    live = data.live()
    C = [i for i in act.capped if i in live]
    U = [i for i in live if i not in C]
    B = list(act.binding)
    if not U or not B:
        return None
    if any(all(data.D[i][j] == 0 for j in B) for i in U):
        return None
    old_iv, old_mp = iv.prec, mp.prec
    iv.prec = mp.prec = ENCLOSURE_PRECISION_BITS
    try:
        Dm = [[mp.mpf(data.D[i][j].numerator) / data.D[i][j].denominator for j in B] for i in range(data.n)]
        Rp = [mp.mpf(v.numerator) / v.denominator for v in
              (data.R[j] - sum((data.k[i] * data.D[i][j] for i in C), Fraction(0)) for j in B)]
        w = [mp.mpf(v.numerator) / v.denominator for v in data.w]
        p0 = estimate_prices(instance, x_num, C, B)[B]
        p = mp.matrix([mp.mpf(float(v)) for v in p0])
        nb = len(B)

        def F(pv: Any, ctx: Any) -> list[Any]:
            L = {i: sum((ctx.mpf(Dm[i][a]) * pv[a] for a in range(nb)), ctx.mpf(0)) for i in U}
            return [sum((ctx.mpf(w[i]) * ctx.mpf(Dm[i][a]) / L[i] for i in U), ctx.mpf(0)) - ctx.mpf(Rp[a])
                    for a in range(nb)]

        def J(pv: Any, ctx: Any) -> Any:
            L = {i: sum((ctx.mpf(Dm[i][a]) * pv[a] for a in range(nb)), ctx.mpf(0)) for i in U}
            Jm = ctx.matrix(nb, nb)
            for a in range(nb):
                for b in range(nb):
                    Jm[a, b] = -sum((ctx.mpf(w[i]) * ctx.mpf(Dm[i][a]) * ctx.mpf(Dm[i][b]) / (L[i] * L[i])
                                     for i in U), ctx.mpf(0))
            return Jm

        for _ in range(60):  # Newton polish in high precision
            try:
                step = mp.lu_solve(J(p, mp), mp.matrix(F(p, mp)))
            except ZeroDivisionError:
                return None
            p = p - step
            if mp.norm(step) <= mp.norm(p) * mp.mpf(2) ** (-ENCLOSURE_PRECISION_BITS + 20):
                break
        if any(v <= 0 for v in p):
            return None
        Y = mp.inverse(J(p, mp))
        radius = mp.mpf(ENCLOSURE_START_RADIUS)
        proven = False
        K = None
        for _ in range(12):
            X = iv.matrix([iv.mpf([p[a] * (1 - radius), p[a] * (1 + radius)]) for a in range(nb)])
            m_ = iv.matrix([iv.mpf(p[a]) for a in range(nb)])
            Fm = iv.matrix(F(m_, iv))
            JX = J(X, iv)
            Yi = iv.matrix(nb, nb)
            for a in range(nb):
                for b in range(nb):
                    Yi[a, b] = iv.mpf(Y[a, b])
            M = iv.eye(nb) - Yi * JX
            K = m_ - Yi * Fm + M * (X - m_)
            if all(K[a].a > X[a].a and K[a].b < X[a].b for a in range(nb)):
                proven = True
                break
            radius *= 1000
        if not proven or K is None:
            return None
        return _enclosure_checks(instance, data, K, B, C, U, Dm, w)
    finally:
        iv.prec, mp.prec = old_iv, old_mp


def _enclosure_checks(instance: Instance, data: _Data, K: Any, B: list[int], C: list[int], U: list[int],
                      Dm: list[list[Any]], w: list[Any]) -> CEEIEnclosure:
    from mpmath import iv

    users, resources = instance.users, instance.resources
    nb = len(B)
    zero = iv.mpf(0)
    checks = [Check("Krawczyk: unique zero of the price equations in the box", True)]
    tasks = [zero] * data.n
    for i in C:
        tasks[i] = iv.mpf(data.k[i].numerator) / data.k[i].denominator
    for i in U:
        L = sum((iv.mpf(Dm[i][a]) * K[a] for a in range(nb)), zero)
        tasks[i] = iv.mpf(w[i]) / L
    prices = [zero] * data.m
    for a, j in enumerate(B):
        prices[j] = K[a]
        checks.append(Check(f"dual feasibility: price of {resources[j]} > 0", bool(K[a].a > 0)))
    for i in U:
        if data.k[i] is not None:
            kk = iv.mpf(data.k[i].numerator) / data.k[i].denominator
            checks.append(Check(f"primal feasibility: {users[i]} strictly within its cap", bool(tasks[i].b < kk)))
    for i in C:
        kk = iv.mpf(data.k[i].numerator) / data.k[i].denominator
        L = sum((iv.mpf(Dm[i][a]) * K[a] for a in range(nb)), zero)
        checks.append(Check(f"dual feasibility: cap multiplier of {users[i]} > 0", bool((iv.mpf(w[i]) / kk - L).a > 0)))
    for j in range(data.m):
        if j in B:
            continue
        used = sum((tasks[i] * (iv.mpf(data.D[i][j].numerator) / data.D[i][j].denominator) for i in range(data.n)),
                   zero)
        cap = iv.mpf(data.R[j].numerator) / data.R[j].denominator
        checks.append(Check(f"primal feasibility: {resources[j]} strictly within capacity (price 0)",
                            bool((cap - used).a > 0)))
    return CEEIEnclosure(resources=instance.resources, users=instance.users, prices=tuple(prices),
                         tasks=tuple(tasks), binding=tuple(B), capped=tuple(C), checks=tuple(checks))


# ---------------------------------------------------------------------------
# the solver
# ---------------------------------------------------------------------------
def within_reach(n_uncapped: int, n_priced: int, max_unknowns: int | None = None) -> bool:
    """Whether the exact path is attempted: by :data:`EXACT_REACH`, or, when
    ``max_unknowns`` is given, when ``n_uncapped + n_priced <= max_unknowns``.

    Examples
    --------
    >>> within_reach(1000, 1), within_reach(20, 2), within_reach(9, 3), within_reach(3, 2, max_unknowns=4)
    (True, True, False, False)
    """
    if max_unknowns is not None:
        return n_uncapped + n_priced <= max_unknowns
    if n_priced <= 1:
        return True
    return n_uncapped <= EXACT_REACH.get(n_priced, EXACT_REACH[max(EXACT_REACH)])


def solve_ceei_exact(policy: Policy, instance: Instance, max_unknowns: int | None = None,
                     numeric: Allocation | None = None) -> Allocation:
    """Exact CEEI allocation with a verified KKT certificate.

    Parameters
    ----------
    policy : Policy
        The CEEI policy (its numeric :meth:`~models.policy.Policy.solve`
        suggests the active set).
    instance : Instance
        The problem.
    max_unknowns : int, optional
        Above this many unknowns (uncapped users + priced resources) the
        Groebner path is skipped and an interval enclosure is returned;
        by default the measured :data:`EXACT_REACH` decides.
    numeric : Allocation, optional
        A numeric solution of ``policy`` on ``instance`` to start from
        (computed when omitted). It only guides the search: whatever it
        says, the result is verified exactly.

    Returns
    -------
    Allocation
        ``exact=True`` with sympy numbers in ``x_exact`` and a
        :class:`KKTCertificate`; or, when exact solving is out of reach,
        ``exact=False`` with a :class:`CEEIEnclosure` as certificate and a
        message saying so.

    Examples
    --------
    >>> from models import Instance, get_policy
    >>> inst = Instance.load("examples/paper_two_users.toml")
    >>> a = solve_ceei_exact(get_policy("ceei"), inst)
    >>> a.x_exact, a.certificate.prices
    ((45/11, 18/11), (1/5, 1/90))
    """
    t0 = time.perf_counter()
    data = _data(instance)
    if numeric is not None:
        num = numeric
        x_num = np.asarray(num.x, dtype=float)
    elif data.live():
        num = policy.solve(instance)
        x_num = np.asarray(num.x, dtype=float)
    else:  # every user is capped at zero: nothing to solve numerically
        num = Allocation(instance=instance, x=np.zeros(instance.n), policy=policy.label)
        x_num = num.x
    first, margins = guess_active_set(instance, x_num)
    names = (instance.users, instance.resources)
    n_unc = len([i for i in data.live() if i not in first.capped])
    reach = within_reach(n_unc, len(first.binding), max_unknowns)
    tried = 0
    if reach:
        for act in neighbour_sets(first, margins):
            tried += 1
            sol = _solve_active_set(data, act, x_num, names)
            if sol is None:
                continue
            f = sol.field
            cert = KKTCertificate(
                resources=instance.resources, users=instance.users,
                prices=tuple(f.to_sympy(v) for v in sol.p), multipliers=tuple(f.to_sympy(v) for v in sol.mu),
                binding=act.binding, capped=tuple(i for i in act.capped if i in data.live()),
                number_field=f.describe(), checks=tuple(sol.checks), active_sets_tried=tried)
            return Allocation(
                instance=instance, x=np.array([f.to_float(v) for v in sol.x]), policy=policy.label, exact=True,
                x_exact=tuple(f.to_sympy(v) for v in sol.x), status=OPTIMAL,
                stats={"solver": "sympy-kkt", "active_sets_tried": tried, "field_degree": f.degree,
                       "seconds": time.perf_counter() - t0},
                certificate=cert)
    reason = (f"exact solving is out of reach for this size ({n_unc} uncapped users, {len(first.binding)} "
              "priced resources)" if not reach else f"no active set among the {tried} tried verified exactly")
    for act in ([first] if not reach else list(neighbour_sets(first, margins))[:tried or 1]):
        enc = enclose(instance, act, x_num)
        if enc is not None and enc.holds:
            mids = enc.midpoints()
            return Allocation(
                instance=instance, x=mids, policy=policy.label, exact=False, status=OPTIMAL,
                message=f"not exact: {reason}; the optimum is enclosed in intervals of width <= "
                        f"{enc.max_width:.1e} (rigorous interval proof, see the certificate)",
                stats={"solver": "mpmath-krawczyk", "active_sets_tried": tried,
                       "seconds": time.perf_counter() - t0},
                certificate=enc)
    return Allocation(
        instance=instance, x=x_num, policy=policy.label, exact=False, status=num.status,
        message=f"not exact: {reason}, and no interval enclosure could be proven; the numbers are floating point",
        stats={**num.stats, "active_sets_tried": tried})


__all__ = ["ActiveSet", "CEEIEnclosure", "KKTCertificate", "RealAlgebraic", "enclose", "estimate_prices",
           "guess_active_set", "neighbour_sets", "solve_ceei_exact", "within_reach", "EXACT_REACH"]
