"""Strategy-proofness, negated (Ghodsi et al., NSDI 2011, Section 3, as
:class:`analyzer.properties.strategy_proofness.StrategyProofness` defines
it): user 0 reports a demand ``r`` (any vector, positive on the resources
it needs; in the positive domain positive everywhere) and the bundle
``x'_0 r`` it then receives runs more of its true tasks: ``x'_0 r_j >
x_0 d_0j`` for every resource ``j`` it uses, and (capped) ``x_0 < k_0``.
Weights stay as they are; a capped liar reports the cap
``k_0 max_{j: d_0j > 0} d_0j / r_j`` (the fewest reported tasks whose
bundle holds ``k_0`` true tasks).

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
from ..symbolic import POSITIVE, Market, demand_row
from . import Query, allocated, below_cap, register_negation, tasks, witness


def _report_cap(mk: Market, r: list[Any]) -> tuple[Any, list[Any]]:
    """The liar's reported cap ``k_0 max_{j: d_0j > 0} d_0j / r_j`` and its
    constraints (``None`` and none when uncapped)."""
    if mk.cap is None:
        return None, []
    kr, k0, d0 = z3.Real("k_report"), mk.cap[0], mk.d[0]
    m = len(r)
    cons = [z3.Implies(mk.uses(0, j), kr * r[j] >= k0 * d0[j]) for j in range(m)]
    cons.append(z3.Or([z3.And(mk.uses(0, j), kr * r[j] == k0 * d0[j]) for j in range(m)]))
    return kr, cons


@register_negation("strategy-proofness", distinguished=1, extra_rows=1, weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, *,
          factor: Fraction | None = None, **cls: bool) -> Query:
    """The negation; with ``factor``, a lie running more than ``factor``
    times the truthful tasks (the manipulation-gain bound of
    :mod:`proofs.bounds.manipulation_gain`)."""
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    rdom = None if dom is None else dom[n]
    r, rcons = demand_row("r", m, domain, enc.normalise, rdom)
    if domain != POSITIVE:
        rcons += [z3.Implies(mk.d[0][j] > 0, r[j] > 0) for j in range(m)]
    kr, kcons = _report_cap(mk, r)
    lie = mk.with_row(0, r, rdom, kr)
    y = tasks("z", n)
    truth = x[0] if factor is None else z3.RealVal(factor) * x[0]
    gain = [z3.Or(z3.Not(mk.uses(0, j)), y[0] * r[j] > truth * mk.d[0][j]) for j in range(m)]
    return Query(cons + rcons + kcons + enc.formula(lie, y, "b") + gain + [below_cap(mk, x, 0)],
                 witness(mk, report=r))
