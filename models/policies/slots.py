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
from typing import Any

import numpy as np

from ..errors import PolicyError
from ..filling import FillingPolicy
from ..allocation import Allocation
from ..instance import Instance
from ..policy import register
from ..tolerances import SLOT_ROUND_RTOL


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
        return self.slot_share(demands, capacity, self.total_slots(instance))

    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        return self.slot_share(demands, capacity, self.slots)

    @staticmethod
    def slot_share(demands: np.ndarray, capacity: np.ndarray, total: int) -> np.ndarray:
        """Slots per task over ``total`` (exact when the arrays hold Fractions)."""
        need = (demands / capacity).max(axis=1) * total
        if need.dtype == object:
            return np.array([math.ceil(v) for v in need], dtype=object) / total
        return np.ceil(need * (1 - SLOT_ROUND_RTOL)) / total
