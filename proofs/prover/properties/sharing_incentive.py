"""Sharing incentive, negated (Ghodsi et al., NSDI 2011, Section 3; weighted
form Section 4.3, as :class:`analyzer.properties.sharing_incentive.SharingIncentive`
defines it): user 0 (any user, by symmetry) runs fewer tasks than on its
slice ``w_0 / W`` of every resource (``W = sum_i w_i``; unweighted ``1/n``),
capped: ``x_0 < k_0`` and ``x_0 d_0j W < w_0 R_j`` for every resource it
uses."""

from __future__ import annotations

from typing import Any

import z3

from ..encodings import Encoding
from . import Query, allocated, below_cap, register_negation, witness


@register_negation("sharing-incentive", distinguished=1, weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    total = z3.RealVal(n) if mk.w is None else z3.Sum(mk.w)
    short: list[Any] = [z3.Or(z3.Not(mk.uses(0, j)), x[0] * mk.d[0][j] * total < mk.weight(0) * mk.R[j])
                        for j in range(m)]
    return Query(cons + short + [below_cap(mk, x, 0)], witness(mk))
