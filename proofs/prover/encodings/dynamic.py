"""The dynamic setting's mechanisms as formulas, one per step (Kash,
Procaccia and Shah, JAIR 51, 2014): users ``0..n-1`` arrive in order; the
allocation after the ``k``-th arrival is a vector ``x^k`` (0 for the users
not arrived), each step a filling.

* **Dynamic DRF** (:mod:`models.policies.dynamic_drf`): at step ``k`` the
  present users' levels (weighted dominant shares ``y_i / w_i``) are the
  max-min fair vector over ``{x^k >= x^{k-1}, W load_j <= W_k R_j, caps}``,
  characterised by bottlenecks with lower bounds: every present user is at
  its cap or uses a resource full at the step's budget on which every user
  that rose at this step (``x_o^k > x_o^{k-1}``) has a level at most its own
  (the users held at their floors are excused; Bertsekas and Gallager, Data
  Networks, Section 6.5.2, with minimum rates).
* **Cautious DRF** (:mod:`models.policies.cautious_drf`): one common level
  ``M_k``: ``x_i^k = min(k_i, M_k w_i / s_i)``, ``M_k`` the largest level
  with ``load_j + M_k (W - W_k) R_j <= R_j`` on every resource.
* **A static policy recomputed at every arrival**: the static encoding on
  the market of the first ``k`` users, whole cluster.

As a static policy a dynamic mechanism is its last step (the encodings
``dynamic-drf`` and ``cautious-drf``; ``recompute:policy=P`` is ``P``'s);
:func:`steps_of` gives the negations of :mod:`proofs.prover.properties`
every step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import z3

from models import get_policy

from ..symbolic import Market
from . import Encoding, Unencodable, get_encoding, register_encoding, register_encoding_factory
from .filling import _dominant_shares

#: ``steps(market, tag) -> (x^1 .. x^n, constraints)``: every step's tasks
#: (length-``n`` lists, 0 for users not arrived) and what defines them.
Steps = Callable[[Market, str], tuple[list[list[Any]], list[Any]]]


def prefix_market(mk: Market, k: int) -> Market:
    """The users present after the ``k``-th arrival, whole cluster."""
    def pick(v: list[Any] | None) -> list[Any] | None:
        return None if v is None else list(v[:k])

    dom = None if mk.dom is None else tuple(mk.dom[:k])
    return Market([list(r) for r in mk.d[:k]], mk.R, mk.unit, mk.positive, dom, pick(mk.w), pick(mk.cap))


def weight_totals(mk: Market) -> tuple[list[Any], Any]:
    """``W_k`` for ``k = 1..n`` and ``W`` (``k`` and ``n`` unweighted)."""
    ws = [mk.weight(i) for i in range(mk.n)]
    return [z3.Sum(ws[:k]) if mk.w is not None else z3.RealVal(k) for k in range(1, mk.n + 1)], \
        (z3.Sum(ws) if mk.w is not None else z3.RealVal(mk.n))


def _per_task(mk: Market, tag: str) -> tuple[list[Any], list[Any]]:
    """Dominant share of one task of every user (1 with a known dominant
    resource of a unit capacity)."""
    return _dominant_shares(mk, [z3.RealVal(1)] * mk.n, f"{tag}c")


def _step_vars(mk: Market, k: int, tag: str) -> list[Any]:
    return [z3.Real(f"{tag}x{k}_{i}") if i < k else z3.RealVal(0) for i in range(mk.n)]


def dynamic_drf_steps(mk: Market, tag: str) -> tuple[list[list[Any]], list[Any]]:
    """Dynamic DRF, every step (module docstring)."""
    c, cons = _per_task(mk, tag)
    Wk, W = weight_totals(mk)
    prev = [z3.RealVal(0)] * mk.n
    out = []
    for k in range(1, mk.n + 1):
        x = _step_vars(mk, k, tag)
        load = [mk.load(x, j) for j in range(mk.m)]
        cons += [x[i] >= prev[i] for i in range(k)]
        if mk.cap is not None:
            cons += [x[i] <= mk.cap[i] for i in range(k)]
        cons += [W * load[j] <= Wk[k - 1] * mk.R[j] for j in range(mk.m)]

        def low(o: int, i: int, x: list[Any] = x) -> Any:  # level of o <= level of i
            return c[o] * x[o] * mk.weight(i) <= c[i] * x[i] * mk.weight(o)

        for i in range(k):
            limited = [z3.And(mk.uses(i, j), W * load[j] == Wk[k - 1] * mk.R[j],
                              *[z3.Implies(z3.And(mk.uses(o, j), x[o] > prev[o]), low(o, i))
                                for o in range(k) if o != i])
                       for j in range(mk.m)]
            cons.append(z3.Or(mk.at_cap(x, i), *limited))
        out.append(x)
        prev = x
    return out, cons


def cautious_steps(mk: Market, tag: str) -> tuple[list[list[Any]], list[Any]]:
    """Cautious DRF, every step (module docstring)."""
    c, cons = _per_task(mk, tag)
    Wk, W = weight_totals(mk)
    out = []
    for k in range(1, mk.n + 1):
        x = _step_vars(mk, k, tag)
        M = z3.Real(f"{tag}M{k}")
        later = W - Wk[k - 1]
        cons.append(M >= 0)
        rising = []
        for i in range(k):
            free = x[i] * c[i] == M * mk.weight(i)
            if mk.cap is None:
                cons.append(free)
                rising.append(z3.BoolVal(True))
            else:
                cons.append(z3.Or(z3.And(free, x[i] <= mk.cap[i]),
                                  z3.And(x[i] == mk.cap[i], mk.cap[i] * c[i] <= M * mk.weight(i))))
                rising.append(z3.And(free, x[i] < mk.cap[i]))
        room = [mk.load(x, j) + M * later * mk.R[j] for j in range(mk.m)]
        cons += [r <= mk.R[j] for j, r in enumerate(room)]
        tight = [z3.And(room[j] == mk.R[j], z3.Or(later > 0, *[z3.And(mk.uses(i, j), rising[i]) for i in range(k)]))
                 for j in range(mk.m)]
        capped = z3.And(later == 0, *[mk.at_cap(x, i) for i in range(k)])
        cons.append(z3.Or(*tight, capped))
        out.append(x)
    return out, cons


def lifted_steps(formula: Callable[[Market, Sequence[Any], str], list[Any]]) -> Steps:
    """A static formula recomputed on every prefix of the arrivals."""
    def steps(mk: Market, tag: str) -> tuple[list[list[Any]], list[Any]]:
        out, cons = [], []
        for k in range(1, mk.n + 1):
            x = _step_vars(mk, k, tag)
            cons += formula(prefix_market(mk, k), x[:k], f"{tag}s{k}")
            out.append(x)
        return out, cons

    return steps


#: The dynamic mechanisms' own step formulas, by policy name.
DYNAMIC_STEPS: dict[str, Steps] = {"dynamic-drf": dynamic_drf_steps, "cautious-drf": cautious_steps}


def steps_of(enc: Encoding) -> Steps:
    """Every step of the policy ``enc`` encodes: a dynamic mechanism's own,
    any other policy recomputed at every arrival."""
    return DYNAMIC_STEPS.get(enc.name) or lifted_steps(enc.formula)


def _last_step(steps: Steps) -> Callable[[Market, Sequence[Any], str], list[Any]]:
    def formula(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
        xs, cons = steps(mk, tag)
        return cons + [a == b for a, b in zip(x, xs[-1], strict=True)]

    formula.__doc__ = f"The allocation after the last arrival ({steps.__name__})."
    return formula


for _name, _steps in DYNAMIC_STEPS.items():
    register_encoding(_name, "max", weighted=True, capped=True, neutral=True)(_last_step(_steps))


def recompute(params: dict[str, Any]) -> Encoding | str:
    """``recompute:policy=P``: ``P``'s encoding (its last step is ``P``)."""
    pol = get_policy("recompute", **params)  # PolicyError for a bad parameter (bad input)
    try:
        inner = get_encoding(pol.params["policy"])
    except Unencodable as e:
        return str(e)
    return Encoding(pol.label, inner.normalise, inner.formula, inner.weighted, inner.capped, inner.validate,
                    anonymous=inner.anonymous, neutral=inner.neutral, symmetry=inner.symmetry)


register_encoding_factory("recompute", recompute)
