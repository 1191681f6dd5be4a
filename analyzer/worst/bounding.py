"""A proved bound by bisection with the SMT prover (:mod:`proofs.bounds`):
the tool then reports a pair, an instance attaining ``hi`` and a proof that
no instance of the size is worse than ``lo``, with ``hi - lo`` at most
:data:`~models.tolerances.BOUND_BISECTION_TOL` when complete.

For metrics whose worst is the minimum (efficiency, sharing incentive,
utilization) the first query asks at the attained value itself, so a worst
instance that is exactly optimal is proved so in one step; for envy, whose
worst is the maximum and has no a-priori bound, that one query is all.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

from models import Instance, Policy
from models.tolerances import BOUND_BISECTION_TOL

from .metrics.base import MIN, Metric
from .result import Bound


def simple_between(lo: Fraction, hi: Fraction) -> Fraction:
    """A fraction with a small denominator in the middle half of ``(lo, hi)``."""
    a, b = lo + (hi - lo) / 4, hi - (hi - lo) / 4
    mid = (lo + hi) / 2
    den = 1
    while True:
        q = mid.limit_denominator(den)
        if a <= q <= b:
            return q
        den *= 2


def prove_bound(policy: Policy, metric: Metric, n: int, m: int, domain: str, attained: Any, timeout: float
                ) -> tuple[Bound, Instance | None] | None:
    """Bisect on ``v`` between the metric's trivial bound and ``attained``.

    Returns ``None`` when (policy, metric) has no encoding; otherwise the
    bound and, when the prover found an instance worse than the search's,
    that instance (re-verified exactly).
    """
    from proofs.bounds import BOUNDS, PROVED, WORSE, supported, worse_than

    if supported(policy.name, metric.name) is not None or policy.params != policy.parameters:
        return None
    if not isinstance(attained, Fraction):
        return None
    if metric.direction != MIN:
        return _at_most(policy, metric, n, m, domain, attained, timeout)
    lo, hi = BOUNDS.get(metric.name).trivial, attained
    assert lo is not None, "a metric minimised has a trivial lower bound"
    found: Instance | None = None
    steps: list[tuple[str, str]] = []
    t0 = time.monotonic()
    v = hi
    while True:
        left = timeout - (time.monotonic() - t0)
        if left <= 0:
            break
        ans = worse_than(policy.name, metric.name, n, m, domain, v, left)
        steps.append((str(v), ans.status))
        if ans.status == PROVED:
            lo = v
        elif ans.status == WORSE and ans.demands is not None:
            inst = Instance.from_exact([1] * m, ans.demands)
            value = metric.measure(policy, inst).value
            if not isinstance(value, Fraction) or value >= v:
                break  # not confirmed exactly (an algebraic model rounded): stop
            hi, found = min(hi, value), inst
        else:
            break
        if hi - lo <= BOUND_BISECTION_TOL:
            break
        v = simple_between(lo, hi)
    return Bound(lo, hi, steps, time.monotonic() - t0, hi - lo <= BOUND_BISECTION_TOL), found


def _at_most(policy: Policy, metric: Metric, n: int, m: int, domain: str, attained: Fraction, timeout: float
             ) -> tuple[Bound, None] | None:
    """A metric whose worst is the maximum (no bisection: nothing bounds it
    a priori): one query, "is some instance worse than the value found?";
    the bound when none is."""
    from proofs.bounds import PROVED, worse_than

    ans = worse_than(policy.name, metric.name, n, m, domain, attained, timeout)
    if ans.status != PROVED:
        return None
    return Bound(attained, attained, [(str(attained), ans.status)], ans.seconds, True), None
