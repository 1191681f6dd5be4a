"""Slot-based fair sharing (:mod:`models.policies.slots`; Ghodsi et al.,
NSDI 2011, Section 7.2) as a formula: weighted, capped max-min on the
slots held, ``c_i x_i`` with ``c_i = ceil(S max_j d_ij / R_j) / S`` slots
per task over the ``S`` slots of the pool (the instances have no machines,
so ``S`` is the parameter ``slots``), by bottlenecks
(:func:`.filling.bottleneck`).

The whole number of slots per task, ``ceil(S u_i)`` with ``u_i`` the
dominant share of one task, is an integer variable ``k_i`` with ``k_i - 1 <
S u_i <= k_i`` (z3 decides the mixed integer and real formula). Task sizes
matter (a larger task may take more slots), so no per-user normalisation
is used. Every share is positive: there is one filling phase.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import z3

from models import get_policy
from models.policies.slots import SlotFairSharing

from ..symbolic import Market
from . import Encoding, register_encoding_factory
from .filling import _dominant_shares, bottleneck


def slot_filling(total: int) -> Callable[[Market, Sequence[Any], str], list[Any]]:
    """Max-min on slots held, with ``total`` slots in the pool."""

    def formula(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
        u, cons = _dominant_shares(mk, [z3.RealVal(1)] * mk.n, f"{tag}sl")
        k = [z3.ToReal(z3.Int(f"{tag}k{i}")) for i in range(mk.n)]  # slots per task
        for i in range(mk.n):
            cons += [k[i] >= total * u[i], k[i] < total * u[i] + 1]
        return cons + bottleneck(mk, x, [k[i] * x[i] for i in range(mk.n)])

    formula.__doc__ = f"Max-min on whole slots per task, {total} slots in the pool."
    return formula


def encode(params: dict[str, Any]) -> Encoding | str:
    """The encoding for the policy's ``slots`` parameter (default 4)."""
    pol = get_policy("slots", **params)  # PolicyError for a bad parameter (bad input)
    return Encoding(pol.label, None, slot_filling(cast(SlotFairSharing, pol).slots), weighted=True, capped=True,
                    anonymous=True, neutral=True)


register_encoding_factory("slots", encode)
