"""Kubernetes Kueue fair sharing (``DominantResourceShare`` and the
scheduler's entry ordering; Kueue v0.7, one flat cohort).

Sources (kubernetes-sigs/kueue): ``pkg/cache/clusterqueue.go``
(``dominantResourceShare``, v0.7 line: ``c.Cohort.Lendable``) and
``pkg/scheduler/scheduler.go`` (``nominate``: ``DominantResourceShareWith``
the workload's requests; ``entryOrdering.Less``). The table of
``TestDominantResourceShare`` (``pkg/cache``; read on the 2025 main branch,
whose formula is the same for one flat cohort) is translated in
``tests/test_variants_kueue_upstream.py``.

What is modelled, in our words (a user is a ClusterQueue with one pending
workload of one task at a time; all users form one cohort):

* **Nominal quota.** Each queue owns a nominal quota per resource
  (scenario key ``quota = { cpu = 4, ... }``; missing resources are 0).
  What the cohort can lend of a resource is the sum of its members'
  quotas (no lending limits). When no user declares a quota, each user's
  quota is an even slice ``capacity / n`` of every resource.
* **Share** (``dominantResourceShare``), in Kueue's integer arithmetic:
  per resource the borrowing ``b = use - quota`` (when positive), the
  ratio ``b * 1000 / lendable`` truncated to an integer (resources nobody
  can lend are skipped), the largest ratio, then ``* 1000 /
  weight_in_milli`` truncated (weight ``fairSharing.weight``, its milli
  value rounded up). No borrowing gives 0; borrowing only of resources
  nobody can lends gives ``-1 * 1000 / weight_in_milli``. A queue alone
  (no cohort) has share 0.
* **Order** (``entryOrdering.Less`` with fair sharing): the workloads
  that fit within the queue's nominal quota (no borrowing after admission)
  first; then the smaller share the queue *would have after admitting its
  next workload* (``DominantResourceShareWith``); then, equal priorities
  assumed, FIFO: the queue listed first in the file.

Changes after v0.7, not modelled (read on the main branch, 2025):
hierarchical cohorts (the share is computed against the remaining quota
of the node and the parent's lendable resources, ``remainingQuota`` and
``parentResources().calculateLendable()``, the documented range becomes
0 to 1,000,000, a weight of 0 gives ``MaxInt``); lending limits in the
lendable sums; the fair-sharing iterator that walks the cohort tree as a
tournament instead of sorting one list; ``entryOrdering`` first takes
workloads that already hold a quota reservation and compares borrowing as
a level; Admission Fair Sharing (ordering inside a ClusterQueue by the
LocalQueues' decayed usage history, alpha); the proposed flavor-aware
share weights (KEP-8902).

So, unlike the paper's DRF (Ghodsi et al., NSDI 2011, Section 4), queues
within their quota are served first, in list order, until they would
borrow. Tasks are handed out one at a time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..discrete import FillState
from ..instance import Instance
from ..policy import register
from ._common import VariantPolicy, VariantShare, scaled


def go_div(a: int, b: int) -> int:
    """Go's integer division (truncates toward zero).

    >>> go_div(-1000, 2000), go_div(7, 2)
    (0, 3)
    """
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def dominant_resource_share(usage: Mapping[str, Any], nominal: Mapping[str, Any], lendable: Mapping[str, Any],
                            weight: Fraction | int = 1, request: Mapping[str, Any] | None = None,
                            cohort: bool = True) -> tuple[int, str]:
    """``dominantResourceShare(wlReq, m=1)`` of one ClusterQueue: value and
    dominant resource name (``""`` without borrowing). Amounts are in any
    one unit per resource (Kueue: milli-cpu, bytes, ...); they only enter
    through ``b * 1000 / lendable``."""
    if not cohort:
        return 0, ""
    request = request or {}
    borrowing = {}
    for r, quota in nominal.items():
        b = Fraction(usage.get(r, 0)) + Fraction(request.get(r, 0)) - Fraction(quota)
        if b > 0:
            borrowing[r] = b
    if not borrowing:
        return 0, ""
    drs, name = -1, ""
    for r in sorted(borrowing):
        lr = Fraction(lendable.get(r, 0))
        if lr > 0:
            ratio = math.floor(borrowing[r] * 1000 / lr)
            if ratio > drs:
                drs, name = ratio, r
    return go_div(drs * 1000, math.ceil(Fraction(weight) * 1000)), name


class KueueShare(VariantShare):
    """The discrete form of :class:`Kueue`."""

    def prepare(self, instance: Instance) -> dict[str, Any]:
        return {"data": None}

    def constants(self, state: FillState) -> dict[str, Any]:
        """Per run: scaled quotas and lendable per resource, as dicts by
        resource name."""
        inst = state.instance
        prep = self.prepared(inst)
        if prep["data"] is not state.data:
            table = inst.extensions.quota
            if table:
                q = scaled(inst, state.data, table)
            else:
                even = [Fraction(int(v), inst.n) for v in state.data.machines.sum(axis=0)]
                q = [list(even) for _ in range(inst.n)]
            names = inst.resources
            prep["quota"] = [dict(zip(names, row, strict=True)) for row in q]
            prep["lendable"] = {r: sum((row[j] for row in q), Fraction(0)) for j, r in enumerate(names)}
            prep["dem"] = [{names[j]: d for j, d in state.demand(i)} for i in range(inst.n)]
            prep["data"] = state.data
        return prep

    def key(self, state: FillState, i: int) -> tuple[bool, int, int]:
        """``(borrows after the next task, share after it, file order)``."""
        prep = self.constants(state)
        t = int(state.tasks[i])
        dem, quota = prep["dem"][i], prep["quota"][i]
        use = {r: t * d for r, d in dem.items()}
        borrows = any((t + 1) * d > quota[r] for r, d in dem.items())
        drs, _ = dominant_resource_share(use, quota, prep["lendable"], state.instance.weights_exact[i], dem,
                                         cohort=state.instance.n > 1)
        return (borrows, drs, i)


@register
class Kueue(VariantPolicy):
    """Kueue v0.7 fair sharing in one cohort (see the module docstring)."""

    name = "kueue"
    description = ("Kueue v0.7 fair sharing: workloads within nominal quota first, then the smaller dominant "
                   "share the queue would have after admitting (borrowing / lendable, per mille, / weight)")
    source = ("kubernetes-sigs/kueue v0.7 pkg/cache/clusterqueue.go (dominantResourceShare) and "
              "pkg/scheduler/scheduler.go (entryOrdering); Ghodsi et al., NSDI 2011, Section 4")
    form = KueueShare
    memory_note = ("Kueue's usage half-life, admissionFairSharing.usageHalfLifeTime (KEP-4136), orders the "
                   "LocalQueues inside one ClusterQueue; cohort fair sharing between ClusterQueues, modelled "
                   "here, orders by current borrowing only")


__all__ = ["Kueue", "KueueShare", "dominant_resource_share", "go_div"]
