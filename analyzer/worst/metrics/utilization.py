"""Utilization: the used fraction of the most used resource,
``max_j sum_i x_i d_ij / R_j``; worst = min.

A non-wasteful policy saturates some resource (value 1); Ghodsi et al.,
NSDI 2011, Section 4 show DRF does (progressive filling stops only at a
saturated resource), while e.g. static slices leave everything partly idle.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from models import Instance, Policy

from .base import MIN, Measure, Metric, exact_solve, numeric_solve, register_metric


@register_metric
class Utilization(Metric):
    """``max_j usage_j / R_j`` in ``[0, 1]``; worst = min."""

    name = "utilization"
    direction = MIN
    summary = "the used fraction of the most used resource"
    source = "Ghodsi et al., NSDI 2011, Section 4 (a non-wasteful policy saturates a resource)"

    def evaluate(self, policy: Policy, instance: Instance) -> float:
        x = numeric_solve(policy, instance)
        return float(((x @ instance.demands) / instance.capacity).max())

    def measure(self, policy: Policy, instance: Instance) -> Measure:
        alloc = exact_solve(policy, instance)
        if alloc.exact:
            used = [u / c for u, c in zip(alloc.usage_exact, instance.capacity_exact, strict=True)]
            value = max(used, key=float)
            if not isinstance(value, Fraction) and getattr(value, "is_Rational", False):
                value = Fraction(int(value.p), int(value.q))
        else:
            used = list(np.asarray(alloc.utilization, dtype=float))
            value = max(used)
        j = max(range(instance.m), key=lambda k: float(used[k]))
        return Measure(value, alloc.exact, alloc, {"resource": instance.resources[j]})
