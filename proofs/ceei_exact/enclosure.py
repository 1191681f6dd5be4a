"""The interval enclosure of the CEEI optimum when exact solving is out of
reach: a Krawczyk interval-Newton test (``mpmath.iv``) proves the price
equations have one root in a small box, and every KKT inequality is checked
on the whole box (see :mod:`proofs.ceei_exact`)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance
from models.tolerances import ENCLOSURE_START_RADIUS

from ..checks import Check, Verified
from .active_set import ActiveSet, ExactData, estimate_prices, exact_data

#: Bits of precision of the interval arithmetic of the enclosure.
ENCLOSURE_PRECISION_BITS: int = 200


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



@dataclass(frozen=True)
class _PriceEquations:
    """``F_a(p) = sum_{i uncapped} w_i d_ia / (p . d_i) - R'_a`` over the
    binding resources ``a`` and its Jacobian, in a given mpmath context
    (``mp`` for the Newton polish, ``iv`` for the Krawczyk test). The data
    are kept exact and converted in the context (:func:`_num`): in ``iv``
    an interval holding the rational, so the test is about the exact
    equations, not about ones rounded to the working precision."""

    Dm: list[list[Fraction]]  # demands on the binding resources, per user
    w: list[Fraction]
    Rp: list[Fraction]  # capacities left by the capped users
    U: list[int]

    def _loads(self, pv: Any, ctx: Any) -> dict[int, Any]:
        return {i: sum((_num(ctx, self.Dm[i][a]) * pv[a] for a in range(len(self.Rp))), ctx.mpf(0)) for i in self.U}

    def F(self, pv: Any, ctx: Any) -> list[Any]:
        L = self._loads(pv, ctx)
        return [sum((_num(ctx, self.w[i]) * _num(ctx, self.Dm[i][a]) / L[i] for i in self.U), ctx.mpf(0))
                - _num(ctx, self.Rp[a]) for a in range(len(self.Rp))]

    def J(self, pv: Any, ctx: Any) -> Any:
        L, nb = self._loads(pv, ctx), len(self.Rp)
        Jm = ctx.matrix(nb, nb)
        for a in range(nb):
            for b in range(nb):
                Jm[a, b] = -sum((_num(ctx, self.w[i]) * _num(ctx, self.Dm[i][a]) * _num(ctx, self.Dm[i][b])
                                 / (L[i] * L[i]) for i in self.U), ctx.mpf(0))
        return Jm


def _num(ctx: Any, v: Fraction) -> Any:
    """``v`` in the mpmath context ``ctx`` (``iv``: an interval holding it)."""
    return ctx.mpf(v.numerator) / v.denominator


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

    data = exact_data(instance)
    live = data.live()
    C = [i for i in act.capped if i in live]
    U = [i for i in live if i not in C]
    B = list(act.binding)
    if not U or not B or any(all(data.D[i][j] == 0 for j in B) for i in U):
        return None
    old_iv, old_mp = iv.prec, mp.prec
    iv.prec = mp.prec = ENCLOSURE_PRECISION_BITS
    try:
        left = (data.R[j] - sum((data.cap(i) * data.D[i][j] for i in C), Fraction(0)) for j in B)
        eq = _PriceEquations(Dm=[[data.D[i][j] for j in B] for i in range(data.n)],
                             w=list(data.w), Rp=list(left), U=U)
        p = _newton_polish(eq, estimate_prices(instance, x_num, C, B)[B])
        K = None if p is None else _krawczyk(eq, p)
        return None if K is None else _enclosure_checks(instance, data, K, B, C, U, eq.Dm, eq.w)
    finally:
        iv.prec, mp.prec = old_iv, old_mp


def _newton_polish(eq: _PriceEquations, p0: np.ndarray) -> Any:
    """Newton's method on the price equations from ``p0`` in high precision;
    ``None`` when it breaks down or leaves the positive prices."""
    from mpmath import mp

    p = mp.matrix([mp.mpf(float(v)) for v in p0])
    for _ in range(60):
        try:
            step = mp.lu_solve(eq.J(p, mp), mp.matrix(eq.F(p, mp)))
        except ZeroDivisionError:
            return None
        p = p - step
        if mp.norm(step) <= mp.norm(p) * mp.mpf(2) ** (-ENCLOSURE_PRECISION_BITS + 20):
            break
    return None if any(v <= 0 for v in p) else p


def _krawczyk(eq: _PriceEquations, p: Any) -> Any:
    """A box of prices proven to hold the only zero of the price equations
    (the Krawczyk operator maps a box around ``p`` into its interior), or
    ``None`` when no box up to ``1000**11`` times the starting radius does."""
    from mpmath import iv, mp

    nb = len(p)
    Y = mp.inverse(eq.J(p, mp))
    Yi = iv.matrix(nb, nb)
    for a in range(nb):
        for b in range(nb):
            Yi[a, b] = iv.mpf(Y[a, b])
    m_ = iv.matrix([iv.mpf(p[a]) for a in range(nb)])
    Fm = iv.matrix(eq.F(m_, iv))
    radius = mp.mpf(ENCLOSURE_START_RADIUS)
    for _ in range(12):
        X = iv.matrix([iv.mpf([p[a] * (1 - radius), p[a] * (1 + radius)]) for a in range(nb)])
        K = m_ - Yi * Fm + (iv.eye(nb) - Yi * eq.J(X, iv)) * (X - m_)
        if all(K[a].a > X[a].a and K[a].b < X[a].b for a in range(nb)):
            return K
        radius *= 1000
    return None


def _enclosure_checks(instance: Instance, data: ExactData, K: Any, B: list[int], C: list[int], U: list[int],
                      Dm: list[list[Fraction]], w: list[Fraction]) -> CEEIEnclosure:
    from mpmath import iv

    users, resources = instance.users, instance.resources
    nb = len(B)
    zero = iv.mpf(0)
    checks = [Check("Krawczyk: unique zero of the price equations in the box", True)]
    tasks = [zero] * data.n
    for i in C:
        tasks[i] = _num(iv, data.cap(i))
    for i in U:
        L = sum((_num(iv, Dm[i][a]) * K[a] for a in range(nb)), zero)
        tasks[i] = _num(iv, w[i]) / L
    prices = [zero] * data.m
    for a, j in enumerate(B):
        prices[j] = K[a]
        checks.append(Check(f"dual feasibility: price of {resources[j]} > 0", bool(K[a].a > 0)))
    for i in U:
        k_i = data.k[i]
        if k_i is not None:
            kk = _num(iv, k_i)
            checks.append(Check(f"primal feasibility: {users[i]} strictly within its cap", bool(tasks[i].b < kk)))
    for i in C:
        kk = _num(iv, data.cap(i))
        L = sum((_num(iv, Dm[i][a]) * K[a] for a in range(nb)), zero)
        checks.append(Check(f"dual feasibility: cap multiplier of {users[i]} > 0",
                            bool((_num(iv, w[i]) / kk - L).a > 0)))
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

