"""CEEI (Ghodsi et al., NSDI 2011, Section 5.2) as a formula: the KKT
conditions of the Eisenberg-Gale program ``max sum_i log x_i`` subject to
``sum_i x_i d_ij <= R_j``.

The objective is strictly concave in ``x`` and Slater's condition holds, so
the KKT conditions characterise the unique optimum: prices ``p_j >= 0``
with each user's task price ``q_i = sum_j p_j d_ij`` exhausting its equal
budget, ``x_i q_i = 1``, feasibility, and complementary slackness (a
resource with a positive price is saturated). The implied identity
``sum_j p_j R_j = n`` is added as a lemma (it changes no solution).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from ..symbolic import Market
from . import register_encoding


@register_encoding("ceei", "max")
def ceei(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
    """KKT conditions of the Eisenberg-Gale program (unweighted, uncapped)."""
    p = [z3.Real(f"{tag}p{j}") for j in range(mk.m)]
    q = [z3.Real(f"{tag}q{i}") for i in range(mk.n)]
    cons = mk.feasible(x)
    cons += [pj >= 0 for pj in p]
    for i in range(mk.n):
        cons.append(q[i] == z3.Sum([p[j] * mk.d[i][j] for j in range(mk.m)]))
        cons.append(x[i] * q[i] == 1)
    cons += [z3.Or(p[j] == 0, mk.saturated(x, j)) for j in range(mk.m)]
    # implied (a lemma for the solver): the budgets add up to the value of
    # the supply, sum_j p_j R_j = sum_j p_j load_j = sum_i x_i q_i = n
    cons.append(z3.Sum([p[j] * mk.R[j] for j in range(mk.m)]) == mk.n)
    return cons
