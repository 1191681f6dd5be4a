"""Envy: the largest ratio, over ordered pairs of users, of the tasks user
``i`` could run with user ``k``'s bundle to its own tasks; worst = max.

With Leontief preferences the bundle ``x_k d_k`` runs
``x_k min_{j: d_ij > 0} d_kj / d_ij`` of ``i``'s tasks (Ghodsi et al., NSDI
2011, Section 3, envy-freeness: the value is at most 1 exactly when no user
envies another). A user with no tasks who could run some with another's
bundle gives ``inf``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance, Policy

from .base import MAX, Measure, Metric, demands_of, exact_solve, numeric_solve, ratio, register_metric, tasks_of


def could_run(d: list[list[Any]], x: list[Any], i: int, k: int) -> Any:
    """``x_k min_{j: d_ij > 0} d_kj / d_ij``."""
    return x[k] * min(dk / di for dk, di in zip(d[k], d[i], strict=True) if di > 0)


@register_metric
class Envy(Metric):
    """``max_{i != k} could_run(i, k) / x_i`` (1 = envy-free); worst = max."""

    name = "envy"
    direction = MAX
    summary = "largest ratio of the tasks a user could run with another's bundle to its own tasks"
    source = "Ghodsi et al., NSDI 2011, Section 3 (envy-freeness)"

    def evaluate(self, policy: Policy, instance: Instance) -> float:
        x = numeric_solve(policy, instance)
        d = instance.demands
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(d[None, :, :] > 0, d[:, None, :] / d[None, :, :], np.inf).min(axis=2)  # q[k, i]
            run = x[:, None] * q
            np.fill_diagonal(run, 0.0)
            r = np.where(x[None, :] > 0, run / x[None, :], np.where(run > 0, np.inf, 0.0))
        return float(r.max()) if instance.n > 1 else 1.0

    def measure(self, policy: Policy, instance: Instance) -> Measure:
        alloc = exact_solve(policy, instance)
        d, _ = demands_of(instance, alloc.exact)
        x = tasks_of(alloc)
        best: Any = Fraction(1) if alloc.exact else 1.0
        who: dict[str, Any] = {}
        for i in range(instance.n):
            for k in range(instance.n):
                if i != k:
                    r = ratio(could_run(d, x, i, k), x[i])
                    if float(r) > float(best):
                        best, who = r, {"user": instance.users[i], "envies": instance.users[k]}
        return Measure(best, alloc.exact, alloc, who)
