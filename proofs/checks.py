"""Verified conditions: the building block of every certificate in
:mod:`proofs`.

A certificate is a list of :class:`Check` records, each the outcome of an
exact (or rigorous interval) test, plus plain-words lines. Nothing here is
decided in floating point.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


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
