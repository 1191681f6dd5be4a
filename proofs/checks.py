"""Verified conditions: the building block of every certificate in
:mod:`proofs`.

A certificate is a list of :class:`Check` records, each the outcome of an
exact (or rigorous interval) test, plus plain-words lines. Nothing here is
decided in floating point.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from models import Instance
from models.allocation import exact_str


@dataclass(frozen=True)
class Check:
    """One verified condition.

    Attributes
    ----------
    name : str
        What was checked ("primal feasibility: cpu", ...).
    holds : bool
        The outcome of the exact test.
    detail : str
        The numbers behind it, for people.
    """

    name: str
    holds: bool
    detail: str = ""

    def __str__(self) -> str:
        mark = "ok" if self.holds else "FAILS"
        return f"{self.name}: {mark}" + (f" ({self.detail})" if self.detail else "")


class Verified:
    """Mixin for certificates: a ``checks`` attribute (tuple of
    :class:`Check`) and :attr:`holds`."""

    checks: tuple[Check, ...]

    @property
    def holds(self) -> bool:
        """True when every check holds."""
        return all_hold(self.checks)


def feasibility_checks(instance: Instance, x: Sequence[Fraction],
                       usage: Sequence[Fraction] | None = None) -> list[Check]:
    """Exact feasibility of tasks ``x`` on ``instance``: every resource
    within its capacity (``usage``, when given, is ``sum_i x_i d_ij``) and
    every user within ``[0, cap]`` (Ghodsi et al., NSDI 2011, Section 4)."""
    D, R, k = instance.demands_exact, instance.capacity_exact, instance.max_tasks_exact
    if usage is None:
        usage = [sum((x[i] * D[i][j] for i in range(instance.n)), Fraction(0)) for j in range(instance.m)]
    checks = [Check(f"capacity of {r}", usage[j] <= R[j], f"uses {exact_str(usage[j])} of {exact_str(R[j])}")
              for j, r in enumerate(instance.resources)]
    checks += [Check(f"0 <= tasks of {u} <= cap", x_i >= 0 and (k_i is None or x_i <= k_i), f"tasks {exact_str(x_i)}")
               for u, x_i, k_i in zip(instance.users, x, k, strict=True)]
    return checks


def all_hold(checks: Iterable[Check]) -> bool:
    """True when every check holds."""
    return all(c.holds for c in checks)


def join_names(names: Iterable[str]) -> str:
    """``"A"``, ``"A and B"``, ``"A, B and C"``.

    Examples
    --------
    >>> join_names(["A", "B", "C"])
    'A, B and C'
    """
    items = list(names)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


__all__ = ["Check", "Verified", "all_hold", "join_names"]
