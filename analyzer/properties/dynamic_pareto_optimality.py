"""Dynamic Pareto optimality (Kash, Procaccia and Shah, JAIR 51, 2014, Section 3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from models import Instance, Policy
from models.tolerances import COMPARE_ATOL

from ._common import as_exact_str, numeric_below, per_resource, show
from ._dynamic import DynamicEvaluator, DynamicProperty, budgets, screen_steps, step_name
from .base import DYNAMIC, Violation, register_property


def _flags(instance: Instance, x: np.ndarray) -> np.ndarray:
    """(n,): steps whose allocation may be over its budget or improvable
    (numerically, erring towards flagging)."""
    D, caps = instance.demands, instance.max_tasks
    use = x @ D  # (n, m): usage after every step
    budget = np.asarray(budgets(instance, False))
    over = ~numeric_below(use, budget)  # at or over the budget: over it, or full (then no room)
    present = np.tri(instance.n, dtype=bool)
    free = ~np.isfinite(caps)[None, :] | numeric_below(x, caps[None, :])  # below its cap (or uncapped)
    room = present & free & ~((D[None, :, :] > 0) & over[:, None, :]).any(axis=2)
    return numeric_below(budget, use).any(axis=1) | room.any(axis=1)


def _step_margins(instance: Instance, x: np.ndarray) -> np.ndarray:
    """(n,): per step, minus the larger of the relative excess over the
    budget and the most relative room a present user below its cap has on
    every resource it uses (``>= 0``: neither)."""
    D, caps = instance.demands, instance.max_tasks
    budget = np.asarray(budgets(instance, False))
    slack = (budget - x @ D) / (budget + COMPARE_ATOL)  # (steps, m), < 0 over the budget
    over = slack.min(axis=1)
    with np.errstate(invalid="ignore"):
        room = np.where(D[None, :, :] > 0, slack[:, None, :], np.inf).min(axis=2)  # (steps, users)
    free = np.tri(instance.n, dtype=bool) & (~np.isfinite(caps)[None, :] | numeric_below(x, caps[None, :]))
    best = np.where(free, room, -np.inf).max(axis=1)
    return np.minimum(over, -np.maximum(best, 0.0))


@register_property
class DynamicParetoOptimality(DynamicProperty):
    """Dynamic Pareto optimality.

    Kash, Procaccia and Shah, JAIR 51, 2014, Section 3: after every step
    ``k`` the allocation is Pareto optimal among the allocations of the
    users present that use at most ``k/n`` of every resource (weighted:
    ``W_k / W``, the present users' share of the total weight). Read as the
    paper writes it: the allocation ``x^k`` is itself within that budget,
    ``sum_{i <= k} x_i^k d_ij <= (W_k / W) R_j``, and no allocation within
    it gives some present user more tasks and nobody fewer. For Leontief
    users the second part holds exactly when no present user below its cap
    has room on every resource it uses (the characterisation of the static
    property, :class:`~analyzer.properties.pareto_efficiency.ParetoEfficiency`,
    with the step's budget as capacities). A static policy recomputed at
    every arrival uses the whole cluster at once, more than the budget of
    the early steps.

    Every step is decided exactly on the candidates of the float screen.
    Dynamic setting only.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    >>> DynamicParetoOptimality().check("dynamic-drf", inst, "dynamic") is None
    True
    """

    name = "dynamic-pareto-optimality"
    title = "Dynamic Pareto optimality"
    source = "Kash, Procaccia and Shah, JAIR 51, 2014, Section 3"
    summary = "after step k, within k/n of every resource, no allocation gives someone more and nobody less"
    order = 12

    def margin(self, policy: str | Policy, instance: Instance, mode: str = DYNAMIC) -> float:
        """Numeric violation margin (``< 0``: violated): the smallest step
        margin (minus the relative excess over the budget, or minus a present
        user's relative room)."""
        return float(_step_margins(instance, DynamicEvaluator(policy).numeric(instance)).min())

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = DYNAMIC) -> np.ndarray:
        """Some step over its budget or with a user who could be raised alone."""
        return np.array([bool(_flags(inst, x).any())
                         for x, inst in zip(screen_steps(policy, instances), instances, strict=True)], dtype=bool)

    def check(self, policy: str | Policy, instance: Instance, mode: str = DYNAMIC) -> Violation | None:
        ev = DynamicEvaluator(policy)
        flagged = np.flatnonzero(_flags(instance, ev.numeric(instance)))
        if flagged.size == 0:
            return None
        xe = ev.verified(instance)
        budget = budgets(instance, ev.exact)
        for s in flagged:
            found = _at_step(ev, instance, xe[s], budget[s], int(s) + 1)
            if found is not None:
                return found
        return None


def _at_step(ev: DynamicEvaluator, instance: Instance, x: list[Any], budget: list[Any], k: int) -> Violation | None:
    """The violation after step ``k``: over the budget, or a user with room."""
    D = instance.demands_exact if ev.exact else [[float(v) for v in row] for row in instance.demands]
    use = [sum((x[i] * D[i][j] for i in range(k)), 0 * budget[j]) for j in range(instance.m)]
    name = "dynamic-pareto-optimality"
    facts = {"step": k, "usage": per_resource(instance, use), "budget": per_resource(instance, budget)}
    for j, r in enumerate(instance.resources):
        if ev.below(budget[j], use[j]):
            return ev.violation(
                name, instance, instance.users[k - 1],
                f"{step_name(instance, k)} the users hold {show(use[j])} of {r}, more than the step's budget "
                f"{show(budget[j])} (the users present may hold their share of every resource only)",
                deviation={"kind": "over-budget", "step": k, "resource": r}, before=facts)
    caps = instance.max_tasks_exact if ev.exact else [None if not np.isfinite(c) else float(c)
                                                       for c in instance.max_tasks]
    for i in range(k):
        need = [j for j in range(instance.m) if D[i][j] > 0]
        if caps[i] is not None and not ev.below(x[i], caps[i]):
            continue
        if all(ev.below(use[j], budget[j]) for j in need):
            room = min((budget[j] - use[j]) / D[i][j] for j in need)
            if caps[i] is not None:
                room = min(room, caps[i] - x[i])
            u = instance.users[i]
            return ev.violation(
                name, instance, u,
                f"{step_name(instance, k)} {u} could run {show(room)} more tasks within the step's budget "
                "with nobody running fewer",
                deviation={"kind": "better-allocation", "step": k, "user": u, "more": as_exact_str(room)},
                before=facts)
    return None
