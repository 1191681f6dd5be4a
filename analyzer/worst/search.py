"""The optimisation over instances: the metric's targeted starts (shaped
like its known extremal instances), generic structured starts, then
Nelder-Mead (scipy) from the best starts and from perturbations of the best
point, all on the metric's float value, counted against one budget of
evaluations.

Every random choice comes from one ``numpy`` generator seeded by the
caller, and nothing in the sequence of points evaluated depends on the
budget: a larger budget evaluates the same points first (same seed, same
result; more budget, never a worse best). The search stops at the budget,
at the deadline, or at Ctrl-C, keeping the best point so far and every
improvement the certification may need (:mod:`analyzer.worst.certify`).
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from models import InstanceError, Policy, SolverError
from models.tolerances import WORST_LOG_SPAN, WORST_SHRINK_RTOL

from .metrics.base import Metric
from .space import Space, generic_starts

#: Nelder-Mead runs started from the best starts.
LOCAL_STARTS = 3
#: Evaluations per Nelder-Mead run: this many per coordinate, at least MIN_RUN, at most MAX_RUN.
RUN_PER_DIM = 25
MIN_RUN = 60
MAX_RUN = 1000
#: Edge of the initial simplex and spread of restarts, in log-demand units.
SIMPLEX_STEP = 0.7
PERTURB = 0.5
#: Above this many coordinates, each Nelder-Mead run moves a random subset
#: of SUBSPACE coordinates (its simplex then holds SUBSPACE + 1 points, not
#: one per coordinate: memory stays linear in the size).
MAX_SIMPLEX_DIM = 40
SUBSPACE = 24


class _Stop(Exception):
    """Budget or deadline reached."""


@dataclass
class TracePoint:
    """The best value after ``evaluations`` metric evaluations."""

    evaluations: int
    seconds: float
    value: float
    phase: str


@dataclass
class Improvement:
    """A point that improved the best value (what certification walks back over)."""

    evaluations: int
    value: float
    theta: np.ndarray


@dataclass
class Run:
    """The state of one search (what is kept when it stops)."""

    policy: Policy
    metric: Metric
    space: Space
    budget: int
    deadline: float = math.inf
    progress: Callable[[int, float], None] | None = None
    evaluations: int = 0
    best_loss: float = math.inf
    best_theta: np.ndarray | None = None
    trace: list[TracePoint] = field(default_factory=list)
    improvements: list[Improvement] = field(default_factory=list)
    interrupted: bool = False
    failures: int = 0
    started: float = field(default_factory=time.perf_counter)
    #: The metric's own starts first (off only for the benchmark's baseline).
    targeted: bool = True

    @property
    def best_value(self) -> float:
        return self.best_loss if self.metric.direction == "min" else -self.best_loss

    def loss(self, theta: np.ndarray, phase: str) -> float:
        """The metric's loss at ``theta`` (counted; ``_Stop`` at the budget)."""
        if self.evaluations >= self.budget or time.monotonic() > self.deadline:
            raise _Stop
        self.evaluations += 1
        try:
            value = self.metric.evaluate(self.policy, self.space.instance(theta))
        except (SolverError, InstanceError, ValueError, ArithmeticError):
            self.failures += 1
            value = math.nan
        loss = self.metric.loss(value)
        if loss < self.best_loss:
            self._improve(loss, np.array(theta, dtype=float), value, phase)
        if self.progress is not None:
            self.progress(self.evaluations, self.best_value)
        return loss

    def _improve(self, loss: float, theta: np.ndarray, value: float, phase: str) -> None:
        """Record a new best; forget the improvements certification can no
        longer need (worse than the new best by more than twice the shrink
        tolerance: a certificate of the new best is at least that good)."""
        self.best_loss, self.best_theta = loss, theta
        self.trace.append(TracePoint(self.evaluations, time.perf_counter() - self.started, value, phase))
        if math.isfinite(loss):
            reach = loss + 2 * WORST_SHRINK_RTOL * max(abs(loss), 1.0)
            self.improvements = [p for p in self.improvements if self.metric.loss(p.value) <= reach]
        self.improvements.append(Improvement(self.evaluations, value, theta))


def nelder_mead(run: Run, x0: np.ndarray, evaluations: int, phase: str, rng: np.random.Generator) -> None:
    """One bounded Nelder-Mead run from ``x0`` (scipy), over every
    coordinate or, in more than :data:`MAX_SIMPLEX_DIM` dimensions, over
    :data:`SUBSPACE` coordinates drawn at random."""
    from scipy.optimize import minimize

    dim = x0.size
    idx = np.arange(dim) if dim <= MAX_SIMPLEX_DIM else np.sort(rng.choice(dim, SUBSPACE, replace=False))
    base = np.array(x0, dtype=float)

    def loss(u: np.ndarray) -> float:
        point = base.copy()
        point[idx] = u
        return run.loss(point, phase)

    u0 = base[idx]
    step = np.where(u0 > -SIMPLEX_STEP, -SIMPLEX_STEP, SIMPLEX_STEP)
    simplex = np.vstack([u0, u0 + np.diag(step)])
    minimize(loss, u0, method="Nelder-Mead",
             options={"maxfev": evaluations, "initial_simplex": simplex, "xatol": 1e-10, "fatol": 1e-14,
                      "adaptive": idx.size > 4})


def optimise(run: Run, seed: int) -> Run:
    """Run the search until the budget, the deadline or Ctrl-C."""
    rng = np.random.default_rng(seed)
    chunk = min(MAX_RUN, max(MIN_RUN, RUN_PER_DIM * min(run.space.dim, MAX_SIMPLEX_DIM)))
    try:
        own = run.metric.starts(run.space, rng) if run.targeted else iter(())
        best: list[tuple[float, int, str, np.ndarray]] = []  # the LOCAL_STARTS best starts (a heap of -loss)
        for k, (name, theta) in enumerate(itertools.chain(own, generic_starts(run.space, rng))):
            item = (-run.loss(theta, f"start: {name}"), -k, name, theta)
            (heapq.heappush if len(best) < LOCAL_STARTS else heapq.heappushpop)(best, item)
        for _, _, name, theta in sorted(best, reverse=True):
            nelder_mead(run, theta, chunk, f"local: {name}", rng)
        while True:
            assert run.best_theta is not None
            x0 = np.clip(run.best_theta + rng.normal(0.0, PERTURB, run.space.dim), -WORST_LOG_SPAN, 0.0)
            nelder_mead(run, x0, chunk, "restart", rng)
    except _Stop:
        pass
    except KeyboardInterrupt:
        run.interrupted = True
    return run


def sample(run: Run, seed: int, log: bool = True) -> Run:
    """The baselines: the same budget of random points, log-uniform in the
    search's box (``log``) or with demands uniform in ``(0, 1]``."""
    rng = np.random.default_rng(seed)
    try:
        while True:
            u = rng.uniform(-WORST_LOG_SPAN, 0.0, run.space.dim) if log else np.log1p(-rng.random(run.space.dim))
            run.loss(u, "random")
    except _Stop:
        pass
    except KeyboardInterrupt:
        run.interrupted = True
    return run
