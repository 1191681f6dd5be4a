"""Strategy-proofness, negated (Ghodsi et al., NSDI 2011, Section 3, as
:class:`analyzer.properties.strategy_proofness.StrategyProofness` defines
it): the liar ``v`` of the case (user 0 stands for any user when the
policy treats users alike) reports a demand ``r`` (any vector, positive on
the resources it needs; in the positive domain positive everywhere) and
the bundle ``x'_v r`` it then receives runs more of its true tasks:
``x'_v r_j > x_v d_vj`` for every resource ``j`` it uses, and (capped)
``x_v < k_v``. Weights stay as they are; a capped liar reports the cap
``k_v max_{j: d_vj > 0} d_vj / r_j`` (the fewest reported tasks whose
bundle holds ``k_v`` true tasks).

The policies with a per-user normalisation ignore the scale of a report
(the bundle does not depend on it, and the reported cap scales with the
report), so the report is normalised like a demand row, with its own
dominant resource in the case split.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import z3

from ..encodings import Encoding
from ..symbolic import POSITIVE, Case, Market, demand_row
from . import Query, allocated, below_cap, register_negation, tasks, witness


def _report_cap(mk: Market, v: int, r: list[Any]) -> tuple[Any, list[Any]]:
    """The liar ``v``'s reported cap ``k_v max_{j: d_vj > 0} d_vj / r_j``
    and its constraints (``None`` and none when uncapped)."""
    if mk.cap is None:
        return None, []
    kr, kv, dv = z3.Real("k_report"), mk.cap[v], mk.d[v]
    m = len(r)
    cons = [z3.Implies(mk.uses(v, j), kr * r[j] >= kv * dv[j]) for j in range(m)]
    cons.append(z3.Or([z3.And(mk.uses(v, j), kr * r[j] == kv * dv[j]) for j in range(m)]))
    return kr, cons


@register_negation("strategy-proofness", distinguished=1, extra_rows=1, weighted=True, capped=True, speaks=(2, 1))
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, *,
          factor: Fraction | None = None, **cls: bool) -> Query:
    """The negation; with ``factor``, a lie running more than ``factor``
    times the truthful tasks (the manipulation-gain bound of
    :mod:`proofs.bounds.manipulation_gain`)."""
    mk, x, cons = allocated(enc, n, m, domain, case.dom, **cls)
    v = case.roles[0]
    rdom = None if case.dom is None else case.dom[n]
    r, rcons = demand_row("r", m, domain, enc.normalise, rdom)
    if domain != POSITIVE:
        rcons += [z3.Implies(mk.d[v][j] > 0, r[j] > 0) for j in range(m)]
    kr, kcons = _report_cap(mk, v, r)
    lie = mk.with_row(v, r, rdom, kr)
    y = tasks("z", n)
    truth = x[v] if factor is None else z3.RealVal(factor) * x[v]
    gain = [z3.Or(z3.Not(mk.uses(v, j)), y[v] * r[j] > truth * mk.d[v][j]) for j in range(m)]
    return Query(cons + rcons + kcons + enc.formula(lie, y, "b") + gain + [below_cap(mk, x, v)],
                 witness(mk, case, report=r))
