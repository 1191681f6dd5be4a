"""Dynamic sharing incentive (Kash, Procaccia and Shah, JAIR 51, 2014, Section 3)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from models import Instance, Policy

from ._common import as_exact_str, leontief_tasks, numeric_below, one_share_tasks_np, relative_margin, show
from ._dynamic import DynamicEvaluator, DynamicProperty, screen_steps, step_name
from .base import CONTINUOUS, DYNAMIC, Violation, register_property


def _owed(instance: Instance) -> np.ndarray:
    """(n, n): the tasks of user ``i``'s slice after step ``k`` (``-inf``
    before it arrives)."""
    owed = one_share_tasks_np(instance, CONTINUOUS)
    return np.where(np.tri(instance.n, dtype=bool), owed[None, :], -np.inf)


@register_property
class DynamicSharingIncentive(DynamicProperty):
    """Dynamic sharing incentive.

    Kash, Procaccia and Shah, JAIR 51, 2014, Section 3: from its arrival on,
    every user is at least as well off as with ``1/n`` of every resource,
    ``n`` the number of users that will have arrived in the end. With
    weights ``w_i`` and caps ``k_i`` (as the static property of Ghodsi et
    al., NSDI 2011, Sections 3 and 4.3): after every step ``k >= i`` user
    ``i`` holds

    ``x_i^k >= min(k_i, min_{j: d_ij > 0} (w_i / W) R_j / d_ij)``,

    ``W`` the weight of all ``n`` users. Every step and user is compared
    (exactly on the candidates of the float screen). Dynamic setting only.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    >>> DynamicSharingIncentive().check("dynamic-drf", inst, "dynamic") is None
    True
    """

    name = "dynamic-sharing-incentive"
    title = "Dynamic sharing incentive"
    source = "Kash, Procaccia and Shah, JAIR 51, 2014, Section 3"
    summary = "from its arrival on, every user gets at least the tasks of its slice w_i/sum(w) of every resource"
    order = 10

    def margin(self, policy: str | Policy, instance: Instance, mode: str = DYNAMIC) -> float:
        """Numeric violation margin (``< 0``: violated): the smallest
        relative excess of a present user's tasks over its slice's."""
        return relative_margin(DynamicEvaluator(policy).numeric(instance), _owed(instance))

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = DYNAMIC) -> np.ndarray:
        """Some user below its slice at some step (numerically)."""
        return np.array([bool(numeric_below(x, _owed(inst)).any())
                         for x, inst in zip(screen_steps(policy, instances), instances, strict=True)], dtype=bool)

    def check(self, policy: str | Policy, instance: Instance, mode: str = DYNAMIC) -> Violation | None:
        ev = DynamicEvaluator(policy)
        cand = np.argwhere(numeric_below(ev.numeric(instance), _owed(instance)))
        if cand.size == 0:
            return None
        xe = ev.verified(instance)
        W = sum(instance.weights_exact, Fraction(0))
        for s, i in cand:
            k, u = int(s) + 1, instance.users[i]
            bundle = [instance.weights_exact[i] / W * c for c in instance.capacity_exact]
            owed = leontief_tasks(instance.demands_exact[i], bundle, instance.max_tasks_exact[i], CONTINUOUS)
            if ev.below(xe[k - 1][i], owed):
                return ev.violation(
                    self.name, instance, u,
                    f"{u} holds {show(xe[k - 1][i])} tasks {step_name(instance, k)}; "
                    f"{show(instance.weights_exact[i] / W)} of every resource would give it {show(owed)}",
                    deviation={"kind": "step", "step": k},
                    before={"step": k, "tasks": as_exact_str(xe[k - 1][i])},
                    after={"slice_tasks": as_exact_str(owed)},
                )
        return None
