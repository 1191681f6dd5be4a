"""``frontier``: one policy family along a numeric parameter, at one size:
per value, the certified worst value of a metric (:func:`analyzer.worst_case`)
and each property's prover status (:func:`analyzer.prove`).

Two phases: the worst-case searches run in parallel over the values
(processes, or a Dask cluster), then the proofs, each split into cases
that the prover solves in processes of its own (it forks one per case, to
stop a case at its deadline: not from inside a pool's worker)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from models import PolicyError, get_policy
from models.errors import did_you_mean
from models.policy import parse_policy_spec

from .result import Frontier, FrontierPoint

#: A value's search: label, metric, users, resources, seed, budget, domain, timeout.
SearchArgs = tuple[str, str, int, int, int, "int | None", str, "float | None"]
#: Seconds each property's proof may take (per value) when not given.
PROVE_TIMEOUT = 60.0


def member(policy: str, param: str, value: Any) -> tuple[str, float]:
    """The label of the family member with ``param = value`` (other
    parameters of ``policy`` kept), and the value as a number.

    Raises
    ------
    PolicyError
        For an unknown policy or parameter, a value that is not a number,
        or one the policy refuses (e.g. ``slots`` not a whole number).
    """
    name, params = parse_policy_spec(policy)
    declared = get_policy(name).parameters
    if param not in declared:
        known = ", ".join(declared) or "none"
        raise PolicyError(f"param: policy {name!r} has no parameter {param!r}{did_you_mean(param, list(declared))} "
                          f"(parameters: {known})")
    _, parsed = parse_policy_spec(f"{name}:{param}={value}")
    number = parsed[param]
    if isinstance(number, bool) or not isinstance(number, int | float) or math.isnan(number):
        raise PolicyError(f"values: {value!r} is not a number (write numbers or inf)")
    label = get_policy(name, **{**params, param: number}).label
    return label, float(number)


def run_search(args: SearchArgs) -> tuple[str, Any]:
    """One value's worst case (runs in a worker; no bound)."""
    from ..worst import worst_case

    label, metric, users, resources, seed, budget, domain, timeout = args
    return label, worst_case(label, metric, users, resources, seed=seed, budget=budget, domain=domain,
                             timeout=timeout, bound=False)


def frontier(policy: str, param: str, values: Sequence[Any], *, metric: str = "efficiency",
             properties: Sequence[str] = (), users: int = 2, resources: int = 2, seed: int = 0,
             budget: int | None = None, domain: str = "positive", timeout: float | None = None,
             prove_timeout: float = PROVE_TIMEOUT, workers: int | None = None, scheduler: Any = None,
             progress: Callable[[int], None] | None = None) -> Frontier:
    """The fairness-efficiency frontier of a policy family: along the
    numeric parameter ``param``, the worst value of ``metric`` and which
    ``properties`` the prover proves (Joe-Wong, Sen, Lan and Chiang,
    INFOCOM 2012, Section III, put FDS and GFJ on such a scale).

    Parameters
    ----------
    policy : str
        A parameterised policy (``"fds"``, ``"gfj"``, ``"slots"``, a
        ``--policy-file`` one), other parameters fixed as in ``"fds:gamma=2"``.
    param : str
        The parameter that varies; ``values`` are numbers or ``"inf"``.
    metric, properties
        A worst-case metric (:func:`analyzer.worst_case`); properties to
        prove at each value (:func:`analyzer.prove`, ``prove_timeout`` s each).
    users, resources, seed, budget, domain, timeout
        As :func:`analyzer.worst_case` takes them (per value).
    workers, scheduler, progress
        Processes for the searches and each proof's cases (default: every
        core) or a Dask scheduler's address for the searches;
        ``progress(1)`` after each search and each proof.

    Returns
    -------
    Frontier
        One :class:`FrontierPoint` per value, in the order given (Ctrl-C
        keeps the values finished, ``.interrupted``).

    Raises
    ------
    PolicyError, ValueError
        For an unknown policy, parameter or property, a value that is not a
        number or that the policy refuses; a bad size, budget or timeout.

    Examples
    --------
    >>> f = frontier("fds", "beta", [1, "inf"], metric="utilization", properties=["envy-freeness"],
    ...              users=2, resources=2, budget=20, workers=1)
    >>> [p.proofs["envy-freeness"].status for p in f.points]
    ['proved', 'proved']
    """
    met, props, members = _plan(policy, param, values, metric, properties, users, resources, domain, prove_timeout)
    out = Frontier(parse_policy_spec(policy)[0], param, met.name, met.direction, props, users, resources, seed)
    jobs: list[SearchArgs] = [(label, met.name, users, resources, seed, budget, domain, timeout)
                              for label, _ in members]
    try:
        worst = _searches(jobs, workers, scheduler, progress)
        for label, value in members:
            proofs = _proofs(label, props, users, resources, domain, prove_timeout, workers, progress)
            out.points.append(FrontierPoint(value, label, worst[label], proofs))
    except KeyboardInterrupt:
        out.interrupted = True
    return out


def _plan(policy: str, param: str, values: Sequence[Any], metric: str, properties: Sequence[str], users: int,
          resources: int, domain: str, prove_timeout: float) -> tuple[Any, tuple[str, ...], list[tuple[str, float]]]:
    """The metric, the property names and the members (label, value; one
    per label), every argument checked before any work."""
    from ..properties.base import get_property
    from ..proving.arguments import validate_timeout
    from ..worst import get_metric
    from ..worst.core import check_size

    met = get_metric(metric)
    check_size(users, resources, domain, met)
    if not values:
        raise PolicyError("values: give at least one value")
    validate_timeout(prove_timeout, "prove_timeout")
    props = tuple(get_property(p).name for p in properties)
    return met, props, list(dict(member(policy, param, v) for v in values).items())


def _searches(jobs: list[SearchArgs], workers: int | None, scheduler: Any,
              progress: Callable[[int], None] | None) -> dict[str, Any]:
    """Every value's worst case, by label, over the pool or the cluster."""
    from ..searching.pool import worker_pool

    worst: dict[str, Any] = {}
    with worker_pool(workers, scheduler) as (pool, _):
        results = map(run_search, jobs) if pool is None else pool.imap_unordered(run_search, jobs)
        for label, r in results:
            worst[label] = r
            if progress is not None:
                progress(1)
    return worst


def _proofs(label: str, props: tuple[str, ...], users: int, resources: int, domain: str, timeout: float,
            workers: int | None, progress: Callable[[int], None] | None) -> dict[str, Any]:
    """Each property proved for one member (Ctrl-C: ``KeyboardInterrupt``)."""
    from proofs.prover.driver import INTERRUPTED

    from ..proving.smt import prove

    out = {}
    for prop in props:
        r = prove(label, prop, users, resources, domain=domain, timeout=timeout, workers=workers)
        if any(c.reason == INTERRUPTED for c in r.cases):
            raise KeyboardInterrupt
        out[prop] = r
        if progress is not None:
            progress(1)
    return out
