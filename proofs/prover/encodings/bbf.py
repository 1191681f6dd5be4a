"""BBF (Gutman and Nisan, AAMAS 2012, Section 4) as a formula: the
competitive equilibrium in which every user's budget is its entitlement
``w_i``, which for Leontief users is the weighted, capped Eisenberg-Gale
program ``max sum_i w_i log x_i`` (:mod:`models.policies.bbf` solves it as
CEEI). Its KKT conditions are :mod:`.ceei`'s formula, weights and caps
included; the policy is registered under its own name so that proofs about
``bbf`` (e.g. bottleneck-based fairness) name it.
"""

from __future__ import annotations

from . import register_encoding
from .ceei import ceei

register_encoding("bbf", "max", weighted=True, capped=True, anonymous=True, neutral=True)(ceei)
