"""Irrevocability (Kash, Procaccia and Shah, JAIR 51, 2014, Section 2)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from models import Instance, Policy

from ._common import as_exact_str, numeric_below, relative_margin, show
from ._dynamic import DynamicEvaluator, DynamicProperty, screen_steps, step_name
from .base import DYNAMIC, Violation, register_property


@register_property
class Irrevocability(DynamicProperty):
    """Irrevocability: nothing given is ever taken back.

    Kash, Procaccia and Shah, JAIR 51, 2014, Section 2: the dynamic model
    requires ``A_i^k >= A_i^{k-1}`` for every user ``i`` present before the
    ``k``-th arrival. For Leontief users holding bundles ``x_i d_i`` this is
    ``x_i^k >= x_i^{k-1}`` for every ``k = 2..n`` and every ``i < k``. The
    dynamic mechanisms keep it by construction; a static policy recomputed
    at every arrival breaks it as soon as a newcomer takes part of what an
    earlier user held.

    Every step and user is compared (exactly on the candidates the float
    screen flags). Dynamic setting only.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    >>> print(Irrevocability().check("drf", inst, "dynamic").message)
    A holds 9/2 tasks after A arrives (step 1) and 3 after B arrives (step 2): an allocation is taken back
    >>> Irrevocability().check("dynamic-drf", inst, "dynamic") is None
    True
    """

    name = "irrevocability"
    title = "Irrevocability"
    source = "Kash, Procaccia and Shah, JAIR 51, 2014, Section 2"
    summary = "after every arrival no user holds fewer tasks than before it (nothing is taken back)"
    order = 14

    def margin(self, policy: str | Policy, instance: Instance, mode: str = DYNAMIC) -> float:
        """Numeric violation margin (``< 0``: violated): the smallest
        relative change of a user's tasks from one step to the next."""
        x = DynamicEvaluator(policy).numeric(instance)
        before = np.where(np.tri(instance.n, k=-1, dtype=bool)[1:], x[:-1], np.nan)  # users present before
        return relative_margin(x[1:], before)

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = DYNAMIC) -> np.ndarray:
        """Some user's tasks fall (numerically) from one step to the next."""
        return np.array([bool(numeric_below(x[1:], x[:-1]).any()) for x in screen_steps(policy, instances)],
                        dtype=bool)

    def check(self, policy: str | Policy, instance: Instance, mode: str = DYNAMIC) -> Violation | None:
        ev = DynamicEvaluator(policy)
        x = ev.numeric(instance)
        cand = np.argwhere(numeric_below(x[1:], x[:-1]))  # (k - 2, i): user i holds less after step k
        if cand.size == 0:
            return None
        xe = ev.verified(instance)
        for s, i in cand:
            k = int(s) + 2
            before, after = xe[k - 2][i], xe[k - 1][i]
            if ev.below(after, before):
                u = instance.users[i]
                return ev.violation(
                    self.name, instance, u,
                    f"{u} holds {show(before)} tasks {step_name(instance, k - 1)} and {show(after)} "
                    f"{step_name(instance, k)}: an allocation is taken back",
                    deviation={"kind": "step", "step": k},
                    before={"step": k - 1, "tasks": as_exact_str(before)},
                    after={"step": k, "tasks": as_exact_str(after)},
                )
        return None
