"""Bottleneck-based fairness, negated (Dolev et al., ITCS 2012, Section 3,
in the form of Gutman and Nisan, AAMAS 2012, Section 2; the definition of
:class:`analyzer.properties.bottleneck_based.BottleneckBasedFairness`):
user 0 (any user, by symmetry) has a justified complaint: it is below its
cap and on every resource ``j`` it uses either ``j`` is not full, or it
holds less than its entitlement ``w_0 / sum_k w_k`` of ``j`` and less of
``j`` than some other user. Weights and caps as the checker has them."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from . import Query, allocated, register_negation, witness


@register_negation("bottleneck-based-fairness", distinguished=1, weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    total = z3.Sum([mk.weight(i) for i in range(n)])
    amount = [[x[i] * mk.d[i][j] for j in range(m)] for i in range(n)]
    complaint = []
    for j in range(m):
        short = z3.And(amount[0][j] * total < mk.weight(0) * mk.R[j],
                       z3.Or([amount[0][j] < amount[k][j] for k in range(1, n)]))
        complaint.append(z3.Or(z3.Not(mk.uses(0, j)), z3.Not(mk.saturated(x, j)), short))
    below_cap = [] if mk.cap is None else [x[0] < mk.cap[0]]
    return Query(cons + complaint + below_cap, witness(mk))
