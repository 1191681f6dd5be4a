"""Leximin (max-min) on task counts.

Max-min fairness on the number of tasks (jobs) a user runs, weighted:
the lexicographically largest vector of ``x_i / w_i`` (the limit
``beta -> inf`` of the GFJ family, Joe-Wong, Sen, Lan, Chiang, INFOCOM
2012, Section III; max-min fairness as in Bertsekas and Gallager, Data
Networks, 1992, Section 6.5.2). Computed by progressive filling with the
share of one task equal to 1.
"""

from __future__ import annotations

import numpy as np

from ..filling import FillingPolicy
from ..policy import register


@register
class LeximinTasks(FillingPolicy):
    """Weighted max-min on task counts.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.load("examples/paper_two_users.toml")  # R <9, 18>, A <1, 4>, B <3, 1>
    >>> LeximinTasks().solve_exact(inst).x_exact    # 4x + 4x... cpu: 4x = 9
    (Fraction(9, 4), Fraction(9, 4))
    """

    name = "leximin-tasks"
    description = "Max-min (leximin) on weighted task counts"
    source = "Joe-Wong et al., INFOCOM 2012, Section III (GFJ, beta -> inf)"
    rowwise_capacity = True  # one per row, whatever the capacity

    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        return demands[:, 0] * 0 + 1
