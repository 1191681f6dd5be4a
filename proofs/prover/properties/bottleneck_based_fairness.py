"""Bottleneck-based fairness, negated (Dolev et al., ITCS 2012, Section 3,
in the form of Gutman and Nisan, AAMAS 2012, Section 2; the definition of
:class:`analyzer.properties.bottleneck_based.BottleneckBasedFairness`):
the user ``v`` in the case's role (user 0 stands for any user when the
policy treats users alike) has a justified complaint: it is below its cap
and on every resource ``j`` it uses either ``j`` is not full, or it holds
less than its entitlement ``w_v / sum_k w_k`` of ``j`` and less of ``j``
than some other user. Weights and caps as the checker has them."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, allocated, below_cap, register_negation, witness


@register_negation("bottleneck-based-fairness", distinguished=1, weighted=True, capped=True, speaks=(2, 1))
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, case.dom, **cls)
    v = case.roles[0]
    total = z3.Sum([mk.weight(i) for i in range(n)])
    amount = [[x[i] * mk.d[i][j] for j in range(m)] for i in range(n)]
    complaint = []
    for j in range(m):
        short = z3.And(amount[v][j] * total < mk.weight(v) * mk.R[j],
                       z3.Or([amount[v][j] < amount[k][j] for k in range(n) if k != v]))
        complaint.append(z3.Or(z3.Not(mk.uses(v, j)), z3.Not(mk.saturated(x, j)), short))
    return Query(cons + complaint + [below_cap(mk, x, v)], witness(mk, case))
