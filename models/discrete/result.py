"""The outcome of one discrete filling run (Ghodsi et al., NSDI 2011,
Algorithm 1): whole tasks per user, the order of picks, the placement on
machines."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..instance import Instance
from .state import IntegerData


@dataclass(frozen=True, eq=False)
class DiscreteFill:
    """The outcome of one discrete filling run.

    Attributes
    ----------
    instance : Instance
    policy, tie_break, on_full, placement : str
        The run's settings.
    tasks : ndarray of int64, shape (n,)
        Whole tasks per user.
    runs : tuple of ndarray or None
        Successful picks in order, run-length encoded: ``(users, counts)``
        (``None`` when picks were not recorded).
    failures : tuple of int
        Users whose chosen task did not fit, in order (with ``stop`` at most
        one, the last decision).
    placed : list of mapping
        Per machine, ``user index -> tasks`` (a dict, or the empty
        read-only :data:`EMPTY_SLOT` for a machine nothing was placed on).
        Built on first access when the engine left placement rows to merge
        (:func:`fill` on machines with the compiled first fit: 10^4
        per-machine dicts cost more than the run itself); the same list
        either way. The constructor takes it, or a function returning it,
        as ``_placed``.
    free : ndarray, shape (K, m)
        Scaled free resources per machine at the end.
    data : IntegerData
        The scaling used (:meth:`IntegerData.exact` un-scales).
    decisions : int
        Heap operations made (a batch counts once).
    rank : ndarray of int64, shape (n,)
        The tie-break rank of every user (smaller wins a tie).
    """

    instance: Instance
    policy: str
    tie_break: str
    on_full: str
    placement: str
    tasks: np.ndarray
    runs: tuple[np.ndarray, np.ndarray] | None
    failures: tuple[int, ...]
    _placed: list[Mapping[int, int]] | Callable[[], list[Mapping[int, int]]] = field(repr=False)
    free: np.ndarray
    data: IntegerData
    decisions: int
    rank: np.ndarray

    @property
    def placed(self) -> list[Mapping[int, int]]:
        """Per machine, ``user index -> tasks`` (see the class docstring)."""
        got = self._placed
        if callable(got):
            got = got()
            object.__setattr__(self, "_placed", got)  # frozen: the cache is set once, here
        return got

    @property
    def stopped(self) -> bool:
        """True when the ``stop`` variant ended at a task that did not fit."""
        return self.on_full == "stop" and bool(self.failures)

    @property
    def picks(self) -> list[int]:
        """User index of every successful pick, in order.

        Raises
        ------
        ValueError
            When the run did not record picks.
        """
        if self.runs is None:
            raise ValueError("picks were not recorded (record_picks=False)")
        users, counts = self.runs
        return np.repeat(users, counts).tolist()

    def free_exact(self, k: int) -> tuple[Fraction, ...]:
        """Exact free resources of machine ``k``."""
        return tuple(self.data.exact(v, j) for j, v in enumerate(self.free[k]))


__all__ = ["DiscreteFill"]
