"""Alpha-fairness on task counts ("GFJ", generalized fairness on jobs).

Joe-Wong, Sen, Lan, Chiang, "Multi-resource allocation: Fairness-efficiency
tradeoffs in a unifying framework", INFOCOM 2012, Section III (the GFJ
family, fairness on the number of jobs). As for FDS, the member with
``lambda = (1 - beta) / beta`` is implemented: maximise
``sum_i w_i U_beta(x_i / w_i)``. ``beta = 1`` is the Nash product (CEEI);
``beta -> inf`` tends to max-min on (weighted) task counts, the
``leximin-tasks`` policy, and ``beta = inf`` is solved as that policy.
"""

from __future__ import annotations

import numpy as np

from ..policy import register
from .fds import FDS


@register
class GFJ(FDS):
    """Weighted alpha-fair allocation of tasks, parameter ``beta > 0``.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.load("examples/paper_two_users.toml")  # R <9, 18>, A <1, 4>, B <3, 1>
    >>> [round(float(v) * 11, 4) for v in GFJ(beta=1).solve(inst).x]   # CEEI
    [45.0, 18.0]
    >>> GFJ(beta=float('inf')).solve(inst).x.tolist()   # leximin on tasks
    [2.25, 2.25]
    """

    name = "gfj"
    description = "Alpha-fair on task counts (beta=1: CEEI, beta->inf: leximin on tasks)"
    source = "Joe-Wong, Sen, Lan, Chiang, INFOCOM 2012, Section III"
    limit = "leximin-tasks"
    scale_invariant = False  # utilities are task counts: a larger reported task is worth more

    def units(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        """Utility of one task: 1 (shape (K, n))."""
        return np.ones(demands.shape[:2])
