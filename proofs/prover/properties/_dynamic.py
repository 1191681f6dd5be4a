"""What the negated properties of the dynamic setting share (Kash,
Procaccia and Shah, JAIR 51, 2014, Section 3): the symbolic instance and
every step of the policy on it (:func:`proofs.prover.encodings.dynamic.steps_of`).

Users are told apart by their arrival, so no two are interchangeable: the
negations distinguish every user (:data:`EVERY_USER`) and the case split
breaks the symmetry of the resources only.
"""

from __future__ import annotations

from typing import Any

from ..encodings import Encoding
from ..encodings.dynamic import steps_of, weight_totals
from ..symbolic import Market, market
from . import EVERY_USER

__all__ = ["EVERY_USER", "dynamic_allocated"]


def dynamic_allocated(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, *,
                      weighted: bool = False, capped: bool = False
                      ) -> tuple[Market, list[list[Any]], list[Any], tuple[list[Any], Any]]:
    """The symbolic instance (``R = 1``), the policy's tasks after every
    arrival, their constraints, and the weight totals ``(W_k, W)``."""
    mk, cons = market(n, m, domain, enc.normalise, dom, weighted=weighted, capped=capped)
    xs, steps = steps_of(enc)(mk, "a")
    return mk, xs, cons + steps, weight_totals(mk)
