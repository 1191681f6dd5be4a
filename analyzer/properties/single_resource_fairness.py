"""Single-resource fairness (Ghodsi et al., NSDI 2011, Section 6)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from models import Instance, Policy

from ._margins import maxmin_margins
from ._maxmin import WHOLE_TASKS_WHY, check_maxmin_on, maxmin_margin, screen_maxmin_many
from .base import CONTINUOUS, Property, Violation, register_property


@register_property
class SingleResourceFairness(Property):
    """Single-resource fairness.

    Ghodsi et al., NSDI 2011, Section 6 (Table 2): with a single resource
    the allocation is max-min fair. For Leontief users with weights and
    caps on one resource of capacity ``R``: the allocation equals weighted
    max-min with caps, ``x_i = min(k_i, t w_i / d_i)`` with the level ``t``
    the largest for which ``sum_i x_i d_i <= R`` (every user capped if that
    leaves capacity over). The reference is computed exactly by
    water-filling. Applies only when ``m = 1``; continuous setting only.

    No search: the whole allocation is compared with the exact reference
    (every user, both directions: above and below max-min).

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([10], [[1], [2]], weights=[1, 3])
    >>> SingleResourceFairness().check("asset", inst) is None
    True
    """

    name = "single-resource-fairness"
    modes = (CONTINUOUS,)
    undefined_why = WHOLE_TASKS_WHY
    title = "Single-resource fairness"
    source = "Ghodsi et al., NSDI 2011, Section 6"
    summary = "with one resource, the allocation is weighted max-min with caps on it"
    order = 5

    def applies(self, instance: Instance) -> str | None:
        return None if instance.m == 1 else f"needs a single resource, the instance has {instance.m}"

    def applies_to_shape(self, n: int, m: int) -> bool:
        return m == 1

    def margin(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> float:
        """Numeric violation margin (``< 0``: violated; ``inf`` when the
        property does not apply)."""
        if self.applies(instance) is not None:
            return float("inf")
        return maxmin_margin(policy, instance, mode, 0)

    def margin_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """:meth:`margin` of each instance, the allocations and the max-min
        references solved in batches (see :meth:`.base.Property.margin_many`)."""
        return maxmin_margins(policy, instances, mode, [0 if self.applies(i) is None else None for i in instances])

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """Batched screen (see :meth:`.base.Property.screen_many`)."""
        return screen_maxmin_many(policy, instances, mode, [0 if inst.m == 1 else None for inst in instances])

    def check(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> Violation | None:
        if self.applies(instance) is not None:
            return None
        return check_maxmin_on(self.name, policy, instance, mode, 0)
