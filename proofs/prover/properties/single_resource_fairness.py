"""Single-resource fairness, negated (Ghodsi et al., NSDI 2011, Section 6):
with one resource the unweighted, uncapped max-min allocation gives every
user the same share ``x_i d_i = R / n``; some user's share differs. The
property applies only to one resource: for ``m > 1`` the negation is false
(the property holds vacuously, as :func:`analyzer.check` says)."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from . import Query, allocated, register_negation


@register_negation("single-resource-fairness", distinguished=0, resources=1)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    if m != 1:
        return Query([z3.BoolVal(False)], {"demands": mk.d})
    unfair = z3.Or([x[i] * mk.d[i][0] * n != mk.R[0] for i in range(n)])
    return Query(cons + [unfair], {"demands": mk.d})
