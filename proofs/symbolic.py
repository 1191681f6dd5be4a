"""Symbolic derivations with sympy.

1. The three programs of the paper's two-user example (Ghodsi et al., NSDI
   2011, Sections 4.1, 5.1 and 5.2: 9 CPUs, 18 GB; A runs <1 CPU, 4 GB>
   tasks, B runs <3 CPU, 1 GB>) written as programs over symbols ``x``
   (A's tasks) and ``y`` (B's tasks) and solved symbolically: DRF and asset
   fairness (equal dominant resp. aggregate shares, as large as the
   capacities allow) and CEEI (maximise ``x * y``, by its KKT conditions).
   Each is solved by enumerating which capacity constraints bind, solving
   the resulting equalities exactly and keeping the case whose conditions
   all hold (for CEEI: the Lagrange multipliers are non-negative).
2. The two-user, two-resource DRF allocation in closed form as a function
   of the capacities ``R1, R2`` and the demands ``a1, a2`` (user A) and
   ``b1, b2`` (user B), all positive: a case split on each user's dominant
   resource and on the resource that saturates (Section 4.2: with strictly
   positive demands both users freeze when the first resource saturates).

sympy is imported inside the functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

from models.numbers import to_fraction

#: The paper's running example (Section 4.1): capacities and demands.
PAPER_CAPACITY: tuple[int, int] = (9, 18)
PAPER_DEMANDS: tuple[tuple[int, int], tuple[int, int]] = ((1, 4), (3, 1))


@dataclass(frozen=True)
class Derivation:
    """A program of the two-user example and its symbolic solution.

    Attributes
    ----------
    policy : str
        ``"drf"``, ``"asset"`` or ``"ceei"``.
    program : str
        The program, written with sympy expressions.
    solution : dict
        ``{"A": tasks, "B": tasks}`` as sympy numbers.
    binding : tuple of str
        The capacity constraints that bind at the solution.
    extra : dict
        Other derived quantities (shares, prices).
    """

    policy: str
    program: str
    solution: dict[str, Any]
    binding: tuple[str, ...]
    extra: dict[str, Any]


def _paper_symbols() -> tuple[Any, Any, list[Any], list[str]]:
    import sympy as sp

    x, y = sp.symbols("x y", nonnegative=True)
    (c1, c2), ((a1, a2), (b1, b2)) = PAPER_CAPACITY, PAPER_DEMANDS
    caps = [a1 * x + b1 * y - c1, a2 * x + b2 * y - c2]  # <= 0
    return x, y, caps, ["cpu", "mem"]


def _equal_share_program(policy: str, share: Any) -> Derivation:
    """max-min of per-user shares ``share(x, y) -> (s_A, s_B)`` for two
    users: equal shares, raised until a capacity binds."""
    import sympy as sp

    x, y, caps, names = _paper_symbols()
    sA, sB = share(x, y)
    for g in caps:
        sol = sp.solve([sp.Eq(sA, sB), sp.Eq(g, 0)], [x, y], dict=True)
        if len(sol) != 1:
            continue
        s = sol[0]
        if all(sp.simplify(h.subs(s)) <= 0 for h in caps) and s[x] >= 0 and s[y] >= 0:
            binding = tuple(names[k] for k, h in enumerate(caps) if sp.simplify(h.subs(s)) == 0)
            return Derivation(policy=policy, program=f"max t s.t. {sA} = {sB} = t, {caps[0]} <= 0, {caps[1]} <= 0",
                              solution={"A": s[x], "B": s[y]}, binding=binding,
                              extra={"share": sp.nsimplify(sA.subs(s))})
    raise ArithmeticError(f"{policy}: no binding constraint gives a feasible solution")  # pragma: no cover


def paper_drf() -> Derivation:
    """DRF on the paper's example (Section 4.1): equal dominant shares.

    Examples
    --------
    >>> d = paper_drf()
    >>> d.solution, d.extra["share"], d.binding
    ({'A': 3, 'B': 2}, 2/3, ('cpu',))
    """
    (c1, c2), ((a1, a2), (b1, b2)) = PAPER_CAPACITY, PAPER_DEMANDS
    import sympy as sp

    def dominant(x: Any, y: Any) -> tuple[Any, Any]:
        sa = max(sp.Rational(a1, c1), sp.Rational(a2, c2))
        sb = max(sp.Rational(b1, c1), sp.Rational(b2, c2))
        return sa * x, sb * y

    return _equal_share_program("drf", dominant)


def paper_asset() -> Derivation:
    """Asset fairness on the paper's example (Section 5.1): equal aggregate
    shares.

    Examples
    --------
    >>> d = paper_asset()
    >>> d.solution, d.extra["share"]
    ({'A': 63/25, 'B': 54/25}, 21/25)
    """
    (c1, c2), ((a1, a2), (b1, b2)) = PAPER_CAPACITY, PAPER_DEMANDS
    import sympy as sp

    def aggregate(x: Any, y: Any) -> tuple[Any, Any]:
        return (sp.Rational(a1, c1) + sp.Rational(a2, c2)) * x, (sp.Rational(b1, c1) + sp.Rational(b2, c2)) * y

    return _equal_share_program("asset", aggregate)


def paper_ceei() -> Derivation:
    """CEEI on the paper's example (Section 5.2): maximise ``x * y`` by its
    KKT conditions, ``1/x = p . d_A``, ``1/y = p . d_B``, over every choice
    of binding constraints; the case with ``p >= 0`` and feasibility wins.

    Examples
    --------
    >>> d = paper_ceei()
    >>> d.solution, d.extra["prices"]
    ({'A': 45/11, 'B': 18/11}, {'cpu': 1/5, 'mem': 1/90})
    """
    import sympy as sp

    x, y, caps, names = _paper_symbols()
    p = sp.symbols("p_cpu p_mem")
    (_, _), ((a1, a2), (b1, b2)) = PAPER_CAPACITY, PAPER_DEMANDS
    for active in product([True, False], repeat=2):
        prices = [p[j] if active[j] else 0 for j in range(2)]
        eqs = [sp.Eq(x * (prices[0] * a1 + prices[1] * a2), 1), sp.Eq(y * (prices[0] * b1 + prices[1] * b2), 1)]
        eqs += [sp.Eq(caps[j], 0) for j in range(2) if active[j]]
        unknowns = [x, y] + [p[j] for j in range(2) if active[j]]
        for s in sp.solve(eqs, unknowns, dict=True):
            vals = {v: s.get(v, v) for v in unknowns}
            if any(not vals[v].is_number for v in unknowns):
                continue
            ok = all(vals[p[j]] > 0 for j in range(2) if active[j]) and vals[x] > 0 and vals[y] > 0
            ok = ok and all(h.subs(vals) <= 0 for h in caps)
            if ok:
                return Derivation(
                    policy="ceei", program=f"max log x + log y s.t. {caps[0]} <= 0, {caps[1]} <= 0",
                    solution={"A": vals[x], "B": vals[y]},
                    binding=tuple(names[j] for j in range(2) if active[j]),
                    extra={"prices": {names[j]: (vals[p[j]] if active[j] else sp.Integer(0)) for j in range(2)}})
    raise ArithmeticError("ceei: no KKT point found")  # pragma: no cover


def paper_programs() -> dict[str, Derivation]:
    """The three derivations of the paper's example, by policy name."""
    return {"drf": paper_drf(), "asset": paper_asset(), "ceei": paper_ceei()}


# ---------------------------------------------------------------------------
# two users, two resources: DRF in closed form
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ClosedFormCase:
    """One branch of the closed form: when ``condition`` holds, A runs
    ``x_A`` tasks and B runs ``x_B``."""

    dominant_a: int
    dominant_b: int
    saturates: int
    condition: Any
    x_a: Any
    x_b: Any


@dataclass(frozen=True)
class DRFClosedForm:
    """DRF for two users and two resources as a function of the parameters.

    Attributes
    ----------
    symbols : dict
        ``R1, R2, a1, a2, b1, b2`` (positive sympy symbols).
    cases : tuple of ClosedFormCase
        Eight branches: A's dominant resource, B's dominant resource and the
        resource that saturates first.
    x_a, x_b : sympy expressions
        The same allocation as single expressions with ``Min``/``Max``.
    """

    symbols: dict[str, Any]
    cases: tuple[ClosedFormCase, ...]
    x_a: Any
    x_b: Any

    def evaluate(self, capacity: tuple[Any, Any], a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Fraction, Fraction]:
        """Exact ``(x_A, x_B)`` for given numbers (read as Fractions), from
        the branch whose condition holds (branches agree on their
        boundaries)."""
        import sympy as sp

        s = self.symbols
        args = [to_fraction(v) for v in (*capacity, *a, *b)]
        vals = {s[k]: sp.Rational(v.numerator, v.denominator)
                for k, v in zip(("R1", "R2", "a1", "a2", "b1", "b2"), args, strict=True)}
        for case in self.cases:
            if bool(case.condition.xreplace(vals)):
                xa, xb = case.x_a.xreplace(vals), case.x_b.xreplace(vals)
                return Fraction(int(xa.p), int(xa.q)), Fraction(int(xb.p), int(xb.q))
        raise ArithmeticError("no branch of the closed form applies")  # pragma: no cover


def drf_two_by_two() -> DRFClosedForm:
    """Derive the closed form of DRF for two users on two resources.

    With dominant shares per task ``s_A = max(a1/R1, a2/R2)`` and ``s_B``
    likewise, progressive filling gives ``x_A = t / s_A``, ``x_B = t / s_B``;
    resource ``j`` fills at ``t_j = R_j / (a_j / s_A + b_j / s_B)``, the
    level stops at ``min(t_1, t_2)`` and, demands being positive, both users
    stop there. Hence ``x_A = min_j R_j / (a_j + b_j s_A / s_B)``.

    Examples
    --------
    >>> cf = drf_two_by_two()
    >>> cf.evaluate((9, 18), (1, 4), (3, 1))
    (Fraction(3, 1), Fraction(2, 1))
    >>> len(cf.cases)
    8
    """
    import sympy as sp

    R1, R2, a1, a2, b1, b2 = sp.symbols("R1 R2 a1 a2 b1 b2", positive=True)
    R, a, b = (R1, R2), (a1, a2), (b1, b2)
    cases = []
    for da, db, sat in product((0, 1), repeat=3):
        other = 1 - sat
        sA, sB = a[da] / R[da], b[db] / R[db]
        t = [R[j] / (a[j] / sA + b[j] / sB) for j in (0, 1)]
        cond = sp.And(
            a[da] / R[da] >= a[1 - da] / R[1 - da],
            b[db] / R[db] >= b[1 - db] / R[1 - db],
            R[other] * (a[sat] / sA + b[sat] / sB) >= R[sat] * (a[other] / sA + b[other] / sB),
        )
        cases.append(ClosedFormCase(dominant_a=da + 1, dominant_b=db + 1, saturates=sat + 1, condition=cond,
                                    x_a=sp.simplify(t[sat] / sA), x_b=sp.simplify(t[sat] / sB)))
    sA = sp.Max(a1 / R1, a2 / R2)
    sB = sp.Max(b1 / R1, b2 / R2)
    x_a = sp.Min(*[R[j] / (a[j] + b[j] * sA / sB) for j in (0, 1)])
    x_b = x_a * sA / sB
    return DRFClosedForm(symbols={"R1": R1, "R2": R2, "a1": a1, "a2": a2, "b1": b1, "b2": b2},
                         cases=tuple(cases), x_a=x_a, x_b=x_b)


__all__ = ["ClosedFormCase", "DRFClosedForm", "Derivation", "drf_two_by_two", "paper_asset", "paper_ceei",
           "paper_drf", "paper_programs"]
