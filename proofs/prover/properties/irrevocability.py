"""Irrevocability, negated (Kash, Procaccia and Shah, JAIR 51, 2014,
Section 2, as :class:`analyzer.properties.irrevocability.Irrevocability`
defines it): after some arrival a user present before it holds fewer
tasks than before."""

from __future__ import annotations

import z3

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, register_negation, witness
from ._dynamic import EVERY_USER, dynamic_allocated


@register_negation("irrevocability", distinguished=EVERY_USER, min_users=2, weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, xs, cons, _ = dynamic_allocated(enc, n, m, domain, case.dom, **cls)
    drop = [xs[k][i] < xs[k - 1][i] for k in range(1, n) for i in range(k)]
    return Query(cons + [z3.Or(drop)], witness(mk))
