"""Hadoop YARN fair scheduler, DRF policy (``DominantResourceFairnessPolicy``
and its comparator, Hadoop 3.x).

What is modelled, in our words (a user is a leaf queue):

* **Minimum share first.** A queue may declare a guaranteed minimum
  (scenario key ``min_share = { cpu = 4, ... }``, YARN's ``minResources``).
  A queue is *needy* when its use of its dominant resource (the resource
  of its largest cluster share) is below its minimum of that resource.
  Needy queues go before all others; among needy queues, the one whose
  use/minimum ratios, sorted from the largest down, are lexicographically
  smaller goes first (resources without a minimum are left out of these
  ratios).
* **Otherwise, lexicographic shares.** Each queue's shares of the cluster
  (use / total per resource, divided by the queue's weight) are sorted from
  the largest down and compared element by element: the dominant shares
  first, then the second largest, and so on. The paper's DRF compares the
  dominant share only (Ghodsi et al., NSDI 2011, Section 4); YARN's second
  and later entries decide exact ties.
* **Zero-capacity resources.** YARN divides by the cluster total in
  floating point, so a resource with total 0 gets an infinite (or
  undefined) share, and the comparator skips it; here such a resource
  simply does not count.
* **Ties** left after all that go to the queue listed first in the file
  (YARN: the earlier start time), then by name.

Tasks are handed out one at a time (a container per scheduling decision),
so the engine's ``on_full`` and placement options apply.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..discrete import FillState
from ..instance import Instance
from ..policy import register
from ._common import VariantPolicy, VariantShare, resource_ranks, scaled, totals, usage


class YarnShare(VariantShare):
    """The discrete form of :class:`Yarn`."""

    def prepare(self, instance: Instance) -> dict[str, Any]:
        return {"counted": [j for j, c in enumerate(instance.capacity_exact) if c > 0], "data": None}

    def constants(self, state: FillState) -> dict[str, Any]:
        """Per run: scaled minimums, and integer coefficients ``c[i][j]``
        with ``tasks * c[i][j] = (use_j / total_j) / w_i`` times one common
        factor (exact comparisons without Fractions)."""
        inst = state.instance
        prep = self.prepared(inst)
        if prep["data"] is not state.data:
            T = totals(state.data)
            counted = prep["counted"]
            w = inst.weights_exact
            M = 1
            for j in counted:
                for wi in w:
                    M = math.lcm(M, T[j] * wi.numerator)
            prep["coef"] = [[int(state.data.demands[i][j]) * w[i].denominator * (M // (T[j] * w[i].numerator))
                             for j in counted] for i in range(inst.n)]
            prep["min"] = scaled(inst, state.data, inst.extensions.min_share)
            prep["needy"] = any(any(v > 0 for v in row) for row in prep["min"])
            prep["T"] = T
            prep["data"] = state.data
        return prep

    def key(self, state: FillState, i: int) -> tuple[int, tuple[Any, ...], int]:
        """``(0 if needy else 1, sorted ratios, input position)``."""
        prep = self.constants(state)
        t = int(state.tasks[i])
        counted = prep["counted"]
        if prep["needy"] and counted:
            T = prep["T"]
            use = usage(state, i)
            mins = prep["min"][i]
            dom = max(counted, key=lambda j: (Fraction(use[j], T[j]), -j))
            if use[dom] < mins[dom]:
                ratios = [Fraction(use[j]) / mins[j] for j in counted if mins[j] > 0]
                return (0, tuple(resource_ranks(ratios)), i)
        return (1, tuple(sorted((t * c for c in prep["coef"][i]), reverse=True)), i)


@register
class Yarn(VariantPolicy):
    """Hadoop 3.x YARN fair scheduler DRF (see the module docstring)."""

    name = "yarn"
    description = ("YARN fair scheduler DRF (Hadoop 3.x): queues below their minimum share first, "
                   "then weighted shares compared lexicographically from the largest down")
    source = "Apache Hadoop 3.x FairScheduler DominantResourceFairnessPolicy; Ghodsi et al., NSDI 2011, Section 4"
    form = YarnShare
