"""Hadoop YARN fair scheduler, DRF policy (``DominantResourceFairnessPolicy``
and its comparators, Hadoop 3.4, i.e. after YARN-11482).

Source: ``hadoop-yarn-server-resourcemanager/.../scheduler/fair/policies/
DominantResourceFairnessPolicy.java`` (apache/hadoop, read at commit
``ee91492f``, which still has the pre-YARN-11482 slip in
``DominantResourceFairnessComparator2``: the second queue's neediness was
judged from the *first* queue's usage; YARN-11482, apache/hadoop pull
request #5607, committed to trunk on 2023-04-29 and first released in
Hadoop 3.4.0, makes each queue use its own usage, which is what is
modelled; the N-resource comparator never had the slip), and
its tests ``TestDominantResourceFairnessPolicy.java`` (commit ``09b476e6``),
translated in ``tests/test_variants_yarn_upstream.py``.

What is modelled, in our words (a user is a leaf queue):

* **Resource order.** Hadoop keeps resources in a fixed order: memory
  (index 0), vcores (index 1), then the extra resource types. A resource
  named ``mem``/``memory``/``memory-mb``/``ram`` is memory, one named
  ``cpu``/``cpus``/``vcores``/``vcore`` is vcores; the others follow in
  file order. ``calculateClusterAndFairRatios`` takes the *first* largest
  usage ratio as the dominant resource, so a tie for the dominant resource
  goes to memory whatever the file order.
* **Needy.** A queue is needy when its use of its dominant resource is
  below its minimum of it (scenario key ``min_share``, YARN's
  ``minResources``; missing entries are 0, so a queue without minimum is
  never needy). Needy queues go before the others.
* **Both needy.** The min-share ratios ``use_j / min_j`` are listed in the
  order of the usage ratios (cluster shares, largest first, a stable sort:
  ties keep the resource order) and compared position by position
  (``testBothAreNeedy``): not sorted by their own values. A minimum of 0
  for a resource in use gives an infinite ratio (``x / 0.0``); ``0 / 0``
  gives NaN, and Java's ``(int) Math.signum(NaN)`` is 0, so that position
  compares equal. ``inf - inf`` is NaN too: equal.
* **Neither needy.** The fair-share ratios (use / total / weight) in the
  same usage order, position by position: dominant shares first, then the
  second largest, and so on (the paper's DRF compares the dominant share
  only, Ghodsi et al., NSDI 2011, Section 4).
* **Arithmetic.** As Hadoop: with exactly two resources
  ``DominantResourceFairnessComparator2`` in ``double``; with more,
  ``DominantResourceFairnessComparatorN`` in ``float`` (32 bit). Ratios
  that are equal in exact arithmetic may compare unequal after rounding,
  as they do in YARN.
* **Zero-capacity resources.** A resource of total 0 is left out (no task
  needing it ever fits, so its use is always 0 and Hadoop's ``0/0`` NaN
  would compare equal at any position).
* **Ties** left after all that go to the queue listed first in the file
  (YARN: the earlier start time), then by name.

Tasks are handed out one at a time (a container per scheduling decision),
so the engine's ``on_full`` and placement options apply.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..discrete import FillState
from ..instance import Instance
from ..policy import register
from ._common import VariantPolicy, VariantShare, scaled

#: Resource names Hadoop would call memory (index 0) and vcores (index 1).
MEMORY_NAMES: frozenset[str] = frozenset({"mem", "memory", "memory-mb", "ram"})
VCORES_NAMES: frozenset[str] = frozenset({"cpu", "cpus", "vcores", "vcore"})


def hadoop_order(resources: Sequence[str]) -> list[int]:
    """Indices of ``resources`` in Hadoop's order: memory, vcores, others
    in file order.

    >>> hadoop_order(["gpu", "cpu", "mem"])
    [2, 1, 0]
    """
    def rank(j: int) -> tuple[int, int]:
        r = resources[j].lower()
        return (0 if r in MEMORY_NAMES else 1 if r in VCORES_NAMES else 2, j)
    return sorted(range(len(resources)), key=rank)


def signum(a: float, b: float) -> int:
    """Java's ``(int) Math.signum(a - b)``: NaN (``0/0``, ``inf - inf``) is 0."""
    d = a - b
    return 1 if d > 0 else -1 if d < 0 else 0


@dataclass(frozen=True)
class Ratios:
    """One queue's ratios, in Hadoop's resource order.

    Attributes
    ----------
    usage : tuple of float
        use / cluster total.
    fair : tuple of float
        usage / weight.
    minimum : tuple of float
        use / minimum (``inf`` when the minimum is 0 and the use is not).
    dominant : int
        Position of the first largest usage ratio.
    needy : bool
        Use of the dominant resource below its minimum.
    """

    usage: tuple[float, ...]
    fair: tuple[float, ...]
    minimum: tuple[float, ...]
    dominant: int
    needy: bool

    @classmethod
    def of(cls, use: Sequence[float], total: Sequence[float], minimum: Sequence[float], weight: float) -> Ratios:
        """Ratios of one queue (values already in Hadoop's order); ``double``
        arithmetic for two resources, ``float`` for more (as Hadoop)."""
        ftype = np.float64 if len(total) == 2 else np.float32
        u = np.asarray(use, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            usage = u.astype(ftype) / np.asarray(total, dtype=ftype)
            fair = usage / ftype(np.float32(weight))  # Schedulable.getWeight() is a Java float
            mins = u.astype(ftype) / np.asarray(minimum, dtype=ftype)
        dom = 0
        for j in range(1, usage.size):
            if usage[j] > usage[dom]:
                dom = j
        needy = bool(use[dom] < minimum[dom]) if len(use) else False
        return cls(tuple(map(float, usage)), tuple(map(float, fair)), tuple(map(float, mins)), dom, needy)

    def order(self) -> list[int]:
        """Positions sorted by usage ratio, largest first (stable, as
        Hadoop's ``sortRatios``)."""
        return sort_ratios(self.usage)


def sort_ratios(usage: Sequence[float]) -> list[int]:
    """Positions of ``usage`` from the largest down; equal values keep
    their order (Java's stable ``Arrays.sort``)."""
    return sorted(range(len(usage)), key=lambda j: -usage[j])


def compare_ratios(a: Sequence[float], b: Sequence[float]) -> int:
    """Hadoop's ``compareRatios``: the first nonzero ``signum(a_k - b_k)``."""
    for x, y in zip(a, b, strict=True):
        s = signum(x, y)
        if s:
            return s
    return 0


def compare(s1: Ratios, s2: Ratios) -> int:
    """The DRF comparator without its start-time/name tie-break: negative
    when ``s1`` gets a container before ``s2``."""
    if s1.needy != s2.needy:
        return -1 if s1.needy else 1
    o1, o2 = s1.order(), s2.order()
    if s1.needy:
        return compare_ratios([s1.minimum[k] for k in o1], [s2.minimum[k] for k in o2])
    return compare_ratios([s1.fair[k] for k in o1], [s2.fair[k] for k in o2])


@functools.total_ordering
class YarnKey:
    """A queue's place in the sort: :func:`compare`, then input position."""

    __slots__ = ("pos", "ratios")

    def __init__(self, ratios: Ratios, pos: int) -> None:
        self.ratios, self.pos = ratios, pos

    def _cmp(self, other: YarnKey) -> int:
        c = compare(self.ratios, other.ratios)
        return c if c else (self.pos > other.pos) - (self.pos < other.pos)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, YarnKey) and self._cmp(other) == 0

    def __lt__(self, other: YarnKey) -> bool:
        return self._cmp(other) < 0

    __hash__ = None  # type: ignore[assignment]


class YarnShare(VariantShare):
    """The discrete form of :class:`Yarn`."""

    def prepare(self, instance: Instance) -> dict[str, Any]:
        order = [j for j in hadoop_order(instance.resources) if instance.capacity_exact[j] > 0]
        return {"order": order, "data": None}

    def constants(self, state: FillState) -> dict[str, Any]:
        """Per run: totals and minimums in Hadoop's order, unscaled."""
        inst = state.instance
        prep = self.prepared(inst)
        if prep["data"] is not state.data:
            order = prep["order"]
            mins = scaled(inst, state.data, inst.extensions.min_share)
            sc = state.data.scale
            prep["T"] = [float(inst.capacity_exact[j]) for j in order]
            prep["min"] = [[float(row[j] / sc[j]) for j in order] for row in mins]
            prep["dem"] = [[float(state.data.exact(state.data.demands[i][j], j)) for j in order]
                           for i in range(inst.n)]
            prep["data"] = state.data
        return prep

    def ratios(self, state: FillState, i: int) -> Ratios:
        """User ``i``'s :class:`Ratios` now."""
        prep = self.constants(state)
        t = int(state.tasks[i])
        use = [t * d for d in prep["dem"][i]]
        return Ratios.of(use, prep["T"], prep["min"][i], float(state.instance.weights_exact[i]))

    def key(self, state: FillState, i: int) -> YarnKey:
        """:class:`YarnKey` of user ``i`` (the comparator, then file order)."""
        return YarnKey(self.ratios(state, i), i)


@register
class Yarn(VariantPolicy):
    """Hadoop 3.4 YARN fair scheduler DRF (see the module docstring)."""

    name = "yarn"
    description = ("YARN fair scheduler DRF (Hadoop 3.4): queues below their minimum share first (use/minimum "
                   "ratios in usage order), then weighted shares compared in usage order, memory first on ties")
    source = ("Apache Hadoop 3.4 FairScheduler DominantResourceFairnessPolicy (after YARN-11482); "
              "Ghodsi et al., NSDI 2011, Section 4")
    form = YarnShare
    memory_note = "the fair scheduler's DRF comparators read current usage only (no decay)"


__all__ = ["Ratios", "Yarn", "YarnKey", "YarnShare", "compare", "compare_ratios", "hadoop_order", "signum",
           "sort_ratios"]
