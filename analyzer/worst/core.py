"""``worst_case``: optimise over instances for the worst value of a metric,
certify the winner exactly and, where the SMT prover encodes the policy and
the metric, prove a bound."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from models import Policy, get_policy

from .certify import certify, close_enough
from .metrics.base import Metric, get_metric
from .result import WorstCase
from .search import Run, optimise
from .space import DOMAINS, Space

#: A bound is proved automatically when ``users * resources`` is at most this.
BOUND_AUTO_CELLS = 4
#: Metric evaluations spent simplifying the certified instance's entries:
#: this many per entry, but at most a fifth of the budget (at least SIMPLIFY_MIN).
SIMPLIFY_PER_ENTRY = 4
SIMPLIFY_MIN = 10
#: Seconds given to the bound's bisection when no timeout is set.
BOUND_TIMEOUT = 60.0


def check_size(users: int, resources: int, domain: str) -> None:
    """Raises ValueError naming the bad argument."""
    for name, v in (("users", users), ("resources", resources)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name}: must be an integer >= 1, got {v!r}")
    if domain not in DOMAINS:
        raise ValueError(f"domain: must be one of {', '.join(DOMAINS)}, got {domain!r}")


def check_mode(metric: Metric, mode: str | None) -> None:
    """Raises ValueError when ``mode`` is not one of the metric's settings."""
    if mode is not None and mode not in metric.modes:
        raise ValueError(f"mode: metric {metric.name!r} is defined in the {' and '.join(metric.modes)} setting, "
                         f"got {mode!r}")


def worst_case(policy: str | Policy, metric: str | Metric, users: int = 2, resources: int = 2, *, seed: int = 0,
               budget: int | None = None, domain: str = "positive", timeout: float | None = None,
               bound: bool | None = None, progress: Callable[[int, float], None] | None = None,
               mode: str | None = None) -> WorstCase:
    """The worst value of ``metric`` under ``policy`` over instances with
    ``users`` users and ``resources`` resources.

    Parameters
    ----------
    policy : str or Policy
        A registered policy (``"drf"``, ``"fds:beta=2"``, a ``--policy-file`` one).
    metric : str or Metric
        ``efficiency``, ``manipulation-gain``, ``envy``, ``sharing-incentive``,
        ``utilization`` or, in the dynamic setting, ``dynamic-maxmin`` (see
        :mod:`analyzer.worst.metrics`).
    seed : int
        Same seed and budget, same result.
    budget : int, optional
        Metric evaluations of the search (the metric's default otherwise).
    domain : {"positive", "zeros"}
        Demands all positive, or zeros allowed.
    timeout : float, optional
        Wall-clock seconds for the search (and as much for the bound).
    bound : bool, optional
        Prove a bound by bisection with the SMT prover; by default only at
        small sizes (``users * resources <= 4``), where it is quick.
    progress : callable, optional
        ``progress(evaluations, best value)`` after each evaluation.
    mode : {"continuous", "dynamic"}, optional
        One of the metric's settings (default: its first; dynamic: users arrive in row order).

    Returns
    -------
    WorstCase
        ``.value`` (exact where the policy solves exactly), ``.instance``,
        ``.allocation``, ``.trace``, ``.bound``.

    Raises
    ------
    ValueError
        For a bad size, budget, domain or mode.

    Examples
    --------
    >>> r = worst_case("drf", "utilization", users=2, resources=2, budget=40)
    >>> r.value
    Fraction(1, 1)
    """
    check_size(users, resources, domain)
    pol, met = get_policy(policy), get_metric(metric)
    check_mode(met, mode)
    budget = met.default_budget if budget is None else budget
    if budget < 1:
        raise ValueError(f"budget: must be >= 1, got {budget}")
    deadline = math.inf if timeout is None else time.monotonic() + timeout
    result = _search(Run(pol, met, Space(users, resources, domain), budget, deadline, progress), seed)
    if bound or (bound is None and users * resources <= BOUND_AUTO_CELLS and not result.interrupted):
        _add_bound(result, pol, met, BOUND_TIMEOUT if timeout is None else timeout)
    return result


def _search(run: Run, seed: int) -> WorstCase:
    """Optimise, then certify the best point."""
    pol, met, space = run.policy, run.metric, run.space
    optimise(run, seed)
    if run.best_theta is None and run.interrupted:
        raise KeyboardInterrupt
    if run.best_theta is None:
        raise ValueError(f"no instance could be evaluated for {pol.label} ({run.failures} solver failures)")
    effort = min(SIMPLIFY_PER_ENTRY * space.dim, max(SIMPLIFY_MIN, run.budget // 5))
    instance, measure = certify(pol, met, space, run.best_theta, run.best_value, effort)
    return WorstCase(pol.label, met.name, met.direction, space.n, space.m, space.domain, seed, measure.value,
                     measure.exact, instance, measure.allocation, measure.detail, run.best_value,
                     run.evaluations, time.perf_counter() - run.started, run.trace, None, run.interrupted)


def _add_bound(result: WorstCase, policy: Policy, metric: Metric, timeout: float) -> None:
    from .bounding import prove_bound

    try:
        out = prove_bound(policy, metric, result.users, result.resources, result.domain, result.value, timeout)
    except KeyboardInterrupt:
        result.interrupted = True
        return
    if out is None:
        return
    result.bound, worse = out
    if worse is not None and not close_enough(metric, float(result.value), float(result.bound.attained)):
        # the prover's instance is clearly worse than the search's: report it
        m = metric.measure(policy, worse)
        result.instance, result.value, result.allocation, result.detail = worse, m.value, m.allocation, m.detail
