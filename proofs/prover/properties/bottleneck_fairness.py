"""Bottleneck fairness, negated (Ghodsi et al., NSDI 2011, Section 6): some
resource ``b`` is a dominant resource of every user (``d_ib / R_b >= d_ij /
R_j``), yet the allocation differs from weighted max-min with caps on
``b`` (:func:`~proofs.prover.properties.waterfilled`; unweighted and
uncapped: every user's share ``x_i d_ib = R_b / n``). No user is
distinguished."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, allocated, register_negation, waterfilled, witness


@register_negation("bottleneck-fairness", distinguished=0, weighted=True, capped=True, speaks=(2, 1))
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, case.dom, **cls)
    dom = case.dom
    if dom is not None:
        # split by dominant resources (max normalisation): an instance in
        # which b is everyone's dominant resource lies in the case where
        # every dominant resource is b (for a neutral policy, up to
        # renaming, the case "all r0"; otherwise one case per b); the other
        # cases hold no counterexample not also there
        if any(v != dom[0] for v in dom):
            return Query([z3.BoolVal(False)], witness(mk, case))
        z, ref = waterfilled(mk, dom[0], "ref")
        return Query(cons + ref + [z3.Or([x[i] != z[i] for i in range(n)])], witness(mk, case))
    # with R = 1, b is everyone's dominant resource when d_ib >= d_ij for all i, j
    alternatives = []
    for b in range(m):
        z, ref = waterfilled(mk, b, f"ref{b}")
        alternatives.append(z3.And(*[mk.d[i][b] >= mk.d[i][j] for i in range(n) for j in range(m) if j != b],
                                   *ref, z3.Or([x[i] != z[i] for i in range(n)])))
    return Query(cons + [z3.Or(alternatives)], witness(mk, case))
