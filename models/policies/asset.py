"""Asset fairness (continuous).

Ghodsi et al., NSDI 2011, Section 5.1: a user's aggregate share is
``sum_j x_i d_ij / R_j``; asset fairness is max-min fairness on aggregate
shares (weighted: divided by the weight), computed by progressive filling.
"""

from __future__ import annotations

import numpy as np

from ..filling import FillingPolicy
from ..filling_numeric import last_sum
from ..policy import register


@register
class AssetFairness(FillingPolicy):
    """Weighted asset fairness with task caps.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> AssetFairness().solve_exact(inst).x_exact
    (Fraction(63, 25), Fraction(54, 25))
    """

    name = "asset"
    description = "Asset fairness: max-min on weighted aggregate (summed) shares"
    share_label = "aggregate share"
    source = "Ghodsi et al., NSDI 2011, Section 5.1"
    scale_invariant = True  # the aggregate share x_i sum_j d_ij / R_j depends on the bundle only
    rowwise_capacity = True  # (demands / capacity) row by row

    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        return last_sum(demands / capacity)
