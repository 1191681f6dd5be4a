"""A running cluster: dynamic simulation and trace replay (Ghodsi et al.,
NSDI 2011, Section 7).

>>> from analyzer import simulate
>>> r = simulate({"machines": [{"count": 1, "cpu": 2, "mem": 2}],
...               "jobs": [{"user": "a", "tasks": 4, "demand": {"cpu": 1, "mem": 1}, "duration": 10}]})
>>> [(j.start, j.finish) for j in r.jobs]
[(0.0, 20.0)]
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from models import PolicyError, get_policy
from models.limits import MAX_SIM_LAUNCHES, refuse_above

from . import dispatch  # noqa: F401  (registers the event loop's kernels, models.kernels)
from .engine import Engine
from .fast import FastEngine, kernel_keys
from .keys import check_placement_options, share_model
from .memory import Memory, MemorylessWarning, split_memory
from .options import DEFAULT_PENALTY, TIE_BREAKS
from .production import VariantEngine, is_variant, variant_model
from .result import JobRecord, SimulationResult
from .traces import TRACE_FORMATS, load_trace
from .workload import JobSpec, Workload, as_workload, launch_bound

_OPTIONS = {"batch", "overcommit_penalty", "tie_break", "check_properties", "record_users", "slot_tasks", "aware",
            "progress"}


def simulate(workload: Workload | Mapping[str, Any] | str | Path, policy: Any = "drf", *, until: float | None = None,
             seed: int = 0, **options: Any) -> SimulationResult:
    """Simulate ``workload`` under ``policy`` (Section 7 of the paper).

    Parameters
    ----------
    workload : Workload, dict or path
        A TOML/JSON workload (see :mod:`analyzer.simulation.workload`) or a
        loaded trace (:func:`load_trace`).
    policy : str or Policy
        A filling policy (``drf``, ``asset``, ``single-resource:resource=cpu``),
        ``slots[:slots=S]``, or a production variant (``yarn``, ``mesos``,
        ``volcano``, ``kueue``: :mod:`.production`). ``half_life=SECONDS``
        among its parameters (``drf:half_life=600``) gives it usage memory
        (:mod:`.memory`; the variants model orderings without memory and
        refuse it, saying why); 0 is memoryless and warns
        (:class:`MemorylessWarning`).
    until : float, optional
        Stop at this time (default: the workload's ``[simulation] until``,
        else when nothing is left to run; required when a job repeats).
    seed : int
        Seed of the ``random`` tie-break; same seed, same result.
    **options
        ``overcommit_penalty`` (``{resource: penalty}``, default
        :data:`DEFAULT_PENALTY` each), ``tie_break`` (``index`` or
        ``random``), ``check_properties`` (sharing incentive and
        envy-freeness up to one task at every event), ``record_users``
        (default True), ``slot_tasks`` (``one`` or ``fit``), ``aware``
        (``policy`` or ``all``), ``progress`` (a callable receiving the
        number of tasks launched since the last call), ``batch`` (default
        True; False runs the reference engine launching one task per decision:
        the per-instance baseline; the kernel engine makes the same
        decisions).

    Returns
    -------
    SimulationResult

    Raises
    ------
    InstanceError
        For a malformed workload; :class:`~models.errors.SizeLimitError`
        (a subclass) when the run could make more than
        :data:`~models.limits.MAX_SIM_LAUNCHES` task launches.
    PolicyError
        For an unknown policy or option.
    """
    w = as_workload(workload)
    until, opts = _options(w, options, until)
    spec, memory = split_memory(policy) if isinstance(policy, str) else (policy, None)
    pol = get_policy(spec)
    variant = is_variant(pol)
    slot_tasks, aware = opts.pop("slot_tasks", "one"), opts.pop("aware", "policy")
    check_placement_options(slot_tasks, aware)  # a variant checks every resource and has no slots: values only
    model = variant_model(pol, w) if variant else share_model(pol, w, slot_tasks=slot_tasks, aware=aware)
    if isinstance(policy, str):
        model.label = policy.strip()  # as typed: "slots:slots=4" even when 4 is the default
    _check_length(w, until)
    return _run(_engine(w, model, variant, bool(opts.pop("batch", True)), _common(opts, until, seed), memory))


def _run(engine: Engine | FastEngine | VariantEngine) -> SimulationResult:
    """Run ``engine``; the kernel engine with the cyclic collector paused (:func:`gc_paused`)."""
    if not isinstance(engine, FastEngine):
        return engine.run()
    with gc_paused():
        return engine.run()


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block, then as it was.

    A streamed trace run keeps every job spec and record it admits (tens
    of thousands of small acyclic objects, freed by reference counting),
    and as they pile up the collector scans the whole heap, numba's
    objects included: on the whole Alibaba table under DRF, 3 full and
    ~420 young collections, 0.3-0.5 s of a 10 s run (issue 31). Nothing
    of the run is cyclic; garbage a callback makes is collected after the
    block.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _check_length(w: Workload, until: float | None) -> None:
    """Refuse a run without an end (a job repeats, no ``until``) or with
    more than :data:`~models.limits.MAX_SIM_LAUNCHES` possible launches."""
    if until is None and w.repeats:
        raise PolicyError("until: required when a job repeats (give --until or [simulation] until)")
    refuse_above("jobs" if until is None else "until", launch_bound(w, until) or 0.0, MAX_SIM_LAUNCHES,
                 "task launches could be simulated",
                 "every decision is logged; stop earlier, or give the jobs fewer tasks or longer durations")


def _common(opts: dict[str, Any], until: float | None, seed: int) -> dict[str, Any]:
    """The options every engine takes, taken out of ``opts`` (with their defaults)."""
    return {"until": until, "seed": seed, "overcommit_penalty": opts.pop("overcommit_penalty", None),
            "tie_break": opts.pop("tie_break", "index"), "check_properties": bool(opts.pop("check_properties", False)),
            "record_users": bool(opts.pop("record_users", True)), "progress": opts.pop("progress", None)}


def _engine(w: Workload, model: Any, variant: bool, batch: bool, common: dict[str, Any],
            memory: Memory | None) -> Engine | FastEngine:
    """The engine that runs ``model``: a production variant's own discrete
    engine, the compiled kernel engine when the policy's keys allow it, else
    the reference engine."""
    keys = kernel_keys(model) if batch and not variant else None
    rate = 0.0 if memory is None else memory.rate
    if variant:
        return VariantEngine(w, model, **common)
    if keys is not None:
        return FastEngine(w, model, keys, rate=rate, **common)
    return Engine(w, model, batch=batch, rate=rate, **common)


def _options(w: Workload, options: dict[str, Any], until: float | None) -> tuple[float | None, dict[str, Any]]:
    """The run's options (the workload's ``[simulation]`` defaults, then
    the caller's) and the validated stop time."""
    opts = {**w.options, **options}
    unknown = set(opts) - _OPTIONS - {"until"}
    if unknown:
        raise PolicyError(f"{min(unknown)}: unknown simulation option (known: {', '.join(sorted(_OPTIONS))})")
    given = opts.pop("until", None)
    if until is None:
        until = given
    if until is not None and (isinstance(until, bool) or not isinstance(until, int | float)
                              or not math.isfinite(until) or until < 0):  # inf / nan: NaN mean utilisations
        raise PolicyError(f"until: must be a finite number >= 0, got {until!r}")
    return None if until is None else float(until), opts


__all__ = ["DEFAULT_PENALTY", "TIE_BREAKS", "TRACE_FORMATS", "JobRecord", "JobSpec", "Memory", "MemorylessWarning",
           "SimulationResult", "Workload", "load_trace", "simulate"]
