"""A discrete run next to the continuous solution of the same policy.

Ghodsi et al., NSDI 2011: Section 6.2 states Theorem 7 -- under its
assumptions (every demand entry positive, every machine holds a
*max-task*) discrete progressive filling keeps any two users within one
max-task of each other, compared with the continuous allocation.
:func:`compare` gives per-user tasks and dominant shares, the gap in
max-tasks, the Theorem 7 check with its assumptions, utilization, and which
properties survive the rounding to whole tasks: sharing incentive and
envy-freeness (Section 3), checked by :mod:`analyzer.properties` in its
continuous and discrete modes -- on the discrete run shown, with its
settings (:class:`~analyzer.discrete.DiscreteRun`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from models import Allocation, Instance, Policy, PolicyError
from models.allocation import put_exact
from models.discrete import DiscretePolicy, get_discrete_policy

from ..api import as_instance, solve
from ..discrete import DiscreteResult, DiscreteRun, progressive_filling
from ..properties.base import CONTINUOUS, DISCRETE, Violation, get_property

#: The properties :func:`compare` reports, in both settings.
COMPARED_PROPERTIES: tuple[str, ...] = ("sharing-incentive", "envy-freeness")


@dataclass(frozen=True)
class PropertyOutcome:
    """Whether an allocation has a property, with the property check's
    witness when it fails.

    Attributes
    ----------
    name : str
    holds : bool
    witness : str
        The violation's sentence (empty when the property holds).
    violation : Violation or None
        The property check's exactly verified counterexample.
    """

    name: str
    holds: bool
    witness: str = ""
    violation: Violation | None = None

    @classmethod
    def of(cls, name: str, violation: Violation | None) -> PropertyOutcome:
        """The outcome of a property check."""
        if violation is None:
            return cls(name, True)
        return cls(name, False, violation.message, violation)


# ---------------------------------------------------------------------------
# comparison with the continuous solution
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Theorem7:
    """Theorem 7 (Section 6.2), checked on one run.

    Attributes
    ----------
    assumptions : dict
        ``strictly positive demands``, ``every machine holds a max-task``,
        ``no task caps`` (caps make continuous shares differ), and whether
        the run is the proof's construction (``machine-by-machine``, or any
        placement with ``stop``, for which the same argument applies).
    unit : Fraction
        The share of one max-task (the policy's share of the vector of
        largest demands, divided by the smallest weight).
    spread : Fraction
        ``max_i d_i - min_i d_i`` where ``d_i`` is user ``i``'s discrete
        minus continuous share (weighted); users at their cap excluded from
        the minimum.
    """

    assumptions: dict[str, bool]
    unit: Fraction
    spread: Fraction

    @property
    def applies(self) -> bool:
        """All assumptions hold."""
        return all(self.assumptions.values())

    @property
    def ratio(self) -> Fraction:
        """The spread in max-tasks."""
        return self.spread / self.unit

    @property
    def holds(self) -> bool:
        """The spread is at most one max-task."""
        return self.spread <= self.unit


@dataclass(frozen=True, eq=False)
class DiscreteComparison:
    """A discrete run next to the continuous solution of the same policy.

    Attributes
    ----------
    discrete : DiscreteResult
    continuous : Allocation
        Exact (:func:`compare` refuses a continuous side that is not).
    shares_continuous, shares_discrete : tuple of Fraction
        Weighted shares in the policy's own measure (DRF: dominant share /
        weight).
    gap_max_tasks : tuple of Fraction
        Per user, (continuous - discrete share) in max-tasks.
    theorem7 : Theorem7
    properties : list of (str, PropertyOutcome, PropertyOutcome)
        Name, continuous outcome, discrete outcome.
    """

    discrete: DiscreteResult
    continuous: Allocation
    shares_continuous: tuple[Fraction, ...]
    shares_discrete: tuple[Fraction, ...]
    gap_max_tasks: tuple[Fraction, ...]
    theorem7: Theorem7
    properties: list[tuple[str, PropertyOutcome, PropertyOutcome]] = field(default_factory=list)

    @property
    def instance(self) -> Instance:
        """The instance compared."""
        return self.discrete.instance

    def continuous_tasks(self) -> tuple[Any, ...]:
        """Continuous tasks per user (exact)."""
        assert self.continuous.x_exact is not None
        return self.continuous.x_exact

    def dominant_shares(self) -> tuple[tuple[Any, ...], tuple[Fraction, ...]]:
        """(continuous, discrete) dominant shares per user (Section 4)."""
        return self.continuous.dominant_shares_exact, self.discrete.allocation.dominant_shares_exact

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (exact numbers as strings)."""
        inst = self.instance
        ct = self.continuous_tasks()
        cd, dd = self.dominant_shares()
        users = {}
        for i, u in enumerate(inst.users):
            entry: dict[str, Any] = {"discrete_tasks": int(self.discrete.fill.tasks[i])}
            put_exact(entry, "continuous_tasks", ct[i])
            put_exact(entry, "continuous_dominant_share", cd[i])
            put_exact(entry, "discrete_dominant_share", dd[i])
            put_exact(entry, "gap_max_tasks", self.gap_max_tasks[i])
            users[u] = entry
        t7 = self.theorem7
        cont_util = self.continuous.utilization
        util: dict[str, Any] = {}
        for j, r in enumerate(inst.resources):
            util[r] = {"continuous": float(cont_util[j])}
            put_exact(util[r], "discrete", self.discrete.utilization[j])
        theorem: dict[str, Any] = {"assumptions": t7.assumptions, "applies": t7.applies, "holds": t7.holds}
        put_exact(theorem, "unit", t7.unit)
        put_exact(theorem, "spread", t7.spread)
        put_exact(theorem, "spread_max_tasks", t7.ratio)
        return {
            "instance": inst.to_dict(),
            "discrete": self.discrete.to_dict(),
            "continuous_exact": self.continuous.exact,
            "users": users,
            "utilization": util,
            "theorem7": theorem,
            "properties": {name: {"continuous": c.holds, "discrete": d.holds,
                                  **({"continuous_witness": c.witness} if c.witness else {}),
                                  **({"discrete_witness": d.witness} if d.witness else {})}
                           for name, c, d in self.properties},
        }


def _measure(instance: Instance, pol: DiscretePolicy) -> tuple[DiscretePolicy, list[Fraction]]:
    """The linear share measure used for gaps: the policy's own rates when
    it is linear, else DRF's (weighted dominant share)."""
    rates = pol.rates(instance)
    if rates is not None:
        return pol, rates
    drf = get_discrete_policy("drf")
    reason = drf.supports(instance)
    if reason is not None:
        raise PolicyError(f"{pol.label} is compared with continuous drf, which does not apply: {reason} "
                          f"(fairalloc variants runs the discrete policies alone)")
    drf_rates = drf.rates(instance)
    assert drf_rates is not None  # DRF's key is tasks times the dominant share of one task: linear
    return drf, drf_rates


def compare(
    instance: Instance | Mapping[str, Any] | str | Path,
    policy: str | Policy | DiscretePolicy = "drf",
    *,
    properties: bool = True,
    **options: Any,
) -> DiscreteComparison:
    """Discrete progressive filling next to the continuous solution.

    ``options`` go to :func:`progressive_filling`; ``properties=False``
    skips the property checks (:data:`COMPARED_PROPERTIES`, by
    :mod:`analyzer.properties` in continuous and discrete mode). The continuous side is
    :func:`analyzer.solve` of the same policy (exact); a discrete-only
    policy is compared with DRF.

    Examples
    --------
    >>> from analyzer import Instance
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> c = compare(inst, "drf")
    >>> c.theorem7.holds, c.gap_max_tasks
    (True, (Fraction(0, 1), Fraction(0, 1)))
    """
    inst = as_instance(instance)
    pol = get_discrete_policy(policy)
    disc = progressive_filling(inst, pol, **options)
    measure, rates = _measure(inst, pol)
    cont_policy: Any = getattr(measure, "policy", "drf")
    cont = solve(inst, cont_policy, exact=True)
    if not cont.exact or cont.x_exact is None:  # gaps and Theorem 7 are exact: never from floats
        raise PolicyError(f"{cont.policy}: the discrete comparison needs the continuous solution in exact "
                          f"arithmetic, and this one is not exact ({cont.message or 'no exact solver'})")
    xc = cont.x_exact
    xd = tuple(Fraction(int(v)) for v in disc.fill.tasks)
    sc = tuple(x * r for x, r in zip(xc, rates, strict=True))
    sd = tuple(x * r for x, r in zip(xd, rates, strict=True))
    theorem = _theorem7(inst, disc, measure, sc, sd)
    gap = tuple((a - b) / theorem.unit for a, b in zip(sc, sd, strict=True))
    props = _property_rows(inst, cont_policy, DiscreteRun(pol, **options)) if properties else []
    return DiscreteComparison(discrete=disc, continuous=cont, shares_continuous=sc, shares_discrete=sd,
                              gap_max_tasks=gap, theorem7=theorem, properties=props)


def _property_rows(inst: Instance, continuous: str | Policy,
                   run: DiscreteRun) -> list[tuple[str, PropertyOutcome, PropertyOutcome]]:
    """Each of :data:`COMPARED_PROPERTIES` checked on the continuous
    solution and on the discrete run (the property checks' two modes)."""
    rows = []
    for name in COMPARED_PROPERTIES:
        prop = get_property(name)
        rows.append((name, PropertyOutcome.of(name, prop.check(continuous, inst, CONTINUOUS)),
                     PropertyOutcome.of(name, prop.check(run, inst, DISCRETE))))
    return rows


def max_task_share(instance: Instance, measure: DiscretePolicy) -> Fraction:
    """Share of one max-task (Section 6.2: the largest demand of every
    resource) in ``measure``'s units, divided by the smallest weight."""
    maxtask = [max(row[j] for row in instance.demands_exact) for j in range(instance.m)]
    probe = Instance.from_exact(list(instance.capacity_exact), [maxtask], resources=list(instance.resources))
    share = measure.rates(probe)
    assert share is not None
    return share[0] / min(instance.weights_exact)


def _theorem7(inst: Instance, disc: DiscreteResult, measure: DiscretePolicy,
              sc: tuple[Fraction, ...], sd: tuple[Fraction, ...]) -> Theorem7:
    f = disc.fill
    maxtask = f.data.max_task
    assumptions = {
        "strictly positive demands": inst.strictly_positive,
        "every machine holds a max-task": bool(np.all(np.all(f.data.machines >= maxtask, axis=1))),
        "no task caps": not inst.capped,
        "lowest share first, stop or machine by machine": f.on_full == "stop" or f.placement == "machine-by-machine",
    }
    unit = max_task_share(inst, measure)
    dev = [a - b for a, b in zip(sd, sc, strict=True)]
    open_users = disc.pending
    spread = Fraction(0)
    if open_users and inst.n > 1:
        spread = max(Fraction(0), max(dev) - min(dev[i] for i in open_users))
    return Theorem7(assumptions=assumptions, unit=unit, spread=spread)


__all__ = ["COMPARED_PROPERTIES", "DiscreteComparison", "PropertyOutcome", "Theorem7", "compare", "max_task_share"]
