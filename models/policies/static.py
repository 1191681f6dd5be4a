"""The static partition: every user gets ``w_i / sum_k w_k`` of every resource.

The "1/n of each resource" allocation used as the benchmark of the sharing
incentive property (Ghodsi et al., NSDI 2011, Section 3.1), taken as a
policy: user ``i`` runs ``min_j (w_i / W) R_j / d_ij`` tasks (over the
resources it uses, ``W = sum_k w_k``), capped at ``k_i``. Unused parts of
the partitions stay idle, which is what makes it inefficient.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from ..allocation import OPTIMAL, Allocation
from ..instance import Instance
from ..policy import Policy, register


@register
class StaticPartition(Policy):
    """Weighted static partition of every resource.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.load("examples/paper_two_users.toml")  # R <9, 18>, A <1, 4>, B <3, 1>
    >>> StaticPartition().solve_exact(inst).x_exact   # A: min(4.5/1, 9/4); B: min(4.5/3, 9/1)
    (Fraction(9, 4), Fraction(3, 2))
    """

    name = "static"
    description = "Static partition: each user gets w_i/sum(w) of every resource (1/n unweighted)"
    source = "Ghodsi et al., NSDI 2011, Section 3.1 (the 1/n partition of sharing incentive)"
    scale_invariant = True  # the slice w_i / sum(w) of every resource does not depend on d_i

    def solve(self, instance: Instance) -> Allocation:
        t0 = time.perf_counter()
        D, R, w = instance.demands, instance.capacity, instance.weights
        part = (w / w.sum())[:, None] * R[None, :]
        with np.errstate(divide="ignore"):
            per = np.where(D > 0, part / np.where(D > 0, D, 1.0), np.inf)
        x = np.minimum(per.min(axis=1), instance.max_tasks)
        return Allocation(instance=instance, x=x, policy=self.label, status=OPTIMAL,
                          stats={"solver": "numpy-closed-form", "seconds": time.perf_counter() - t0})

    def solve_exact(self, instance: Instance) -> Allocation:
        t0 = time.perf_counter()
        W = sum(instance.weights_exact, Fraction(0))
        x: list[Fraction] = []
        for i, row in enumerate(instance.demands_exact):
            wi = instance.weights_exact[i] / W
            xi = min(wi * r / d for r, d in zip(instance.capacity_exact, row, strict=True) if d > 0)
            cap = instance.max_tasks_exact[i]
            x.append(xi if cap is None else min(xi, cap))
        return Allocation(instance=instance, x=np.array([float(v) for v in x]), policy=self.label, exact=True,
                          x_exact=tuple(x), status=OPTIMAL,
                          stats={"solver": "fraction-closed-form", "seconds": time.perf_counter() - t0})
