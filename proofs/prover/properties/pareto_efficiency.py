"""Pareto efficiency, negated (Ghodsi et al., NSDI 2011, Section 3): for
Leontief users an allocation can be improved exactly when some user below
its cap has slack on every resource it uses (the characterisation of
:class:`analyzer.properties.pareto_efficiency.ParetoEfficiency`; weights
play no part); that user is the one in the case's role (user 0 stands for
any user when the policy treats users alike). It speaks at every size: a
lone user's allocation can waste too."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, allocated, below_cap, register_negation, witness


@register_negation("pareto-efficiency", distinguished=1, weighted=True, capped=True, speaks=(1, 1))
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, case.dom, **cls)
    v = case.roles[0]
    slack = [z3.Or(z3.Not(mk.uses(v, j)), mk.load(x, j) < mk.R[j]) for j in range(m)]
    return Query(cons + slack + [below_cap(mk, x, v)], witness(mk, case))
