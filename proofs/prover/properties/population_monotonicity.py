"""Population monotonicity, negated (Ghodsi et al., NSDI 2011, Section 6):
when the case's leaver goes (the others keep their weights, caps and
order), the case's victim runs fewer tasks (user 0 and the last user stand
for any pair when the policy treats users alike). It speaks from 3 users:
with 2, the one who stays is alone, and only a wasteful policy gives a
lone user less than it had."""

from __future__ import annotations

from ..encodings import Encoding
from ..symbolic import Case
from . import Query, allocated, register_negation, tasks, witness


@register_negation("population-monotonicity", distinguished=1, min_users=2, last_distinguished=True,
                   weighted=True, capped=True, speaks=(3, 1))
def build(enc: Encoding, n: int, m: int, domain: str, case: Case, **cls: bool) -> Query:
    mk, x, cons = allocated(enc, n, m, domain, case.dom, **cls)
    victim, leaver = case.roles[:2]
    small = mk.without(leaver)
    y = tasks("z", n - 1)
    stays = victim if victim < leaver else victim - 1  # the victim's index once the leaver is gone
    return Query(cons + enc.formula(small, y, "b") + [y[stays] < x[victim]], witness(mk, case))
