"""Dynamic strategy-proofness (Kash, Procaccia and Shah, JAIR 51, 2014, Section 3)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance, Policy

from ..dynamics.trajectory import batch_steps, lifted, steps
from ._common import CONTINUOUS, as_exact_str, leontief_tasks, numeric_below, per_resource, show
from ._dynamic import DynamicEvaluator, DynamicProperty, step_name
from ._lie_reports import denominators, exact_report, lie_instance, report_caps, scaled_reports
from ._variant import numeric_variant
from .base import DYNAMIC, Violation, register_property
from .strategy_proofness import LIGHT_SCALES, LIGHT_SINGLE_FACTORS, StrategyProofness


def scale_free(policy: Policy) -> bool:
    """The mechanism (or the policy it recomputes) ignores the scale of a
    report (:attr:`~models.policy.Policy.scale_invariant`)."""
    static = lifted(policy)
    return bool((policy if static is None else static).scale_invariant)


@register_property
class DynamicStrategyProofness(DynamicProperty):
    """Dynamic strategy-proofness.

    Kash, Procaccia and Shah, JAIR 51, 2014, Section 3: no user can be
    better off at any step by misreporting its demand, the others truthful.
    User ``i`` with true demand ``d_i`` reports ``d'`` (weights fixed; a
    capped liar reports the cap that holds its ``k_i`` true tasks, as in the
    static property); after every step ``k >= i`` the bundle ``x'_i d'`` it
    receives runs ``t_k(d') = min(k_i, min_{j: d_ij > 0} x'_i d'_j / d_ij)``
    true tasks. The policy is dynamically strategy-proof on the instance
    when ``t_k(d') <= x_i^k`` for every report and every step.

    The reports tried are those of the static property's light search
    (:class:`~analyzer.properties.strategy_proofness.StrategyProofness`:
    directions on a simplex grid, the truth with one coordinate inflated or
    deflated, and, for a mechanism that does not ignore the scale of a
    report, the truth rescaled), every user's reports run in one vectorised
    batch of dynamic runs; the best gains are rationalised and re-verified
    on the exact deviated instance, every step. A check that finds nothing
    is evidence, not proof. Dynamic setting only.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    >>> DynamicStrategyProofness().check("dynamic-drf", inst, "dynamic") is None
    True
    """

    name = "dynamic-strategy-proofness"
    title = "Dynamic strategy-proofness"
    source = "Kash, Procaccia and Shah, JAIR 51, 2014, Section 3"
    summary = "no user runs more of its true tasks at any step by reporting another demand vector"
    order = 13
    search_cost = 5.0  # a batch of dynamic runs per user

    def __init__(self, grid2: int = 12, grid3: int = 6, samples: int = 12, seed: int = 0) -> None:
        self.reports = StrategyProofness(grid2, grid3, samples, 0, seed, singles=LIGHT_SINGLE_FACTORS + (0.25, 4 / 3),
                                         scales=LIGHT_SCALES)
        self.reports._light = True  # rescale the truth's direction only
        self.seed = seed

    def check(self, policy: str | Policy, instance: Instance, mode: str = DYNAMIC) -> Violation | None:
        ev = DynamicEvaluator(policy)
        scaled = not scale_free(ev.policy)
        if instance.m == 1 and not scaled:
            return None  # every report is the truth rescaled
        x = ev.numeric(instance)
        found = self._gains(ev, instance, x, scaled)
        if not found:
            return None
        xe = ev.verified(instance)
        for _, i, row in sorted(found, key=lambda f: -f[0]):
            for den in denominators():
                v = self.verify_report(ev, instance, xe, i, exact_report(instance, i, row, den, not scaled))
                if v is not None:
                    return v
        return None

    def margin(self, policy: str | Policy, instance: Instance, mode: str = DYNAMIC) -> float:
        """Numeric violation margin (``< 0``: some report tried pays): minus
        the largest relative gain of a report at some step."""
        ev = DynamicEvaluator(policy)
        scaled = not scale_free(ev.policy)
        if instance.m == 1 and not scaled:
            return float("inf")
        best = self._gains(ev, instance, ev.numeric(instance), scaled, every=True)
        return -max((g for g, _, _ in best), default=-float("inf"))

    def _gains(self, ev: DynamicEvaluator, inst: Instance, x: np.ndarray, scaled: bool, every: bool = False
               ) -> list[tuple[float, int, np.ndarray]]:
        """The best report of every user whose numeric run gains at some
        step (of every user when ``every``): ``(relative gain, user, report
        row (s, log c))``."""
        rng = np.random.default_rng(self.seed)
        out = []
        for i in range(inst.n):
            rows = self.reports._candidates(inst, i, rng, scaled)
            reps = scaled_reports(inst, np.full(len(rows), i), rows)
            D = np.repeat(inst.demands[None], len(rows), axis=0)
            D[:, i] = reps
            caps = np.repeat(inst.max_tasks[None], len(rows), axis=0)
            caps[:, i] = report_caps(inst.demands[i:i + 1], reps, inst.max_tasks[i:i + 1])
            got = _runs(ev, inst, D, caps)[:, i:, i]  # (reports, steps from i's arrival on)
            need = inst.demands[i] > 0
            true = np.min(got[:, :, None] * reps[:, None, need] / inst.demands[i, need], axis=2)
            true = np.minimum(true, inst.max_tasks[i])
            gain = numeric_below(x[None, i:, i], true)
            rel = ((true - x[None, i:, i]) / np.maximum(np.abs(x[None, i:, i]), 1.0)).max(axis=1)
            if every or gain.any():
                b = int(np.argmax(np.where(gain.any(axis=1) | every, rel, -np.inf)))
                out.append((float(rel[b]), i, rows[b]))
        return out

    def verify_report(self, ev: DynamicEvaluator, inst: Instance, xe: list[list[Any]], i: int,
                      report: list[Fraction]) -> Violation | None:
        """The violation when user ``i`` reporting the exact demand
        ``report`` runs more true tasks at some step from its arrival on,
        verified on the exact deviated instance (also used by
        :func:`analyzer.prove` for a report an SMT solver constructed)."""
        need, cap = inst.demands_exact[i], inst.max_tasks_exact[i]
        lie, reported_cap = lie_instance(inst, i, report)
        ye = ev.verified(lie)
        for k in range(i + 1, inst.n + 1):
            true = leontief_tasks(need, [ye[k - 1][i] * r for r in report], cap, CONTINUOUS)
            if not ev.below(xe[k - 1][i], true):
                continue
            u = inst.users[i]
            vec = "<" + ", ".join(show(r) for r in report) + ">"
            truth = "<" + ", ".join(show(d) for d in need) + ">"
            return ev.violation(
                self.name, inst, u,
                f"{u} holds {show(xe[k - 1][i])} tasks {step_name(inst, k)}; reporting demand {vec} instead of "
                f"{truth} it would run {show(true)}",
                deviation={"kind": "lie", "user": u, "step": k, "report": per_resource(inst, report),
                           **({"report_cap": as_exact_str(reported_cap)} if reported_cap is not None else {})},
                before={"step": k, "tasks": as_exact_str(xe[k - 1][i])},
                after={"tasks": as_exact_str(true), "reported_tasks": as_exact_str(ye[k - 1][i])},
            )
        return None


def _runs(ev: DynamicEvaluator, inst: Instance, D: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Float steps (K, n, n) of ``inst`` with demands ``D`` and caps
    ``caps`` (one batch where the policy has one)."""
    if not inst.machines and not inst.extensions:
        got = batch_steps(ev.policy, D, inst.capacity, inst.weights, caps)
        if got is not None:
            return got
    return np.stack([steps(ev.policy, numeric_variant(inst, demands=D[b], max_tasks=caps[b])).x
                     for b in range(len(D))])
