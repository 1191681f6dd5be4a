"""A small exact LP solver: two-phase simplex in Fractions with Bland's rule.

For the few small LPs of the exact paths (utilitarian: Joe-Wong, Sen, Lan,
Chiang, INFOCOM 2012, Section III). Bland's rule (smallest index enters and
leaves) cannot cycle, so the method terminates; every pivot is exact. sympy's
simplex (``sympy.solvers.simplex``, 1.14) was not used: on some of these LPs
it returned points violating their constraints, depending on symbol order.

Problem: ``max c . v`` s.t. ``A v <= b``, ``A_eq v = b_eq``, ``v >= 0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction


class InfeasibleLP(ArithmeticError):
    """The constraints have no solution."""


class UnboundedLP(ArithmeticError):
    """The objective is unbounded above on the constraints."""


def lp_max(c: Sequence[Fraction], A: Sequence[Sequence[Fraction]], b: Sequence[Fraction],
           A_eq: Sequence[Sequence[Fraction]] = (), b_eq: Sequence[Fraction] = ()
           ) -> tuple[Fraction, list[Fraction]]:
    """The optimum value and an optimal vertex, exactly.

    Examples
    --------
    >>> F = Fraction
    >>> # total tasks on the paper's example: cpu x + 3y <= 9, mem 4x + y <= 18
    >>> lp_max([F(1), F(1)], [[F(1), F(3)], [F(4), F(1)]], [F(9), F(18)])
    (Fraction(63, 11), [Fraction(45, 11), Fraction(18, 11)])

    Raises
    ------
    InfeasibleLP, UnboundedLP
    """
    nv = len(c)
    rows = [list(map(Fraction, r)) for r in A] + [list(map(Fraction, r)) for r in A_eq]
    rhs = [Fraction(v) for v in b] + [Fraction(v) for v in b_eq]
    n_slack = len(A)
    # columns: v (nv), slacks (one per <= row), artificials (one per row)
    T: list[list[Fraction]] = []
    for r, (row, q) in enumerate(zip(rows, rhs, strict=True)):
        slack = [Fraction(int(r == s)) for s in range(n_slack)]
        line = row + slack
        if q < 0:
            line, q = [-a for a in line], -q
        T.append(line + [Fraction(int(r == s)) for s in range(len(rows))] + [q])
    width = nv + n_slack + len(rows)
    basis = [nv + n_slack + r for r in range(len(rows))]
    # phase 1: maximise -(sum of artificials)
    phase1 = [Fraction(0)] * (nv + n_slack) + [Fraction(-1)] * len(rows)
    _simplex(T, basis, phase1, width)
    if any(basis[r] >= nv + n_slack and T[r][-1] != 0 for r in range(len(rows))):
        raise InfeasibleLP("the constraints have no solution")
    for r in range(len(rows)):  # drive zero-level artificials out of the basis
        if basis[r] >= nv + n_slack:
            col = next((j for j in range(nv + n_slack) if T[r][j] != 0), None)
            if col is not None:
                _pivot(T, basis, r, col)
    allowed = nv + n_slack
    _simplex(T, basis, [Fraction(v) for v in c] + [Fraction(0)] * (n_slack + len(rows)), allowed)
    x = [Fraction(0)] * nv
    for r, j in enumerate(basis):
        if j < nv:
            x[j] = T[r][-1]
    return sum((Fraction(ci) * xi for ci, xi in zip(c, x, strict=True)), Fraction(0)), x


def _pivot(T: list[list[Fraction]], basis: list[int], r: int, col: int) -> None:
    piv = T[r][col]
    T[r] = [a / piv for a in T[r]]
    for s in range(len(T)):
        if s != r and T[s][col] != 0:
            f = T[s][col]
            T[s] = [a - f * b for a, b in zip(T[s], T[r], strict=True)]
    basis[r] = col


def _simplex(T: list[list[Fraction]], basis: list[int], c: list[Fraction], allowed: int) -> None:
    """Maximise ``c . v`` over the tableau, entering only columns ``< allowed``
    (Bland's rule)."""
    while True:
        cb = [c[j] for j in basis]
        enter = None
        for j in range(allowed):
            if j in basis:
                continue
            reduced = c[j] - sum((cb[r] * T[r][j] for r in range(len(T))), Fraction(0))
            if reduced > 0:
                enter = j
                break
        if enter is None:
            return
        best: tuple[Fraction, int, int] | None = None
        for r in range(len(T)):
            if T[r][enter] > 0:
                key = (T[r][-1] / T[r][enter], basis[r], r)
                if best is None or key[:2] < best[:2]:
                    best = key
        if best is None:
            raise UnboundedLP("the objective is unbounded")
        _pivot(T, basis, best[2], enter)


__all__ = ["InfeasibleLP", "UnboundedLP", "lp_max"]
