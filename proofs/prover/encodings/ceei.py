"""CEEI (Ghodsi et al., NSDI 2011, Section 5.2) as a formula: the KKT
conditions of the Eisenberg-Gale program ``max sum_i w_i log x_i`` subject
to ``sum_i x_i d_ij <= R_j`` and ``x_i <= k_i`` (unweighted: ``w_i = 1``;
uncapped: no ``k_i``).

The objective is strictly concave in ``x`` and Slater's condition holds, so
the KKT conditions characterise the unique optimum: prices ``p_j >= 0``
and cap multipliers ``mu_i >= 0`` with each user's task price
``q_i = sum_j p_j d_ij`` and ``x_i (q_i + mu_i) = w_i`` (its budget),
feasibility, and complementary slackness (a resource with a positive price
is saturated, a user with a positive ``mu_i`` is at its cap). A user capped
at 0 gets nothing and leaves the program (as in
:class:`models.policies.ceei.CEEI`). The implied identity ``sum_j p_j R_j +
sum_i mu_i x_i = sum_{i: k_i > 0} w_i`` is added as a lemma (it changes no
solution).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from ..symbolic import Market
from . import register_encoding


@register_encoding("ceei", "max", weighted=True, capped=True, anonymous=True, neutral=True)
def ceei(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
    """KKT conditions of the (weighted, capped) Eisenberg-Gale program."""
    p = [z3.Real(f"{tag}p{j}") for j in range(mk.m)]
    q = [z3.Real(f"{tag}q{i}") for i in range(mk.n)]
    mu = None if mk.cap is None else [z3.Real(f"{tag}mu{i}") for i in range(mk.n)]
    cons = mk.feasible(x) + mk.capped_tasks(x)
    cons += [pj >= 0 for pj in p]
    for i in range(mk.n):
        cons.append(q[i] == z3.Sum([p[j] * mk.d[i][j] for j in range(mk.m)]))
        if mu is None:
            cons.append(x[i] * q[i] == mk.weight(i))
        else:
            inside = z3.And(mu[i] >= 0, x[i] * (q[i] + mu[i]) == mk.weight(i), z3.Or(mu[i] == 0, mk.at_cap(x, i)))
            assert mk.cap is not None  # mu is set exactly when the market is capped
            cons.append(z3.If(mk.cap[i] > 0, inside, z3.And(x[i] == 0, mu[i] == 0)))
    cons += [z3.Or(p[j] == 0, mk.saturated(x, j)) for j in range(mk.m)]
    # implied (a lemma for the solver): the budgets add up to the value of
    # the supply and the caps, sum_j p_j load_j + sum_i mu_i x_i = sum_i w_i
    budgets = z3.Sum([mk.weight(i) if mk.cap is None else z3.If(mk.cap[i] > 0, mk.weight(i), 0)
                      for i in range(mk.n)])
    held = [] if mu is None else [mu[i] * x[i] for i in range(mk.n)]
    cons.append(z3.Sum([p[j] * mk.R[j] for j in range(mk.m)] + held) == budgets)
    return cons
