"""Sharing incentive, negated (Ghodsi et al., NSDI 2011, Section 3): user 0
(any user, by symmetry) runs fewer tasks than on ``1/n`` of every resource:
``x_0 d_0j < R_j / n`` for every resource it uses."""

from __future__ import annotations

from typing import Any

import z3

from ..encodings import Encoding
from . import Query, allocated, register_negation


@register_negation("sharing-incentive", distinguished=1)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    short: list[Any] = [z3.Or(z3.Not(mk.uses(0, j)), x[0] * mk.d[0][j] * n < mk.R[j]) for j in range(m)]
    return Query(cons + short, {"demands": mk.d})
