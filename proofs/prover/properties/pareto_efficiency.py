"""Pareto efficiency, negated (Ghodsi et al., NSDI 2011, Section 3): for
Leontief users an allocation can be improved exactly when some user below
its cap has slack on every resource it uses (the characterisation of
:class:`analyzer.properties.pareto_efficiency.ParetoEfficiency`; weights
play no part); by symmetry that user is user 0."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from . import Query, allocated, below_cap, register_negation, witness


@register_negation("pareto-efficiency", distinguished=1, weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    slack = [z3.Or(z3.Not(mk.uses(0, j)), mk.load(x, j) < mk.R[j]) for j in range(m)]
    return Query(cons + slack + [below_cap(mk, x, 0)], witness(mk))
