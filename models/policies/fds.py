"""Alpha-fairness on dominant shares ("FDS", fairness on dominant shares).

Joe-Wong, Sen, Lan, Chiang, "Multi-resource allocation: Fairness-efficiency
tradeoffs in a unifying framework", INFOCOM 2012, Section III (the FDS
family). FDS scores an allocation by the dominant shares ``mu_i = x_i s_i``
(``s_i = max_j d_ij / R_j``) with a fairness parameter ``beta`` and an
efficiency parameter ``lambda``; with ``lambda = (1 - beta) / beta`` the FDS
function is an increasing transform of the alpha-fair utility
``sum_i U_beta(mu_i)`` (``U_1 = log``, ``U_beta(v) = v^(1-beta)/(1-beta)``),
and that member of the family is the one implemented here (weighted:
``sum_i w_i U_beta(mu_i / w_i)``).

``beta = 1`` is the weighted Nash product, i.e. CEEI (Ghodsi et al., NSDI
2011, Section 5.2); ``beta -> inf`` tends to weighted max-min on dominant
shares, i.e. DRF; ``beta = inf`` is accepted and solved as DRF exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..allocation import Allocation
from ..convex import ConvexPolicy, alpha_fair_objective, positive_parameter
from ..instance import Instance
from ..policy import get_policy, register


@register
class FDS(ConvexPolicy):
    """Weighted alpha-fair allocation of dominant shares, parameter ``beta > 0``.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.load("examples/paper_two_users.toml")  # R <9, 18>, A <1, 4>, B <3, 1>
    >>> [round(float(v) * 11, 4) for v in FDS(beta=1).solve(inst).x]   # CEEI
    [45.0, 18.0]
    """

    name = "fds"
    description = "Alpha-fair on dominant shares (beta=1: CEEI, beta->inf: DRF)"
    source = "Joe-Wong, Sen, Lan, Chiang, INFOCOM 2012, Section III"
    scale_invariant = True  # the dominant shares mu_i = x_i s_i depend on the bundle only
    parameters = {"beta": 2.0}
    limit = "drf"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.beta = positive_parameter(self, "beta", allow_inf=True)

    def unit(self, instance: Instance) -> np.ndarray:
        """Utility of one task of each user: its dominant share ``s_i``."""
        return (instance.demands / instance.capacity).max(axis=1)

    def references(self, instance: Instance) -> list[np.ndarray]:
        """The max-min limit (``beta = inf``) is feasible, so the optimum
        must score at least as well as it."""
        return [get_policy(self.limit).solve(instance).x]

    def build(self, instance: Instance, x: Any) -> tuple[Any, list[Any]]:
        import cvxpy as cp

        unit = self.unit(instance)
        # scale: the max-min (beta = inf) level, so that utilities are ~1 at the optimum
        level = float(np.min(get_policy(self.limit).solve(instance).x * unit / instance.weights))
        return alpha_fair_objective(cp.multiply(unit, x), instance.weights, self.beta, scale=level), []

    def solve(self, instance: Instance) -> Allocation:
        if np.isinf(self.beta):
            return self._limit(get_policy(self.limit).solve(instance))
        return super().solve(instance)

    @property
    def has_exact(self) -> bool:
        """Exact solutions exist only for ``beta = inf``."""
        return bool(np.isinf(self.beta))

    def solve_exact(self, instance: Instance) -> Allocation:
        """Exact only for ``beta = inf`` (the max-min limit, by filling).

        Raises
        ------
        NotImplementedError
            For finite ``beta`` (irrational optima in general).
        """
        if not np.isinf(self.beta):
            raise NotImplementedError(f"policy {self.label!r}: no exact solver for finite beta")
        return self._limit(get_policy(self.limit).solve_exact(instance))

    def _limit(self, alloc: Allocation) -> Allocation:
        from dataclasses import replace

        return replace(alloc, policy=self.label)
