"""Dynamic sharing incentive, negated (Kash, Procaccia and Shah, JAIR 51,
2014, Section 3, as :class:`analyzer.properties.dynamic_sharing_incentive.DynamicSharingIncentive`
defines it): after some step ``k`` a present user ``i`` runs fewer tasks
than on its slice ``w_i / W`` of every resource (``W`` everybody's
weight), capped: ``x_i^k < k_i`` and ``x_i^k d_ij W < w_i R_j`` for every
resource it uses."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, below_cap, register_negation, witness
from ._dynamic import EVERY_USER, dynamic_allocated


@register_negation("dynamic-sharing-incentive", distinguished=EVERY_USER, weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, xs, cons, (_, W) = dynamic_allocated(enc, n, m, domain, case.dom, **cls)
    short = [z3.And(below_cap(mk, xs[k], i),
                    *[z3.Or(z3.Not(mk.uses(i, j)), xs[k][i] * mk.d[i][j] * W < mk.weight(i) * mk.R[j])
                      for j in range(m)])
             for k in range(n) for i in range(k + 1)]
    return Query(cons + [z3.Or(short)], witness(mk))
