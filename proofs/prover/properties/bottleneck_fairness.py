"""Bottleneck fairness, negated (Ghodsi et al., NSDI 2011, Section 6): some
resource ``b`` is a dominant resource of every user (``d_ib / R_b >= d_ij /
R_j``), yet the allocation is not max-min on it: unweighted and uncapped,
max-min on ``b`` gives every user the share ``x_i d_ib = R_b / n``."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from . import Query, allocated, register_negation


@register_negation("bottleneck-fairness", distinguished=0)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    if dom is not None:
        # split by dominant resources (max normalisation): an instance in
        # which b is everyone's dominant resource lies in the case where
        # every dominant resource is b, i.e. (up to symmetry) the case
        # "all r0"; the other cases hold no counterexample not also there
        if any(v != dom[0] for v in dom):
            return Query([z3.BoolVal(False)], {"demands": mk.d})
        return Query(cons + [z3.Or([x[i] * n != 1 for i in range(n)])], {"demands": mk.d})
    # with R = 1, b is everyone's dominant resource when d_ib >= d_ij for all i, j
    unfair = z3.Or([z3.And(*[mk.d[i][b] >= mk.d[i][j] for i in range(n) for j in range(m) if j != b],
                           z3.Or([x[i] * mk.d[i][b] * n != mk.R[b] for i in range(n)]))
                    for b in range(m)])
    return Query(cons + [unfair], {"demands": mk.d})
