"""Per property: decide one orbit of the bounded class exactly.

A *decider* takes the canonical member of an orbit (:mod:`.symmetry`) and
returns a :class:`Hit` (which member, which deviation) when some member of
the orbit violates the property, else ``None``. The verdicts come from the
properties' own exact code (:mod:`analyzer.properties`, discrete mode:
whole tasks by progressive filling, Ghodsi et al., NSDI 2011, Section 4.2):

* properties of the allocation itself or of removing a user (sharing
  incentive, envy-freeness, Pareto efficiency, single-resource and
  bottleneck fairness, population monotonicity): ``Property.check``, which
  decides these exactly on one instance (it compares whole task counts);
* strategy-proofness: ``StrategyProofness.verify_report`` for *every* report
  within the bound (entries in ``1..K``; ``0`` allowed where the true demand
  is ``0``), by every user -- the property's own search tries only some
  reports, so the prover enumerates them;
* resource monotonicity: ``ResourceMonotonicity.verify_growth`` for *every*
  growth of the capacities within the bound.

A property registered by a user is decided by its ``check`` on every user
permutation of the member (no symmetry argument is made for it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from models import Instance, Policy
from models.discrete import LinearShare
from models.registry import Registry

from ...properties._common import Evaluator, show
from ...properties.base import DISCRETE, Property, Violation
from .space import Point, Space, to_instance
from .symmetry import OWN_RATES, linear_rates, ties, within_ties

#: Properties whose check looks at the instance itself only.
TRUTHFUL: frozenset[str] = frozenset({"sharing-incentive", "envy-freeness", "pareto-efficiency",
                                      "single-resource-fairness", "bottleneck-fairness"})


@dataclass(frozen=True)
class Hit:
    """A violating deviation: ``kind`` (``"check"``, ``"lie"``,
    ``"growth"``), the member point and the deviation's data (liar position
    and report, or grown capacity)."""

    kind: str
    point: Point
    data: tuple[Any, ...] = ()


@dataclass
class Context:
    """What a decider needs, built once per worker process."""

    space: Space
    policy: Policy
    prop: Property
    share: LinearShare | None = None
    ev: Evaluator = field(init=False)
    #: Deviations evaluated so far (one exact check or verification each).
    evaluations: int = 0
    #: Decide each point alone, no user permutations (the unreduced
    #: baseline: every point of the grid is visited anyway).
    alone: bool = False

    def __post_init__(self) -> None:
        self.share = linear_rates(self.policy)
        self.ev = Evaluator(self.policy, DISCRETE)
        self._instances: dict[Point, Instance] = {}
        self._tasks: dict[Point, tuple[Any, ...]] = {}

    def instance(self, point: Point) -> Instance:
        """``to_instance(point)``, built once per orbit decided."""
        if point not in self._instances:
            self._instances[point] = to_instance(point)
        return self._instances[point]

    def tasks(self, point: Point) -> tuple[Any, ...]:
        """The point's exact whole tasks, computed once per orbit decided."""
        if point not in self._tasks:
            self._tasks[point] = self.ev.verified(self.instance(point))
        return self._tasks[point]


Decider = Callable[[Context, Point], "Hit | None"]
#: Deciders by property name; other properties use :func:`decide_any`.
DECIDERS: Registry[Decider] = Registry("bounded decider")


def decide(ctx: Context, point: Point, alone: bool = False) -> Hit | None:
    """The orbit of ``point`` decided by its property's decider (``point``
    alone with ``alone``)."""
    ctx.alone = alone
    ctx._instances.clear()
    ctx._tasks.clear()
    name = ctx.prop.name
    return DECIDERS.get(name)(ctx, point) if name in DECIDERS else decide_any(ctx, point)


def _members(ctx: Context, point: Point, pairs: set[tuple[int, int]] | None
             ) -> list[tuple[tuple[int, ...], Point]]:
    """The members deciding the orbit of ``point`` for a deviation whose
    evaluated instances tie ``pairs`` (:func:`~.symmetry.within_ties`);
    ``point`` alone for the unreduced baseline."""
    if ctx.alone or pairs == set():
        return [(tuple(range(len(point[1]))), point)]
    return within_ties(point, pairs)


def _union(*parts: set[tuple[int, int]] | None) -> set[tuple[int, int]] | None:
    """The tied pairs of several evaluated instances (``None``: any)."""
    out: set[tuple[int, int]] = set()
    for p in parts:
        if p is None:
            return None
        out |= p
    return out


def decide_any(ctx: Context, point: Point) -> Hit | None:
    """``Property.check`` on every user permutation of ``point``."""
    return _by_check(ctx, point, None)


def _by_check(ctx: Context, point: Point, pairs: set[tuple[int, int]] | None) -> Hit | None:
    seen: set[Point] = set()
    for _, member in _members(ctx, point, pairs):
        if member in seen:
            continue
        seen.add(member)
        ctx.evaluations += 1
        if ctx.prop.check(ctx.policy, ctx.instance(member), DISCRETE) is not None:
            return Hit("check", member)
    return None


@DECIDERS.register("sharing-incentive")
@DECIDERS.register("envy-freeness")
@DECIDERS.register("pareto-efficiency")
@DECIDERS.register("single-resource-fairness")
@DECIDERS.register("bottleneck-fairness")
def decide_truthful(ctx: Context, point: Point) -> Hit | None:
    """The check on ``point`` and on every input order of its tied users
    (:func:`~.symmetry.ties`)."""
    return _by_check(ctx, point, set() if ctx.alone else ties(ctx.share, ctx.instance(point)))


@DECIDERS.register("population-monotonicity")
def decide_removals(ctx: Context, point: Point) -> Hit | None:
    """The check on ``point``, with the ties of the instance and of every
    instance with one user removed (a removal keeps the order of the others;
    with :data:`~.symmetry.OWN_RATES` it keeps their rates too, so the
    instance's own ties are all)."""
    if ctx.alone:
        return _by_check(ctx, point, set())
    pairs = ties(ctx.share, ctx.instance(point))
    cap, users = point
    if ctx.policy.name not in OWN_RATES and len(users) > 1:
        for k in range(len(users)):
            sub = ties(ctx.share, ctx.instance((cap, users[:k] + users[k + 1:])))
            back = None if sub is None else {(a + (a >= k), b + (b >= k)) for a, b in sub}
            pairs = _union(pairs, back)
    return _by_check(ctx, point, pairs)


def reports(space: Space, row: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every report other than ``row`` within the bound: entries in
    ``1..K`` where the truth needs the resource, ``low..K`` elsewhere."""
    ranges = [range(1 if d > 0 else space.low, space.bound + 1) for d in row]
    return (r for r in itertools.product(*ranges) if r != row)


def lie_bound(capacity: tuple[int, ...], row: tuple[int, ...], report: tuple[int, ...]) -> int:
    """An upper bound on the true tasks a liar with demand ``row`` can run
    by reporting ``report``: alone in the pool it gets at most
    ``Y = min_j floor(R_j / r_j)`` reported tasks (other users only take
    room), worth ``min_{j: d_j > 0} floor(Y r_j / d_j)`` whole true tasks
    (:func:`~analyzer.properties._common.leontief_tasks`, floored; a cap
    only lowers it). A report whose bound does not exceed the liar's
    tasks cannot pay, and is not verified (exact integers)."""
    most = min(c // r for c, r in zip(capacity, report, strict=True) if r > 0)
    return min(most * r // d for r, d in zip(report, row, strict=True) if d > 0)


@DECIDERS.register("strategy-proofness")
def decide_lies(ctx: Context, point: Point) -> Hit | None:
    """Every user's every report within the bound, verified exactly, on
    every input order of the users tied in the truthful or the lied
    instance (the liar marked as different from everyone); a report that
    cannot pay by :func:`lie_bound` is skipped."""
    from ...properties.strategy_proofness import StrategyProofness

    sp = ctx.prop if isinstance(ctx.prop, StrategyProofness) else StrategyProofness()
    inst = ctx.instance(point)

    for i, (row, _, _) in enumerate(point[1]):
        roles = [k == i for k in range(len(point[1]))]
        base = set() if ctx.alone else ties(ctx.share, inst, roles)
        for r in reports(ctx.space, row):
            D = [list(u[0]) for u in point[1]]
            D[i] = list(r)
            report = [Fraction(v) for v in r]
            pairs = set() if ctx.alone else _union(base, ties(ctx.share, inst, roles, demands=D))
            seen: set[tuple[Point, int]] = set()
            for perm, member in _members(ctx, point, pairs):
                pos = perm.index(i)
                if (member, pos) in seen:
                    continue
                seen.add((member, pos))
                if lie_bound(point[0], row, r) <= ctx.tasks(member)[pos]:
                    continue
                ctx.evaluations += 1
                if sp.verify_report(ctx.ev, ctx.instance(member), ctx.tasks(member), pos, report) is not None:
                    return Hit("lie", member, (pos, r))
    return None


def growths(space: Space, cap: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every capacity vector ``>= cap`` within the bound, ``cap`` itself
    excluded."""
    return (c for c in itertools.product(*(range(v, space.bound + 1) for v in cap)) if c != cap)


@DECIDERS.register("resource-monotonicity")
def decide_growths(ctx: Context, point: Point) -> Hit | None:
    """Every growth of the capacities within the bound, verified exactly,
    on every input order of the users tied before or after the growth."""
    inst = ctx.instance(point)
    here = set() if ctx.alone else ties(ctx.share, inst)
    for cap in growths(ctx.space, point[0]):
        pairs = set() if ctx.alone else _union(here, ties(ctx.share, inst, capacity=cap))
        for member in dict.fromkeys(m for _, m in _members(ctx, point, pairs)):
            ctx.evaluations += 1
            if verify_growth(ctx, ctx.instance(member), cap, ctx.tasks(member)) is not None:
                return Hit("growth", member, (cap,))
    return None


def verify_growth(ctx: Context, inst: Instance, cap: tuple[int, ...], xe: tuple[Any, ...]) -> Violation | None:
    """``ResourceMonotonicity.verify_growth`` for the grown ``cap`` (``xe``:
    the tasks before)."""
    from ...properties.resource_monotonicity import ResourceMonotonicity

    rm = ctx.prop if isinstance(ctx.prop, ResourceMonotonicity) else ResourceMonotonicity()
    grown = ", ".join(f"{r} {show(c)}" for r, c in zip(inst.resources, cap, strict=True))
    return rm.verify_growth(ctx.ev, inst, xe, [Fraction(c) for c in cap], f"when the capacities grow to {grown}")


def violation(ctx: Context, hit: Hit) -> Violation | None:
    """The hit re-verified from scratch (a fresh exact evaluation): the
    :class:`~analyzer.properties.base.Violation` to report, or ``None``."""
    from ...properties.strategy_proofness import StrategyProofness

    inst = to_instance(hit.point)
    fresh = Context(ctx.space, ctx.policy, ctx.prop)
    if hit.kind == "lie":
        sp = ctx.prop if isinstance(ctx.prop, StrategyProofness) else StrategyProofness()
        pos, r = hit.data
        return sp.verify_report(fresh.ev, inst, fresh.ev.verified(inst), pos, [Fraction(v) for v in r])
    if hit.kind == "growth":
        return verify_growth(fresh, inst, hit.data[0], fresh.ev.verified(inst))
    return ctx.prop.check(ctx.policy, inst, DISCRETE)
