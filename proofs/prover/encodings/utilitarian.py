"""The utilitarian policy (:mod:`models.policies.utilitarian`; Joe-Wong,
Sen, Lan, Chiang, INFOCOM 2012, Section III, ``beta = 0``) as a formula:
the maximum total number of tasks, ties broken by leximin on the weighted
task counts ``x_i / w_i`` over the optimal face.

Both parts are LP optimality, stated by LP duality (a dual feasible point
whose value equals the primal value proves the primal point optimal, and
one exists whenever it is optimal, so the formula is exact):

* **total.** ``x`` is feasible (capacities, caps) and there are prices
  ``p_j >= 0`` and cap multipliers ``nu_i >= 0`` with ``sum_j p_j d_ij +
  nu_i >= 1`` for every user and ``sum_j p_j R_j + sum_i nu_i k_i =
  sum_i x_i``: the dual of ``max sum_i x_i``.
* **tie-break.** On a convex set ``F`` (here the optimal face ``{y
  feasible, sum_i y_i >= sum_i x_i}``) the leximin point is the ``x`` in
  ``F`` such that, for each class ``S`` of users at a common level ``x_i /
  w_i = t`` (``L`` the users below ``t``), no ``y`` in ``F`` equals ``x`` on
  ``L``, is ``>= x`` on ``S`` and larger somewhere on ``S`` (an ``x`` with
  such a ``y`` is improved by a small step towards it; an ``x`` without one
  is not leximin-dominated, by induction over the classes in increasing
  level). So for every user ``r`` (its class ``S = {i: x_i / w_i = x_r /
  w_r}``), ``max sum_{i in S} y_i`` over ``y in F`` with ``y_i = x_i`` on
  ``L`` and ``y_i >= x_i`` on ``S`` is ``sum_{i in S} x_i``, certified by a
  dual point: ``P_j >= 0``, ``N_i >= 0``, ``mu >= 0`` (the face row) and
  ``v_i``, free on ``L``, ``<= 0`` on ``S``, ``0`` above ``t``, with
  ``sum_j P_j d_ij + N_i - mu + v_i >= [i in S]`` and ``sum_j P_j R_j +
  sum_i N_i k_i - mu sum_i x_i + sum_i v_i x_i = sum_{i in S} x_i``.

Task counts matter (scaling one user's demand changes the total), so no
per-user normalisation is used. Weights and caps are encoded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from ..symbolic import Market
from . import register_encoding


def _price(mk: Market, p: Sequence[Any], i: int) -> Any:
    """``sum_j p_j d_ij``."""
    return z3.Sum([p[j] * mk.d[i][j] for j in range(mk.m)])


def _capacity_value(mk: Market, p: Sequence[Any], nu: Sequence[Any] | None) -> Any:
    """``sum_j p_j R_j + sum_i nu_i k_i`` (no cap term when uncapped)."""
    value = z3.Sum([p[j] * mk.R[j] for j in range(mk.m)])
    if mk.cap is not None and nu is not None:
        value = value + z3.Sum([nu[i] * mk.cap[i] for i in range(mk.n)])
    return value


def _dual(mk: Market, tag: str) -> tuple[list[Any], list[Any] | None, list[Any]]:
    """Resource prices and cap multipliers (``None`` when uncapped), all ``>= 0``."""
    p = [z3.Real(f"{tag}_p{j}") for j in range(mk.m)]
    nu = None if mk.cap is None else [z3.Real(f"{tag}_nu{i}") for i in range(mk.n)]
    return p, nu, [v >= 0 for v in p + (nu or [])]


def _maximum_total(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
    """``sum_i x_i`` is the maximum total (a dual point of equal value)."""
    p, nu, cons = _dual(mk, tag)
    for i in range(mk.n):
        cost = _price(mk, p, i) + (0 if nu is None else nu[i])
        cons += [cost >= 1, z3.Or(x[i] == 0, cost == 1)]
    cons.append(_capacity_value(mk, p, nu) == z3.Sum(list(x)))
    # implied by the equal values (lemmas for the solver, no solution changes):
    # complementary slackness, a priced resource full, a cap multiplier's user at its cap
    cons += [z3.Or(p[j] == 0, mk.saturated(x, j)) for j in range(mk.m)]
    cons += [] if nu is None else [z3.Or(nu[i] == 0, mk.at_cap(x, i)) for i in range(mk.n)]
    return cons


def _no_rise_in_class(mk: Market, x: Sequence[Any], r: int, tag: str) -> list[Any]:
    """Nobody in user ``r``'s level class can rise on the optimal face
    without a lower user moving or a class member falling (the dual
    certificate of the module docstring)."""
    w = mk.weight
    below = [x[i] * w(r) < x[r] * w(i) for i in range(mk.n)]
    same = [x[i] * w(r) == x[r] * w(i) for i in range(mk.n)]
    p, nu, cons = _dual(mk, tag)
    mu = z3.Real(f"{tag}_mu")
    v = [z3.Real(f"{tag}_v{i}") for i in range(mk.n)]
    cons.append(mu >= 0)
    for i in range(mk.n):
        cons.append(z3.If(below[i], z3.BoolVal(True), z3.If(same[i], v[i] <= 0, v[i] == 0)))
        cons.append(_price(mk, p, i) + (0 if nu is None else nu[i]) - mu + v[i] >= z3.If(same[i], 1, 0))
    total = z3.Sum(list(x))
    value = _capacity_value(mk, p, nu) - mu * total + z3.Sum([v[i] * x[i] for i in range(mk.n)])
    cons.append(value == z3.Sum([z3.If(same[i], x[i], 0) for i in range(mk.n)]))
    return cons


@register_encoding("utilitarian", None, weighted=True, capped=True, anonymous=True, neutral=True)
def utilitarian(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
    """Maximum total tasks; leximin on ``x_i / w_i`` over the optimal face."""
    cons = mk.feasible(x) + mk.capped_tasks(x) + _maximum_total(mk, x, f"{tag}tot")
    for r in range(mk.n):
        cons += _no_rise_in_class(mk, x, r, f"{tag}lex{r}")
    return cons
