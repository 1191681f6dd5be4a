"""Exact integer data and the mutable state of a discrete filling run.

Ghodsi et al., NSDI 2011, Section 4.2 (Algorithm 1) and Section 6.2
(machines): every resource is scaled to integers (the least common multiple
of the denominators of its capacity, machine capacities and demands), so
"fits" never depends on rounding.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from types import MappingProxyType
from typing import Any

import numpy as np

from ..instance import Instance

#: Scaled values below this bound are kept in numpy ``int64`` arrays (else
#: ``object`` arrays of Python ints). Elementwise differences of such values
#: cannot overflow; every sum or product the engine forms in int64 is checked
#: against this bound first, and totals are summed as Python ints.
INT64_SAFE: int = 2**62


# ---------------------------------------------------------------------------
def _denominator(v: Any) -> int:
    return v.denominator if isinstance(v, (int, Fraction)) else Fraction(v).denominator


def _lcm_denominators(values: Any) -> int:
    out = 1
    for v in values:
        d = _denominator(v)
        if d != 1:
            out = math.lcm(out, d)
    return out


def _scaled(v: Any, s: int) -> int:
    """``v * s`` for a value whose denominator divides ``s`` (exact)."""
    if isinstance(v, Fraction):
        return v.numerator * (s // v.denominator)
    return int(Fraction(v) * s)


def _int_array(rows: list[list[int]], shape: tuple[int, int]) -> np.ndarray:
    big = any(abs(v) >= INT64_SAFE for row in rows for v in row)
    return np.array(rows, dtype=object if big else np.int64).reshape(shape)


@dataclass(frozen=True, eq=False)
class IntegerData:
    """An instance's resources scaled to integers, machine by machine.

    Attributes
    ----------
    scale : tuple of int
        Resource ``j`` is multiplied by ``scale[j]``.
    demands : ndarray, shape (n, m)
        Scaled demand of one task per user (``int64``, or ``object`` of
        Python ints when values are too large).
    machines : ndarray, shape (K, m)
        Scaled capacity of every machine (one row for a pool).
    machine_types : tuple of (str, int)
        Name prefix and count of each machine type (``(("pool", 0),)`` for
        a pool); :attr:`machine_names` spells them out on first use.
    caps : tuple of int or None
        Whole-task caps (``floor(k_i)``), ``None`` when unbounded.
    pooled : bool
        True when the instance has no ``[[machines]]``.
    """

    scale: tuple[int, ...]
    demands: np.ndarray
    machines: np.ndarray
    machine_types: tuple[tuple[str, int], ...]
    caps: tuple[int | None, ...]
    pooled: bool

    @cached_property
    def machine_names(self) -> tuple[str, ...]:
        """``"pool"`` or ``"<type>-<k>"`` per machine."""
        if self.pooled:
            return ("pool",)
        return tuple(f"{name}-{k}" for name, count in self.machine_types for k in range(count))

    @classmethod
    def of(cls, instance: Instance) -> IntegerData:
        """Scale ``instance`` exactly (a fast path skips Fractions when every
        value is already a whole number)."""
        m = instance.m
        D = instance.demands
        whole = bool(np.all(D == np.floor(D)) and np.all(np.abs(D) < 2**53)) and all(
            float(c).is_integer() for c in instance.capacity
        ) and all(bool(np.all(mt.capacity == np.floor(mt.capacity))) for mt in instance.machines)
        if whole and instance._exact_source:
            # exact values given: whole floats may still hide a fraction (e.g. 2**52 + 1/2)
            dens = {getattr(v, "denominator", 0) for row in instance.demands_exact for v in row}
            dens.update(getattr(c, "denominator", 0) for c in instance.capacity_exact)
            dens.update(getattr(c, "denominator", 0) for mt in instance.machines for c in mt.capacity_exact)
            whole = dens <= {1}
        if whole:
            scale = tuple([1] * m)
            dem = D.astype(np.int64)
        else:
            Dx = instance.demands_exact
            cols = []
            for j in range(m):
                vals = [
                    instance.capacity_exact[j],
                    *(row[j] for row in Dx),
                    *(mt.capacity_exact[j] for mt in instance.machines),
                ]
                cols.append(_lcm_denominators(vals))
            scale = tuple(cols)
            dem = _int_array([[_scaled(row[j], scale[j]) for j in range(m)] for row in Dx], (instance.n, m))
        if instance.machines:
            types = [[int(mt.capacity_exact[j] * scale[j]) for j in range(m)] for mt in instance.machines]
            counts = [mt.count for mt in instance.machines]
            kinds = tuple((mt.name or f"m{t}", mt.count) for t, mt in enumerate(instance.machines))
            # one row per machine type, repeated (no per-machine Python rows)
            mach = np.repeat(_int_array(types, (len(types), m)), counts, axis=0)
            pooled = False
        else:
            mach = _int_array([[int(instance.capacity_exact[j] * scale[j]) for j in range(m)]], (1, m))
            kinds = (("pool", 0),)
            pooled = True
        if mach.dtype != dem.dtype:
            mach, dem = mach.astype(object), dem.astype(object)
        caps = tuple(None if k is None else math.floor(k) for k in instance.max_tasks_exact) \
            if instance.capped else tuple([None] * instance.n)
        return cls(scale=scale, demands=dem, machines=mach, machine_types=kinds, caps=caps, pooled=pooled)

    def exact(self, value: int, j: int) -> Fraction:
        """Un-scale a value of resource ``j``."""
        return Fraction(int(value), self.scale[j])

    @cached_property
    def max_task(self) -> np.ndarray:
        """The paper's *max-task* (Section 6.2): the largest demand of each
        resource over all users, scaled, shape (m,)."""
        return self.demands.max(axis=0)


# ---------------------------------------------------------------------------
# state seen by policies and placements
# ---------------------------------------------------------------------------
@dataclass(eq=False)
class FillState:
    """The mutable state of one filling run.

    Attributes
    ----------
    instance : Instance
    data : IntegerData
    tasks : list of int
        Tasks placed so far per user.
    free : list of list of int
        Free (scaled) resources per machine (Python ints: scalar access in
        the decision loop is much faster than on numpy arrays).
    placed : list of mapping
        Per machine, ``user index -> tasks`` placed on it (write through
        :meth:`slot`; an unused machine holds :data:`EMPTY_SLOT`).
    extra : dict
        What a policy keeps from one allocation step to the next on the
        same state (e.g. Mesos's allocation counts; see :class:`Engine`,
        which also keeps ``"released"``: tasks given back per user).
    caps : tuple of int or None
        Whole-task caps in force for the current step: the instance's
        (``data.caps``) unless :meth:`Engine.allocate` was given a per-step
        ``limit``. Policies and loops read caps here, never from ``data``.
    """

    instance: Instance
    data: IntegerData
    tasks: list[int]
    free: list[list[int]]
    placed: list[Mapping[int, int]]
    extra: dict[str, Any] = field(default_factory=dict)
    _rows: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    caps: tuple[int | None, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.caps = self.data.caps

    def demand(self, i: int) -> tuple[tuple[int, int], ...]:
        """``(resource, scaled demand)`` pairs of user ``i``'s positive
        demands (cached)."""
        row = self._rows.get(i)
        if row is None:
            row = tuple((j, int(v)) for j, v in enumerate(self.data.demands[i]) if v > 0)
            self._rows[i] = row
        return row

    def fits_on(self, k: int, i: int) -> int:
        """How many tasks of user ``i`` fit on machine ``k`` now."""
        free = self.free[k]
        return min(free[j] // d for j, d in self.demand(i))

    def put(self, k: int, i: int, count: int) -> None:
        """Place ``count`` tasks of user ``i`` on machine ``k``."""
        free = self.free[k]
        for j, d in self.demand(i):
            free[j] -= d * count
        self.slot(k)[i] = self.placed[k].get(i, 0) + count

    def slot(self, k: int) -> dict[int, int]:
        """Machine ``k``'s ``user -> tasks`` dict, ready to be written (an
        unused machine holds the shared read-only :data:`EMPTY_SLOT`)."""
        slot = self.placed[k]
        if slot is EMPTY_SLOT:
            slot = self.placed[k] = {}
        return slot  # type: ignore[return-value]


#: What an unused machine holds in ``placed`` (no dict per machine until one
#: is written: a cluster of 10^4 machines starts without 10^4 dicts).
EMPTY_SLOT: Mapping[int, int] = MappingProxyType({})



__all__ = ["EMPTY_SLOT", "INT64_SAFE", "FillState", "IntegerData"]
