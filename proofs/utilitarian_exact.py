"""Exact utilitarian allocation: the LPs in rational arithmetic.

The ``utilitarian`` policy (:mod:`models.policies.utilitarian`; Joe-Wong,
Sen, Lan, Chiang, INFOCOM 2012, Section III, ``beta = 0``) maximises the
total number of tasks and breaks ties by leximin on ``x_i / w_i`` among the
maximisers. Here every LP is solved by a rational simplex
(:func:`proofs.rational_lp.lp_max`), so the answer is exact:

1. ``T = max sum_i x_i`` under the capacities and caps; its dual
   (``min R . p + k . nu`` s.t. ``D p + nu >= 1``) is solved too and its
   value must equal ``T`` (LP duality: both are optimal);
2. leximin on the face ``sum_i x_i = T``: stage ``s`` maximises the common
   level ``t`` of the active users (frozen users fixed at their levels);
   then each active user's own maximum with the others kept at ``>= t`` is
   computed, and the users who cannot exceed ``t`` freeze (at least one
   does).

Every claim is an exact LP optimum, checked into the certificate.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from models import Allocation, Instance, Policy
from models.allocation import OPTIMAL, exact_str

from .checks import Check, Verified, feasibility_checks, join_names
from .rational_lp import lp_max


@dataclass(frozen=True)
class UtilitarianCertificate(Verified):
    """The exact LP facts behind a utilitarian allocation.

    Attributes
    ----------
    total : Fraction
        The maximum total tasks (primal optimum = dual optimum).
    stages : tuple of (Fraction, tuple of str)
        The tie-break's levels ``x_i / w_i`` and the users frozen at each.
    checks : tuple of Check
        Feasibility, LP duality of the total, and the stage structure.
    """

    total: Fraction
    stages: tuple[tuple[Fraction, tuple[str, ...]], ...]
    checks: tuple[Check, ...]

    def explain(self) -> list[str]:
        """The total, the tie-break stages and the verdict."""
        lines = [f"maximum total tasks {exact_str(self.total)} (rational simplex; the dual LP has the same value)"]
        for s, (level, users) in enumerate(self.stages, start=1):
            verb = "stops" if len(users) == 1 else "stop"
            lines.append(f"tie-break stage {s}: {join_names(users)} {verb} at tasks/weight {exact_str(level)} "
                         "(none can rise without another falling below it or the total dropping)")
        ok = sum(c.holds for c in self.checks)
        lines.append(f"exact check: {ok}/{len(self.checks)} conditions hold -> "
                     + ("optimal (LP optima verified in rationals)" if self.holds else "NOT verified"))
        return lines


def _lp_max(c: list[Fraction], A: list[list[Fraction]], b: list[Fraction], A_eq: list[list[Fraction]],
            b_eq: list[Fraction]) -> tuple[Fraction, list[Fraction]]:
    """``max c . v`` s.t. ``A v <= b``, ``A_eq v = b_eq``, ``v >= 0``, exactly
    (:func:`proofs.rational_lp.lp_max`), the point checked against every
    constraint in Fractions.

    Raises
    ------
    ArithmeticError
        When the point violates a constraint (never expected).
    """
    value, x = lp_max(c, A, b, A_eq, b_eq)

    def dot(row: list[Fraction]) -> Fraction:
        return sum((a * xi for a, xi in zip(row, x, strict=True)), Fraction(0))

    ok = (all(dot(r) <= q for r, q in zip(A, b, strict=True)) and all(xi >= 0 for xi in x)
          and all(dot(r) == q for r, q in zip(A_eq, b_eq, strict=True)))
    if not ok:
        raise ArithmeticError("the rational simplex returned a point violating its constraints")
    return value, x


class _Problem:
    """Feasibility rows of one instance over ``v = (x_1..x_n, t)``."""

    def __init__(self, instance: Instance) -> None:
        self.n, self.m = instance.n, instance.m
        self.D = [[Fraction(v) for v in row] for row in instance.demands_exact]
        self.R = [Fraction(v) for v in instance.capacity_exact]
        self.w = [Fraction(v) for v in instance.weights_exact]
        self.k = [None if v is None else Fraction(v) for v in instance.max_tasks_exact]

    def rows(self, with_t: bool) -> tuple[list[list[Fraction]], list[Fraction]]:
        """Capacities and caps as ``A v <= b``."""
        z = [Fraction(0)] if with_t else []
        A = [[self.D[i][j] for i in range(self.n)] + z for j in range(self.m)]
        b = list(self.R)
        for i, ki in enumerate(self.k):
            if ki is not None:
                A.append([Fraction(int(q == i)) for q in range(self.n)] + z)
                b.append(ki)
        return A, b


def solve_utilitarian_exact(policy: Policy, instance: Instance) -> Allocation:
    """Exact utilitarian allocation with its LP certificate (module docstring).

    Examples
    --------
    >>> from models import Instance, get_policy
    >>> inst = Instance.load("examples/paper_two_users.toml")
    >>> a = solve_utilitarian_exact(get_policy("utilitarian"), inst)
    >>> a.x_exact, a.certificate.holds
    ((Fraction(45, 11), Fraction(18, 11)), True)
    """
    t0 = time.perf_counter()
    P = _Problem(instance)
    n = P.n
    A, b = P.rows(with_t=False)
    total, _ = _lp_max([Fraction(1)] * n, A, b, [], [])
    checks = [_duality_check(P, total)]
    At, bt = P.rows(with_t=True)
    face = [[Fraction(1)] * n + [Fraction(0)]]
    face_b = [total]
    level: dict[int, Fraction] = {}
    stages: list[tuple[Fraction, tuple[str, ...]]] = []
    while len(level) < n:
        active = [i for i in range(n) if i not in level]
        eq = face + [[Fraction(int(q == i)) for q in range(n)] + [Fraction(0)] for i in level]
        eq_b = face_b + [level[i] * P.w[i] for i in level]
        # x_a / w_a >= t  <=>  t w_a - x_a <= 0
        rise = [[-Fraction(int(q == a)) for q in range(n)] + [P.w[a]] for a in active]
        t, _ = _lp_max([Fraction(0)] * n + [Fraction(1)], At + rise, bt + [Fraction(0)] * len(active), eq, eq_b)
        floor = [[-Fraction(int(q == a)) for q in range(n)] + [Fraction(0)] for a in active]
        floor_b = [-t * P.w[a] for a in active]
        stuck = []
        for a in active:
            best, _ = _lp_max([Fraction(int(q == a)) / P.w[a] for q in range(n)] + [Fraction(0)],
                              At + floor, bt + floor_b, eq, eq_b)
            if best == t:
                stuck.append(a)
        checks.append(Check(f"tie-break stage {len(stages) + 1}: some user cannot rise above "
                            f"{exact_str(t)}", bool(stuck)))
        if not stuck:
            break
        for a in stuck:
            level[a] = t
        stages.append((t, tuple(instance.users[a] for a in stuck)))
    x = [level.get(i, Fraction(0)) * P.w[i] for i in range(n)]
    checks += _feasibility_checks(instance, x, total)
    cert = UtilitarianCertificate(total=total, stages=tuple(stages), checks=tuple(checks))
    return Allocation(instance=instance, x=np.array([float(v) for v in x]), policy=policy.label, exact=True,
                      x_exact=tuple(x), status=OPTIMAL, certificate=cert,
                      stats={"solver": "rational-simplex", "stages": len(stages),
                             "seconds": time.perf_counter() - t0})


def _duality_check(P: _Problem, total: Fraction) -> Check:
    """The dual of the total-tasks LP, solved exactly, has value ``total``."""
    capped = [i for i in range(P.n) if P.k[i] is not None]
    # min R.p + k.nu  s.t.  D p + nu >= 1  <=>  max -(R.p + k.nu)  s.t.  -(D p + nu) <= -1
    c = [-r for r in P.R] + [-k for k in P.k if k is not None]  # the caps in the order of ``capped``
    A = [[-P.D[i][j] for j in range(P.m)] + [-Fraction(int(i == q)) for q in capped] for i in range(P.n)]
    value, _ = _lp_max(c, A, [Fraction(-1)] * P.n, [], [])
    return Check("LP duality: the dual of the total-tasks LP has the same value", -value == total,
                 f"primal {exact_str(total)}, dual {exact_str(-value)}")


def _feasibility_checks(instance: Instance, x: list[Fraction], total: Fraction) -> list[Check]:
    return feasibility_checks(instance, x) + [Check("the total is the maximum", sum(x, Fraction(0)) == total)]


__all__ = ["UtilitarianCertificate", "solve_utilitarian_exact"]
