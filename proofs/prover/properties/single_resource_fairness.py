"""Single-resource fairness, negated (Ghodsi et al., NSDI 2011, Section 6):
with one resource the allocation differs from weighted max-min with caps
(:func:`~proofs.prover.properties.waterfilled`; unweighted and uncapped:
every user's share ``x_i d_i = R / n``). The property applies only to one
resource: for ``m > 1`` the negation is false (the property holds
vacuously, as :func:`analyzer.check` says)."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from . import Query, allocated, register_negation, waterfilled, witness


@register_negation("single-resource-fairness", distinguished=0, resources=1, weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    if m != 1:
        return Query([z3.BoolVal(False)], witness(mk))
    z, ref = waterfilled(mk, 0, "ref")
    unfair = z3.Or([x[i] != z[i] for i in range(n)])
    return Query(cons + ref + [unfair], witness(mk))
