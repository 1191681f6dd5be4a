"""The counterexample search: for one policy and one property, look for an
instance on which the policy violates the property.

The instances of a search form a *stream* that depends only on the seed,
the property, the instance class, the mode and the budget (not the policy:
the policies of a table's row walk the same instances):

1. the exhaustive small-integer grid (:func:`~analyzer.searching.strategies.grid`),
   its first ``GRID_FRACTION * budget`` positions;
2. random instances, position ``k`` drawn from distribution ``k mod 4``
   (uniform, log-uniform, shared dominant resource, near-ties) with a
   generator seeded by ``(seed, property, class, mode, k)``;
3. optimisation of the violation margin
   (:meth:`~analyzer.properties.base.Property.margin_many`, batched line
   searches) from the closest near misses of phases 1-2, for the last
   ``OPT_FRACTION * budget`` checks (only for properties with a margin).

Instances the policy does not support, or the property says nothing about,
are skipped and not counted: the budget is the number of instances the
property was actually checked on. The first violation found is shrunk
(:mod:`~analyzer.searching.shrinking`) and checked once more; the property's check
verifies in exact arithmetic, so a returned counterexample is certified.

Because instance ``k`` depends only on its position, a search can be split
into chunks of positions run by a process pool, and resumed from a
checkpoint, with the same result as one uninterrupted single-process run.

The pieces: :mod:`~analyzer.searching.instance_stream` (the stream),
:mod:`~analyzer.searching.checks` (checking a chunk of it),
:mod:`~analyzer.searching.checkpoint` (the state saved and resumed),
:mod:`~analyzer.searching.optimise` (phase 3) and
:mod:`~analyzer.searching.result` (:class:`SearchResult`); this module runs
them in order.
"""

from __future__ import annotations

import time
from typing import Any

from models import Instance, Policy

from ..properties.base import CONTINUOUS, Property, Violation, require_defined
from .checkpoint import SearchState
from .checks import check_one, examine
from .classes import InstanceClass
from .instance_stream import Cell, make_cell
from .optimise import OPT_FRACTION, Progress, optimise
from .result import SearchResult
from .shrinking import SHRINK_CHECKS, shrink
from .stream import Recorder, Throttle

#: Positions a search may skip (unsupported / not applicable) per unit of budget.
GENERATE_FACTOR: int = 25

#: Positions per chunk of work.
CHUNK: int = 1024

#: Fewest checks a shrink may spend, however small the search budget.
SHRINK_MIN_CHECKS: int = 60

#: Positions per chunk sent to a worker of a process pool.
POOL_CHUNK: int = 1024


def shrink_budget(budget: int) -> int:
    """Checks a shrink may spend: the search budget, at least
    :data:`SHRINK_MIN_CHECKS` and at most :data:`~analyzer.searching.shrinking.SHRINK_CHECKS`
    (shrinking effort scales with the search effort asked for)."""
    return max(SHRINK_MIN_CHECKS, min(SHRINK_CHECKS, budget))


def _run_stream(cell: Cell, st: SearchState, budget: int, recorder: Recorder, tick: Progress, pool: Any, workers: int,
                with_margin: bool, label: str) -> tuple[Violation | None, str | None, int | None]:
    """Examine stream positions from ``st.pos`` until ``budget`` checks, the
    end of the stream or a violation; chunks run speculatively in parallel
    on ``pool`` and are merged in stream order."""
    max_pos = cell.budget * GENERATE_FACTOR
    throttle = Throttle()
    found: tuple[Violation | None, str | None, int | None] = (None, None, None)
    while st.checked < budget and st.pos < max_pos:
        n_chunks = max(1, workers) if pool is not None else 1
        size = CHUNK if pool is None else POOL_CHUNK
        starts = [s for s in (st.pos + i * size for i in range(n_chunks)) if s < max_pos]
        args = [(cell, s, min(s + size, max_pos), budget - st.checked, with_margin) for s in starts]
        chunks = pool.starmap(examine, args) if pool is not None and len(args) > 1 else [examine(*a) for a in args]
        for ch in chunks:
            before = st.checked
            found = st.absorb(ch, budget)
            tick(st.checked - before)
            if found[0] is not None:
                recorder.emit({"type": "found", "cell": cell.key, "pos": found[2], "phase": found[1],
                               "violation": found[0].to_dict()})
                return found
            if st.checked >= budget:
                break
        if throttle.due():
            recorder.emit(st.to_record(cell.key, label))
    return found


def run_cell(cell: Cell, recorder: Recorder | None = None, resume: dict[str, Any] | None = None,
             progress: Progress | None = None, pool: Any = None, workers: int = 1) -> SearchResult:
    """Run one search (see the module docstring), streaming checkpoints to
    ``recorder`` and continuing from the checkpoint record ``resume``."""
    t0 = time.perf_counter()
    recorder = recorder or Recorder(None)
    tick = progress or (lambda k: None)
    st = SearchState.from_record(resume) if resume else SearchState()
    tick(st.checked)
    margin = cell.prop.margin if cell.prop.has_margin else None
    opt_budget = int(cell.budget * OPT_FRACTION) if margin is not None else 0
    stream_budget = cell.budget - opt_budget
    violation: Violation | None = None
    phase: str | None = None
    at: int | None = None
    resumed = resume.get("phase", "stream") if resume else "stream"
    # phases 1-2: the stream
    if resumed == "stream":
        violation, phase, at = _run_stream(cell, st, stream_budget, recorder, tick, pool, workers, margin is not None,
                                           "stream")
    # phase 3: optimisation of the margin from near misses
    if violation is None and margin is not None and resumed in ("stream", "optimise"):
        if resumed == "stream":
            recorder.emit(st.to_record(cell.key, "optimise"))
        violation = optimise(cell, st, cell.budget, recorder, tick)
        if violation is not None:
            phase, at = "optimise", None
            recorder.emit({"type": "found", "cell": cell.key, "pos": None, "phase": phase,
                           "violation": violation.to_dict()})
    # evaluations the optimisation did not use go back to the stream
    if violation is None and st.checked < cell.budget:
        violation, phase, at = _run_stream(cell, st, cell.budget, recorder, tick, pool, workers, False, "topup")
    # shrink and re-verify
    shrunk: Violation | None = None
    original: Violation | None = None  # the violation as found, when shrinking changed it
    spent = 0
    if violation is not None:
        def still(cand: Instance) -> Violation | None:
            kind, v, _ = check_one(cell, cand)
            return v if kind == "c" else None

        inst, _, spent = shrink(violation.instance, still, cell.cls, shrink_budget(cell.budget))
        shrunk = still(inst) or violation
        original = violation if shrunk.instance != violation.instance else None
    return SearchResult(policy=cell.policy.label, property=cell.prop.name, counterexample=shrunk,
                        instances=st.checked, seed=cell.seed, budget=cell.budget, instance_class=cell.cls,
                        mode=cell.mode, seconds=time.perf_counter() - t0, generated=st.pos,
                        unsupported=st.unsupported, not_applicable=st.not_applicable, errors=st.errors,
                        error=st.error, found_in=phase, found_at=at,
                        original=original,
                        shrink_checks=spent)


def search(policy: str | Policy, property: str | Property, budget: int = 10_000, seed: int = 0,
           instance_class: InstanceClass | str | None = None, mode: str = CONTINUOUS, out: str | None = None,
           workers: int | None = None, resume: bool = False, progress: Progress | None = None,
           scheduler: Any = None) -> SearchResult:
    """Search for a counterexample to ``property`` under ``policy``.

    Parameters
    ----------
    policy : str or Policy
        ``"drf"``, ``"asset"``, ``"ceei"``, ... or a policy object.
    property : str or Property
        ``"sharing-incentive"``, ... or a property object.
    budget : int
        Instances to check (see :mod:`analyzer.searching.engine`).
    seed : int
        Master seed: the same seed gives the same result.
    instance_class : InstanceClass or str, optional
        Default: the paper's class (positive demands, unweighted, uncapped).
    mode : str
        ``"continuous"``, ``"discrete"`` or ``"dynamic"`` (users arrive in
        the instance's user order; the dynamic properties, a static policy
        recomputed at every arrival).
    out : str, optional
        JSON-lines file the search streams checkpoints and findings to.
    workers : int or None
        Processes checking chunks of the stream in parallel (``None``, the
        default as for :func:`~analyzer.property_table`: all cores). The
        result does not depend on it.
    resume : bool
        Continue from the checkpoints in ``out``.
    progress : callable, optional
        Called with the number of newly checked instances.
    scheduler : str, distributed.Client or cluster, optional
        A Dask distributed scheduler's address (``tcp://host:8786``), a
        connected ``Client`` or a cluster object (``LocalCluster``): the
        chunks are checked on that cluster instead of local processes
        (``workers`` is then ignored); same result.

    Returns
    -------
    SearchResult
    """
    from .pool import resolve_workers, warm_up, worker_pool
    from .stream import open_stream

    cell = make_cell(policy, property, budget, seed, instance_class, mode)
    require_defined(cell.prop, cell.mode)
    config = {"command": "search", "policy": cell.policy.label, "property": cell.prop.name, "budget": cell.budget,
              "seed": cell.seed, "class": cell.cls.to_dict(), "mode": cell.mode}
    recorder, state = open_stream(out, config, resume)
    if cell.key in state.finished:
        return SearchResult.from_dict(state.finished[cell.key])
    if scheduler is None and resolve_workers(workers) > 1:
        warm_up([cell])  # imports and the grid once, before the pool forks
    with worker_pool(workers, scheduler) as (pool, n):
        result = run_cell(cell, recorder, state.progress.get(cell.key), progress, pool, n)
    recorder.emit({"type": "cell", "cell": cell.key, "result": result.to_dict()})
    return result
