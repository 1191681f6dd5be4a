"""Resource monotonicity (Ghodsi et al., NSDI 2011, Section 6)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from models import Instance, Policy
from models.batching import run_batch
from models.policy import BatchSolver

from ._batch import numeric_many
from ._common import (
    Evaluator,
    as_exact_str,
    numeric_below,
    per_resource,
    per_user,
    relative_margin,
    show,
)
from ._margins import Stack, relative_margins, variant_margins
from ._variant import scaled_machines
from .base import CONTINUOUS, Property, Violation, register_property

#: Factors by which capacities are multiplied (one resource, then all):
#: readable ones first, then a small and a large step.
DEFAULT_FACTORS: tuple[Fraction, ...] = (Fraction(5, 4), Fraction(3, 2), Fraction(2), Fraction(4),
                                         Fraction(17, 16), Fraction(16))
#: Factor by which every other subset of the resources (two or more, not
#: all) grows together.
SUBSET_FACTOR: Fraction = Fraction(2)


@register_property
class ResourceMonotonicity(Property):
    """Resource monotonicity.

    Ghodsi et al., NSDI 2011, Section 6 (Table 2): when more resources are
    added to the system, none of the users' allocations decreases. For
    Leontief users with weights and caps: for a capacity vector ``R' >= R``
    the policy's allocation ``x'`` on the instance with ``R'`` satisfies
    ``x'_i >= x_i`` for every user. The check tries each resource alone and
    all resources together, multiplied by each factor in :attr:`factors`
    (default ``5/4, 3/2, 2, 4, 17/16, 16``), and every other subset of two
    or more resources (``m >= 3``) doubled. Discrete setting: whole tasks.
    With machines, every machine's share of a grown resource grows by the
    same factor (the machines still add up to the pool; they used to be
    dropped, which pooled the enlarged cluster and could only hide losses).

    What it never tries, and why: growth by other factors or by different
    factors on several resources. Any ``R' >= R`` is reached from ``R`` by
    growing one resource at a time, so a loss under ``R'`` is a loss at
    some single-resource step, from an intermediate capacity vector; the
    search's stream of instances (other capacities) covers those steps, so
    single-resource growth is the core of the check and the rest
    (subsets, all resources) finds losses on the instance at hand sooner.
    The factors sample each ray; a loss confined between two samples is
    missed on this instance (evidence, not proof).

    Parameters
    ----------
    factors : sequence of Fraction
        Exact factors ``> 1`` by which capacities are multiplied.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    >>> ResourceMonotonicity().check("drf", inst).message
    'u0 gets 3 tasks, but only 27/10 when r0 grows by a factor 4'
    >>> ResourceMonotonicity().check("drf", inst.replace(demands=[[1, 4], [1, 4]])) is None
    True
    """

    name = "resource-monotonicity"
    title = "Resource monotonicity"
    source = "Ghodsi et al., NSDI 2011, Section 6"
    summary = "when capacities grow (one resource, several or all, by 17/16 to 16), no user gets fewer tasks"
    order = 8

    def __init__(self, factors: tuple[Fraction, ...] = DEFAULT_FACTORS) -> None:
        self.factors = tuple(Fraction(f) for f in factors)

    def margin(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> float:
        """Numeric violation margin (``< 0``: violated): the smallest relative
        change of a user's tasks when capacities grow."""
        x, _, after = self._screen(Evaluator(policy, mode), instance)
        return relative_margin(after, np.broadcast_to(x, after.shape))

    def margin_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """:meth:`margin` of each instance, every trial of :meth:`check` of
        every instance of a group in one batch solve; an instance with a
        trial the batch does not answer gets :meth:`margin` itself (see
        :meth:`.base.Property.margin_many`)."""
        def per_stack(st: Stack, solve: BatchSolver) -> tuple[np.ndarray, np.ndarray]:
            B, n = st.X.shape
            # each member's trials as factors on its capacities (a padded resource stays at 1)
            F = [_growth(self.factors, instances[k].m, st.R.shape[1]) for k in st.idxs.tolist()]
            T = np.array([len(f) for f in F])
            member = np.repeat(np.arange(B), T)
            after, ok = run_batch(solve, st.D[member], st.R[member] * np.vstack(F), st.W[member], st.caps[member])
            rows = relative_margins(after, st.X[member], st.real[member])
            starts = np.r_[0, np.cumsum(T)[:-1]]
            unanswered = np.logical_or.reduceat(~ok, starts)
            return np.minimum.reduceat(rows, starts), unanswered

        return variant_margins(self, policy, instances, mode, per_stack)

    def _screen(self, ev: Evaluator, instance: Instance) -> tuple[np.ndarray, list[tuple[tuple[int, ...], Fraction]],
                                                                  np.ndarray]:
        """Numeric tasks, the trials (resources grown, factor) and the tasks
        after each trial, shape (trials, n)."""
        x = ev.numeric(instance)
        trials = _trials(self.factors, instance.m)
        R = np.repeat(instance.capacity[None, :], len(trials), axis=0)
        for k, (group, f) in enumerate(trials):
            R[k, list(group)] *= float(f)
        return x, trials, numeric_many(ev, instance, capacity=R)

    def check(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> Violation | None:
        ev = Evaluator(policy, mode)
        x, trials, after = self._screen(ev, instance)
        lost = np.any(numeric_below(after, x[None, :]), axis=1)
        found = [t for t, bad in zip(trials, lost.tolist(), strict=True) if bad]
        if not found:
            return None
        xe = ev.verified(instance)
        for group, f in found:
            cap_e = [c * f if j in group else c for j, c in enumerate(instance.capacity_exact)]
            what = "every resource" if len(group) > 1 else instance.resources[group[0]]
            v = self.verify_growth(ev, instance, xe, cap_e, f"when {what} grows by a factor {show(f)}",
                                   {"factor": as_exact_str(f), "resources": [instance.resources[j] for j in group]})
            if v is not None:
                return v
        return None

    def verify_growth(self, ev: Evaluator, instance: Instance, xe: tuple[Any, ...], capacity: list[Fraction],
                      when: str, deviation: dict[str, Any] | None = None) -> Violation | None:
        """The violation when some user runs fewer tasks than ``xe`` on the
        exact grown ``capacity``, verified exactly; ``None`` otherwise (also
        used by :func:`analyzer.prove` for capacities an SMT solver
        constructed). ``when`` ends the sentence (``"when r0 grows by a
        factor 2"``)."""
        ye = ev.verified(instance.replace(capacity=capacity, machines=scaled_machines(instance, capacity)))
        for i in range(instance.n):
            if ev.below(ye[i], xe[i]):
                u = instance.users[i]
                return ev.violation(
                    self.name, instance, u, f"{u} gets {show(xe[i])} tasks, but only {show(ye[i])} {when}",
                    deviation={"kind": "add-resources", **(deviation or {}),
                               "capacity": per_resource(instance, capacity)},
                    before={"tasks": per_user(instance, xe)},
                    after={"tasks": per_user(instance, ye), "loss_of": u, "loss": as_exact_str(xe[i] - ye[i])},
                )
        return None


@lru_cache(maxsize=64)
def _growth(factors: tuple[Fraction, ...], m: int, width: int) -> np.ndarray:
    """The trials of :meth:`ResourceMonotonicity._screen` on ``m`` resources
    (:func:`_trials`) as factors on the capacities, one row per trial,
    padded with ones to ``width`` resources (read-only, made once)."""
    out = np.ones((len(_trials(factors, m)), width))
    for k, (group, f) in enumerate(_trials(factors, m)):
        out[k, list(group)] = float(f)
    out.setflags(write=False)
    return out


def _trials(factors: tuple[Fraction, ...], m: int) -> list[tuple[tuple[int, ...], Fraction]]:
    """The capacity growths :meth:`ResourceMonotonicity.check` tries on
    ``m`` resources: (resources grown, factor), each resource alone and all
    together by every factor, every other subset of two or more doubled."""
    groups: list[tuple[int, ...]] = [(j,) for j in range(m)]
    if m > 1:
        groups.append(tuple(range(m)))
    trials = [(group, f) for group in groups for f in factors]
    return trials + [(group, SUBSET_FACTOR) for size in range(2, m) for group in combinations(range(m), size)]

