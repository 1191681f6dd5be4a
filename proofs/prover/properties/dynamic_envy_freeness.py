"""Dynamic envy-freeness, negated (Kash, Procaccia and Shah, JAIR 51, 2014,
Section 3, as :class:`analyzer.properties.dynamic_envy_freeness.DynamicEnvyFreeness`
defines it): after some step a present user ``i`` envies a present user
``j`` (the static envy with weights and caps) and the envy is not excused:
``j`` arrived after ``i``, or ``j`` holds other tasks than just before
``i`` arrived."""

from __future__ import annotations

from typing import Any

import z3

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, below_cap, register_negation, witness
from ._dynamic import EVERY_USER, dynamic_allocated


@register_negation("dynamic-envy-freeness", distinguished=EVERY_USER, min_users=2, weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, xs, cons, _ = dynamic_allocated(enc, n, m, domain, case.dom, **cls)
    bad: list[Any] = []
    for k in range(n):
        x = xs[k]
        for i in range(k + 1):
            for j in range(k + 1):
                if i == j:
                    continue
                envy = z3.And(below_cap(mk, x, i),
                              *[z3.Or(z3.Not(mk.uses(i, r)), x[i] * mk.d[i][r] * mk.weight(j)
                                      < mk.weight(i) * x[j] * mk.d[j][r]) for r in range(m)])
                excused = xs[k][j] == xs[i - 1][j] if j < i else z3.BoolVal(False)
                bad.append(z3.And(envy, z3.Not(excused)))
    return Query(cons + [z3.Or(bad)], witness(mk))
