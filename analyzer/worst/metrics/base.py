"""The metric interface of the worst-case search: a number per (policy,
instance), with the direction in which it is bad.

A metric is measured twice: :meth:`Metric.evaluate` in floats, fast, for
the optimiser (``nan`` or ``inf`` are allowed and mean "no information"),
and :meth:`Metric.measure` in exact arithmetic (Fractions, or sympy numbers
for CEEI's algebraic answers) whenever the policy has an exact solver: the
value a result reports is always the exact one when it exists.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from models import Allocation, Instance, Policy
from models.registry import Registry
from models.tolerances import WORST_SHRINK_RTOL

if TYPE_CHECKING:
    from ..space import Space, Start

#: Directions: the worst value is the smallest or the largest.
MIN = "min"
MAX = "max"


@dataclass
class Measure:
    """One metric value on one instance.

    Attributes
    ----------
    value : Fraction, sympy number or float
        The metric (exact when ``exact``).
    exact : bool
        True when computed from exact allocations.
    allocation : Allocation
        The policy's allocation of the instance.
    detail : dict
        What attains the value (a user, a report, a pair of users...), as
        JSON-ready strings.
    """

    value: Any
    exact: bool
    allocation: Allocation
    detail: dict[str, Any] = field(default_factory=dict)


class Metric(ABC):
    """A quantitative fairness or efficiency measure.

    Subclasses set :attr:`name`, :attr:`direction`, :attr:`summary` and
    :attr:`source`, and define :meth:`evaluate` and :meth:`measure`.
    """

    name: ClassVar[str]
    #: ``"min"`` when small values are bad, ``"max"`` when large ones are.
    direction: ClassVar[str]
    summary: ClassVar[str] = ""
    source: ClassVar[str] = ""
    #: Metric evaluations of a search when no budget is given (a metric
    #: that solves many instances per evaluation asks for fewer).
    default_budget: ClassVar[int] = 2000
    #: The value a policy meeting the matching property attains (1 for the
    #: ratios), shown next to the worst value.
    ideal: ClassVar[float] = 1.0
    #: How far (relative) a certificate's value may be from the optimiser's,
    #: either way (:mod:`analyzer.worst.certify`).
    shrink_rtol: ClassVar[float] = WORST_SHRINK_RTOL
    #: The settings the metric is defined in (``"dynamic"``: users arrive in
    #: row order; :func:`~analyzer.worst.core.worst_case`'s ``mode``).
    modes: ClassVar[tuple[str, ...]] = ("continuous",)

    @abstractmethod
    def evaluate(self, policy: Policy, instance: Instance) -> float:
        """The metric in floats (``nan`` when undefined)."""

    @abstractmethod
    def measure(self, policy: Policy, instance: Instance) -> Measure:
        """The metric, exactly when the policy solves exactly."""

    def measure_witness(self, policy: Policy, instance: Instance, witness: dict[str, Any]) -> Measure:
        """The metric on an instance the SMT prover built, exactly, with the
        deviation it found (``witness``: e.g. a lie) taken into account."""
        return self.measure(policy, instance)

    def starts(self, space: Space, rng: np.random.Generator) -> Iterator[Start]:
        """Starting points shaped like the metric's known extremal
        instances, tried before the generic ones (none by default)."""
        return iter(())

    def refuse(self, users: int, resources: int) -> str | None:
        """Why the search cannot solve this size (``None``: it can); beyond
        the search's own cell limit, for a metric whose evaluation grows
        faster than the instance."""
        return None

    def worse(self, a: float, b: float) -> bool:
        """True when ``a`` is strictly worse than ``b``."""
        return a < b if self.direction == MIN else a > b

    def loss(self, value: float) -> float:
        """What the optimiser minimises: ``value`` for ``"min"``, ``-value``
        for ``"max"``; ``inf`` when ``value`` is not a number."""
        if value != value:  # nan
            return float("inf")
        return value if self.direction == MIN else -value

    def __repr__(self) -> str:
        return f"<metric {self.name} (worst = {self.direction})>"


#: Metrics by name; the built-ins are the public modules of this package.
METRICS: Registry[Metric] = Registry("metric", lazy=("analyzer.worst.metrics",))


def register_metric(cls: type[Metric]) -> type[Metric]:
    """Class decorator: register one instance of ``cls`` under ``cls.name``."""
    METRICS.register(cls.name, cls())
    return cls


def get_metric(name: str | Metric) -> Metric:
    """The metric called ``name`` (a :class:`~models.registry.UnknownNameError`
    naming the closest one otherwise)."""
    return name if isinstance(name, Metric) else METRICS.get(name)


def numeric_solve(policy: Policy, instance: Instance) -> np.ndarray:
    """The policy's task counts in floats."""
    return np.asarray(policy.solve(instance).x, dtype=float)


def exact_solve(policy: Policy, instance: Instance) -> Allocation:
    """The allocation, exact when the policy has an exact path (floats with
    ``exact=False`` otherwise)."""
    from ...api import solve

    return solve(instance, policy, exact=True)


def tasks_of(alloc: Allocation) -> list[Any]:
    """Task counts, exact numbers when the allocation is exact."""
    if alloc.exact and alloc.x_exact is not None:
        return list(alloc.x_exact)
    return [float(v) for v in alloc.x]


def demands_of(instance: Instance, exact: bool) -> tuple[list[list[Any]], list[Any]]:
    """Demands and capacities as Fractions (``exact``) or floats."""
    if exact:
        return [list(r) for r in instance.demands_exact], list(instance.capacity_exact)
    return [[float(v) for v in r] for r in instance.demands], [float(v) for v in instance.capacity]


def ratio(num: Any, den: Any) -> Any:
    """``num / den`` (``inf`` for a positive number over 0, 1 for 0 / 0:
    nothing compared with nothing is neither gain nor loss)."""
    if den == 0:
        return Fraction(1) if num == 0 else float("inf")
    if isinstance(num, Fraction) and isinstance(den, Fraction):
        return num / den
    if isinstance(num, float) or isinstance(den, float):
        return float(num) / float(den)
    import sympy

    value = sympy.simplify(sympy.sympify(num) / sympy.sympify(den))
    return Fraction(int(value.p), int(value.q)) if value.is_Rational else value
