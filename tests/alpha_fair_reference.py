"""An independent high-precision solver of the alpha-fair program, for tests.

Maximise ``sum_i w_i U_beta(u_i x_i / w_i)`` (``U_beta(v) = v^(1-beta)/(1-beta)``)
subject to ``sum_i x_i d_ij <= R_j`` and ``0 <= x_i <= k_i``, the program of
``fds`` (``u_i`` the dominant share of one task) and ``gfj`` (``u_i = 1``);
Joe-Wong, Sen, Lan, Chiang, INFOCOM 2012, Section III.

Nothing here is shared with the library. The Lagrange dual in the prices
``p >= 0`` is convex, with derivative ``R_j - sum_i x_i(p) d_ij`` where
``x_i(p) = min(k_i, (w_i/u_i) (u_i / p.d_i)^(1/beta))`` (the KKT
stationarity condition). For one or two resources the dual is minimised by
nested bisection in mpmath on those derivatives (monotone in one price; the
outer one by the envelope theorem), in log-price space, at 30 digits.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import mpmath

from models import Instance

DIGITS = 30
#: Bisection steps in log-price space: the bracket (width >= 16) shrinks to ~1e-20, so
#: tasks (~ p^(-1/beta)) are known to ~1e-20 relative.
STEPS = 72


def _tasks(p: list, D: list, u: list, w: list, k: list, beta: mpmath.mpf) -> list:
    out = []
    for i in range(len(D)):
        q = mpmath.fsum(pj * dj for pj, dj in zip(p, D[i], strict=True))
        free = mpmath.inf if q == 0 else (w[i] / u[i]) * (u[i] / q) ** (1 / beta)
        out.append(min(free, k[i]))
    return out


def _excess(p: list, j: int, D: list, R: list, u: list, w: list, k: list, beta: mpmath.mpf) -> mpmath.mpf:
    x = _tasks(p, D, u, w, k, beta)
    use = mpmath.fsum(xi * D[i][j] for i, xi in enumerate(x) if D[i][j] != 0)
    return use - R[j]


def _price(excess: Callable[[mpmath.mpf], mpmath.mpf]) -> mpmath.mpf:
    """The price ``p >= 0`` with ``excess(p) <= 0``, equality when ``p > 0``
    (``excess`` is non-increasing in ``p``)."""
    if excess(mpmath.mpf(0)) <= 0:
        return mpmath.mpf(0)
    lo, hi = mpmath.mpf(-8), mpmath.mpf(8)
    while excess(mpmath.exp(lo)) <= 0:
        lo -= 32
    while excess(mpmath.exp(hi)) > 0:
        hi += 32
    for _ in range(STEPS):
        mid = (lo + hi) / 2
        if excess(mpmath.exp(mid)) > 0:
            lo = mid
        else:
            hi = mid
    return mpmath.exp((lo + hi) / 2)


def alpha_fair_reference(instance: Instance, beta: float, unit: str) -> list[float]:
    """Tasks per user of the alpha-fair allocation (``unit``: ``"tasks"`` for
    gfj, ``"dominant"`` for fds), for instances with at most two resources."""
    assert instance.m <= 2, "the reference handles one or two resources"
    with mpmath.workdps(DIGITS):
        def to(v: Fraction) -> mpmath.mpf:
            return mpmath.mpf(v.numerator) / v.denominator

        R = [to(Fraction(v)) for v in instance.capacity_exact]
        D = [[to(Fraction(v)) for v in row] for row in instance.demands_exact]
        w = [to(Fraction(v)) for v in instance.weights_exact]
        k = [mpmath.inf if v is None else to(Fraction(v)) for v in instance.max_tasks_exact]
        u = [mpmath.mpf(1)] * len(D) if unit == "tasks" else [max(d / r for d, r in zip(row, R, strict=True))
                                                              for row in D]
        b = mpmath.mpf(beta)
        if instance.m == 1:
            p = [_price(lambda t: _excess([t], 0, D, R, u, w, k, b))]
        else:
            def inner(t: mpmath.mpf) -> mpmath.mpf:
                return _price(lambda s: _excess([t, s], 1, D, R, u, w, k, b))

            p1 = _price(lambda t: _excess([t, inner(t)], 0, D, R, u, w, k, b))
            p = [p1, inner(p1)]
        return [float(v) for v in _tasks(p, D, u, w, k, b)]
