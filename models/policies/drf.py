"""Dominant Resource Fairness (continuous).

Ghodsi et al., NSDI 2011, Section 4 (definition and progressive filling,
Section 4.2; weighted DRF, Section 4.3): a user's dominant share is
``max_j x_i d_ij / R_j``; DRF is max-min fairness on dominant shares divided
by weights, computed by progressive filling.
"""

from __future__ import annotations

import numpy as np

from ..filling import FillingPolicy
from ..filling_numeric import last_max
from ..policy import register


@register
class DRF(FillingPolicy):
    """Weighted DRF with task caps; exact, numeric and LP-sequence solvers.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> DRF().solve_exact(inst).x_exact
    (Fraction(3, 1), Fraction(2, 1))
    """

    name = "drf"
    description = "Dominant Resource Fairness: max-min on weighted dominant shares"
    share_label = "dominant share"
    source = "Ghodsi et al., NSDI 2011, Sections 4.1-4.3"
    scale_invariant = True  # the dominant share x_i max_j d_ij / R_j depends on the bundle only
    rowwise_capacity = True  # (demands / capacity) row by row

    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        return last_max(demands / capacity)
