"""Discrete progressive filling and its distance from the continuous optimum.

Ghodsi et al., NSDI 2011: Algorithm 1 (Section 4.2) hands out whole tasks,
always to the user with the lowest (weighted) share; Section 6.2 places them
on machines and states Theorem 7: under its assumptions (every demand entry
positive, every machine holds a *max-task*) the discrete allocation keeps
any two users within one max-task of each other, compared with the
continuous allocation.

* :func:`progressive_filling` -- the front door: a :class:`DiscreteResult`
  (tasks, an exact :class:`~models.Allocation`, the order of picks, the
  placement per machine, utilization and fragmentation).
* :func:`compare` -- the discrete outcome next to the continuous solution of
  the same policy: per-user tasks and dominant shares, the gap in max-tasks,
  the Theorem 7 check with its assumptions, utilization, and which
  properties survive (sharing incentive and envy-freeness, exactly and "up
  to one task").

The engine itself is :mod:`models.discrete`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from models import Allocation, Instance, Policy, PolicyError, UserMap
from models.allocation import exact_str, put_exact
from models.discrete import DiscreteFill, DiscretePolicy, fill, get_discrete_policy
from models.display import html_table, short_repr

from .api import as_instance, solve


# ---------------------------------------------------------------------------
# the front door
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DiscreteResult:
    """Whole tasks given by discrete progressive filling.

    Attributes
    ----------
    fill : DiscreteFill
        The engine's raw outcome (scaled integers, run-length picks).
    """

    fill: DiscreteFill

    @property
    def instance(self) -> Instance:
        """The instance filled."""
        return self.fill.instance

    @property
    def policy(self) -> str:
        """Label of the policy."""
        return self.fill.policy

    @property
    def tasks(self) -> UserMap:
        """``name -> int`` tasks per user."""
        return UserMap(self.instance, self.fill.tasks)

    @cached_property
    def allocation(self) -> Allocation:
        """The outcome as an exact :class:`~models.Allocation` (whole
        numbers as Fractions)."""
        f = self.fill
        return Allocation(
            instance=self.instance,
            x=f.tasks.astype(float),
            policy=f.policy,
            exact=True,
            x_exact=tuple(Fraction(int(v)) for v in f.tasks),
            message=(f"discrete progressive filling (tie-break {f.tie_break}, on full: {f.on_full}, "
                     f"placement {f.placement})"),
            stats={"solver": "discrete-filling", "mode": "discrete", "decisions": f.decisions,
                   "tie_break": f.tie_break, "on_full": f.on_full, "placement": f.placement},
        )

    @property
    def picks(self) -> list[str]:
        """User of every successful pick, in order (Table 1 of the paper)."""
        users = self.instance.users
        return [users[i] for i in self.fill.picks]

    @property
    def failures(self) -> list[str]:
        """Users whose chosen task fit nowhere, in order."""
        return [self.instance.users[i] for i in self.fill.failures]

    @property
    def stopped(self) -> bool:
        """True when the ``stop`` variant ended at a task that did not fit."""
        return self.fill.stopped

    @cached_property
    def placement(self) -> dict[str, dict[str, int]]:
        """``machine -> {user: tasks}`` (machines holding no task omitted)."""
        users = self.instance.users
        names = self.fill.data.machine_names
        return {names[k]: {users[i]: c for i, c in sorted(slot.items())}
                for k, slot in enumerate(self.fill.placed) if slot}

    @cached_property
    def usage(self) -> tuple[Fraction, ...]:
        """Exact use of each resource."""
        f = self.fill
        m = self.instance.m
        used = [
            sum(int(c) - int(v) for c, v in zip(f.data.machines[:, j], f.free[:, j], strict=True)) for j in range(m)
        ]
        return tuple(f.data.exact(used[j], j) for j in range(m))

    @cached_property
    def utilization(self) -> tuple[Fraction, ...]:
        """Exact fraction of each resource in use."""
        return tuple(u / c for u, c in zip(self.usage, self.instance.capacity_exact, strict=True))

    @cached_property
    def pending(self) -> list[int]:
        """Users who would take another task (below their cap)."""
        caps = self.fill.data.caps
        return [i for i in range(self.instance.n) if caps[i] is None or self.fill.tasks[i] < caps[i]]

    @cached_property
    def fragmentation(self) -> tuple[Fraction, ...]:
        """Free resources on machines where no pending user's task fits
        (exact, per resource). With ``on_full="skip"`` that is all free
        space; with ``stop`` a pending task may still fit somewhere. Zero
        when nobody is pending (every user at its cap): the rest is idle,
        not fragmented."""
        f = self.fill
        out = [0] * self.instance.m
        D = f.data.demands[self.pending]
        for k in range(f.free.shape[0] if self.pending else 0):
            if not np.any(np.all(D <= f.free[k], axis=1)):
                for j in range(self.instance.m):
                    out[j] += int(f.free[k, j])
        return tuple(f.data.exact(v, j) for j, v in enumerate(out))

    @cached_property
    def stranded_machines(self) -> int:
        """Machines with free space of which no pending task fits."""
        f = self.fill
        if not self.pending:
            return 0
        D = f.data.demands[self.pending]
        return sum(1 for k in range(f.free.shape[0])
                   if np.any(f.free[k] > 0) and not np.any(np.all(D <= f.free[k], axis=1)))

    # ------------------------------------------------------------ notebooks
    def __repr__(self) -> str:
        inst = self.instance
        fields: dict[str, Any] = {"policy": self.policy, "users": inst.n, "machines": self.fill.data.machines.shape[0],
                                  "decisions": self.fill.decisions}
        if inst.n <= 8:
            fields["tasks"] = dict(self.tasks.items())
        return short_repr("DiscreteResult", **fields)

    def _repr_html_(self) -> str:
        """Tasks and dominant share per user (continuous columns are in
        :func:`compare`)."""
        a = self.allocation
        rows = [[u, int(self.fill.tasks[i]), float(a.dominant_shares[i])]
                for i, u in zip(range(min(self.instance.n, 1000)), self.instance.users, strict=False)]
        util = ", ".join(f"{r} {float(v):.3g}" for r, v in zip(self.instance.resources, self.utilization, strict=True))
        return html_table(["user", "tasks", "dominant share"], rows,
                          f"{self.policy}: discrete progressive filling (utilization {util})")

    def to_pandas(self) -> Any:
        """A tidy ``pandas.DataFrame``: one row per user x resource, like
        :meth:`models.Allocation.to_pandas` (whole tasks), plus ``mode``
        ``"discrete"``."""
        frame = self.allocation.to_pandas()
        frame.insert(1, "mode", "discrete")
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (exact numbers as ``"p/q"`` strings)."""
        f = self.fill
        res = self.instance.resources
        out: dict[str, Any] = {
            "policy": f.policy,
            "tie_break": f.tie_break,
            "on_full": f.on_full,
            "placement_strategy": f.placement,
            "tasks": dict(self.tasks.items()),
            "failures": self.failures,
            "stopped": self.stopped,
            "decisions": f.decisions,
            "stranded_machines": self.stranded_machines,
        }
        for key, values in (("utilization", self.utilization), ("fragmentation", self.fragmentation)):
            out[key] = {}
            for r, v in zip(res, values, strict=True):
                put_exact(out[key], r, v)
        if f.runs is not None:
            users = self.instance.users
            out["picks"] = [[users[int(i)], int(c)] for i, c in zip(*f.runs, strict=True)]
        if not f.data.pooled:
            out["placement"] = self.placement
        return out


def progressive_filling(
    instance: Instance | Mapping[str, Any] | str | Path,
    policy: str | Policy | DiscretePolicy = "drf",
    **options: Any,
) -> DiscreteResult:
    """Discrete progressive filling (Ghodsi et al., NSDI 2011, Algorithm 1).

    Parameters
    ----------
    instance : Instance, dict or path
        Uses its ``[[machines]]`` when given (a task must fit on one
        machine), else one pool.
    policy : str, Policy or DiscretePolicy
        ``"drf"`` (weighted dominant share), ``"asset"`` (aggregate share),
        any filling policy, or a discrete policy registered with
        :func:`models.discrete.register_discrete`.
    **options
        Keywords of :func:`models.discrete.fill`: ``tie_break`` (who goes
        first among equal keys: ``largest-task``, the default and the
        paper's Table 1, ``smallest-task``, ``index``, ``reverse``,
        ``name``, ``random``), ``on_full`` (``stop``: end at the first
        chosen task that does not fit, the paper's pseudo-code; ``skip``:
        drop that user and go on), ``placement`` (``first-fit``,
        ``best-fit``, ``machine-by-machine`` as in the proof of Theorem 7),
        ``seed`` (random tie-break), ``batch``, ``record_picks``.

    Returns
    -------
    DiscreteResult

    Examples
    --------
    >>> from analyzer import Instance, progressive_filling
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> r = progressive_filling(inst, "drf")
    >>> r.tasks["A"], r.tasks["B"], r.picks
    (3, 2, ['B', 'A', 'A', 'B', 'A'])
    >>> r.allocation.x_exact
    (Fraction(3, 1), Fraction(2, 1))
    """
    inst = as_instance(instance)
    return DiscreteResult(fill(inst, policy, **options))


# ---------------------------------------------------------------------------
# discrete property checks
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PropertyOutcome:
    """Whether an allocation has a property, with a witness when it fails."""

    name: str
    holds: bool
    witness: str = ""


def _guaranteed(inst: Instance, whole: bool) -> list[Fraction]:
    """Tasks user ``i`` gets from its own slice ``w_i / sum(w)`` of every
    resource (Section 3, sharing incentive; weighted, Section 4.3),
    capped; floored in the discrete setting. The slice is of the cluster's
    totals, as one pool (machines are not split among users)."""
    wsum = sum(inst.weights_exact, Fraction(0))
    out = []
    for i in range(inst.n):
        part = inst.weights_exact[i] / wsum
        g = min(part * c / d for c, d in zip(inst.capacity_exact, inst.demands_exact[i], strict=True) if d > 0)
        if whole:
            g = Fraction(int(g))
        cap = inst.max_tasks_exact[i]
        if cap is not None:
            g = min(g, Fraction(int(cap)) if whole else cap)
        out.append(g)
    return out


def _value(inst: Instance, i: int, tasks_j: Fraction, j: int, whole: bool) -> Fraction:
    """Tasks user ``i`` could run with user ``j``'s bundle of ``tasks_j``
    tasks (Leontief utility, Section 4), floored when ``whole``."""
    di, dj = inst.demands_exact[i], inst.demands_exact[j]
    v = min(tasks_j * b / a for a, b in zip(di, dj, strict=True) if a > 0)
    return Fraction(int(v)) if whole else v


def sharing_incentive(inst: Instance, x: tuple[Fraction, ...], whole: bool, slack: int = 0) -> PropertyOutcome:
    """Every user gets at least its guaranteed tasks minus ``slack`` tasks.

    ``slack=1`` is the "up to one task" form.
    """
    name = "sharing-incentive" + ("" if slack == 0 else f" (up to {slack} task)")
    for i, g in enumerate(_guaranteed(inst, whole)):
        if x[i] + slack < g:
            return PropertyOutcome(name, False, f"{inst.users[i]} gets {exact_str(x[i])} tasks, "
                                                f"its own slice would give {exact_str(g)}")
    return PropertyOutcome(name, True)


def envy_freeness(inst: Instance, x: tuple[Fraction, ...], whole: bool, slack: int = 0) -> PropertyOutcome:
    """No user prefers another's bundle (weighted: scaled by ``w_i / w_j``,
    Section 4.3), with ``slack`` of the other's tasks removed (``slack=1``:
    envy-free up to one task). A user at its cap envies nobody."""
    name = "envy-freeness" + ("" if slack == 0 else f" (up to {slack} task)")
    W = inst.weights_exact
    for i in range(inst.n):
        cap = inst.max_tasks_exact[i]
        if cap is not None and x[i] >= (int(cap) if whole else cap):
            continue
        for j in range(inst.n):
            if i == j or x[j] <= slack:
                continue
            v = _value(inst, i, (x[j] - slack) * W[i] / W[j], j, whole)
            if v > x[i]:
                return PropertyOutcome(name, False, f"{inst.users[i]} ({exact_str(x[i])} tasks) would run "
                                                    f"{exact_str(v)} with {inst.users[j]}'s bundle")
    return PropertyOutcome(name, True)


#: The property checks :func:`compare` reports: (function, slack).
PROPERTY_CHECKS: tuple[tuple[Any, int], ...] = (
    (sharing_incentive, 0), (sharing_incentive, 1), (envy_freeness, 0), (envy_freeness, 1),
)


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
        Exact when the policy has an exact solver.
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
        """Continuous tasks per user (exact when available)."""
        c = self.continuous
        return c.x_exact if c.exact and c.x_exact is not None else tuple(float(v) for v in c.x)

    def dominant_shares(self) -> tuple[tuple[Any, ...], tuple[Fraction, ...]]:
        """(continuous, discrete) dominant shares per user (Section 4)."""
        c = self.continuous
        cont = c.dominant_shares_exact if c.exact else tuple(float(v) for v in c.dominant_shares)
        return cont, self.discrete.allocation.dominant_shares_exact

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
    if pol.rates(instance) is not None:
        return pol, pol.rates(instance)  # type: ignore[return-value]
    drf = get_discrete_policy("drf")
    reason = drf.supports(instance)
    if reason is not None:
        raise PolicyError(f"{pol.label} is compared with continuous drf, which does not apply: {reason} "
                          f"(fairalloc variants runs the discrete policies alone)")
    return drf, drf.rates(instance)  # type: ignore[return-value]


def compare(
    instance: Instance | Mapping[str, Any] | str | Path,
    policy: str | Policy | DiscretePolicy = "drf",
    *,
    properties: bool = True,
    **options: Any,
) -> DiscreteComparison:
    """Discrete progressive filling next to the continuous solution.

    ``options`` go to :func:`progressive_filling`; ``properties=False``
    skips the property checks (O(n^2) exact comparisons). The continuous side is
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
    xc = cont.x_exact if cont.exact and cont.x_exact is not None else tuple(Fraction(float(v)) for v in cont.x)
    xd = tuple(Fraction(int(v)) for v in disc.fill.tasks)
    sc = tuple(x * r for x, r in zip(xc, rates, strict=True))
    sd = tuple(x * r for x, r in zip(xd, rates, strict=True))
    theorem = _theorem7(inst, disc, measure, sc, sd)
    gap = tuple((a - b) / theorem.unit for a, b in zip(sc, sd, strict=True))
    props = []
    for fn, slack in PROPERTY_CHECKS if properties else ():
        c = fn(inst, xc, False, slack)
        d = fn(inst, xd, True, slack)
        props.append((c.name, c, d))
    return DiscreteComparison(discrete=disc, continuous=cont, shares_continuous=sc, shares_discrete=sd,
                              gap_max_tasks=gap, theorem7=theorem, properties=props)


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


__all__ = [
    "PROPERTY_CHECKS",
    "DiscreteComparison",
    "DiscreteResult",
    "PropertyOutcome",
    "Theorem7",
    "compare",
    "envy_freeness",
    "max_task_share",
    "progressive_filling",
    "sharing_incentive",
]
