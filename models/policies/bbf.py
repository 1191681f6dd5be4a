"""Bottleneck-based fairness reached by a competitive market equilibrium.

Dolev, Feitelson, Halpern, Kupferman, Linial, ITCS 2012 define
bottleneck-based fairness (BBF, "no justified complaints") and ask for an
efficient way to compute a BBF allocation; Gutman and Nisan, "Fair
allocation without trade", AAMAS 2012, Section 4, show that a competitive
equilibrium in which every user's budget is its entitlement is BBF, and
that for Leontief users it is computed by the Eisenberg-Gale program
``max sum_i w_i log x_i`` (budgets ``w_i``) under the capacities and caps.

The allocation is therefore the same program as :mod:`ceei` (Ghodsi et
al., NSDI 2011, Section 5.2); this policy names it for its BBF guarantee
(checked by the ``bottleneck-based-fairness`` property). The property
itself lives in :mod:`analyzer.properties.bottleneck_based`.
"""

from __future__ import annotations

from ..policy import register
from .ceei import CEEI


@register
class BBF(CEEI):
    """Competitive equilibrium from entitlements (budgets ``w_i``): a BBF allocation.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.load("examples/paper_two_users.toml")  # R <9, 18>, A <1, 4>, B <3, 1>
    >>> [round(float(v) * 11, 6) for v in BBF().solve(inst).x]
    [45.0, 18.0]
    """

    name = "bbf"
    description = "Bottleneck-based fairness via the market equilibrium from entitlements (= CEEI program)"
    source = "Dolev et al., ITCS 2012; Gutman and Nisan, AAMAS 2012, Section 4"
