"""Max-min fair policies of the progressive-filling family as formulas:
DRF (Ghodsi et al., NSDI 2011, Section 4), asset fairness (Section 5.1)
and leximin on task counts.

User ``i``'s share is ``y_i = s_i(x_i)``: its dominant share
``max_j x_i d_ij / R_j`` (DRF), aggregate share ``sum_j x_i d_ij / R_j``
(asset) or task count ``x_i`` (leximin-tasks). Progressive filling yields
the max-min fair vector of shares over the feasible polytope, which is
characterised by bottlenecks (Bertsekas and Gallager, Data Networks, 1992,
Section 6.5.2): ``x`` is feasible and every user ``i`` has a saturated
resource ``j`` it uses on which no user of ``j`` has a larger share. With
every demand positive every resource is everybody's, so the condition
becomes: all shares are equal and some resource is saturated.

Weights and caps (Section 4.3; :mod:`models.filling`): the filled level
of user ``i`` is ``y_i / w_i`` and a cap ``x_i <= k_i`` is a private link
of user ``i``, so a user at its cap needs no other bottleneck: every
user is at its cap or has a saturated resource it uses on which no user
of it has a larger level.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import z3

from ..symbolic import Market
from . import register_encoding


def bottleneck(mk: Market, x: Sequence[Any], y: Sequence[Any], members: Sequence[Any] | None = None,
               load: Sequence[Any] | None = None) -> list[Any]:
    """Feasibility (caps included) and the bottleneck condition on the
    levels ``y_i / w_i``; for a phase of a filling (single-resource), only
    the users with ``members[i]`` (z3 Booleans) take part and a resource is
    saturated when ``load[j] == R_j``."""
    cons = mk.feasible(x) + mk.capped_tasks(x)
    n, m = mk.n, mk.m
    usage = list(load) if load is not None else [mk.load(x, j) for j in range(m)]

    def takes_part(k: int, j: int) -> Any:
        """User ``k`` uses resource ``j`` (and is in the phase)."""
        return z3.And(members[k], mk.uses(k, j)) if members is not None else mk.uses(k, j)

    def below(k: int, i: int) -> Any:
        """``y_k / w_k <= y_i / w_i``."""
        return y[k] <= y[i] if mk.w is None else y[k] * mk.w[i] <= y[i] * mk.w[k]

    if mk.positive and mk.cap is None and members is None:
        cons += [y[i] == y[0] if mk.w is None else y[i] * mk.w[0] == y[0] * mk.w[i] for i in range(1, n)]
        cons.append(z3.Or([mk.saturated(x, j) for j in range(m)]))
        return cons
    for i in range(n):
        limited = [z3.And(usage[j] == mk.R[j], mk.uses(i, j),
                          *[z3.Implies(takes_part(k, j), below(k, i)) for k in range(n) if k != i])
                   for j in range(m)]
        held = z3.Or(mk.at_cap(x, i), *limited)
        cons.append(z3.Implies(members[i], held) if members is not None else held)
    return cons


def _dominant_shares(mk: Market, x: Sequence[Any], tag: str) -> tuple[list[Any], list[Any]]:
    """``y_i = max_j x_i d_ij / R_j`` (just ``x_i`` when the dominant entry
    is known to be 1 of a unit capacity)."""
    if mk.unit and mk.dom is not None:
        return list(x), []
    y = [z3.Real(f"{tag}y{i}") for i in range(mk.n)]
    cons = []
    for i in range(mk.n):
        cons += [y[i] * mk.R[j] >= x[i] * mk.d[i][j] for j in range(mk.m)]
        cons.append(z3.Or([y[i] * mk.R[j] == x[i] * mk.d[i][j] for j in range(mk.m)]))
    return y, cons


def two_phase(mk: Market, x: Sequence[Any], share: Sequence[Any], first: Sequence[Any], tag: str) -> list[Any]:
    """The family's two phases (:mod:`models.filling`): the users with
    ``first[i]`` (z3 Booleans) fill on ``share`` first, saturation judged
    on their usage alone; the others then share what is left by DRF
    (dominant shares), the first ones frozen."""
    dominant, cons = _dominant_shares(mk, x, tag)
    load1 = [z3.Sum([z3.If(first[i], x[i] * mk.d[i][j], 0) for i in range(mk.n)]) for j in range(mk.m)]
    return cons + bottleneck(mk, x, share, first, load1) + bottleneck(mk, x, dominant, [z3.Not(v) for v in first])


def _aggregate_shares(mk: Market, x: Sequence[Any], tag: str) -> tuple[list[Any], list[Any]]:
    """``y_i = sum_j x_i d_ij / R_j``."""
    if mk.unit:
        return [x[i] * z3.Sum(mk.d[i]) for i in range(mk.n)], []
    inv = [z3.Real(f"{tag}inv{j}") for j in range(mk.m)]  # 1 / R_j
    cons = [inv[j] * mk.R[j] == 1 for j in range(mk.m)]
    return [x[i] * z3.Sum([mk.d[i][j] * inv[j] for j in range(mk.m)]) for i in range(mk.n)], cons


def _filling(shares: Callable[[Market, Sequence[Any], str], tuple[list[Any], list[Any]]]
             ) -> Callable[[Market, Sequence[Any], str], list[Any]]:
    def formula(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
        y, cons = shares(mk, x, tag)
        return cons + bottleneck(mk, x, y)

    formula.__doc__ = f"Progressive filling on shares given by {shares.__name__}."
    return formula


#: Progressive filling on a share symmetric in users and resources.
_ALIKE = {"weighted": True, "capped": True, "anonymous": True, "neutral": True}
register_encoding("drf", "max", **_ALIKE)(_filling(_dominant_shares))
register_encoding("asset", "sum", **_ALIKE)(_filling(_aggregate_shares))
register_encoding("leximin-tasks", None, **_ALIKE)(_filling(lambda mk, x, tag: (list(x), [])))
