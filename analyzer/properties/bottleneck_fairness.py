"""Bottleneck fairness (Ghodsi et al., NSDI 2011, Section 6)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from models import Instance, Policy

from ._margins import maxmin_margins
from ._maxmin import WHOLE_TASKS_WHY, check_maxmin_on, common_dominant, maxmin_margin, screen_maxmin_many
from .base import CONTINUOUS, Property, Violation, register_property


@register_property
class BottleneckFairness(Property):
    """Bottleneck fairness.

    Ghodsi et al., NSDI 2011, Section 6 (Table 2): if there is one resource
    that is percent-wise demanded most by every user, the allocation is
    max-min fair on that resource. For Leontief users with weights and caps:
    when some resource ``b`` has ``d_ib / R_b = max_j d_ij / R_j`` for every
    user ``i`` (a dominant resource of everyone, ties allowed), the
    allocation equals weighted max-min with caps on ``b``:
    ``x_i = min(k_i, t w_i / d_ib)`` with the largest level ``t`` for which
    ``sum_i x_i d_ib <= R_b`` (the other resources cannot bind first, as
    ``d_ij / R_j <= d_ib / R_b``). The reference is exact water-filling.
    Continuous setting only.

    No search: the common dominant resource is found exactly (every
    candidate resource, ties included) and the whole allocation is compared
    with the reference. Instances without a common dominant resource are
    not in the property's class (``n/a``).

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([21, 21], [[3, 2], [4, 1]])
    >>> BottleneckFairness().check("drf", inst) is None
    True
    """

    name = "bottleneck-fairness"
    modes = (CONTINUOUS,)
    undefined_why = WHOLE_TASKS_WHY
    title = "Bottleneck fairness"
    source = "Ghodsi et al., NSDI 2011, Section 6"
    summary = "if one resource is every user's dominant resource, the allocation is weighted max-min on it"
    order = 6

    def applies(self, instance: Instance) -> str | None:
        if common_dominant(instance) is None:
            return "no resource is the dominant resource of every user"
        return None

    def margin(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> float:
        """Numeric violation margin (``< 0``: violated; ``inf`` when the
        property does not apply)."""
        j = common_dominant(instance)
        if j is None:  # the property does not apply (see :meth:`applies`)
            return float("inf")
        return maxmin_margin(policy, instance, mode, j)

    def margin_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """:meth:`margin` of each instance, the allocations and the max-min
        references solved in batches (see :meth:`.base.Property.margin_many`)."""
        return maxmin_margins(policy, instances, mode, [common_dominant(inst) for inst in instances])

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """Batched screen (see :meth:`.base.Property.screen_many`)."""
        return screen_maxmin_many(policy, instances, mode, [common_dominant(inst) for inst in instances])

    def check(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> Violation | None:
        j = common_dominant(instance)
        if j is None:
            return None
        return check_maxmin_on(self.name, policy, instance, mode, j)
