"""From the optimiser's float points to a certified instance: shrink to
small integers, then measure exactly.

A certificate of one point ``theta`` with float value ``found``: the
candidates, simplest first, are every demand rounded to a multiple of
``1/q`` of the unit capacity, written as integers over capacities ``q``,
for growing ``q`` (a common scale of every resource, which leaves the
metrics unchanged), then the float point itself, converted exactly. The
first candidate whose value, in floats and then exactly
(:meth:`Metric.measure`), lies within :data:`~models.tolerances.WORST_SHRINK_RTOL`
(relative) of ``found`` on either side is the certificate; the exact value
is what the search reports. Shrinking thus never loses more than the
tolerance, and a certificate never claims more than its point by more than
the tolerance either.

The certified best is kept through shrinking, and the value reported never
decreases with the budget: the search's improvements are certified from
the last one backwards, skipping a point whose value cannot beat the best
certificate so far (by the band above, no certificate of it can be better
than its value plus the tolerance), and the best certificate is reported. The points,
their values and every certificate are independent of the budget, and a
larger budget's improvements extend a smaller one's: its walk visits, or
rules out by the band, every certificate the smaller one could report.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance, InstanceError, Policy, SolverError

from .metrics.base import Measure, Metric
from .search import Improvement
from .space import ZEROS, Space

#: Common denominators tried, in order.
SCALES = (1, 2, 3, 4, 5, 6, 8, 10, 12, 20, 50, 100, 200, 500, 1000, 10**4, 10**5, 10**6, 10**7, 10**8, 10**9)
#: Above this many demand entries, certificates are measured in floats
#: (the exact solvers and the exact LP grow too slow: a 100 x 20 instance
#: takes seconds, 200 x 50 minutes); the result then says ``exact=False``.
EXACT_MAX_CELLS = 2000
#: What a failed evaluation or exact measure raises (the candidate is skipped).
FAILURES = (SolverError, InstanceError, ValueError, ArithmeticError)


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


def within(metric: Metric, value: Any, found: float) -> bool:
    """``value`` is within ``metric.shrink_rtol`` (relative to
    ``max(|found|, 1)``) of ``found``, on either side (equal when ``found``
    is not finite)."""
    v = float(value)
    if not math.isfinite(found):
        return v == found
    return abs(v - found) <= metric.shrink_rtol * max(abs(found), 1.0)


class Certifier:
    """Certificates of points of one search, with the metric's float and
    exact values of every instance tried remembered (neighbouring points
    often round to the same candidates)."""

    def __init__(self, policy: Policy, metric: Metric, space: Space, effort: int) -> None:
        self.policy, self.metric, self.space, self.effort = policy, metric, space, effort
        self.exact = space.dim <= EXACT_MAX_CELLS
        self._floats: dict[Instance, float] = {}
        self._measures: dict[Instance, Measure | None] = {}

    def value(self, inst: Instance) -> float:
        """The float value (``nan`` when the policy or metric fails)."""
        if inst not in self._floats:
            try:
                self._floats[inst] = float(self.metric.evaluate(self.policy, inst))
            except FAILURES:
                self._floats[inst] = math.nan
        return self._floats[inst]

    def measure(self, inst: Instance) -> Measure | None:
        """The exact measure (floats beyond :data:`EXACT_MAX_CELLS`); ``None`` on failure."""
        if inst not in self._measures:
            try:
                self._measures[inst] = (self.metric.measure(self.policy, inst) if self.exact
                                        else float_measure(self.policy, self.metric, inst))
            except FAILURES:
                self._measures[inst] = None
        return self._measures[inst]

    def point(self, theta: np.ndarray, found: float) -> tuple[Instance, Measure] | None:
        """The certificate of ``theta`` (value ``found``), or ``None`` when no
        candidate lies within the tolerance of ``found``."""
        demands = self.space.demands(theta)
        exact = exact_version(demands)
        # the point's own floats (its demands as exact binary fractions): the value found
        self._floats.setdefault(exact, found)
        for inst, integer in [*((i, True) for i in integer_versions(self.space, demands)), (exact, False)]:
            if not within(self.metric, self.value(inst), found):
                continue
            if integer and self.effort > 0:
                inst = simplify(self, inst, found)
            m = self.measure(inst)
            if m is not None and within(self.metric, m.value, found):
                return inst, m
        return None

    def as_is(self, theta: np.ndarray) -> tuple[Instance, Measure]:
        """The point converted exactly and measured, whatever its value
        (when no candidate is within the tolerance)."""
        inst = exact_version(self.space.demands(theta))
        m = self.measure(inst)
        return inst, m if m is not None else float_measure(self.policy, self.metric, inst)

    def best(self, points: list[Improvement]) -> tuple[Instance, Measure, Improvement] | None:
        """The best certificate of ``points`` (improvements, oldest first),
        walking back from the last while an older one could still beat it
        (see the module's docstring); Ctrl-C keeps the best so far."""
        loss = self.metric.loss
        kept: tuple[Instance, Measure, Improvement] | None = None
        try:
            for p in reversed(points):
                scale = self.metric.shrink_rtol * max(abs(p.value), 1.0) if math.isfinite(p.value) else 0.0
                if kept is not None and loss(p.value) - scale >= loss(float(kept[1].value)):
                    continue  # no certificate of p can beat the one kept
                got = self.point(p.theta, p.value)
                if got is not None and (kept is None or loss(float(got[1].value)) < loss(float(kept[1].value))):
                    kept = (*got, p)
        except KeyboardInterrupt:
            if kept is None:
                raise
        return kept


def float_measure(policy: Policy, metric: Metric, inst: Instance) -> Measure:
    """The metric in floats, as a :class:`Measure` (beyond exact reach)."""
    return Measure(metric.evaluate(policy, inst), False, policy.solve(inst), {})


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


def simplify(cert: Certifier, inst: Instance, found: float) -> Instance:
    """Greedy: replace demand entries, the smallest first (the tiny
    off-dominant entries a worst case often does not depend on), by simpler
    integers (1, the capacity, fewer significant digits) while the float
    value stays within the tolerance of ``found``, within ``cert.effort``
    metric evaluations; then divide each resource's column and capacity by
    their common divisor."""
    space, effort = cert.space, cert.effort
    q = int(inst.capacity_exact[0])
    dem = [[int(v) for v in row] for row in inst.demands_exact]
    least = 0 if space.domain == ZEROS else 1
    for i, j in sorted(np.ndindex(space.n, space.m), key=lambda ij: (dem[ij[0]][ij[1]], ij)):
        for c in _simpler(dem[i][j], q, least):
            if effort <= 0:
                break
            trial = [list(r) for r in dem]
            trial[i][j] = c
            if not any(trial[i]):
                continue
            effort -= 1
            if within(cert.metric, cert.value(Instance.from_exact([q] * space.m, trial)), found):
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
    """The certificate of one point ``theta`` or, when no candidate is within
    the tolerance, its exact conversion measured as it is."""
    cert = Certifier(policy, metric, space, effort)
    got = cert.point(theta, found)
    return got if got is not None else cert.as_is(theta)
