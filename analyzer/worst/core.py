"""``worst_case``: optimise over instances for the worst value of a metric,
certify the winner exactly and, where the SMT prover encodes the policy and
the metric, prove a bound."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from models import Policy, get_policy
from models.limits import MAX_TIMEOUT_SECONDS

from .certify import Certifier, exact_version, float_measure
from .metrics.base import Metric, get_metric
from .result import WorstCase
from .search import Run, optimise
from .space import DOMAINS, Space

#: A bound is proved automatically when ``users * resources`` is at most this.
BOUND_AUTO_CELLS = 4
#: Metric evaluations spent simplifying a certified instance's entries: this
#: many per entry, at most SIMPLIFY_MAX (independent of the budget, so that a
#: point's certificate is too).
SIMPLIFY_PER_ENTRY = 2
SIMPLIFY_MAX = 200
#: Seconds given to the bound's bisection when no timeout is set.
BOUND_TIMEOUT = 60.0
#: Largest ``users * resources`` searched: one evaluation solves the policy
#: and (efficiency) an LP with that many entries, and a start point holds as
#: many numbers; beyond it a size is refused up front (issue 28).
MAX_CELLS = 20_000


def check_size(users: int, resources: int, domain: str, metric: Metric | None = None) -> None:
    """Raises ValueError naming the bad argument (a size beyond what the
    search can solve included)."""
    for name, v in (("users", users), ("resources", resources)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name}: must be an integer >= 1, got {v!r}")
    if domain not in DOMAINS:
        raise ValueError(f"domain: must be one of {', '.join(DOMAINS)}, got {domain!r}")
    if users * resources > MAX_CELLS:
        raise ValueError(f"users x resources: {users} x {resources} = {users * resources} demand entries is beyond "
                         f"what the worst-case search solves (at most {MAX_CELLS})")
    reason = None if metric is None else metric.refuse(users, resources)
    if reason is not None:
        raise ValueError(f"users x resources: {users} x {resources}: {reason}")


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
        Same seed and budget, same result; with the same seed a larger
        budget never reports a less bad value.
    budget : int, optional
        Metric evaluations of the search (the metric's default otherwise).
    domain : {"positive", "zeros"}
        Demands all positive, or zeros allowed.
    timeout : float, optional
        Wall-clock seconds for the search (and as much for the bound).
    bound : bool, optional
        Prove a bound with the SMT prover; by default only at small sizes
        (``users * resources <= 4``), where it is quick.
    progress : callable, optional
        ``progress(evaluations, best value)`` after each evaluation.
    mode : {"continuous", "dynamic"}, optional
        One of the metric's settings (default: its first; dynamic: users arrive in row order).

    Returns
    -------
    WorstCase
        ``.value`` (exact where the policy solves exactly), ``.instance``,
        ``.allocation``, ``.trace``, ``.bound`` (``None`` when nothing was
        proved; ``.bound_note`` says why).

    Raises
    ------
    ValueError
        For a bad size, budget, timeout, domain or mode, and for a size
        beyond what the search solves (:data:`MAX_CELLS`, or the metric's limit).

    Examples
    --------
    >>> r = worst_case("drf", "utilization", users=2, resources=2, budget=40)
    >>> r.value
    Fraction(1, 1)
    """
    pol, met = get_policy(policy), get_metric(metric)
    check_size(users, resources, domain, met)
    check_mode(met, mode)
    budget = _checked_budget(met, budget, timeout)
    deadline = math.inf if timeout is None else time.monotonic() + timeout
    result = search_run(Run(pol, met, Space(users, resources, domain), budget, deadline, progress), seed)
    if bound or (bound is None and users * resources <= BOUND_AUTO_CELLS and not result.interrupted):
        _add_bound(result, pol, met, BOUND_TIMEOUT if timeout is None else timeout)
    return result


def _checked_budget(met: Metric, budget: int | None, timeout: float | None) -> int:
    """The budget (the metric's default when ``None``); ValueError for a bad budget or timeout."""
    budget = met.default_budget if budget is None else budget
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"budget: must be an integer >= 1, got {budget!r}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout: must be > 0, got {timeout!r}")
    if timeout is not None and timeout > MAX_TIMEOUT_SECONDS:  # the search's deadline would overflow the clock
        raise ValueError(f"timeout: at most {MAX_TIMEOUT_SECONDS:.3g} seconds, got {timeout:g}")
    return budget


def search_run(run: Run, seed: int) -> WorstCase:
    """The search ``run`` from ``seed``: optimise, then certify the best point (Ctrl-C during certification
    keeps the best certificate so far, or the float point)."""
    pol, met, space = run.policy, run.metric, run.space
    optimise(run, seed)
    if run.best_theta is None and run.interrupted:
        raise KeyboardInterrupt
    if run.best_theta is None:
        raise ValueError(f"no instance could be evaluated for {pol.label} ({run.failures} solver failures)")
    cert = Certifier(pol, met, space, min(SIMPLIFY_PER_ENTRY * space.dim, SIMPLIFY_MAX))
    try:
        kept = cert.best(run.improvements)
        instance, measure = (kept[0], kept[1]) if kept is not None else cert.as_is(run.best_theta)
    except KeyboardInterrupt:  # nothing certified yet: the float point, as it is
        run.interrupted = True
        instance = exact_version(space.demands(run.best_theta))
        measure = float_measure(pol, met, instance)
    return WorstCase(pol.label, met.name, met.direction, space.n, space.m, space.domain, seed, measure.value,
                     measure.exact, instance, measure.allocation, measure.detail, run.best_value,
                     run.evaluations, time.perf_counter() - run.started, run.trace, None, run.interrupted)


def _add_bound(result: WorstCase, policy: Policy, metric: Metric, timeout: float) -> None:
    from .bounding import prove_bound

    try:
        out = prove_bound(policy, metric, result.users, result.resources, result.domain, result.value, timeout)
    except KeyboardInterrupt:
        result.interrupted = True
        result.bound_note = "interrupted"
        return
    if isinstance(out, str):
        result.bound_note = out
        return
    result.bound, worse = out
    if worse is not None:  # the prover built a worse instance: the bound keeps it (the search's result stays)
        result.bound.instance, result.bound.detail = worse[0], worse[1].detail
