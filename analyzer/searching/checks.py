"""Checking the instances of a stream chunk by chunk: the policy and
property filters, the batched screen, the exact check and the numeric
margins of the near misses (Ghodsi et al., NSDI 2011, Sections 3-6 for the
properties checked)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from models import Instance, SolverError

from ..properties.base import Violation
from .instance_stream import Cell

#: Screen chunks of instances with one vectorised pass
#: (:meth:`~analyzer.properties.base.Property.screen_many`) before the full
#: checks. The result does not depend on it (a switch for benchmarks and
#: the equivalence tests).
BATCH_SCREEN: bool = True

#: Positions screened together when :data:`BATCH_SCREEN` is on (large
#: batches pay: a batch solve's cost per call is numpy's fixed overhead per
#: Newton or filling step, shared by the batch's members).
SCREEN_BATCH: int = 1024

#: Near misses kept as starting points of the optimisation.
NEAR_MISSES: int = 8

#: The margin is computed on every ``MARGIN_EVERY``-th checked instance.
MARGIN_EVERY: int = 4


@dataclass
class Chunk:
    """Outcome of examining positions ``start .. start + len(events)``:
    one event letter per position (``c`` checked, ``u`` unsupported, ``a``
    not applicable, ``e`` solver error), the violation that ended it, near
    misses and the first error message."""

    start: int
    events: str = ""
    violation: Violation | None = None
    phase: str | None = None
    near: list[tuple[float, int]] = field(default_factory=list)
    error: str | None = None


def examine(cell: Cell, start: int, stop: int, limit: int, with_margin: bool) -> Chunk:
    """Check the instances at positions ``start..stop`` (at most ``limit``
    checks), stopping at the first violation.

    With :data:`BATCH_SCREEN` the positions are taken :data:`SCREEN_BATCH`
    at a time: the property's :meth:`~analyzer.properties.base.Property.screen_many`
    screens the batch in one vectorised pass and only the flagged instances
    get the full check; the outcome is the same as checking every instance
    (the screen flags every instance the check's own screen would)."""
    out = Chunk(start)
    events: list[str] = []
    checked = 0
    step = SCREEN_BATCH if BATCH_SCREEN else 1
    for lo in range(start, stop, step):
        positions = range(lo, min(lo + step, stop))
        batch = [(pos, *drawn) for pos, drawn in zip(positions, cell.at_many(positions, cell.shapes), strict=True)]
        kinds = ["a" if inst is None else screenable(cell, inst) for _, _, inst in batch]
        flagged = np.ones(len(batch), dtype=bool)
        if BATCH_SCREEN:
            todo = [k for k, kind in enumerate(kinds) if kind == "c"]
            if todo:
                screened = [cast(Instance, batch[k][2]) for k in todo]
                flagged[todo] = cell.prop.screen_many(cell.policy, screened, cell.mode)
        near: list[tuple[int, Instance]] = []  # the instances whose margins are taken, in one call
        done = False
        for (pos, phase, inst), kind, flag in zip(batch, kinds, flagged, strict=True):
            v, err = None, None
            if kind == "c" and flag and inst is not None:  # kind 'c' has an instance
                kind, v, err = checked_kind(cell, inst)
            events.append(kind)
            if err and out.error is None:
                out.error = err
            if kind != "c":
                continue
            assert inst is not None  # kind 'c' has an instance
            checked += 1
            if v is not None:
                out.violation, out.phase = v, phase
                done = True
                break
            if with_margin and pos % MARGIN_EVERY == 0:
                near.append((pos, inst))
            if checked >= limit:
                done = True
                break
        out.near.extend(near_misses(cell, near))
        if done:
            break
    out.events = "".join(events)
    out.near = sorted(out.near)[:NEAR_MISSES]
    return out


def near_misses(cell: Cell, near: list[tuple[int, Instance]]) -> list[tuple[float, int]]:
    """``(margin, position)`` of the checked instances ``near`` (position,
    instance) in the search's mode, their margins taken in one call
    (:meth:`~analyzer.properties.base.Property.margin_many`); an instance
    without a margin (``nan``: not finite, or no solution there) is skipped."""
    if not near:
        return []
    margins = cell.prop.margin_many(cell.policy, [inst for _, inst in near], cell.mode)
    return [(float(mg), pos) for (pos, _), mg in zip(near, margins.tolist(), strict=True) if math.isfinite(mg)]


def screenable(cell: Cell, inst: Instance) -> str:
    """``u`` (unsupported by the policy), ``a`` (the property does not
    apply) or ``c`` (to be checked)."""
    if cell.policy.supports(inst) is not None:
        return "u"
    if cell.prop.applies(inst) is not None:
        return "a"
    return "c"


def checked_kind(cell: Cell, inst: Instance) -> tuple[str, Violation | None, str | None]:
    """The property's full check of a checkable instance: ``("c", violation
    or None, None)``, or ``("e", None, message)`` on a solver error."""
    try:
        return "c", cell.prop.check(cell.policy, inst, cell.mode), None
    except SolverError as exc:
        return "e", None, str(exc)


def check_one(cell: Cell, inst: Instance) -> tuple[str, Violation | None, str | None]:
    """:func:`screenable`, then :func:`checked_kind` when it says ``c``."""
    kind = screenable(cell, inst)
    return checked_kind(cell, inst) if kind == "c" else (kind, None, None)


def first_violation(cell: Cell, candidates: list[Instance]) -> Violation | None:
    """The first violation among ``candidates`` (in order), screening them
    together first when :data:`BATCH_SCREEN` is on (same outcome)."""
    kinds = [screenable(cell, inst) for inst in candidates]
    flagged = np.ones(len(candidates), dtype=bool)
    todo = [k for k, kind in enumerate(kinds) if kind == "c"]
    if BATCH_SCREEN and todo:
        flagged[todo] = cell.prop.screen_many(cell.policy, [candidates[k] for k in todo], cell.mode)
    for inst, kind, flag in zip(candidates, kinds, flagged, strict=True):
        if kind == "c" and flag:
            _, v, _ = checked_kind(cell, inst)
            if v is not None:
                return v
    return None


