"""The static partition (Ghodsi et al., NSDI 2011, Section 3.1) as a
formula: ``x_i = min_{j: d_ij > 0} (R_j / n) / d_ij``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from ..symbolic import Market
from . import register_encoding


@register_encoding("static", "max")
def static(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
    """``x_i d_ij <= R_j / n`` for every ``j``, with equality on a resource it uses."""
    n = mk.n
    cons = []
    for i in range(n):
        cons += [x[i] * mk.d[i][j] * n <= mk.R[j] for j in range(mk.m)]
        cons.append(z3.Or([z3.And(mk.d[i][j] > 0, x[i] * mk.d[i][j] * n == mk.R[j]) for j in range(mk.m)]))
    return cons
