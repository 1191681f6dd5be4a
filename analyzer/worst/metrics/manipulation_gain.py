"""Manipulation gain: the largest ratio, over users and reports, of the true
tasks a user runs after misreporting its demand to the true tasks it runs
when truthful; worst = max.

A report ``d'_i`` gives user ``i`` the bundle ``x'_i d'_i``, which runs
``x'_i min_{j: d_ij > 0} d'_ij / d_ij`` true tasks (Ghodsi et al., NSDI 2011,
Section 3, strategy-proofness). The truthful report gives 1, so the value is
at least 1, and exactly 1 on every instance for a strategy-proof policy.
The reports tried: a grid on the simplex of report directions (and three
report scales for a policy whose bundles depend on the scale), then a
Nelder-Mead refinement of the best one; then that report rationalised with
growing denominators and, last, exactly as the float it is. The float
value is the best of them all, and the exact value the best of the same
reports solved exactly: the two agree to the solvers' rounding, which is
what lets a certificate stand for the search's point
(:mod:`analyzer.worst.certify`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from models import Instance, Policy
from models.errors import SolverError

from ...properties._lie_reports import (
    denominators,
    exact_report,
    lie_instance,
    report_caps,
    scaled_reports,
    simplex_grid,
)
from .base import MAX, Measure, Metric, exact_solve, numeric_solve, ratio, register_metric, tasks_of

if TYPE_CHECKING:
    from ..space import Space, Start

#: Simplex grid resolution by number of resources (about 10-15 directions;
#: 2 beyond: the vertices and the midpoints of the edges).
GRID_STEPS = {1: 1, 2: 8, 3: 4}
#: Nelder-Mead evaluations refining the best report of one instance.
REFINE_EVALUATIONS = 40
#: Report scales (log c) tried for policies that are not scale-invariant.
LOG_SCALES = (-np.log(2.0), 0.0, np.log(2.0))
#: Most lies one evaluation may solve (users x report directions x scales);
#: a larger size is refused up front.
MAX_LIES = 20_000
#: Targeted starts: the liar's non-bottleneck entry ``e^t``, for these ``t``,
#: and at most this many (bottleneck, shrunk resource) pairs.
SHRUNK_LOGS = (-7.0, -10.0)
SHRUNK_PAIRS = 6
#: ... and the others' fractions of the liar's bottleneck resource.
OTHERS_SHARES = (1 / 2, 2 / 3, 1 / 3)


@lru_cache(maxsize=16)
def directions(m: int) -> np.ndarray:
    """Report directions: the simplex grid of :data:`GRID_STEPS`, built
    without enumerating ``3^(m-1)`` points beyond 3 resources."""
    if m in GRID_STEPS:
        return simplex_grid(m, GRID_STEPS[m])
    rows = [np.eye(m)[j] for j in range(m)] + [(np.eye(m)[a] + np.eye(m)[b]) / 2
                                               for a, b in itertools.combinations(range(m), 2)]
    out = np.array(rows)
    out.setflags(write=False)
    return out


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
        return self.of_report(i, scaled_reports(self.instance, np.array([i]), row[None, :])[0])

    def of_report(self, i: int, report: np.ndarray) -> float:
        """Gain of the report vector ``report`` (floats)."""
        if not np.all(np.isfinite(report)) or report.max() <= 0:
            return 0.0
        try:
            lied = numeric_solve(self.policy, _lie(self.instance, i, report))
        except (SolverError, ValueError, ArithmeticError):
            return 0.0
        return _true_tasks(self.instance.demands[i], report, lied[i]) / self.x[i]

    def of_rows(self, i: int, rows: np.ndarray) -> np.ndarray:
        """Gains of many report rows of user ``i`` at once: one vectorised
        solve of the lied instances when the policy has a batch solver
        (:func:`analyzer.properties._batch.numeric_many`: the members it
        does not certify are solved alone), else one solve each."""
        from ...properties._batch import numeric_many
        from ...properties._common import Evaluator

        inst = self.instance
        reports = scaled_reports(inst, np.full(len(rows), i), rows)
        fine = np.all(np.isfinite(reports), axis=1) & (reports.max(axis=1) > 0)
        if not fine.all() or self.policy.batch_solver() is None:
            return np.array([self.of_report(i, r) for r in reports])
        D = np.repeat(np.asarray(inst.demands, dtype=float)[None], len(rows), axis=0)
        D[:, i] = reports
        caps = np.repeat(np.asarray(inst.max_tasks, dtype=float)[None], len(rows), axis=0)
        caps[:, i] = report_caps(np.repeat(inst.demands[i][None], len(rows), axis=0), reports, caps[:, i])
        try:
            lied = numeric_many(Evaluator(self.policy), inst, demands=D, caps=caps)[:, i]
        except (SolverError, ValueError, ArithmeticError):
            return np.array([self.of_report(i, r) for r in reports])
        used = inst.demands[i] > 0
        return lied * np.min(reports[:, used] / inst.demands[i][used], axis=1) / self.x[i]


def exact_reports(instance: Instance, i: int, row: np.ndarray, invariant: bool) -> list[list[Fraction]]:
    """The report of ``row`` rationalised with each denominator (coarse,
    readable first), then the float report exactly as it is."""
    reports = [exact_report(instance, i, row, den, invariant) for den in denominators()]
    floats = scaled_reports(instance, np.array([i]), np.asarray(row, dtype=float)[None, :])[0]
    need = instance.demands_exact[i]
    exact = [Fraction(float(v)) for v in floats]
    if all(v > 0 or d == 0 for v, d in zip(exact, need, strict=True)) and exact not in reports:
        reports.append(exact)
    return reports


@register_metric
class ManipulationGain(Metric):
    """``max_{i, d'_i} true tasks with d'_i / true tasks`` (1 = no gain); worst = max."""

    name = "manipulation-gain"
    direction = MAX
    summary = "largest ratio of a liar's true tasks to its truthful tasks"
    source = "Ghodsi et al., NSDI 2011, Section 3 (strategy-proofness)"
    default_budget = 150

    def refuse(self, users: int, resources: int) -> str | None:
        lies = users * len(directions(resources)) * len(LOG_SCALES)
        if lies > MAX_LIES:
            return (f"one evaluation of the manipulation gain solves up to {lies} lies (users x report directions "
                    f"x scales), more than {MAX_LIES}")
        return None

    def starts(self, space: Space, rng: np.random.Generator) -> Iterator[Start]:
        return liar_starts(space, rng)

    def best_report(self, policy: Policy, instance: Instance) -> tuple[float, int, np.ndarray | None]:
        """``(gain, user, report row)`` of the best lie found on the grid and
        by the refinement (gain 1 and no row when none beats the truth)."""
        return self._best(policy, instance)[0]

    def _best(self, policy: Policy, instance: Instance) -> tuple[tuple[float, int, np.ndarray | None], _Gain]:
        x = numeric_solve(policy, instance)
        gain = _Gain(policy, instance, x)
        scales = (0.0,) if policy.scale_invariant else LOG_SCALES
        rows = np.array([np.append(s, c) for s in directions(instance.m) for c in scales])
        best: tuple[float, int, np.ndarray | None] = (1.0, -1, None)
        for i in range(instance.n):
            if x[i] <= 0:
                continue
            g = gain.of_rows(i, rows)
            k = int(np.argmax(g))  # the first of the best, as a loop keeping strict improvements
            if g[k] > best[0]:
                best = (float(g[k]), i, rows[k])
        if best[2] is None:
            return best, gain
        return self._refine(gain, best, policy.scale_invariant), gain

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
        (g, i, row), gain = self._best(policy, instance)
        if row is None:
            return g
        rounded = exact_reports(instance, i, row, policy.scale_invariant)
        return max(g, *(gain.of_report(i, np.array([float(v) for v in r])) for r in rounded))

    def measure(self, policy: Policy, instance: Instance) -> Measure:
        alloc = exact_solve(policy, instance)
        _, i, row = self.best_report(policy, instance)
        value: Any = Fraction(1)
        detail: dict[str, Any] = {}
        exact = alloc.exact  # and every lied allocation's (a float among them is not exact)
        if row is not None:
            for rep in exact_reports(instance, i, row, policy.scale_invariant):
                got, lied_exact = self.lie_tasks(policy, instance, i, rep)
                exact = exact and lied_exact
                g = ratio(got, tasks_of(alloc)[i])
                if float(g) > float(value):  # the best of the reports (coarse ones may lose gain)
                    value, detail = g, {"user": instance.users[i], "report": [str(v) for v in rep],
                                        "tasks_truthful": str(tasks_of(alloc)[i]), "tasks_lying": str(got)}
            if not exact and value == 1:
                value = 1.0
        return Measure(value, exact, alloc, detail)

    def measure_witness(self, policy: Policy, instance: Instance, witness: dict[str, Any]) -> Measure:
        """The best of the searched lies and the prover's (the liar of the
        case, ``witness["roles"][0]``, user 0 when the case names nobody,
        reporting ``witness["report"]``), exactly."""
        m = self.measure(policy, instance)
        report = witness.get("report")
        if report is None or not m.allocation.exact:
            return m
        liar = int(witness["roles"][0]) if witness.get("roles") else 0
        got, exact = self.lie_tasks(policy, instance, liar, [Fraction(v) for v in report])
        g = ratio(got, tasks_of(m.allocation)[liar])
        if exact and float(g) > float(m.value):
            detail = {"user": instance.users[liar], "report": [str(v) for v in report],
                      "tasks_truthful": str(tasks_of(m.allocation)[liar]), "tasks_lying": str(got)}
            return Measure(g, m.exact, m.allocation, detail)
        return m

    def lie_tasks(self, policy: Policy, instance: Instance, i: int, report: list[Fraction]) -> tuple[Any, bool]:
        """The true tasks user ``i`` runs reporting ``report``, and whether
        they were computed exactly."""
        lied = exact_solve(policy, lie_instance(instance, i, report)[0])
        need = instance.demands_exact[i]
        return tasks_of(lied)[i] * min(r / d for r, d in zip(report, need, strict=True) if d > 0), lied.exact


def liar_starts(space: Space, rng: np.random.Generator) -> Iterator[Start]:
    """Instances in which a liar (the last user) barely needs a resource
    the others need most: its true demand has that (non-bottleneck) entry
    shrunk towards zero, the others need 1 of it and a fixed fraction of
    every other resource. The shape of CEEI's largest gains: at 2 x 2 a liar
    ``<eps, 1>`` against ``<1, 1/2>`` gains ``3/2`` as ``eps -> 0`` by
    reporting ``<2/3, 1>`` (the gain falls off fast away from ``1/2``)."""
    n, m = space.n, space.m
    pairs = [(b, j) for b in range(m) for j in range(m) if j != b][:SHRUNK_PAIRS]
    for (b, j), t, share in itertools.product(pairs, SHRUNK_LOGS, OTHERS_SHARES):
        theta = np.full((n, m), np.log(share))
        theta[:, j] = 0.0
        theta[n - 1] = rng.uniform(-2.0, 0.0, size=m)
        theta[n - 1, b], theta[n - 1, j] = 0.0, t
        yield f"liar shrinks r{j} to e^{t:g}, others need {share:g} of r{b}", theta.ravel()
