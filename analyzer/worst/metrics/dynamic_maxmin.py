"""Dynamic max-min ratio: the smallest dominant share after the last
arrival over the offline max-min optimum; worst = min (dynamic setting).

Li, Liu, Zhang and Zhang, "A note on the dynamic dominant resource fairness
mechanism" (arXiv 1509.07935): with the objective "maximise the minimum
dominant share", Dynamic DRF (Kash, Procaccia and Shah, JAIR 51, 2014) is
about ``m`` times worse than the offline optimum, which knows every user
from the start: the ratio tends to ``1/m``. The offline optimum
``max_x min_i x_i s_i`` (``s_i = max_j d_ij / R_j``) is the first level of
DRF's progressive filling, DRF's own smallest dominant share (Ghodsi et
al., NSDI 2011, Section 4: DRF maximises the smallest dominant share).
The users arrive in the instance's row order; a static policy is
recomputed at every arrival (its last step is its static allocation).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from models import Allocation, Instance, Policy, get_policy

from ...dynamics.trajectory import steps
from .base import MIN, Measure, Metric, exact_solve, ratio, register_metric


def _final(policy: Policy, instance: Instance, exact: bool) -> Allocation:
    """The allocation after the last arrival (exact where the policy is)."""
    got = steps(policy, instance, exact=exact)
    last = got.x_exact[-1] if got.exact and got.x_exact is not None else None
    return Allocation(instance=instance, x=np.array(got.x[-1], dtype=float), policy=policy.label,
                      exact=last is not None, x_exact=None if last is None else tuple(Fraction(v) for v in last))


@register_metric
class DynamicMaxMin(Metric):
    """``min_i s_i x_i^n / max_x min_i s_i x_i`` in ``(0, 1]``; worst = min.

    For Dynamic DRF the worst ratio tends to ``1/m`` (Li et al.): early
    users take the resources they use up to the budget ``k/n`` of their
    step, and a late user that needs every resource finds ``1/n`` of each
    left while the optimum gives everybody ``m/(n + m - 1)``-ish (``n - 1``
    users split evenly over ``m`` dominant resources, every other entry
    tending to 0: ratio ``(n + m - 1) / (n m)``).
    """

    name = "dynamic-maxmin"
    direction = MIN
    summary = "smallest dominant share after the last arrival over the offline max-min optimum (dynamic setting)"
    source = "Li, Liu, Zhang and Zhang, arXiv 1509.07935; Kash, Procaccia and Shah, JAIR 51, 2014"
    modes = ("dynamic",)
    default_budget = 600

    def evaluate(self, policy: Policy, instance: Instance) -> float:
        x = steps(policy, instance).x[-1]
        s = (instance.demands / instance.capacity[None, :]).max(axis=1)
        best = float(np.min(np.asarray(get_policy("drf").solve(instance).dominant_shares)))
        return float(np.min(x * s)) / best if best > 0 else float("nan")

    def measure(self, policy: Policy, instance: Instance) -> Measure:
        alloc = _final(policy, instance, exact=True)
        opt = exact_solve(get_policy("drf"), instance)
        got: Any
        best: Any
        if alloc.exact and opt.exact:
            got, best = min(alloc.dominant_shares_exact), min(opt.dominant_shares_exact)
        else:
            got, best = float(np.min(alloc.dominant_shares)), float(np.min(opt.dominant_shares))
        i = int(np.argmin(np.asarray(alloc.dominant_shares)))
        return Measure(ratio(got, best), alloc.exact and opt.exact, alloc,
                       {"user": instance.users[i], "dominant_share": str(got), "offline_maxmin": str(best)})
