"""Kubernetes Kueue fair sharing (ClusterQueue ``DominantResourceShare``,
Kueue v0.7-v0.10, one cohort).

What is modelled, in our words (a user is a ClusterQueue, all users form
one cohort):

* **Nominal quota.** Each queue owns a nominal quota per resource
  (scenario key ``quota = { cpu = 4, ... }``; missing resources are 0).
  What the cohort can lend of a resource is the sum of its members'
  quotas (every queue lends all of its quota). When no user declares a
  quota, each user's quota is an even slice ``capacity / n`` of every
  resource (the usual even split of a cohort); declare quotas to model
  anything else.
* **Share.** Only use *above* the queue's own quota counts (borrowing):
  per resource ``max(0, use - quota) / lendable``; a resource nobody can
  lend (lendable 0) is skipped. The share is the largest of these,
  divided by the queue's weight (Kueue's ``fairSharing.weight``). Kueue
  also multiplies by 1000 and rounds to an integer; here the ratio is
  exact.
* **Order.** The smallest share goes first; equal shares go to the queue
  listed first in the file (Kueue: priority, then creation time).

So, unlike the paper's DRF (Ghodsi et al., NSDI 2011, Section 4), all
queues within their quota tie at share 0 and are served in list order
until they start borrowing. Tasks are handed out one at a time.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..discrete import FillState
from ..instance import Instance
from ..policy import register
from ._common import VariantPolicy, VariantShare, scaled


class KueueShare(VariantShare):
    """The discrete form of :class:`Kueue`."""

    def prepare(self, instance: Instance) -> dict[str, Any]:
        return {"quota": None, "lendable": None, "data": None}

    def quotas(self, state: FillState) -> tuple[list[list[Fraction]], list[Fraction]]:
        """Scaled quota per user and resource, and lendable per resource."""
        inst = state.instance
        prep = self.prepared(inst)
        if prep["quota"] is None:
            table = inst.extensions.quota
            if table:
                q = scaled(inst, state.data, table)
            else:
                even = [Fraction(int(v), inst.n) for v in state.data.machines.sum(axis=0)]
                q = [list(even) for _ in range(inst.n)]
            prep["quota"] = q
            prep["lendable"] = [sum((row[j] for row in q), Fraction(0)) for j in range(inst.m)]
        return prep["quota"], prep["lendable"]

    def lines(self, state: FillState) -> list[list[tuple[int, int]]]:
        """Per user, ``(A, B)`` per lendable resource it uses, integers with
        ``Z * share_j = t * A - B`` for one common factor ``Z`` (exact
        comparisons without Fractions)."""
        prep = self.prepared(state.instance)
        if prep.get("data") is not state.data:
            q, L = self.quotas(state)
            w = state.instance.weights_exact
            raw = [[(d / (L[j] * w[i]), q[i][j] / (L[j] * w[i])) for j, d in state.demand(i) if L[j] > 0]
                   for i in range(state.instance.n)]
            Z = 1
            for row in raw:
                for a, b in row:
                    Z = math.lcm(Z, a.denominator, b.denominator)
            prep["lines"] = [[(int(a * Z), int(b * Z)) for a, b in row] for row in raw]
            prep["data"] = state.data
        return prep["lines"]

    def key(self, state: FillState, i: int) -> tuple[int, int]:
        """``(borrowing share / weight, input position)``; the share is
        scaled by a positive constant (:meth:`lines`)."""
        t = int(state.tasks[i])
        over = max((t * a - b for a, b in self.lines(state)[i]), default=0)
        return (max(over, 0), i)


@register
class Kueue(VariantPolicy):
    """Kueue v0.7-v0.10 fair sharing in one cohort (see the module
    docstring)."""

    name = "kueue"
    description = ("Kueue fair sharing (v0.7-v0.10): only use above a queue's nominal quota counts, divided by "
                   "what the cohort can lend, divided by weight; within quota, queues are served in list order")
    source = "Kubernetes Kueue v0.7-v0.10 fair sharing (DominantResourceShare); Ghodsi et al., NSDI 2011, Section 4"
    form = KueueShare
