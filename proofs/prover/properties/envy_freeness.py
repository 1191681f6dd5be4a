"""Envy-freeness, negated (Ghodsi et al., NSDI 2011, Section 3; weighted
form Section 4.3, as :class:`analyzer.properties.envy_freeness.EnvyFreeness`
defines it): user 0 could run more of its own tasks with user 1's bundle
scaled by ``w_0 / w_1``, capped: ``x_0 < k_0`` and
``x_0 d_0l w_1 < w_0 x_1 d_1l`` for every resource ``l`` it uses."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from . import Query, allocated, below_cap, register_negation, witness


@register_negation("envy-freeness", distinguished=2, min_users=2, weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    envy = [z3.Or(z3.Not(mk.uses(0, j)), x[0] * mk.d[0][j] * mk.weight(1) < mk.weight(0) * x[1] * mk.d[1][j])
            for j in range(m)]
    return Query(cons + envy + [below_cap(mk, x, 0)], witness(mk))
