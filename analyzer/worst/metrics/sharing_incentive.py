"""Sharing incentive: the smallest ratio of a user's tasks to the tasks
its slice ``w_i / sum_k w_k`` of every resource would give it; worst = min.

The slice runs ``min_{j: d_ij > 0} (w_i / W) R_j / d_ij`` tasks, capped at
``k_i`` (Ghodsi et al., NSDI 2011, Section 3 and 4.3 for weights); the value
is at least 1 exactly when the policy has the sharing-incentive property.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance, Policy

from .base import MIN, Measure, Metric, demands_of, exact_solve, numeric_solve, ratio, register_metric, tasks_of


def slice_tasks(instance: Instance, exact: bool) -> list[Any]:
    """Tasks of each user's weighted slice (capped)."""
    d, R = demands_of(instance, exact)
    w = list(instance.weights_exact) if exact else [float(v) for v in instance.weights]
    total = sum(w, Fraction(0)) if exact else sum(w)
    caps = instance.max_tasks_exact if exact else [None if not np.isfinite(k) else float(k) for k in instance.max_tasks]
    out = []
    for i, row in enumerate(d):
        t = min(w[i] / total * r / dij for r, dij in zip(R, row, strict=True) if dij > 0)
        out.append(t if caps[i] is None else min(t, caps[i]))
    return out


@register_metric
class SharingIncentive(Metric):
    """``min_i x_i / slice_i`` (1 = every user does as well as its slice); worst = min."""

    name = "sharing-incentive"
    direction = MIN
    summary = "smallest ratio of a user's tasks to the tasks of its w_i / sum w slice"
    source = "Ghodsi et al., NSDI 2011, Sections 3 and 4.3"

    def evaluate(self, policy: Policy, instance: Instance) -> float:
        x = numeric_solve(policy, instance)
        return float(np.min(x / np.asarray(slice_tasks(instance, False))))

    def measure(self, policy: Policy, instance: Instance) -> Measure:
        alloc = exact_solve(policy, instance)
        x = tasks_of(alloc)
        s = slice_tasks(instance, alloc.exact)
        r = [ratio(xi, si) for xi, si in zip(x, s, strict=True)]
        i = min(range(instance.n), key=lambda k: float(r[k]))
        return Measure(r[i], alloc.exact, alloc, {"user": instance.users[i], "slice_tasks": str(s[i])})
