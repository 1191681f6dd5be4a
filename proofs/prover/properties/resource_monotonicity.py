"""Resource monotonicity, negated (Ghodsi et al., NSDI 2011, Section 6):
capacities grow from ``R = 1`` to any ``R' >= R`` (weights and caps
unchanged) and the user in the case's role (user 0 stands for any user
when the policy treats users alike) runs fewer tasks."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, allocated, register_negation, tasks, witness


@register_negation("resource-monotonicity", distinguished=1, weighted=True, capped=True, speaks=(2, 1))
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, case.dom, **cls)
    v = case.roles[0]
    grown = [z3.Real(f"R{j}") for j in range(m)]
    big = mk.with_capacity(grown)
    y = tasks("z", n)
    cons += [grown[j] >= mk.R[j] for j in range(m)]
    return Query(cons + enc.formula(big, y, "b") + [y[v] < x[v]], witness(mk, case, capacity=grown))
