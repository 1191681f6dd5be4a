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

from fractions import Fraction
from typing import Any

from ..discrete import FillState
from ..instance import Instance
from ..policy import register
from ._common import VariantPolicy, VariantShare, resource_ranks, scaled, totals, usage


class YarnShare(VariantShare):
    """The discrete form of :class:`Yarn`."""

    def prepare(self, instance: Instance) -> dict[str, Any]:
        return {"counted": [j for j, c in enumerate(instance.capacity_exact) if c > 0], "min": None}

    def key(self, state: FillState, i: int) -> tuple[int, tuple[Fraction, ...], int]:
        """``(0 if needy else 1, sorted ratios, input position)``."""
        inst = state.instance
        prep = self.prepared(inst)
        if prep["min"] is None:
            prep["min"] = scaled(inst, state.data, inst.extensions.min_share)
        T = totals(state.data)
        use = usage(state, i)
        w = inst.weights_exact[i]
        counted = prep["counted"]
        shares = {j: Fraction(use[j], T[j]) for j in counted}
        mins = prep["min"][i]
        if counted:
            dom = max(counted, key=lambda j: (shares[j], -j))
            if use[dom] < mins[dom]:
                ratios = [Fraction(use[j]) / mins[j] for j in counted if mins[j] > 0]
                return (0, tuple(resource_ranks(ratios)), i)
        return (1, tuple(resource_ranks([s / w for s in shares.values()])), i)


@register
class Yarn(VariantPolicy):
    """Hadoop 3.x YARN fair scheduler DRF (see the module docstring)."""

    name = "yarn"
    description = ("YARN fair scheduler DRF (Hadoop 3.x): queues below their minimum share first, "
                   "then weighted shares compared lexicographically from the largest down")
    source = "Apache Hadoop 3.x FairScheduler DominantResourceFairnessPolicy; Ghodsi et al., NSDI 2011, Section 4"
    form = YarnShare
