"""From the optimiser's float point to a certified instance: shrink to small
integers, then measure exactly.

Candidates, simplest first: every demand rounded to a multiple of ``1/q``
of the unit capacity, written as integers over capacities ``q``, for growing
``q`` (a common scale of every resource, which leaves the metrics
unchanged); then the float point itself, converted exactly. The first
candidate whose float value is at most
:attr:`Metric.shrink_rtol` (relative; :data:`~models.tolerances.WORST_SHRINK_RTOL` by default) less bad than the
optimiser's value is measured exactly (:meth:`Metric.measure`); the exact
value is what the search reports.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction

import numpy as np

from models import Instance, InstanceError, Policy, SolverError

from .metrics.base import Measure, Metric
from .space import ZEROS, Space

#: Common denominators tried, in order.
SCALES = (1, 2, 3, 4, 5, 6, 8, 10, 12, 20, 50, 100, 200, 500, 1000, 10**4, 10**5, 10**6)


def integer_versions(space: Space, demands: np.ndarray) -> Iterator[Instance]:
    """The demands rounded on the grid ``1/q``, as integers over capacity ``q``."""
    seen: set[tuple[int, ...]] = set()
    for q in SCALES:
        ints = np.rint(demands * q).astype(np.int64)
        if space.domain == ZEROS:
            top = demands.argmax(axis=1)
            ints[np.arange(space.n), top] = np.maximum(ints[np.arange(space.n), top], 1)
        else:
            ints = np.maximum(ints, 1)
        key = tuple(ints.ravel())
        if key in seen:
            continue
        seen.add(key)
        yield Instance.from_exact([q] * space.m, ints.tolist())


def exact_version(demands: np.ndarray) -> Instance:
    """The float demands as exact binary fractions over unit capacities."""
    return Instance.from_exact([1] * demands.shape[1], [[Fraction(float(v)) for v in row] for row in demands])


def close_enough(metric: Metric, value: float, found: float) -> bool:
    """``value`` is at most ``metric.shrink_rtol`` (relative) less bad than ``found``."""
    if not math.isfinite(found):
        return value == found
    return metric.loss(value) <= metric.loss(found) + metric.shrink_rtol * max(abs(found), 1.0)


def _digits(v: int) -> int:
    """Significant digits of ``v`` (0 has none)."""
    return len(str(v).rstrip("0")) if v else 0


def _simpler(v: int, q: int, least: int) -> list[int]:
    """Values simpler than ``v`` in ``[least, q]``: fewer significant digits first."""
    out = {least, 1, q}
    for k in range(1, len(str(v))):
        out.add(int(round(v, -k)))
    return sorted((c for c in out if least <= c <= q and c != v and _digits(c) < _digits(v)),
                  key=lambda c: (_digits(c), c))


def simplify(policy: Policy, metric: Metric, space: Space, inst: Instance, found: float, effort: int) -> Instance:
    """Greedy: replace demand entries by simpler integers (1, the capacity,
    fewer significant digits) while the float value stays close to
    ``found``, within ``effort`` metric evaluations; then divide each
    resource's column and capacity by their common divisor."""
    q = int(inst.capacity_exact[0])
    dem = [[int(v) for v in row] for row in inst.demands_exact]
    least = 0 if space.domain == ZEROS else 1
    for i in range(space.n):
        for j in range(space.m):
            for c in _simpler(dem[i][j], q, least):
                if effort <= 0:
                    break
                trial = [list(r) for r in dem]
                trial[i][j] = c
                if not any(trial[i]):
                    continue
                effort -= 1
                try:
                    ok = close_enough(metric, metric.evaluate(policy, Instance.from_exact([q] * space.m, trial)), found)
                except (SolverError, InstanceError, ValueError, ArithmeticError):
                    ok = False
                if ok:
                    dem = trial
                    break
    caps = []
    for j in range(space.m):
        g = math.gcd(q, *(row[j] for row in dem))
        caps.append(q // g)
        for row in dem:
            row[j] //= g
    return Instance.from_exact(caps, dem)


def certify(policy: Policy, metric: Metric, space: Space, theta: np.ndarray, found: float, effort: int = 0
            ) -> tuple[Instance, Measure]:
    """The simplest instance near ``theta`` that keeps the value found, and
    its exact measure (``effort``: metric evaluations for :func:`simplify`)."""
    demands = space.demands(theta)
    for inst, integer in [*((i, True) for i in integer_versions(space, demands)), (exact_version(demands), False)]:
        try:
            if not close_enough(metric, metric.evaluate(policy, inst), found):
                continue
            if integer and effort > 0:
                inst = simplify(policy, metric, space, inst, found, effort)
            m = metric.measure(policy, inst)
        except (SolverError, InstanceError, ValueError, ArithmeticError):
            continue
        if close_enough(metric, float(m.value), found):
            return inst, m
    inst = exact_version(demands)
    return inst, metric.measure(policy, inst)
