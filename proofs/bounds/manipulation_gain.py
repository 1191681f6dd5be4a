"""Manipulation gain above ``v`` as a query: user 0 reports a demand ``r``
and, with the allocation ``y`` of the lied instance, its bundle ``y_0 r``
runs more than ``v`` times its truthful tasks, ``y_0 r_j > v x_0 d_0j`` for
every resource ``j`` it uses (Ghodsi et al., NSDI 2011, Section 3,
strategy-proofness; ``v = 1`` is its negation). The lie is encoded as
:mod:`proofs.prover.properties.strategy_proofness` encodes it, symbolic
rows and the report's own dominant resource in the case split, and the
query is that negation with the factor ``v``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from . import BOUNDS, BoundEncoding


def gain_above(enc: Any, n: int, m: int, domain: str, case: Any, v: Fraction) -> Any:
    """The query "a lie of the case's liar (user 0 when the policy is
    anonymous) runs more than ``v`` times its truthful tasks" in one case of
    the strategy-proofness split (witness: demands, report and, when the
    case names the users, ``"roles"``)."""
    from proofs.prover.properties import get_negation

    return get_negation("strategy-proofness").build(enc, n, m, domain, case, factor=v)


BOUNDS.register("manipulation-gain", BoundEncoding("manipulation-gain", None, deviation=gain_above,
                                                   negation="strategy-proofness"))
