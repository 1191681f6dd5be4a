"""Utilization below ``v`` as a formula: every resource's load is below
``v`` of its capacity (Ghodsi et al., NSDI 2011, Section 4: a non-wasteful
policy saturates some resource, value 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import z3

from . import BOUNDS, BoundEncoding


def utilization_below(mk: Any, x: Sequence[Any], v: Fraction) -> list[Any]:
    """Constraints satisfiable exactly when no resource is used to ``v`` of its capacity."""
    return [mk.load(x, j) < z3.RealVal(v) * mk.R[j] for j in range(mk.m)]


BOUNDS.register("utilization", BoundEncoding("utilization", Fraction(0), utilization_below))
