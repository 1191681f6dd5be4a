"""The static partition (Ghodsi et al., NSDI 2011, Section 3.1) as a
formula: ``x_i = min(k_i, min_{j: d_ij > 0} (w_i / W) R_j / d_ij)`` with
``W = sum_k w_k`` (unweighted: ``R_j / n``; uncapped: no ``k_i``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from ..symbolic import Market
from . import register_encoding


@register_encoding("static", "max", weighted=True, capped=True, anonymous=True, neutral=True)
def static(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
    """``a_i d_ij W <= w_i R_j`` for every ``j``, with equality on a
    resource it uses, and ``x_i = min(a_i, k_i)``."""
    n = mk.n
    total = z3.Sum([mk.weight(i) for i in range(n)]) if mk.w is not None else z3.RealVal(n)
    a = list(x) if mk.cap is None else [z3.Real(f"{tag}part{i}") for i in range(n)]
    cons = []
    for i in range(n):
        cons += [a[i] * mk.d[i][j] * total <= mk.weight(i) * mk.R[j] for j in range(mk.m)]
        cons.append(z3.Or([z3.And(mk.d[i][j] > 0, a[i] * mk.d[i][j] * total == mk.weight(i) * mk.R[j])
                           for j in range(mk.m)]))
        if mk.cap is not None:
            cons.append(x[i] == z3.If(a[i] <= mk.cap[i], a[i], mk.cap[i]))
    return cons
