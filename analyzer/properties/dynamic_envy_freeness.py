"""Dynamic envy-freeness (Kash, Procaccia and Shah, JAIR 51, 2014, Section 3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from models import Instance, Policy
from models.tolerances import COMPARE_ATOL, COMPARE_RTOL

from ._common import as_exact_str, leontief_tasks, numeric_below, relative_margin, show
from ._dynamic import DynamicEvaluator, DynamicProperty, screen_steps, step_name
from .base import CONTINUOUS, DYNAMIC, Violation, register_property
from .envy_freeness import _envy_matrix


def _open_envy(instance: Instance, x: np.ndarray, s: int) -> np.ndarray:
    """``E[i, j]`` after step ``s + 1``: the tasks ``i`` runs with ``j``'s
    scaled bundle, for the pairs of present users whose envy would not be
    excused (``j`` arrived after ``i``, or ``j``'s tasks moved since ``i``
    arrived, numerically, erring towards flagging); ``nan`` elsewhere."""
    n = instance.n
    i, j = np.indices((n, n))
    before = x[np.maximum(i - 1, 0), j]  # j's tasks just before i arrived (i >= 1 where j < i)
    moved = np.abs(x[s][j] - before) > COMPARE_RTOL * np.abs(before) + COMPARE_ATOL
    open_ = (i <= s) & (j <= s) & (i != j) & ((j > i) | moved)
    return np.where(open_, _envy_matrix(instance, x[s], CONTINUOUS), np.nan)


def _suspects(instance: Instance, x: np.ndarray) -> np.ndarray:
    """``(k - 1, i, j)`` triples where user ``i`` may envy user ``j`` after
    step ``k`` without excuse (:func:`_open_envy`)."""
    out = []
    for s in range(instance.n):
        i, j = np.nonzero(numeric_below(x[s][:, None], _open_envy(instance, x, s)))
        out += [(s, a, b) for a, b in zip(i, j, strict=True)]
    return np.array(out, dtype=int).reshape(-1, 3)


@register_property
class DynamicEnvyFreeness(DynamicProperty):
    """Dynamic envy-freeness.

    Kash, Procaccia and Shah, JAIR 51, 2014, Section 3: after every step
    ``k`` a user ``i`` may envy a user ``j`` only if ``j`` arrived before
    ``i`` and has received nothing since ``i`` arrived, i.e.
    ``A_j^k = A_j^{i-1}`` (an earlier user may have taken resources while
    ``i`` was not there yet, but not afterwards). Envy is the static
    definition with weights and caps (Ghodsi et al., NSDI 2011, Sections 3
    and 4.3): ``x_i^k < min(k_i, (w_i / w_j) x_j^k min_{l: d_il > 0} d_jl
    / d_il)``. Full envy-freeness at every step is incompatible with
    dynamic Pareto optimality once allocations are irrevocable (Section 3).

    Every step and ordered pair of present users is compared (exactly on
    the candidates of the float screen). Dynamic setting only.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    >>> DynamicEnvyFreeness().check("dynamic-drf", inst, "dynamic") is None
    True
    """

    name = "dynamic-envy-freeness"
    title = "Dynamic envy-freeness"
    source = "Kash, Procaccia and Shah, JAIR 51, 2014, Section 3"
    summary = "a user envies only users that arrived earlier and have received nothing since it arrived"
    order = 11

    def margin(self, policy: str | Policy, instance: Instance, mode: str = DYNAMIC) -> float:
        """Numeric violation margin (``< 0``: violated): the smallest
        relative excess of a user's tasks over what a bundle it may not envy
        would give it, over the steps."""
        x = DynamicEvaluator(policy).numeric(instance)
        return min((relative_margin(np.broadcast_to(x[s][:, None], (instance.n, instance.n)),
                                    _open_envy(instance, x, s)) for s in range(instance.n)), default=float("inf"))

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = DYNAMIC) -> np.ndarray:
        """Some unexcused envy at some step (numerically)."""
        return np.array([inst.n > 1 and len(_suspects(inst, x)) > 0
                         for x, inst in zip(screen_steps(policy, instances), instances, strict=True)], dtype=bool)

    def check(self, policy: str | Policy, instance: Instance, mode: str = DYNAMIC) -> Violation | None:
        ev = DynamicEvaluator(policy)
        cand = _suspects(instance, ev.numeric(instance)) if instance.n > 1 else np.zeros((0, 3), dtype=int)
        if cand.size == 0:
            return None
        xe = ev.verified(instance)
        D, w, caps = instance.demands_exact, instance.weights_exact, instance.max_tasks_exact
        for s, i, j in cand:
            k = int(s) + 1
            bundle = [w[i] / w[j] * xe[s][j] * d for d in D[j]]
            t = leontief_tasks(D[i], bundle, caps[i], CONTINUOUS)
            if not ev.below(xe[s][i], t):
                continue
            excuse = _unexcused(ev, instance, xe, int(s), int(i), int(j))
            if excuse is None:
                continue
            ui, uj = instance.users[i], instance.users[j]
            scaled = "" if w[i] == w[j] else f" scaled by {show(w[i] / w[j])}"
            return ev.violation(
                self.name, instance, ui,
                f"{ui} holds {show(xe[s][i])} tasks {step_name(instance, k)} but could run {show(t)} "
                f"with {uj}'s bundle{scaled}; {excuse}",
                deviation={"kind": "swap-bundle", "step": k, "user": ui, "envied": uj,
                           "bundle": {r: as_exact_str(b) for r, b in zip(instance.resources, bundle, strict=True)}},
                before={"step": k, "tasks": as_exact_str(xe[s][i])},
                after={"tasks": as_exact_str(t)},
            )
        return None


def _unexcused(ev: DynamicEvaluator, instance: Instance, xe: list[list[Any]], s: int, i: int, j: int) -> str | None:
    """Why the envy of ``i`` for ``j`` after step ``s + 1`` is not excused
    (``None`` when it is: ``j`` arrived first and holds what it held before
    ``i`` arrived)."""
    uj = instance.users[j]
    if j > i:
        return f"{uj} arrived after {instance.users[i]}"
    then, now = xe[i - 1][j], xe[s][j]
    if ev.exact and then == now or not ev.exact and not (ev.below(then, now) or ev.below(now, then)):
        return None
    return f"{uj} held {show(then)} tasks when {instance.users[i]} arrived and {show(now)} since"
