"""Envy-freeness, negated (Ghodsi et al., NSDI 2011, Section 3; weighted
form Section 4.3, as :class:`analyzer.properties.envy_freeness.EnvyFreeness`
defines it): the case's first user ``a`` could run more of its own tasks
with the second user ``b``'s bundle scaled by ``w_a / w_b``, capped:
``x_a < k_a`` and ``x_a d_al w_b < w_a x_b d_bl`` for every resource ``l``
it uses (users 0 and 1 stand for any pair when the policy treats users
alike)."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, allocated, below_cap, register_negation, witness


@register_negation("envy-freeness", distinguished=2, min_users=2, weighted=True, capped=True, speaks=(2, 1))
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, case.dom, **cls)
    a, b = case.roles[:2]
    envy = [z3.Or(z3.Not(mk.uses(a, j)), x[a] * mk.d[a][j] * mk.weight(b) < mk.weight(a) * x[b] * mk.d[b][j])
            for j in range(m)]
    return Query(cons + envy + [below_cap(mk, x, a)], witness(mk, case))
