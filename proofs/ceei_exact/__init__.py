"""Exact CEEI: the KKT system of the weighted Eisenberg-Gale program solved
in exact arithmetic, with a verified optimality certificate.

Ghodsi et al., NSDI 2011, Section 5.2: with Leontief users, CEEI maximises
``sum_i w_i log x_i`` subject to ``sum_i x_i d_ij <= R_j`` (every resource
``j``) and ``0 <= x_i <= k_i`` (caps). The program is convex, so a point
satisfying the KKT conditions is *the* optimum (the objective is strictly
concave in ``x``, so the task counts are unique). With prices ``p_j >= 0``
on the capacities and multipliers ``mu_i >= 0`` on the caps, the KKT
conditions read

* stationarity: ``w_i / x_i = p . d_i + mu_i``;
* primal feasibility: ``sum_i x_i d_ij <= R_j``, ``0 < x_i <= k_i``;
* dual feasibility: ``p >= 0``, ``mu >= 0``;
* complementary slackness: ``p_j (R_j - sum_i x_i d_ij) = 0`` and
  ``mu_i (k_i - x_i) = 0``.

The prices are in the normalisation where each user's budget is its weight
(``x_i (p . d_i) = w_i`` for an uncapped user); on the paper's example they
are ``1/5`` per CPU and ``1/90`` per GB.

Method. A numeric solve (:mod:`models.policies.ceei`) suggests the *active
set*: the resources with a positive price (``B``) and the users held at
their cap with a positive multiplier (``C``). For that guess the equalities
``x_i (p . d_i) = w_i`` (``i`` uncapped) and ``sum_i x_i d_ij = R_j``
(``j`` in ``B``) form a polynomial system; its lexicographic Groebner basis
gives every unknown as a polynomial in one algebraic number ``alpha`` (the
real root of an irreducible polynomial, chosen next to the numeric
solution). All KKT conditions are then checked in ``Q(alpha)``: equalities
by reduction modulo the minimal polynomial, signs by exact rational
interval arithmetic on an isolating interval of ``alpha``. If the guess
fails, neighbouring active sets are tried. When the system is too large
for Groebner bases, a Krawczyk interval-Newton test (``mpmath.iv``) proves
that the price system has a unique root in a small box and checks every
inequality on it: the result is then a rigorous *enclosure*, and the
allocation says so (``exact=False``).
"""

from .active_set import ActiveSet, estimate_prices, guess_active_set, neighbour_sets
from .algebraic import RealAlgebraic
from .enclosure import CEEIEnclosure, enclose
from .solver import EXACT_REACH, KKTCertificate, solve_ceei_exact, within_reach

__all__ = ["ActiveSet", "CEEIEnclosure", "KKTCertificate", "RealAlgebraic", "enclose", "estimate_prices",
           "guess_active_set", "neighbour_sets", "solve_ceei_exact", "within_reach", "EXACT_REACH"]
