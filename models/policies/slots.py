"""Slot-based fair sharing (the Hadoop fair scheduler's model).

Ghodsi et al., NSDI 2011, Section 7.2 compare DRF with slot-based fair
sharing: each machine is divided into a fixed number of slots, a slot being
``1/slots`` of the machine's every resource, and users are given equal
(weighted) numbers of slots (Zaharia et al., EuroSys 2010, describe the
Hadoop fair scheduler). A task that needs more than one slot's worth of
some resource occupies several whole slots.

Continuous model used here: the pool has ``S = slots * M`` slots, ``M``
the number of machines (``M = 1`` when the instance has no machines: the
pool is treated as one machine with ``slots`` slots). A slot is ``R_j / S``
of resource ``j`` (the pool average when machines differ), a task of user
``i`` occupies ``ceil(max_j d_ij S / R_j)`` slots, and slots are shared by
weighted max-min (progressive filling on ``slots held / S``). Users stop
when a resource they use saturates, so the resources, not slot counts,
bound every allocation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from ..allocation import Allocation
from ..errors import PolicyError
from ..filling import FillingPolicy
from ..instance import Instance
from ..policy import register
from ..tolerances import SLOT_EXACT_RTOL


@register
class SlotFairSharing(FillingPolicy):
    """Weighted max-min on the number of fixed-size slots held.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.load("examples/paper_two_users.toml")  # R <9, 18>, A <1, 4>, B <3, 1>
    >>> # 9 slots of <1, 2>: A's task takes 2 slots, B's 3; 2 xA = 3 xB until cpu fills
    >>> SlotFairSharing(slots=9).solve_exact(inst).x_exact
    (Fraction(3, 1), Fraction(2, 1))
    >>> # 2 slots of <4.5, 9>: every task takes 1 slot, so equal task counts
    >>> SlotFairSharing(slots=2).solve_exact(inst).x_exact
    (Fraction(9, 4), Fraction(9, 4))
    """

    name = "slots"
    description = "Slot-based fair sharing: max-min on fixed-size slots (Hadoop fair scheduler)"
    source = "Ghodsi et al., NSDI 2011, Section 7.2 (slot baseline); Zaharia et al., EuroSys 2010"
    parameters = {"slots": 4}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        slots = self.params["slots"]
        whole = isinstance(slots, int | float) and not isinstance(slots, bool) and float(slots).is_integer()
        if not whole or slots < 1:
            raise PolicyError(f"policy {self.name!r}: parameter 'slots' must be a whole number >= 1, got {slots!r}")
        self.slots = int(slots)

    def total_slots(self, instance: Instance) -> int:
        """``slots`` times the number of machines (1 without machines)."""
        machines = sum(mt.count for mt in instance.machines) if instance.machines else 1
        return self.slots * machines

    def solve(self, instance: Instance) -> Allocation:
        """Progressive filling (floats), as :meth:`FillingPolicy.solve`.

        Defined here so that batch fillers, which call :meth:`share_per_task`
        without the instance, do not treat this policy as a plain member of
        the family: its share depends on the instance (the number of machines).
        """
        return super().solve(instance)

    def shares_for(self, instance: Instance, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        if demands.dtype == object:
            return self.slot_share(demands, capacity, self.total_slots(instance))

        def exact_rows(rows: np.ndarray) -> tuple[list[tuple[Fraction, ...]], tuple[Fraction, ...]]:
            return [instance.demands_exact[i] for i in rows], instance.capacity_exact

        # without exact source data (Instance.from_arrays) the floats are the numbers as written
        written = {"demands", "capacity"} & set(instance._exact_source)
        return self.slot_share(demands, capacity, self.total_slots(instance), exact_rows if written else None)

    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        return self.slot_share(demands, capacity, self.slots)

    @staticmethod
    def slot_share(demands: np.ndarray, capacity: np.ndarray, total: int,
                   exact_rows: Callable[[np.ndarray], tuple[Any, Any]] | None = None) -> np.ndarray:
        """Slots per task over ``total``: ``ceil(max_j d_ij total / R_j) / total``.

        The slot count is an integer computed exactly in both paths: with
        Fraction arrays (the exact solver) the result is a Fraction array;
        with float arrays a float ``ceil`` decides every task whose need is
        not within :data:`~models.tolerances.SLOT_EXACT_RTOL` of a whole
        number, and the others (the only ones float roundoff could put on
        the wrong side) are decided in exact arithmetic: by integer
        comparisons when the data are small integers, otherwise in
        Fractions (from ``exact_rows(rows)``, the instance's exact data,
        or from the floats as written).
        """
        if demands.dtype == object:
            need = (demands / capacity).max(axis=1) * total
            return np.array([Fraction(math.ceil(v), total) for v in need], dtype=object)
        need = (demands / capacity).max(axis=1) * total
        count = np.ceil(need)
        near = np.flatnonzero(np.abs(need - np.rint(need)) <= SLOT_EXACT_RTOL * np.maximum(need, 1.0))
        if near.size:
            count[near] = _exact_counts(demands[near], capacity, total, np.rint(need[near]),
                                        None if exact_rows is None else lambda: exact_rows(near))
        return count / total


def _exact_counts(demands: np.ndarray, capacity: np.ndarray, total: int, whole: np.ndarray,
                  exact_rows: Callable[[], tuple[Any, Any]] | None) -> np.ndarray:
    """Exact ``ceil(max_j d_ij total / R_j)`` of rows whose need is within
    roundoff of the whole number ``whole`` (so the answer is ``whole`` or
    ``whole + 1``)."""
    lhs, rhs = demands * total, whole[:, None] * capacity
    small = float(2**53)
    integral = (np.all(demands == np.rint(demands)) and np.all(capacity == np.rint(capacity))
                and np.all(np.abs(lhs) < small) and np.all(np.abs(rhs) < small))
    if integral and (exact_rows is None or _rows_integral(exact_rows)):
        # integer products below 2**53 are exact in floating point
        return np.where((lhs <= rhs).all(axis=1), whole, whole + 1)
    if exact_rows is None:
        D = [[Fraction(repr(float(v))) for v in row] for row in demands]
        R = [Fraction(repr(float(v))) for v in capacity]
    else:
        D, R = exact_rows()
    return np.array([float(math.ceil(max(d / r for d, r in zip(row, R, strict=True)) * total)) for row in D])


def _rows_integral(exact_rows: Callable[[], tuple[Any, Any]]) -> bool:
    """True when the exact data behind the float rows are integers (so the
    floats are those integers, not roundings of other numbers)."""
    D, R = exact_rows()
    return all(v.denominator == 1 for v in R) and all(v.denominator == 1 for row in D for v in row)
