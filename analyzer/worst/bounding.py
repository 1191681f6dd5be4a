"""A proved bound by bisection with the SMT prover (:mod:`proofs.bounds`):
the tool then reports a pair, an instance attaining ``A`` and a proof that
no instance of the size is worse than ``P``, with ``|A - P|`` at most
:data:`~models.tolerances.BOUND_BISECTION_TOL` when complete.

The queries, each "is some instance worse than ``v``?":

1. ``v = A``, the value found: a worst instance that is exactly optimal is
   proved so in one step;
2. the simplest fraction within the tolerance of ``A`` on the proof's side
   (``3/4`` below ``0.750006``; ``3/2`` above ``1.4993``): a closed form
   the search approaches is proved exactly when it is the truth;
3. then, between the best proved value and ``A``, a simple fraction in the
   middle half (bisection); for a metric whose worst is the maximum and
   which has no a-priori bound (envy, manipulation gain), first simple
   values ever further above ``A`` until one is proved.

An instance z3 builds that is worse than ``v`` is re-verified exactly
(with the deviation z3 found: :meth:`Metric.measure_witness`) and then
becomes the attained value. A bisection that proved nothing is no bound:
the reason is returned instead.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from models import Instance, Policy
from models.tolerances import BOUND_BISECTION_TOL

from .metrics.base import MIN, Measure, Metric
from .result import Bound

#: Factors (relative to ``max(A, 1)``) of the values tried above ``A`` before
#: anything is proved, for a maximised metric with no a-priori bound.
EXPAND = (1e-2, 1e-1, 1.0, 10.0)
#: Most SMT queries of one bound, and of them the snapping ones (step 2).
MAX_QUERIES = 24
SNAPS = 2


def simple_between(lo: Fraction, hi: Fraction) -> Fraction:
    """A fraction with a small denominator in the middle half of ``(lo, hi)``."""
    a, b = lo + (hi - lo) / 4, hi - (hi - lo) / 4
    return simplest_in(a, b)


def simplest_in(lo: Fraction, hi: Fraction) -> Fraction:
    """The fraction with the smallest denominator in ``[lo, hi]`` (``0 <= lo
    <= hi``; the Stern-Brocot tree, by continued fractions)."""
    whole = math.floor(lo)
    if whole == lo:
        return Fraction(whole)
    if whole + 1 <= hi:
        return Fraction(whole + 1)
    return whole + 1 / simplest_in(1 / (hi - whole), 1 / (lo - whole))


@dataclass
class _State:
    """The bisection so far: attained ``A`` (an instance), proved ``P``."""

    metric: Metric
    attained: Fraction
    proved: Fraction | None
    trivial: Fraction | None
    steps: list[tuple[str, str]] = field(default_factory=list)
    found: tuple[Instance, Measure] | None = None
    snaps: int = 0

    @property
    def low(self) -> bool:
        return self.metric.direction == MIN

    def done(self) -> bool:
        return self.proved is not None and abs(self.attained - self.proved) <= BOUND_BISECTION_TOL

    def next_value(self) -> Fraction | None:
        """The next value to query (see the module's docstring), or ``None``."""
        a, tol = self.attained, Fraction(BOUND_BISECTION_TOL)
        if not self.steps:
            return a
        tried = {Fraction(v) for v, _ in self.steps}
        side = self.proved if self.proved is not None else self.trivial

        def fits(v: Fraction) -> bool:
            return v not in tried and (side is None and v >= a or side is not None and (
                side < v <= a if self.low else a <= v < side))

        snap = simplest_in(max(a - tol, Fraction(0)), a) if self.low else simplest_in(a, a + tol)
        if self.snaps < SNAPS and fits(snap):
            self.snaps += 1
            return snap
        if side is not None:
            v = simple_between(min(side, a), max(side, a))
            return v if fits(v) else None
        top, unit = max(tried | {a}), max(a, Fraction(1))
        return next((v for g in EXPAND if fits(v := simplest_in(top + Fraction(g) * unit / 10,
                                                                  top + Fraction(g) * unit))), None)


def prove_bound(policy: Policy, metric: Metric, n: int, m: int, domain: str, attained: Any, timeout: float
                ) -> tuple[Bound, tuple[Instance, Measure] | None] | str:
    """Query values until the proved and the attained value meet.

    Returns the reason when nothing was proved (no encoding, z3 unknown
    or out of time); otherwise the bound and, when the prover built an
    instance worse than the search's, that instance and its exact measure.
    """
    from proofs.bounds import BOUNDS, supported

    why = supported(policy.label, metric.name)
    if why is not None:
        return why
    if not isinstance(attained, Fraction):
        return f"the value found ({attained}) is not a rational number: nothing to bisect from"
    st = _State(metric, attained, None, BOUNDS.get(metric.name).trivial)
    t0 = time.monotonic()
    last = ""
    while not st.done() and len(st.steps) < MAX_QUERIES:
        left = timeout - (time.monotonic() - t0)
        v = st.next_value()
        if left <= 0 or v is None:
            last = "out of time" if left <= 0 else last
            break
        go_on, note = _query(st, policy, metric, n, m, domain, v, left)
        last = note or last
        if not go_on:
            break
    if st.proved is None:
        return f"z3 proved no bound in {len(st.steps)} queries ({last or 'every value queried is beaten'})"
    if st.found is not None and abs(float(st.attained) - float(attained)) <= \
            metric.shrink_rtol * max(abs(float(attained)), 1.0):
        st.attained, st.found = attained, None  # the prover's instance is no worse than the search's, to the tolerance
    return Bound(st.proved, st.attained, st.steps, time.monotonic() - t0, st.done()), st.found


def _query(st: _State, policy: Policy, metric: Metric, n: int, m: int, domain: str, v: Fraction, left: float
           ) -> tuple[bool, str]:
    """One query at ``v``; updates ``st``. Returns whether the bisection
    can go on, and a note on what stopped or hindered it."""
    from proofs.bounds import PROVED, WORSE, worse_than

    ans = worse_than(policy.label, metric.name, n, m, domain, v, left)
    st.steps.append((str(v), ans.status))
    if ans.status == PROVED:
        st.proved = v if st.proved is None else (max(st.proved, v) if st.low else min(st.proved, v))
        return True, ""
    searching_up = not st.low and st.proved is None
    if ans.status == WORSE and ans.demands is not None:
        inst = Instance.from_exact([1] * m, ans.demands)
        got = metric.measure_witness(policy, inst, ans.witness)
        if isinstance(got.value, Fraction) and metric.worse(float(got.value), float(st.attained)):
            st.attained, st.found = got.value, (inst, got)
            return True, ""
        return searching_up, "z3's instance not confirmed exactly"  # an algebraic model, rounded
    return searching_up, f"z3 {ans.status}: {ans.reason}" if ans.reason else f"z3 {ans.status}"
