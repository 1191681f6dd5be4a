"""The optimisation over instances: structured starts, then Nelder-Mead
(scipy) from the best starts and from perturbations of the best point, all
on the metric's float value, counted against one budget of evaluations.

Every random choice comes from one ``numpy`` generator seeded by the
caller: same seed, same budget, same result. The search stops at the
budget, at the deadline, or at Ctrl-C, keeping the best point so far.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from models import InstanceError, Policy, SolverError
from models.tolerances import WORST_LOG_SPAN

from .metrics.base import Metric
from .space import Space, starts

#: Nelder-Mead runs started from the best structured starts.
LOCAL_STARTS = 3
#: Evaluations per Nelder-Mead run: this many per coordinate, at least MIN_RUN.
RUN_PER_DIM = 25
MIN_RUN = 60
#: Edge of the initial simplex and spread of restarts, in log-demand units.
SIMPLEX_STEP = 0.7
PERTURB = 0.5


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
    interrupted: bool = False
    failures: int = 0
    started: float = field(default_factory=time.perf_counter)

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
            self.best_loss, self.best_theta = loss, np.array(theta, dtype=float)
            self.trace.append(TracePoint(self.evaluations, time.perf_counter() - self.started, value, phase))
        if self.progress is not None:
            self.progress(self.evaluations, self.best_value)
        return loss


def nelder_mead(run: Run, x0: np.ndarray, evaluations: int, phase: str) -> None:
    """One bounded Nelder-Mead run from ``x0`` (scipy)."""
    from scipy.optimize import minimize

    dim = x0.size
    step = np.where(x0 > -SIMPLEX_STEP, -SIMPLEX_STEP, SIMPLEX_STEP)
    simplex = np.vstack([x0, x0 + np.diag(step)])
    minimize(lambda t: run.loss(t, phase), x0, method="Nelder-Mead",
             options={"maxfev": evaluations, "initial_simplex": simplex, "xatol": 1e-10, "fatol": 1e-14,
                      "adaptive": dim > 4})


def optimise(run: Run, seed: int) -> Run:
    """Run the search until the budget, the deadline or Ctrl-C."""
    rng = np.random.default_rng(seed)
    chunk = max(MIN_RUN, RUN_PER_DIM * run.space.dim)
    try:
        points = starts(run.space, rng)
        losses = [run.loss(theta, f"start: {name}") for name, theta in points]
        order = np.argsort(losses, kind="stable")
        for k in order[:LOCAL_STARTS]:
            nelder_mead(run, points[k][1], chunk, f"local: {points[k][0]}")
        while True:
            assert run.best_theta is not None
            x0 = np.clip(run.best_theta + rng.normal(0.0, PERTURB, run.space.dim), -WORST_LOG_SPAN, 0.0)
            nelder_mead(run, x0, chunk, "restart")
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
