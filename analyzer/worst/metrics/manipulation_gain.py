"""Manipulation gain: the largest ratio, over users and reports, of the true
tasks a user runs after misreporting its demand to the true tasks it runs
when truthful; worst = max.

A report ``d'_i`` gives user ``i`` the bundle ``x'_i d'_i``, which runs
``x'_i min_{j: d_ij > 0} d'_ij / d_ij`` true tasks (Ghodsi et al., NSDI 2011,
Section 3, strategy-proofness). The truthful report gives 1, so the value is
at least 1, and exactly 1 on every instance for a strategy-proof policy.
The reports tried: a grid on the simplex of report directions (and three
report scales for a policy whose bundles depend on the scale), then a
Nelder-Mead refinement of the best one; the winner is rationalised and
re-solved exactly before it counts.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance, Policy
from models.errors import SolverError
from models.tolerances import WORST_SHRINK_RTOL_LOOSE

from ...properties._lie_reports import (
    denominators,
    exact_report,
    lie_instance,
    report_caps,
    scaled_reports,
    simplex_grid,
)
from .base import MAX, Measure, Metric, exact_solve, numeric_solve, ratio, register_metric, tasks_of

#: Simplex grid resolution by number of resources (about 10-15 directions).
GRID_STEPS = {1: 1, 2: 8, 3: 4}
#: Nelder-Mead evaluations refining the best report of one instance.
REFINE_EVALUATIONS = 40
#: Report scales (log c) tried for policies that are not scale-invariant.
LOG_SCALES = (-np.log(2.0), 0.0, np.log(2.0))


def _lie(instance: Instance, i: int, report: np.ndarray) -> Instance:
    dem = np.array(instance.demands, dtype=float)
    dem[i] = report
    caps = np.array(instance.max_tasks, dtype=float)
    caps[i] = report_caps(instance.demands[i][None, :], report[None, :], caps[i:i + 1])[0]
    return Instance.from_arrays(instance.capacity, dem, resources=instance.resources, weights=instance.weights,
                                max_tasks=caps, users=instance.users)


def _true_tasks(need: np.ndarray, report: np.ndarray, tasks: float) -> float:
    used = need > 0
    return float(tasks * np.min(report[used] / need[used]))


class _Gain:
    """Gain of user ``i``'s report rows ``(s, log c)`` on one instance."""

    def __init__(self, policy: Policy, instance: Instance, x: np.ndarray) -> None:
        self.policy, self.instance, self.x = policy, instance, x

    def __call__(self, i: int, row: np.ndarray) -> float:
        inst = self.instance
        report = scaled_reports(inst, np.array([i]), row[None, :])[0]
        if not np.all(np.isfinite(report)) or report.max() <= 0:
            return 0.0
        try:
            lied = numeric_solve(self.policy, _lie(inst, i, report))
        except (SolverError, ValueError, ArithmeticError):
            return 0.0
        return _true_tasks(inst.demands[i], report, lied[i]) / self.x[i]


@register_metric
class ManipulationGain(Metric):
    """``max_{i, d'_i} true tasks with d'_i / true tasks`` (1 = no gain); worst = max."""

    name = "manipulation-gain"
    direction = MAX
    summary = "largest ratio of a liar's true tasks to its truthful tasks"
    source = "Ghodsi et al., NSDI 2011, Section 3 (strategy-proofness)"
    default_budget = 150
    shrink_rtol = WORST_SHRINK_RTOL_LOOSE

    def best_report(self, policy: Policy, instance: Instance) -> tuple[float, int, np.ndarray | None]:
        """``(gain, user, report row)`` of the best lie found (gain 1 and no
        row when none beats the truth)."""
        x = numeric_solve(policy, instance)
        gain = _Gain(policy, instance, x)
        scales = (0.0,) if policy.scale_invariant else LOG_SCALES
        grid = simplex_grid(instance.m, GRID_STEPS.get(instance.m, 2))
        rows = [np.append(s, c) for s in grid for c in scales]
        best: tuple[float, int, np.ndarray | None] = (1.0, -1, None)
        for i in range(instance.n):
            if x[i] <= 0:
                continue
            for row in rows:
                g = gain(i, row)
                if g > best[0]:
                    best = (g, i, row)
        if best[2] is None:
            return best
        return self._refine(gain, best, policy.scale_invariant)

    def _refine(self, gain: _Gain, best: tuple[float, int, np.ndarray | None], invariant: bool
                ) -> tuple[float, int, np.ndarray | None]:
        from scipy.optimize import minimize

        _, i, row = best
        assert row is not None
        start = np.append(np.log(np.maximum(row[:-1], 1e-6)), row[-1])

        def unpack(u: np.ndarray) -> np.ndarray:
            s = np.exp(u[:-1] - u[:-1].max())
            return np.append(s / s.sum(), 0.0 if invariant else u[-1])

        res = minimize(lambda u: -gain(i, unpack(u)), start, method="Nelder-Mead",
                       options={"maxfev": REFINE_EVALUATIONS, "xatol": 1e-9, "fatol": 1e-12})
        if -res.fun > best[0]:
            return float(-res.fun), i, unpack(res.x)
        return best

    def evaluate(self, policy: Policy, instance: Instance) -> float:
        return self.best_report(policy, instance)[0]

    def measure(self, policy: Policy, instance: Instance) -> Measure:
        alloc = exact_solve(policy, instance)
        _, i, row = self.best_report(policy, instance)
        value: Any = Fraction(1)
        detail: dict[str, Any] = {}
        exact = alloc.exact  # and every lied allocation's (a float among them is not exact)
        if row is not None:
            truth = tasks_of(alloc)[i]
            need = instance.demands_exact[i]
            for den in denominators():
                rep = exact_report(instance, i, row, den, policy.scale_invariant)
                lied = exact_solve(policy, lie_instance(instance, i, rep)[0])
                exact = exact and lied.exact
                got = tasks_of(lied)[i] * min(r / d for r, d in zip(rep, need, strict=True) if d > 0)
                g = ratio(got, truth)
                if float(g) > float(value):  # the best over the denominators (coarse ones lose gain)
                    value, detail = g, {"user": instance.users[i], "report": [str(v) for v in rep],
                                        "tasks_truthful": str(truth), "tasks_lying": str(got)}
            if not exact and value == 1:
                value = 1.0
        return Measure(value, exact, alloc, detail)

