"""Strategy-proofness, negated (Ghodsi et al., NSDI 2011, Section 3): user 0
reports a demand ``r`` (any vector, positive on the resources it needs; in
the positive domain positive everywhere) and the bundle ``x'_0 r`` it then
receives runs more of its true tasks: ``x'_0 r_j > x_0 d_0j`` for every
resource ``j`` it uses.

The policies with a per-user normalisation ignore the scale of a report
(the bundle does not depend on it), so the report is normalised like a
demand row, with its own dominant resource in the case split.
"""

from __future__ import annotations

import z3

from ..encodings import Encoding
from ..symbolic import POSITIVE, demand_row
from . import Query, allocated, register_negation, tasks


@register_negation("strategy-proofness", distinguished=1, extra_rows=1)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    rdom = None if dom is None else dom[n]
    r, rcons = demand_row("r", m, domain, enc.normalise, rdom)
    if domain != POSITIVE:
        rcons += [z3.Implies(mk.d[0][j] > 0, r[j] > 0) for j in range(m)]
    lie = mk.with_row(0, r, rdom)
    y = tasks("z", n)
    gain = [z3.Or(z3.Not(mk.uses(0, j)), y[0] * r[j] > x[0] * mk.d[0][j]) for j in range(m)]
    return Query(cons + rcons + enc.formula(lie, y, "b") + gain, {"demands": mk.d, "report": r})
