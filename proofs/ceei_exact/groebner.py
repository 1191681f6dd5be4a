"""The exact solve of one CEEI active set: the KKT equalities as a
polynomial system, solved through a lexicographic Groebner basis in shape
position (every unknown a polynomial in one algebraic number), and every
KKT condition checked in ``Q(alpha)`` (see :mod:`proofs.ceei_exact`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..checks import Check, all_hold
from .active_set import ActiveSet, ExactData
from .algebraic import RealAlgebraic, fraction_of, real_root_intervals


@dataclass
class ExactSolution:
    """A verified KKT point of one active set, in ``Q(alpha)``."""

    field: RealAlgebraic
    x: list[Any]  # elements of Q(alpha) per user
    p: list[Any]  # per resource
    mu: list[Any]  # per user
    checks: list[Check]


def solve_active_set(data: ExactData, act: ActiveSet, x_num: np.ndarray, names: tuple[tuple[str, ...], tuple[str, ...]]
                      ) -> ExactSolution | None:
    """Solve the KKT equalities of ``act`` exactly and verify every KKT
    condition; ``None`` when the active set is not the optimal one."""
    import sympy as sp

    live = data.live()
    C = [i for i in act.capped if i in live and data.k[i] is not None]
    U = [i for i in live if i not in C]
    B = list(act.binding)
    Rp = {j: data.R[j] - sum((data.cap(i) * data.D[i][j] for i in C), Fraction(0)) for j in B}
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
        x[i] = field.element(data.cap(i))
    for i in U:
        x[i] = xs[i]
    p = [zero] * data.m
    for j in B:
        p[j] = ps[j]
    checks = _kkt_checks(data, field, x, p, U, C, B, names)
    mu = [zero] * data.n
    for i in C:
        mu[i] = (field.element(data.w[i] / data.cap(i)) - _dot(field, p, data.D[i])).rem(field.f)
    if not all_hold(checks):
        return None
    return ExactSolution(field=field, x=x, p=p, mu=mu, checks=checks)


def _dot(field: RealAlgebraic, p: Sequence[Any], d: Sequence[Fraction]) -> Any:
    acc = field.element(0)
    for pj, dj in zip(p, d, strict=True):
        if dj:
            acc = acc + pj * field.element(dj)
    return acc.rem(field.f)


def _groebner_solve(data: ExactData, U: list[int], B: list[int], Rp: dict[int, Fraction], x_num: np.ndarray, t: Any
                    ) -> tuple[RealAlgebraic, dict[int, Any], dict[int, Any]] | None:
    """Every unknown as a polynomial in one algebraic number: first from the
    price equations alone, then (if those are not in shape position) from
    the bilinear system in task counts and prices."""
    return _price_system(data, U, B, Rp, x_num, t) or _bilinear_system(data, U, B, Rp, x_num, t)


def _Q(v: Fraction) -> Any:
    import sympy as sp

    return sp.Rational(v.numerator, v.denominator)


def _price_system(data: ExactData, U: list[int], B: list[int], Rp: dict[int, Fraction], x_num: np.ndarray, t: Any
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


def _bilinear_system(data: ExactData, U: list[int], B: list[int], Rp: dict[int, Fraction], x_num: np.ndarray, t: Any
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
                c1, c0 = (fraction_of(c) for c in fac.all_coeffs())
                isolated = [(-c0 / c1, -c0 / c1)]
            else:
                refined = (fac.refine_root(lo, hi, eps=Fraction(1, 10**30)) for lo, hi in real_root_intervals(fac))
                isolated = [(fraction_of(a), fraction_of(b)) for a, b in refined]
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
            c1, c0 = (fraction_of(c) for c in fac.all_coeffs())
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


def _kkt_checks(data: ExactData, field: RealAlgebraic, x: list[Any], p: list[Any], U: list[int], C: list[int],
                B: list[int], names: tuple[tuple[str, ...], tuple[str, ...]]) -> list[Check]:
    users, resources = names
    checks: list[Check] = []
    for i in U:
        resid = (x[i] * _dot(field, p, data.D[i]) - field.element(data.w[i])).rem(field.f)
        checks.append(Check(f"stationarity: {users[i]} spends its budget, x (p . d) = w", field.is_zero(resid)))
        checks.append(Check(f"primal feasibility: {users[i]} has x > 0", field.sign(x[i]) > 0))
        k_i = data.k[i]
        if k_i is not None:
            checks.append(Check(f"primal feasibility: {users[i]} within its cap",
                                field.sign(field.element(k_i) - x[i]) >= 0))
    for i in C:
        mu = (field.element(data.w[i] / data.cap(i)) - _dot(field, p, data.D[i])).rem(field.f)
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

