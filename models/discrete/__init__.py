"""Discrete progressive filling: whole tasks, one decision at a time.

Ghodsi et al., NSDI 2011, Section 4.2 (Algorithm 1): the scheduler keeps each
user's dominant share; at every step it picks the user with the smallest
(weighted) share and launches one of its tasks if the task fits; the paper's
pseudo-code ends at the first task that does not fit. Section 6.2
(Theorem 7) places tasks on ``K`` machines, one machine at a time.

This package is the pure algorithm; :mod:`analyzer.discrete` compares its
outcome with the continuous solution. Its modules:

* :mod:`.state` -- the instance scaled to exact integers
  (:class:`IntegerData`) and the mutable state of a run (:class:`FillState`);
* :mod:`.policies` -- :class:`DiscretePolicy`: which user gets the next task
  (a per-user *share key*, smaller first). Every
  :class:`~models.filling.FillingPolicy` (``drf``, ``asset``, ...) works
  through :class:`LinearShare` (key ``tasks_i * rate_i``: batched); other
  keys register in :data:`DISCRETE_POLICIES` with :func:`register_discrete`;
* :mod:`.tie_breaks` -- a static rank per user used after the key
  (:data:`TIE_BREAKS`, :func:`register_tie_break`);
* :mod:`.placements` -- on which machine a task goes (``first-fit``,
  ``best-fit``, ``machine-by-machine``; :data:`PLACEMENTS`,
  :func:`register_placement`);
* :mod:`.run` -- :class:`Run`, the decision loops of one step (the type a
  policy with a loop of its own, :meth:`DiscretePolicy.drive`, is given),
  and :mod:`.level_jump`, many picks at once on a pool;
* :mod:`.engine` -- :func:`fill` and :class:`Engine` (steps on a state that
  lives across events); :mod:`.result` -- :class:`DiscreteFill`.

Arithmetic is exact: every resource is scaled to integers (the least common
multiple of the denominators of its capacity, machine capacities and
demands), so "fits" never depends on rounding, and linear keys are compared
as integers.
"""

from __future__ import annotations

from .engine import ON_FULL, Engine, fill
from .placements import (
    DEFAULT_PLACEMENT,
    PLACEMENTS,
    BestFit,
    FirstFit,
    MachineByMachine,
    Placement,
    get_placement,
    register_placement,
)
from .policies import (
    DISCRETE_POLICIES,
    DiscretePolicy,
    LinearShare,
    discrete_policies,
    get_discrete_policy,
    integer_steps,
    no_discrete_form,
    register_discrete,
)
from .result import DiscreteFill
from .run import Run, merge_placed
from .state import EMPTY_SLOT, FillState, IntegerData
from .tie_breaks import DEFAULT_TIE_BREAK, TIE_BREAKS, TieBreak, register_tie_break

__all__ = [
    "DEFAULT_PLACEMENT",
    "DEFAULT_TIE_BREAK",
    "DISCRETE_POLICIES",
    "EMPTY_SLOT",
    "ON_FULL",
    "PLACEMENTS",
    "TIE_BREAKS",
    "BestFit",
    "DiscreteFill",
    "DiscretePolicy",
    "Engine",
    "FillState",
    "FirstFit",
    "IntegerData",
    "LinearShare",
    "MachineByMachine",
    "Placement",
    "Run",
    "TieBreak",
    "discrete_policies",
    "fill",
    "get_discrete_policy",
    "get_placement",
    "integer_steps",
    "merge_placed",
    "no_discrete_form",
    "register_discrete",
    "register_placement",
    "register_tie_break",
]
