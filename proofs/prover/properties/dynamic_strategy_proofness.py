"""Dynamic strategy-proofness, negated (Kash, Procaccia and Shah, JAIR 51,
2014, Section 3, as :class:`analyzer.properties.dynamic_strategy_proofness.DynamicStrategyProofness`
defines it, uncapped): some user ``i`` reports a demand ``r`` (positive on
the resources it needs; in the positive domain positive everywhere), the
others truthful, and after some step ``k >= i`` the bundle ``y_i^k r`` it
then holds runs more of its true tasks: ``y_i^k r_j > x_i^k d_ij`` for every
resource it uses. The liar is any user (no symmetry in the dynamic
setting); the report is normalised like a demand row when the policy ignores
task sizes, with its own dominant resource in the case split. A capped
liar's reported cap is not encoded (the negation covers uncapped classes).
"""

from __future__ import annotations

from typing import Any

import z3

from ..encodings import Encoding
from ..encodings.dynamic import steps_of
from ..symbolic import POSITIVE, Case, demand_row
from . import Query, register_negation, witness
from ._dynamic import EVERY_USER, dynamic_allocated


@register_negation("dynamic-strategy-proofness", distinguished=EVERY_USER, extra_rows=1, weighted=True)
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, xs, cons, _ = dynamic_allocated(enc, n, m, domain, case.dom, **cls)
    rdom = None if case.dom is None else case.dom[n]
    r, rcons = demand_row("r", m, domain, enc.normalise, rdom)
    lies: list[Any] = []
    for i in range(n):
        ys, lcons = steps_of(enc)(mk.with_row(i, r, rdom), f"b{i}")
        needed = [] if domain == POSITIVE else [z3.Implies(mk.d[i][j] > 0, r[j] > 0) for j in range(m)]
        gain = [z3.And(*[z3.Or(z3.Not(mk.uses(i, j)), ys[k][i] * r[j] > xs[k][i] * mk.d[i][j]) for j in range(m)])
                for k in range(i, n)]
        lies.append(z3.And(*needed, *lcons, z3.Or(gain)))
    return Query(cons + rcons + [z3.Or(lies)], witness(mk, report=r))
