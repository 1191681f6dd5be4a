"""Single-resource fairness, negated (Ghodsi et al., NSDI 2011, Section 6):
with one resource the allocation differs from weighted max-min with caps
(:func:`~proofs.prover.properties.waterfilled`; unweighted and uncapped:
every user's share ``x_i d_i = R / n``). The property applies only to one
resource: for ``m > 1`` the negation is false and :func:`analyzer.prove`
calls the size vacuous (as :func:`analyzer.check` says, the property holds
there without saying anything). It speaks from 2 users: a lone user of an
efficient policy gets the whole resource."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, allocated, register_negation, waterfilled, witness


@register_negation("single-resource-fairness", distinguished=0, resources=1, weighted=True, capped=True,
                   speaks=(2, 1))
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, case.dom, **cls)
    if m != 1:
        return Query([z3.BoolVal(False)], witness(mk, case))
    z, ref = waterfilled(mk, 0, "ref")
    unfair = z3.Or([x[i] != z[i] for i in range(n)])
    return Query(cons + ref + [unfair], witness(mk, case))
