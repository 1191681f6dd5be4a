"""Sharing incentive (Ghodsi et al., NSDI 2011, Section 3)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from models import Instance, Policy

from ._batch import answered_groups, numeric_batch, widened
from ._common import (
    Evaluator,
    as_exact_str,
    leontief_tasks,
    numeric_below,
    one_share_tasks_np,
    relative_margin,
    share_tasks_np,
    show,
)
from ._margins import relative_margins, stacked_margins
from .base import CONTINUOUS, Property, Violation, register_property


@register_property
class SharingIncentive(Property):
    """Sharing incentive.

    Ghodsi et al., NSDI 2011, Section 3 (weighted form: Section 4.3): each
    user is at least as well off as with an equal split of the cluster.
    For Leontief users with weights ``w_i`` and caps ``k_i``: user ``i``
    holding ``x_i`` tasks must have

    ``x_i >= min(k_i, min_{j: d_ij > 0} (w_i / sum_l w_l) R_j / d_ij)``,

    the number of tasks it would run on its own slice ``w_i / sum(w)`` of
    every resource (unweighted: ``1/n``). In the discrete setting both sides
    count whole tasks (the right side is floored; the slice is taken of the
    pooled capacities).

    No search: the condition is decided for every user (exactly on the
    candidates the float screen flags; the screen's tolerance only errs
    towards flagging).

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    >>> SharingIncentive().check("drf", inst) is None
    True
    """

    name = "sharing-incentive"
    title = "Sharing incentive"
    source = "Ghodsi et al., NSDI 2011, Section 3"
    summary = "every user gets at least the tasks of its slice w_i/sum(w) of every resource (capped)"
    order = 1

    def margin(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> float:
        """Numeric violation margin (``< 0``: violated): the smallest
        relative excess of ``x_i`` over the tasks of its slice."""
        ev = Evaluator(policy, mode)
        return relative_margin(ev.numeric(instance), one_share_tasks_np(instance, ev.mode))

    def margin_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """:meth:`margin` of each instance, the allocations solved in batches
        and the slices of all the users compared at once (see
        :meth:`.base.Property.margin_many`)."""
        return stacked_margins(policy, instances, mode, lambda st: relative_margins(
            st.X, share_tasks_np(st.D, st.R, st.W, st.wsum, st.caps, mode), st.real))

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """Batched screen (see :meth:`.base.Property.screen_many`): some
        user's widened-down tasks below its slice's tasks."""
        xs = numeric_batch(policy, instances, mode)
        out = np.ones(len(instances), dtype=bool)  # not answered by the batch: the full check decides
        for idxs, X, real, D, R, w, caps in answered_groups(instances, xs):
            fair = share_tasks_np(D, R, w, np.array([instances[k].weights.sum() for k in idxs]), caps, mode)
            out[idxs] = (numeric_below(widened(X, up=False), fair) & real).any(axis=1)
        return out

    def check(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> Violation | None:
        ev = Evaluator(policy, mode)
        x = ev.numeric(instance)
        fair = one_share_tasks_np(instance, ev.mode)
        cand = np.flatnonzero(numeric_below(x, fair))
        if cand.size == 0:
            return None
        xe = ev.verified(instance)
        W = sum(instance.weights_exact, Fraction(0))
        for i in cand[np.argsort(-(fair[cand] - x[cand]) / np.maximum(fair[cand], 1.0), kind="stable")]:
            frac = instance.weights_exact[i] / W
            slice_ = [frac * c for c in instance.capacity_exact]
            owed = leontief_tasks(instance.demands_exact[i], slice_, instance.max_tasks_exact[i], ev.mode)
            if ev.below(xe[i], owed):
                u = instance.users[i]
                return ev.violation(
                    self.name, instance, u,
                    f"{u} gets {show(xe[i])} tasks; {show(frac)} of every resource would give it {show(owed)}",
                    deviation={"kind": "equal-split", "user": u, "fraction": str(frac)},
                    before={"tasks": as_exact_str(xe[i])},
                    after={"tasks": as_exact_str(owed)},
                )
        return None
