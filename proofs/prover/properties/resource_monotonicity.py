"""Resource monotonicity, negated (Ghodsi et al., NSDI 2011, Section 6):
capacities grow from ``R = 1`` to any ``R' >= R`` (weights and caps
unchanged) and user 0 (any user, by symmetry) runs fewer tasks."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from . import Query, allocated, register_negation, tasks, witness


@register_negation("resource-monotonicity", distinguished=1, weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    grown = [z3.Real(f"R{j}") for j in range(m)]
    big = mk.with_capacity(grown)
    y = tasks("z", n)
    cons += [grown[j] >= mk.R[j] for j in range(m)]
    return Query(cons + enc.formula(big, y, "b") + [y[0] < x[0]], witness(mk, capacity=grown))
