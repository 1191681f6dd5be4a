"""Envy-freeness, negated (Ghodsi et al., NSDI 2011, Section 3): user 0
could run more of its own tasks with user 1's bundle:
``x_0 d_0l < x_1 d_1l`` for every resource ``l`` it uses."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from . import Query, allocated, register_negation


@register_negation("envy-freeness", distinguished=2, min_users=2)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    envy = [z3.Or(z3.Not(mk.uses(0, j)), x[0] * mk.d[0][j] < x[1] * mk.d[1][j]) for j in range(m)]
    return Query(cons + envy, {"demands": mk.d})
