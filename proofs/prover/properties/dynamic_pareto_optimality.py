"""Dynamic Pareto optimality, negated (Kash, Procaccia and Shah, JAIR 51,
2014, Section 3, as :class:`analyzer.properties.dynamic_pareto_optimality.DynamicParetoOptimality`
defines it): after some step ``k`` the allocation uses more than the
step's budget ``W_k / W`` of some resource, or a present user below its
cap has room within the budget on every resource it uses."""

from __future__ import annotations

from typing import Any

import z3

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, below_cap, register_negation, witness
from ._dynamic import EVERY_USER, dynamic_allocated


@register_negation("dynamic-pareto-optimality", distinguished=EVERY_USER, weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, xs, cons, (Wk, W) = dynamic_allocated(enc, n, m, domain, case.dom, **cls)
    bad: list[Any] = []
    for k in range(n):
        load = [mk.load(xs[k], j) for j in range(m)]
        bad += [W * load[j] > Wk[k] * mk.R[j] for j in range(m)]
        bad += [z3.And(below_cap(mk, xs[k], i),
                       *[z3.Or(z3.Not(mk.uses(i, j)), W * load[j] < Wk[k] * mk.R[j]) for j in range(m)])
                for i in range(k + 1)]
    return Query(cons + [z3.Or(bad)], witness(mk))
