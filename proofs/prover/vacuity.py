"""Whether a property says anything at a size: a proof that holds for every
allocation proves nothing about the policy.

* **Vacuous** (:func:`vacuity`): the negation is unsatisfiable with the
  policy's constraints removed, the allocation being any feasible one
  (:data:`FEASIBLE`). Then every policy "has" the property at that size
  (single-resource fairness with two resources: it speaks only of one,
  Ghodsi et al., NSDI 2011, Section 6), and :func:`analyzer.prove` says
  ``"vacuous"``, never ``"proved"``.
* **Speaks** (:func:`speaks_at`): the negation is satisfiable with the
  policy replaced by any Pareto-efficient allocation (:data:`EFFICIENT`;
  for Pareto efficiency itself, any feasible one). Below the size a
  property declares (:attr:`proofs.prover.properties.Negation.speaks`)
  it does not: population monotonicity at 2 users compares a lone user's
  share with what it had, which no policy that wastes nothing can lower.
  ``tests/test_prove_vacuity.py`` checks every declaration with it.

Both stand-ins are relations closed under relabelling users and renaming
resources, so the negation's default roles stand for every assignment.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import z3

from .encodings import Encoding
from .properties import get_negation
from .symbolic import Market
from .symmetry import decide


def _feasible(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
    """``x`` is any feasible allocation (capacities and caps)."""
    return mk.feasible(x) + mk.capped_tasks(x)


def _efficient(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
    """``x`` is any Pareto-efficient allocation: feasible, and every user at
    its cap or with a saturated resource it uses (the Leontief
    characterisation of :class:`analyzer.properties.pareto_efficiency.ParetoEfficiency`)."""
    held = [z3.Or(mk.at_cap(x, i), *[z3.And(mk.uses(i, j), mk.saturated(x, j)) for j in range(mk.m)])
            for i in range(mk.n)]
    return _feasible(mk, x, tag) + held


#: The policy's constraints removed: any feasible allocation.
FEASIBLE = Encoding("any feasible allocation", None, _feasible, weighted=True, capped=True, anonymous=True,
                    neutral=True)
#: Any allocation that wastes nothing.
EFFICIENT = Encoding("any Pareto-efficient allocation", None, _efficient, weighted=True, capped=True,
                     anonymous=True, neutral=True)


def _satisfiable(stand_in: Encoding, prop: str, n: int, m: int, domain: str, weighted: bool,
                 capped: bool) -> Any:
    """z3's answer on ``prop``'s negation with ``stand_in`` for the policy."""
    neg = get_negation(prop)
    query = neg.build(stand_in, n, m, domain, neg.default_case(n), weighted=weighted, capped=capped)
    return decide(query.constraints)


@functools.lru_cache(maxsize=256)
def vacuity(prop: str, n: int, m: int, domain: str, weighted: bool = False, capped: bool = False) -> str | None:
    """Why ``prop`` says nothing at ``n x m`` on ``domain`` (no feasible
    allocation violates it), or ``None`` when some allocation does (or z3
    cannot tell: then the proof goes ahead)."""
    if _satisfiable(FEASIBLE, prop, n, m, domain, weighted, capped) != z3.unsat:
        return None
    neg = get_negation(prop)
    only = "" if neg.resources in (None, m) else f"; it speaks only of {_count(neg.resources, 'resource')}"
    return ("no feasible allocation violates the property at this size (its negation is unsatisfiable with the "
            f"policy's constraints removed){only}")


def _count(k: int, what: str) -> str:
    return f"{k} {what}{'' if k == 1 else 's'}"


def speaks_at(prop: str, n: int, m: int, domain: str) -> bool | None:
    """Whether ``prop`` rules out some Pareto-efficient allocation at ``n x
    m`` (some feasible one, for Pareto efficiency itself); ``None`` when
    z3 cannot tell."""
    stand_in = FEASIBLE if prop == "pareto-efficiency" else EFFICIENT
    answer = _satisfiable(stand_in, prop, n, m, domain, False, False)
    return None if answer == z3.unknown else answer == z3.sat


def below_speaking_size(prop: str, n: int, m: int) -> str:
    """A note for a proof at a size below the one ``prop`` speaks from
    (``""`` at or above it)."""
    a, b = get_negation(prop).speaks
    if n >= a and m >= b:
        return ""
    return (f"{prop} speaks from {_count(a, 'user')} x {_count(b, 'resource')}: at {n} x {m} every "
            "Pareto-efficient allocation satisfies it, so this proof says little about the policy")
