"""Sharing incentive below ``v`` as a formula: some user runs fewer than
``v`` times the tasks of its ``1/n`` slice, ``x_i < v / (n s_i)`` with
``s_i = max_j d_ij / R_j`` (unweighted: Ghodsi et al., NSDI 2011,
Section 3), i.e. ``n x_i s_i < v``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import z3

from . import BOUNDS, BoundEncoding
from .efficiency import dominant_share_terms


def sharing_incentive_below(mk: Any, x: Sequence[Any], v: Fraction) -> list[Any]:
    """Constraints satisfiable exactly when some user has less than ``v`` of its slice's tasks."""
    s, cons = dominant_share_terms(mk)
    return cons + [z3.Or([mk.n * x[i] * s[i] < z3.RealVal(v) for i in range(mk.n)])]


BOUNDS.register("sharing-incentive", BoundEncoding("sharing-incentive", Fraction(0), sharing_incentive_below))
