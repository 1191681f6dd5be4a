"""Sharing incentive, negated (Ghodsi et al., NSDI 2011, Section 3; weighted
form Section 4.3, as :class:`analyzer.properties.sharing_incentive.SharingIncentive`
defines it): the user in the case's role (user 0 stands for any user when
the policy treats users alike) runs fewer tasks than on its slice ``w_v /
W`` of every resource (``W = sum_i w_i``; unweighted ``1/n``), capped:
``x_v < k_v`` and ``x_v d_vj W < w_v R_j`` for every resource it uses."""

from __future__ import annotations

from typing import Any

import z3

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, allocated, below_cap, register_negation, witness


@register_negation("sharing-incentive", distinguished=1, weighted=True, capped=True, speaks=(2, 1))
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, case.dom, **cls)
    v = case.roles[0]
    total = z3.RealVal(n) if mk.w is None else z3.Sum(mk.w)
    short: list[Any] = [z3.Or(z3.Not(mk.uses(v, j)), x[v] * mk.d[v][j] * total < mk.weight(v) * mk.R[j])
                        for j in range(m)]
    return Query(cons + short + [below_cap(mk, x, v)], witness(mk, case))
