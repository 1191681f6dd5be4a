"""Efficiency: the policy's utilitarian welfare over the best welfare of
any feasible allocation.

Welfare is the sum of the users' dominant shares ``sum_i x_i s_i`` with
``s_i = max_j d_ij / R_j`` (Parkes, Procaccia and Shah, "Beyond Dominant
Resource Fairness", EC 2012, Section 5: DRF's utilitarian welfare can be a
factor ``m`` below the optimum). The optimum is the LP
``max sum_i s_i z_i`` s.t. ``sum_i z_i d_ij <= R_j``, ``0 <= z_i <= k_i``
(task caps), solved by HiGHS in floats and by the exact simplex of
:mod:`proofs.rational_lp` in Fractions.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from models import Instance, Policy
from models.tolerances import WORST_LOG_SPAN
from proofs.rational_lp import lp_max

from .base import MIN, Measure, Metric, demands_of, exact_solve, numeric_solve, ratio, register_metric

if TYPE_CHECKING:
    from ..space import Space, Start

#: Largest number of used-resource counts ``p`` tried by the family starts
#: (spread over ``2 .. min(n, m)``).
FAMILY_SIZES = 12


def _shares_per_task(instance: Instance) -> np.ndarray:
    return (instance.demands / instance.capacity[None, :]).max(axis=1)


def best_welfare(instance: Instance) -> float:
    """``max sum_i s_i z_i`` over feasible ``z`` (floats, HiGHS)."""
    from scipy.optimize import linprog

    s = _shares_per_task(instance)
    caps = [(0.0, None if not np.isfinite(k) else float(k)) for k in instance.max_tasks]
    res = linprog(-s, A_ub=instance.demands.T, b_ub=instance.capacity, bounds=caps, method="highs")
    return float(-res.fun) if res.status == 0 else float("nan")


def best_welfare_exact(instance: Instance) -> Fraction:
    """The same optimum in Fractions (cap rows added for capped users)."""
    d, R = demands_of(instance, exact=True)
    s = [max(dij / rj for dij, rj in zip(row, R, strict=True)) for row in d]
    A = [[d[i][j] for i in range(instance.n)] for j in range(instance.m)]
    b = list(R)
    for i, k in enumerate(instance.max_tasks_exact):
        if k is not None:
            A.append([Fraction(int(t == i)) for t in range(instance.n)])
            b.append(k)
    value, _ = lp_max(s, A, b)
    return value


@register_metric
class Efficiency(Metric):
    """Utilitarian efficiency ``W(policy) / W*`` in ``(0, 1]``; worst = min.

    For DRF with positive demands the infimum is ``1/m`` (Parkes, Procaccia
    and Shah, EC 2012, Theorem 5.1); ``k`` users on one resource and one
    user on each other resource, every other entry tending to 0, give
    ``(k + m - 1) / (k m)``.
    """

    name = "efficiency"
    direction = MIN
    summary = "sum of dominant shares over the largest sum of any feasible allocation"
    source = "Parkes, Procaccia, Shah, EC 2012, Section 5"

    def starts(self, space: Space, rng: np.random.Generator) -> Iterator[Start]:
        return family_starts(space)

    def evaluate(self, policy: Policy, instance: Instance) -> float:
        x = numeric_solve(policy, instance)
        welfare = float(x @ _shares_per_task(instance))
        best = best_welfare(instance)
        return welfare / best if best > 0 else float("nan")

    def measure(self, policy: Policy, instance: Instance) -> Measure:
        alloc = exact_solve(policy, instance)
        welfare: Any
        best: Any
        if alloc.exact:  # the allocation's own dominant shares, summed
            welfare, best = sum(alloc.dominant_shares_exact, Fraction(0)), best_welfare_exact(instance)
        else:
            welfare, best = float(np.sum(alloc.dominant_shares)), best_welfare(instance)
        return Measure(ratio(welfare, best), alloc.exact, alloc, {"welfare": str(welfare), "best_welfare": str(best)})


def family_starts(space: Space) -> Iterator[Start]:
    """The extremal family of max-min welfare, every other entry at the
    box's edge ``e^-WORST_LOG_SPAN``: on ``p <= min(n, m)`` resources,
    ``k = n - p + 1`` core users need only resource 0 and one side user
    needs each of resources ``1 .. p-1`` and ``b / (p-1)`` of resource 0.
    DRF gives every user ``1 / (k + b)`` and the optimum is ``p - b``:
    efficiency ``n / ((k + b)(p - b))``. ``b = 0`` is Parkes, Procaccia and
    Shah's ``(k + m - 1) / (k m)`` (EC 2012, Section 5); ``b = (p - k) / 2``
    (clipped to ``[0, 1]``) maximises the denominator and reaches the
    price-of-fairness bound ``4n / (n + 1)^2`` of Bertsimas, Farias and
    Trichakis where ``k + b = p - b`` (e.g. ``8/9`` at 2 x 2)."""
    n, m = space.n, space.m
    sizes: list[int] = list(range(2, min(n, m) + 1))
    if len(sizes) > FAMILY_SIZES:
        sizes = sorted({int(v) for v in np.linspace(2, min(n, m), FAMILY_SIZES).round()})
    for p in sizes:
        k = n - p + 1
        for b in dict.fromkeys((min(1.0, max(0.0, (p - k) / 2)), 0.0)):
            theta = np.full((n, m), -WORST_LOG_SPAN)
            theta[:k, 0] = 0.0
            side = np.arange(1, p)
            theta[k + side - 1, side] = 0.0
            if b > 0:
                theta[k + side - 1, 0] = np.log(b / (p - 1))
            yield f"family k={k} p={p} b={b:g}", theta.ravel()
