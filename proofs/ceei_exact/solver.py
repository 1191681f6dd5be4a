"""Exact CEEI with a verified KKT certificate: guess the active set from a
numeric solve, solve it exactly (:mod:`.groebner`), try neighbours, and
fall back to an interval enclosure (:mod:`.enclosure`) beyond reach
(Ghodsi et al., NSDI 2011, Section 5.2; see :mod:`proofs.ceei_exact`)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from models import Allocation, Instance, Policy
from models.allocation import OPTIMAL, exact_str

from ..checks import Check, Verified, join_names
from .active_set import ActiveSet, exact_data, guess_active_set, neighbour_sets
from .enclosure import enclose
from .groebner import ExactSolution, solve_active_set

#: Reach of the exact path: most uncapped users for a given number of priced
#: resources (measured by benchmarks/bench_ceei_exact.py: within 10 s on the
#: 2-core development machine). With at most one priced resource the
#: solution is rational and always exact; above the last entry its value
#: applies. Beyond the reach an interval enclosure is returned instead.
EXACT_REACH: dict[int, int] = {2: 20, 3: 8, 4: 6}
#: Longest minimal-polynomial text shown in plain-words explanations.
MAX_FIELD_TEXT: int = 200


@dataclass(frozen=True)
class KKTCertificate(Verified):
    """Exact KKT certificate of a CEEI allocation.

    Attributes
    ----------
    resources, users : tuple of str
        Names, in instance order.
    prices : tuple
        ``p_j`` per resource (sympy numbers; 0 off the binding set), in the
        normalisation where budgets are the weights.
    multipliers : tuple
        ``mu_i`` per user (0 unless capped with a positive multiplier).
    binding : tuple of int
        Resources with a positive price (they are exhausted).
    capped : tuple of int
        Users held at their cap ``k_i``.
    number_field : str
        ``"Q"`` when everything is rational, otherwise the minimal
        polynomial and isolating interval of the algebraic number used.
    checks : tuple of Check
        Every KKT condition, verified exactly.
    active_sets_tried : int
        How many active sets were solved before this one verified.
    """

    resources: tuple[str, ...]
    users: tuple[str, ...]
    prices: tuple[Any, ...]
    multipliers: tuple[Any, ...]
    binding: tuple[int, ...]
    capped: tuple[int, ...]
    number_field: str
    checks: tuple[Check, ...]
    active_sets_tried: int

    def explain(self) -> list[str]:
        """Plain-words lines: prices, binding resources, capped users and the
        summary of the KKT check."""
        priced = [f"{self.resources[j]} {exact_str(self.prices[j])}" for j in self.binding]
        lines = [
            "prices (budgets = weights): " + (", ".join(priced) if priced else "all zero"),
            "exhausted resources: " + (join_names(self.resources[j] for j in self.binding) or "none"),
        ]
        if self.capped:
            lines.append("users held at their cap: " + ", ".join(
                f"{self.users[i]} (multiplier {exact_str(self.multipliers[i])})" for i in self.capped))
        if self.number_field == "Q":
            field = "rational numbers"
        elif len(self.number_field) <= MAX_FIELD_TEXT:
            field = f"the number field {self.number_field}"
        else:
            field = "Q(alpha), alpha a real algebraic number (minimal polynomial in certificate.number_field)"
        ok = sum(c.holds for c in self.checks)
        verdict = "optimal" if self.holds else "NOT verified"
        lines.append(f"KKT check in {field}: {ok}/{len(self.checks)} conditions hold "
                     "(stationarity, primal and dual feasibility, complementary slackness) -> " + verdict)
        return lines



def within_reach(n_uncapped: int, n_priced: int, max_unknowns: int | None = None) -> bool:
    """Whether the exact path is attempted: by :data:`EXACT_REACH`, or, when
    ``max_unknowns`` is given, when ``n_uncapped + n_priced <= max_unknowns``.

    Examples
    --------
    >>> within_reach(1000, 1), within_reach(20, 2), within_reach(9, 3), within_reach(3, 2, max_unknowns=4)
    (True, True, False, False)
    """
    if max_unknowns is not None:
        return n_uncapped + n_priced <= max_unknowns
    if n_priced <= 1:
        return True
    return n_uncapped <= EXACT_REACH.get(n_priced, EXACT_REACH[max(EXACT_REACH)])


def solve_ceei_exact(policy: Policy, instance: Instance, max_unknowns: int | None = None,
                     numeric: Allocation | None = None) -> Allocation:
    """Exact CEEI allocation with a verified KKT certificate.

    Parameters
    ----------
    policy : Policy
        The CEEI policy (its numeric :meth:`~models.policy.Policy.solve`
        suggests the active set).
    instance : Instance
        The problem.
    max_unknowns : int, optional
        Above this many unknowns (uncapped users + priced resources) the
        Groebner path is skipped and an interval enclosure is returned;
        by default the measured :data:`EXACT_REACH` decides.
    numeric : Allocation, optional
        A numeric solution of ``policy`` on ``instance`` to start from
        (computed when omitted). It only guides the search: whatever it
        says, the result is verified exactly.

    Returns
    -------
    Allocation
        ``exact=True`` with sympy numbers in ``x_exact`` and a
        :class:`KKTCertificate`; or, when exact solving is out of reach,
        ``exact=False`` with a :class:`CEEIEnclosure` as certificate and a
        message saying so.

    Examples
    --------
    >>> from models import Instance, get_policy
    >>> inst = Instance.load("examples/paper_two_users.toml")
    >>> a = solve_ceei_exact(get_policy("ceei"), inst)
    >>> a.x_exact, a.certificate.prices
    ((45/11, 18/11), (1/5, 1/90))
    """
    t0 = time.perf_counter()
    data = exact_data(instance)
    num, x_num = _numeric_start(policy, instance, numeric, bool(data.live()))
    first, margins = guess_active_set(instance, x_num)
    n_unc = len([i for i in data.live() if i not in first.capped])
    reach = within_reach(n_unc, len(first.binding), max_unknowns)
    tried = 0
    if reach:
        for act in neighbour_sets(first, margins):
            tried += 1
            sol = solve_active_set(data, act, x_num, (instance.users, instance.resources))
            if sol is not None:
                capped = tuple(i for i in act.capped if i in data.live())
                return _exact_allocation(policy, instance, sol, act.binding, capped, tried, t0)
    reason = (f"exact solving is out of reach for this size ({n_unc} uncapped users, {len(first.binding)} "
              "priced resources)" if not reach else f"no active set among the {tried} tried verified exactly")
    candidates = [first] if not reach else list(neighbour_sets(first, margins))[:tried or 1]
    return _enclosed_allocation(policy, num, candidates, reason, tried, t0)


def _enclosed_allocation(policy: Policy, num: Allocation, candidates: list[ActiveSet], reason: str, tried: int,
                         t0: float) -> Allocation:
    """The first active set among ``candidates`` whose optimum an interval
    enclosure proves, or the numeric solution ``num`` saying why it is not
    exact."""
    instance, x_num = num.instance, np.asarray(num.x, dtype=float)
    for act in candidates:
        enc = enclose(instance, act, x_num)
        if enc is not None and enc.holds:
            return Allocation(
                instance=instance, x=enc.midpoints(), policy=policy.label, exact=False, status=OPTIMAL,
                message=f"not exact: {reason}; the optimum is enclosed in intervals of width <= "
                        f"{enc.max_width:.1e} (rigorous interval proof, see the certificate)",
                stats={"solver": "mpmath-krawczyk", "active_sets_tried": tried,
                       "seconds": time.perf_counter() - t0},
                certificate=enc)
    return Allocation(
        instance=instance, x=x_num, policy=policy.label, exact=False, status=num.status,
        message=f"not exact: {reason}, and no interval enclosure could be proven; the numbers are floating point",
        stats={**num.stats, "active_sets_tried": tried})


def _numeric_start(policy: Policy, instance: Instance, numeric: Allocation | None,
                   any_live: bool) -> tuple[Allocation, np.ndarray]:
    """The numeric solution guiding the search (``numeric`` when given) and
    its task counts as floats."""
    if numeric is not None:
        num = numeric
    elif any_live:
        num = policy.solve(instance)
    else:  # every user is capped at zero: nothing to solve numerically
        num = Allocation(instance=instance, x=np.zeros(instance.n), policy=policy.label)
    return num, np.asarray(num.x, dtype=float)


def _exact_allocation(policy: Policy, instance: Instance, sol: ExactSolution, binding: tuple[int, ...],
                      capped: tuple[int, ...], tried: int, t0: float) -> Allocation:
    """The allocation of a verified exact KKT point, with its certificate."""
    f = sol.field
    cert = KKTCertificate(
        resources=instance.resources, users=instance.users,
        prices=tuple(f.to_sympy(v) for v in sol.p), multipliers=tuple(f.to_sympy(v) for v in sol.mu),
        binding=binding, capped=capped, number_field=f.describe(), checks=tuple(sol.checks),
        active_sets_tried=tried)
    return Allocation(
        instance=instance, x=np.array([f.to_float(v) for v in sol.x]), policy=policy.label, exact=True,
        x_exact=tuple(f.to_sympy(v) for v in sol.x), status=OPTIMAL,
        stats={"solver": "sympy-kkt", "active_sets_tried": tried, "field_degree": f.degree,
               "seconds": time.perf_counter() - t0},
        certificate=cert)
