"""FDS and GFJ (Joe-Wong, Sen, Lan, Chiang, INFOCOM 2012, Section III; the
programs of :mod:`models.policies.fds`, :mod:`models.policies.gfj` and
:mod:`models.alpha_fair`) at a rational ``beta`` as formulas: the KKT
conditions of ``max sum_i w_i U_beta(u_i x_i / w_i)`` subject to
``sum_i x_i d_ij <= R_j`` and ``x_i <= k_i``, as polynomial constraints.

``u_i`` is the utility of one task: FDS its dominant share ``max_j d_ij /
R_j``, GFJ 1. The objective is strictly concave in the utilities and
Slater's condition holds, so the KKT conditions characterise the unique
optimum: prices ``p_j >= 0``, cap multipliers ``nu_i >= 0``, stationarity
``u_i v_i^-beta = q_i + nu_i`` with ``v_i = u_i x_i / w_i`` and ``q_i =
sum_j p_j d_ij``, feasibility and complementary slackness (a user capped
at 0 gets nothing and leaves the program). With ``beta =
a / b`` (coprime) the power is made polynomial by ``s_i > 0``, ``s_i^b =
v_i``: ``v_i^-beta = s_i^-a``, so stationarity reads ``u_i = (q_i + nu_i)
s_i^a`` (z3's nonlinear real arithmetic decides it exactly).

The encodings are built per ``beta`` (``get_encoding("gfj:beta=2")``):
``beta = 1`` is the weighted Eisenberg-Gale program (:mod:`.ceei`; the
policies solve it as CEEI), ``beta = inf`` the max-min limit (DRF for FDS,
leximin on tasks for GFJ: those policies' encodings). Other ``beta`` are
taken as the decimal number written (``0.5`` is ``1/2``) and encoded when
numerator and denominator are at most :data:`MAX_EXPONENT`; beyond that
the polynomials' degree is the reason given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, cast

import z3

from models import get_policy
from models.policies.fds import FDS

from ..symbolic import Market, to_fraction
from . import Encoding, get_encoding, register_encoding_factory
from .ceei import ceei
from .filling import _dominant_shares

#: Largest numerator and denominator of ``beta = a / b`` encoded: the
#: stationarity polynomials have degree ``a + 1`` and ``b``.
MAX_EXPONENT: int = 8


def dominant_shares(mk: Market, tag: str) -> tuple[list[Any], list[Any]]:
    """FDS's utility of one task, ``u_i = max_j d_ij / R_j``: the constant 1
    when the row's dominant entry is known to be 1 of a unit capacity, the
    exact number when the instance is numbers (a fixed instance: z3 then
    has no case split on the maximum), else a variable."""
    terms = [z3.simplify(v) for v in [*mk.R, *(e for row in mk.d for e in row)]]
    if (mk.unit and mk.dom is not None) or not all(z3.is_rational_value(v) for v in terms):
        return _dominant_shares(mk, [z3.RealVal(1)] * mk.n, tag)
    R, flat = [to_fraction(v) for v in terms[:mk.m]], [to_fraction(v) for v in terms[mk.m:]]
    rows = [flat[i * mk.m:(i + 1) * mk.m] for i in range(mk.n)]
    return [z3.RealVal(str(max(d / r for d, r in zip(row, R, strict=True)))) for row in rows], []


def task_units(mk: Market, tag: str) -> tuple[list[Any], list[Any]]:
    """GFJ's utility of one task: 1."""
    return [z3.RealVal(1)] * mk.n, []


Units = Callable[[Market, str], tuple[list[Any], list[Any]]]


def kkt(units: Units, a: int, b: int) -> Callable[[Market, Sequence[Any], str], list[Any]]:
    """The KKT conditions at ``beta = a / b`` with utilities per task ``units``."""

    def formula(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
        u, cons = units(mk, tag)
        p = [z3.Real(f"{tag}p{j}") for j in range(mk.m)]
        s = [z3.Real(f"{tag}s{i}") for i in range(mk.n)]
        cons += mk.feasible(x) + mk.capped_tasks(x) + [pj >= 0 for pj in p]
        for i in range(mk.n):
            q = z3.Sum([p[j] * mk.d[i][j] for j in range(mk.m)])
            stationary = [s[i] > 0, s[i] ** b * mk.weight(i) == u[i] * x[i]]
            if mk.cap is None:
                cons += stationary + [u[i] == q * s[i] ** a]
                continue
            nu = z3.Real(f"{tag}nu{i}")
            inside = z3.And(*stationary, nu >= 0, z3.Or(nu == 0, mk.at_cap(x, i)), u[i] == (q + nu) * s[i] ** a)
            cons.append(z3.If(mk.cap[i] > 0, inside, x[i] == 0))  # capped at 0: no tasks, out of the program
        cons += [z3.Or(p[j] == 0, mk.saturated(x, j)) for j in range(mk.m)]
        return cons

    formula.__doc__ = f"KKT conditions of the alpha-fair program at beta = {a}/{b} on {units.__name__}."
    return formula


def _factory(name: str, units: Units, normalise: str | None) -> Callable[[dict[str, Any]], Encoding | str]:
    def make(params: dict[str, Any]) -> Encoding | str:
        pol = get_policy(name, **params)  # PolicyError for a bad beta (bad input)
        beta = float(pol.params["beta"])
        label = pol.label
        if math.isinf(beta):
            limit = get_encoding(cast(FDS, pol).limit)  # gfj is an FDS too
            return Encoding(label, limit.normalise, limit.formula, limit.weighted, limit.capped,
                            anonymous=limit.anonymous, neutral=limit.neutral)
        if beta == 1:
            return Encoding(label, normalise, ceei, weighted=True, capped=True, anonymous=True, neutral=True)
        frac = Fraction(repr(beta))
        if frac.numerator > MAX_EXPONENT or frac.denominator > MAX_EXPONENT:
            return (f"{label}: beta = {frac} as written; the KKT conditions are encoded as polynomials only for "
                    f"beta = a/b with a, b <= {MAX_EXPONENT} (degree a + 1 and b)")
        return Encoding(label, normalise, kkt(units, frac.numerator, frac.denominator), weighted=True, capped=True,
                        anonymous=True, neutral=True)

    return make


register_encoding_factory("fds", _factory("fds", dominant_shares, "max"))
register_encoding_factory("gfj", _factory("gfj", task_units, None))
