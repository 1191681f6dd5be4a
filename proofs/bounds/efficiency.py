"""Efficiency below ``v`` as a formula: some feasible allocation ``z`` has
``v * sum_i s_i z_i > sum_i s_i x_i``, with ``s_i = max_j d_ij`` the
dominant share of one task at unit capacities (Parkes, Procaccia and Shah,
EC 2012, Section 5). With the max normalisation of a known dominant
resource ``s_i = 1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import z3

from proofs.prover.encodings.alpha_fair import dominant_shares

from . import BOUNDS, BoundEncoding


def dominant_share_terms(mk: Any) -> tuple[list[Any], list[Any]]:
    """``s_i = max_j d_ij / R_j`` as terms, with their defining constraints
    (FDS's utility of one task: :func:`proofs.prover.encodings.alpha_fair.dominant_shares`)."""
    return dominant_shares(mk, "eff_")


def efficiency_below(mk: Any, x: Sequence[Any], v: Fraction) -> list[Any]:
    """Constraints satisfiable exactly when ``x`` has efficiency below ``v``."""
    s, cons = dominant_share_terms(mk)
    z = [z3.Real(f"eff_z{i}") for i in range(mk.n)]
    best = z3.Sum([s[i] * z[i] for i in range(mk.n)])
    got = z3.Sum([s[i] * x[i] for i in range(mk.n)])
    return cons + mk.feasible(z) + [z3.RealVal(v) * best > got]


BOUNDS.register("efficiency", BoundEncoding("efficiency", Fraction(0), efficiency_below))
