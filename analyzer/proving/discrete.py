"""``prove(..., setting="discrete", bound=K)``: a property decided on every
bounded integer instance, exhaustively.

The discrete setting (Ghodsi et al., NSDI 2011, Section 4.2, Algorithm 1:
whole tasks, always to the user with the smallest share) has no SMT
encoding; its instances within a bound are finitely many, so the prover
enumerates them: every instance of ``n`` users and ``m`` resources with
capacities and demands in ``1..K`` (``0..K`` for zero demands), weights and
caps in ``1..K`` when asked. One instance per symmetry orbit is decided
(:mod:`analyzer.proving.bounded.symmetry` argues why that decides the orbit) with
the properties' own exact code (:mod:`analyzer.proving.bounded.deciders`); the
orbit sizes must add up to the size of the class. Chunks of the grid run on
a process pool or a Dask cluster, their results are read in grid order (so
the counterexample reported is the same whatever the workers), and a
progress file makes the run resumable.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from models import PolicyError, get_policy

from ..properties.base import get_property
from .bounded.deciders import DECIDERS
from .bounded.digest import definition_digests
from .bounded.space import DOMAINS, Space
from .bounded.store import Progress, load, save
from .bounded.symmetry import RESOURCE_SYMMETRIC
from .bounded.worker import ChunkResult, Job, check_chunk, forget_contexts

#: The largest class (grid indices) the exhaustive check takes on; a
#: larger one is ``"unknown"`` with the reason.
MAX_INSTANCES: int = 3_000_000
#: The grid is cut into about this many chunks (the unit of progress).
CHUNKS: int = 512
#: Properties whose deviations the deciders enumerate within the bound.
DEVIATIONS: dict[str, str] = {
    "strategy-proofness": "every report of every user with entries in {low}..{K}{where}",
    "resource-monotonicity": "every growth of the capacities within 1..{K}",
}
#: Reason of a run stopped by Ctrl-C or the stop event (as the continuous
#: prover's interrupted cases).
INTERRUPTED = "interrupted"


def prove_discrete(policy: str, property: str, users: int = 2, resources: int = 2, *, bound: int | None,
                   domain: str = "positive", weighted: bool = False, capped: bool = False, timeout: float = 60,
                   workers: int | None = None, scheduler: Any = None, resume: str | Path | None = None,
                   stop: threading.Event | None = None, progress: Callable[[int, int], None] | None = None) -> Any:
    """Decide ``property`` for discrete ``policy`` on every integer instance
    of the size within ``bound``.

    Parameters
    ----------
    policy : str
        A policy with a discrete form (a filling policy such as ``drf`` or
        ``asset``, or a registered discrete policy).
    property : str
    users, resources : int
    bound : int
        ``K >= 1``: capacities, demands (and weights, caps) at most ``K``.
    domain : {"positive", "zeros"}
        Demands in ``1..K``, or ``0..K`` (each user needing something).
    weighted, capped : bool
        Also every weight in ``1..K`` / every cap in ``0..K`` or none.
    timeout : float
        Wall-clock seconds, then ``"unknown"`` (the progress kept).
    workers : int or None
        Processes (default: the CPU count).
    scheduler : str, distributed.Client or cluster, optional
        Run the chunks on a Dask cluster instead.
    resume : path, optional
        Progress file: read when it exists (chunks done are skipped),
        rewritten after every chunk.
    stop : threading.Event, optional
        Set it to stop after the chunk in hand (like Ctrl-C).
    progress : callable, optional
        ``progress(instances_done, instances_total)`` after every chunk.

    Returns
    -------
    ProofResult
        ``"proved"`` for all integer instances within the bound (the note
        and :attr:`assumptions` give the class), ``"counterexample"`` (an
        exactly re-verified Violation) or ``"unknown"`` (``.reason``).

    Raises
    ------
    PolicyError
        Bad input (policy, property, size, bound, domain, timeout, workers,
        a progress file of another run).

    Examples
    --------
    >>> r = prove_discrete("drf", "envy-freeness", 2, 1, bound=3, workers=1)
    >>> r.status, r.counterexample.instance.describe()
    ('counterexample', 'R=<1>; u0: <1>, u1: <1>')
    >>> r.counterexample.message
    "u1 gets 0 tasks but could run 1 with u0's bundle"
    """
    pol, prop = get_policy(policy), get_property(property)
    space = Space(*_valid(users, resources, bound, domain, timeout, workers), weighted=bool(weighted),
                  capped=bool(capped))
    return _prove(pol, prop.name, space, timeout, workers, scheduler, resume, stop, progress)


def _prove(pol: Any, prop: str, space: Space, timeout: float, workers: int | None, scheduler: Any, resume: Any,
           stop: threading.Event | None, progress: Callable[[int, int], None] | None) -> Any:
    """:func:`prove_discrete` on validated arguments."""
    result = _result(pol.label, prop, space)
    why = _refused(pol, prop, space)
    if why:
        result.reason = why
        return result
    job = Job(pol.label, prop, space, pol.name in RESOURCE_SYMMETRIC and prop in DECIDERS)
    run = {"policy": job.policy, "property": job.property, "class": space.to_dict(), "resources": job.resources,
           "chunk": _chunk(space)}
    if resume is not None:  # what the verdict depends on: a file of another definition is refused
        run.update(definition_digests(pol, get_property(prop)))
    state = load(resume, run)
    forget_contexts()
    t0 = time.perf_counter()
    hit, why = _drive(job, state, resume, workers, scheduler, t0 + timeout, stop, progress)
    _conclude(result, job, state, hit, why, resume)
    if result.status != "unknown":
        from ..render import package_version

        result.solvers = (f"exhaustive enumeration, fairalloc {package_version()}",)
    result.seconds = time.perf_counter() - t0
    for case in result.cases:
        case.seconds = result.seconds
    return result


def _valid(users: Any, resources: Any, bound: Any, domain: Any, timeout: Any, workers: Any
           ) -> tuple[int, int, int, str]:
    """The size, bound and domain, checked like the continuous prover's
    arguments (:func:`analyzer.proving.smt.prove`)."""
    from .arguments import validate_size

    validate_size(users, resources, domain, timeout, workers, 1, DOMAINS)
    if bound is None:
        raise PolicyError("bound: the discrete setting needs a bound K (capacities and demands in 1..K)")
    if isinstance(bound, bool) or not isinstance(bound, int) or bound < 1:
        raise PolicyError(f"bound: must be a whole number >= 1, got {bound!r}")
    return users, resources, bound, domain


def _refused(pol: Any, prop: str, space: Space) -> str:
    """Why the class cannot be decided here (``""`` when it can): no
    discrete form, a property undefined in the discrete setting (probed on
    one instance every property applies to), too large a class."""
    from models import Instance
    from models.discrete import no_discrete_form

    from ..properties.base import DISCRETE

    if (why := no_discrete_form(pol)) is not None:
        return why
    try:
        get_property(prop).check(pol, Instance.from_exact([space.bound], [[1]] * space.users), DISCRETE)
    except PolicyError as exc:
        return str(exc)
    if space.size > MAX_INSTANCES:
        return (f"the class has {space.size:,} grid points, more than the exhaustive check takes on "
                f"({MAX_INSTANCES:,}); lower the bound" + (" or drop weights/caps" if space.weighted or space.capped
                                                          else ""))
    sample = Instance.from_exact([space.bound] * space.resources, [[1] * space.resources] * space.users)
    return pol.supports(sample) or ""


def _chunk(space: Space) -> int:
    return max(1, -(-space.size // CHUNKS))


def _run_chunk(args: tuple[Job, int, int]) -> ChunkResult:
    return check_chunk(*args)


def _drive(job: Job, state: Progress, resume: Any, workers: int | None, scheduler: Any, deadline: float,
           stop: threading.Event | None, progress: Callable[[int, int], None] | None) -> tuple[Any, str]:
    """Run the chunks not done yet, in grid order; ``(hit, why_stopped)``."""
    from ..searching.pool import worker_pool

    size, step = job.space.size, _chunk(job.space)
    todo = [(job, lo, min(lo + step, size)) for lo in range(0, size, step) if lo not in state.done]
    try:
        with worker_pool(workers, scheduler) as (pool, _):
            results = map(_run_chunk, todo) if pool is None else (
                pool.imap(_run_chunk, todo) if hasattr(pool, "imap") else pool.imap_unordered(_run_chunk, todo))
            for r in results:
                if r.hit is not None:
                    state.orbits, state.covered = state.orbits + r.orbits, state.covered + r.covered
                    state.evaluations += r.evaluations  # counted, not saved: the run ends here
                    return r.hit, ""
                state.add(r.lo, r.orbits, r.covered, r.evaluations)
                save(resume, state)
                if progress is not None:
                    progress(state.covered, job.space.class_size)
                if stop is not None and stop.is_set():
                    return None, INTERRUPTED
                if time.perf_counter() > deadline:
                    return None, "timeout"
    except KeyboardInterrupt:
        return None, INTERRUPTED
    return None, ""


def _result(policy: str, prop: str, space: Space) -> Any:
    from proofs.prover.result import UNDECIDED, ProofResult

    K = space.bound
    assumptions = {
        "users": space.users, "resources": space.resources, "bound": K, "domain": space.domain,
        "demands": f"integers in {space.low}..{K}" + (", each user needing some resource" if space.low == 0 else ""),
        "capacities": f"integers in 1..{K}",
        "weights": f"integers in 1..{K}" if space.weighted else "equal (unweighted)",
        "caps": f"integers in 0..{K} or none" if space.capped else "none",
        "setting": "discrete: whole tasks by progressive filling (Algorithm 1, default engine settings), one pool",
        "class": space.describe(), "instances": space.class_size,
        "solver": "exhaustive enumeration, exact integer arithmetic", "cases": 1,
    }
    if prop in DEVIATIONS:
        where = ", positive where the true demand is" if space.low == 0 else ""
        assumptions["deviations"] = DEVIATIONS[prop].format(low=space.low, K=K, where=where)
    return ProofResult(UNDECIDED, policy, prop, space.users, space.resources, space.domain, assumptions=assumptions)


def _conclude(result: Any, job: Job, state: Progress, hit: Any, why: str, resume: Any) -> None:
    """Status, note and the one case from the run's outcome."""
    from proofs.prover.result import COUNTEREXAMPLE, PROVED, SAT, UNKNOWN, UNSAT, CaseResult

    from .bounded.deciders import violation

    space = job.space
    symmetry = "users" + (" and resources" if job.resources else "")
    symmetry += ", common weight factors" if space.weighted else ""
    result.assumptions.update(orbits=state.orbits, evaluations=state.evaluations, symmetry=symmetry)
    label = f"{state.covered:,} of {space.class_size:,} instances ({state.orbits:,} orbits)"
    if hit is not None:
        label = f"first violating orbit after {label}"
        v = violation(job.context(), hit)
        if v is not None and v.exact:
            result.status, result.counterexample = COUNTEREXAMPLE, v
            result.cases = [CaseResult(label, SAT, 0.0)]
            return
        why = "a violation found by the enumeration did not survive the exact re-check"
    if not why:
        if state.covered != space.class_size:
            raise RuntimeError(f"bounded proof covered {state.covered} of {space.class_size} instances")
        result.status = PROVED
        result.note = f"proved for all integer instances within the bound: {space.describe()}"
        result.cases = [CaseResult(label, UNSAT, 0.0)]
        return
    result.reason = why
    if why in (INTERRUPTED, "timeout"):
        kept = f"; {resume} keeps them" if resume is not None else "; resume=FILE (--resume) would keep them"
        result.reason += f" after {state.covered:,} of {space.class_size:,} instances{kept}"
    result.cases = [CaseResult(label, UNKNOWN, 0.0, reason=why)]
