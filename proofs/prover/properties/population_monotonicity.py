"""Population monotonicity, negated (Ghodsi et al., NSDI 2011, Section 6):
when the last user leaves (the others keep their weights and caps), user 0
(any remaining user, by symmetry) runs fewer tasks."""

from __future__ import annotations

from ..encodings import Encoding
from . import Query, allocated, register_negation, tasks, witness


@register_negation("population-monotonicity", distinguished=1, min_users=2, last_distinguished=True,
                   weighted=True, capped=True)
def build(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, dom, **cls)
    small = mk.without(n - 1)
    y = tasks("z", n - 1)
    return Query(cons + enc.formula(small, y, "b") + [y[0] < x[0]], witness(mk))
