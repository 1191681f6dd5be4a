"""Placements of the discrete engine: on which machine a task goes.

Ghodsi et al., NSDI 2011, Section 6.2 (Theorem 7): tasks are placed on
``K`` machines; the proof fills one machine at a time
(:class:`MachineByMachine`). :class:`FirstFit` and :class:`BestFit` are the
usual bin-packing rules. A new placement is one class registered with
:func:`register_placement` in :data:`PLACEMENTS`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, TypeVar

import numpy as np

from ..errors import PolicyError
from ..registry import Registry
from .state import FillState


# ---------------------------------------------------------------------------
class Placement(ABC):
    """Where tasks go. :meth:`place` puts up to ``count`` tasks of user ``i``
    (all identical) and returns how many it placed; fewer than ``count``
    means the next one fits nowhere this strategy would put it.

    Free space only shrinks, so a task that does not fit now never fits
    later; strategies may rely on it.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: True when, on a single machine (a pool), a task is placed exactly
    #: when it fits; the engine's level jump relies on it.
    plain_on_one_machine: ClassVar[bool] = True

    def start(self, state: FillState) -> None:  # noqa: B027 -- an optional hook: most placements keep no state
        """Called once before the first decision."""

    @abstractmethod
    def place(self, state: FillState, i: int, count: int) -> int:
        """Place up to ``count`` tasks of user ``i``; return how many."""


PL = TypeVar("PL", bound=type[Placement])
#: Every placement class, by name.
PLACEMENTS: Registry[type[Placement]] = Registry("placement", error=PolicyError)


def register_placement(cls: PL) -> PL:
    """Class decorator: make a :class:`Placement` available by name."""
    if not cls.name:
        raise PolicyError(f"placement class {cls.__name__}: name must be a non-empty word")
    return PLACEMENTS.register(cls.name, cls)


@register_placement
class FirstFit(Placement):
    """First fit: the lowest-numbered machine with room. Machines fill one
    after the other; a smaller task may still go back to an earlier machine
    (a per-user cursor skips the machines it no longer fits on)."""

    name = "first-fit"
    description = "lowest-numbered machine with room for the task"

    def start(self, state: FillState) -> None:
        self._cursor: dict[int, int] = {}

    def place(self, state: FillState, i: int, count: int) -> int:
        cursor = self._cursor
        k = cursor.get(i, 0)
        machines = state.free
        K = len(machines)
        dem = state.demand(i)
        done = 0
        while done < count and k < K:
            free = machines[k]
            take = count - done
            for j, d in dem:
                take = min(take, free[j] // d)
            if take:
                for j, d in dem:
                    free[j] -= d * take
                slot = state.slot(k)
                slot[i] = slot.get(i, 0) + take
                done += take
            if done < count:
                k += 1
        cursor[i] = k
        return done


@register_placement
class MachineByMachine(Placement):
    """The construction in the proof of Theorem 7 (Section 6.2): fill one
    machine at a time; move to the next machine as soon as the free space
    of the current one is less than a max-task (in some resource). Space
    left behind is never revisited; a machine smaller than the max-task is
    never used."""

    name = "machine-by-machine"
    description = "one machine at a time, leave it when less than a max-task is free (proof of Theorem 7)"
    plain_on_one_machine = False

    def start(self, state: FillState) -> None:
        self._k = 0
        self._max = [int(v) for v in state.data.max_task]

    def place(self, state: FillState, i: int, count: int) -> int:
        K = len(state.free)
        done = 0
        while done < count and self._k < K:
            free = state.free[self._k]
            if any(f < t for f, t in zip(free, self._max, strict=True)):
                self._k += 1
                continue
            # tasks placeable while at least a max-task stays free before each
            room = min((free[j] - self._max[j]) // d for j, d in state.demand(i)) + 1
            take = min(room, count - done)
            state.put(self._k, i, take)
            done += take
        return done


@register_placement
class BestFit(Placement):
    """Best fit: the machine with room whose free space, after the task,
    is smallest (sum over resources of free / cluster capacity); ties go to
    the lowest-numbered machine. Identical tasks keep going to that machine
    until it is full, so a batch costs one scan per machine used."""

    name = "best-fit"
    description = "machine left with the least free space (normalised by cluster capacity)"

    def start(self, state: FillState) -> None:
        total = [sum(int(row[j]) for row in state.data.machines) for j in range(state.instance.m)]
        self._weight = np.array([1.0 / float(v) if v > 0 else 0.0 for v in total])

    def place(self, state: FillState, i: int, count: int) -> int:
        d = state.data.demands[i]
        done = 0
        while done < count:
            free = np.array(state.free, dtype=state.data.machines.dtype)
            ok = np.all(free >= d, axis=1)
            if not ok.any():
                break
            score = (free - d).astype(float) @ self._weight
            score[~ok] = np.inf
            k = int(np.argmin(score))
            take = min(state.fits_on(k, i), count - done)
            state.put(k, i, take)
            done += take
        return done


#: The default placement on machines (a pool has one machine: all agree).
DEFAULT_PLACEMENT: str = "first-fit"


def get_placement(spec: str | Placement) -> Placement:
    """A placement strategy from its name.

    Raises
    ------
    PolicyError
        For an unknown name.
    """
    if isinstance(spec, Placement):
        return spec
    return PLACEMENTS.get(spec)()


__all__ = ["DEFAULT_PLACEMENT", "PLACEMENTS", "BestFit", "FirstFit", "MachineByMachine", "Placement", "get_placement",
           "register_placement"]
