"""Envy above ``v`` as a formula: some user ``i`` could run more than ``v``
times its own tasks with another user's bundle, i.e. for some ``k != i``
and every resource ``j`` that ``i`` needs, ``x_k d_kj > v x_i d_ij``
(Leontief users: Ghodsi et al., NSDI 2011, Section 3, envy-freeness).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import z3

from . import BOUNDS, BoundEncoding


def envy_above(mk: Any, x: Sequence[Any], v: Fraction) -> list[Any]:
    """Constraints satisfiable exactly when some user envies another by more than ``v``."""
    val = z3.RealVal(v)
    pairs = [z3.And([z3.Implies(mk.uses(i, j), x[k] * mk.d[k][j] > val * x[i] * mk.d[i][j]) for j in range(mk.m)])
             for i in range(mk.n) for k in range(mk.n) if i != k]
    return [z3.Or(pairs)]


BOUNDS.register("envy", BoundEncoding("envy", None, envy_above))
