"""The instance in exact numbers and the CEEI active set (priced resources,
users held at their cap): the guess a numeric solution suggests and its
neighbours, tried in order by :func:`proofs.ceei_exact.solve_ceei_exact`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import numpy as np

from models import Instance
from models.tolerances import DUAL_TOL, FEASIBILITY_RTOL

#: How many of the most ambiguous active-set decisions are flipped in pairs
#: when the guessed active set fails verification.
PAIR_FLIP_DEPTH: int = 4


@dataclass(frozen=True)
class ExactData:
    """Demands, capacities, weights and caps (``None``: no cap) as Fractions."""

    D: tuple[tuple[Fraction, ...], ...]
    R: tuple[Fraction, ...]
    w: tuple[Fraction, ...]
    k: tuple[Fraction | None, ...]

    @property
    def n(self) -> int:
        return len(self.D)

    @property
    def m(self) -> int:
        return len(self.R)

    def live(self) -> list[int]:
        """Users not capped at zero (the others hold nothing)."""
        return [i for i, k in enumerate(self.k) if k is None or k > 0]

    def cap(self, i: int) -> Fraction:
        """The cap of user ``i``, one known to have a cap (a capped user of
        an active set).

        Raises
        ------
        ValueError
            When user ``i`` has no cap.
        """
        k = self.k[i]
        if k is None:
            raise ValueError(f"user {i} has no cap")
        return k


@dataclass(frozen=True)
class ActiveSet:
    """Priced resources ``binding`` and users at their cap ``capped``."""

    binding: tuple[int, ...]
    capped: tuple[int, ...]


def exact_data(instance: Instance) -> ExactData:
    """``instance`` in exact numbers."""
    return ExactData(D=instance.demands_exact, R=instance.capacity_exact, w=instance.weights_exact,
                 k=instance.max_tasks_exact)


def estimate_prices(instance: Instance, x: np.ndarray, capped: Sequence[int], tight: Sequence[int]) -> np.ndarray:
    """Prices from the stationarity of the uncapped users, ``w_i / x_i = p . d_i``,
    by non-negative least squares over the ``tight`` resources (float)."""
    from scipy.optimize import nnls

    p = np.zeros(instance.m)
    k = instance.max_tasks
    unc = [i for i in range(instance.n) if k[i] > 0 and i not in set(capped) and x[i] > 0]
    if not unc or not tight:
        return p
    A = instance.demands[np.ix_(unc, list(tight))]
    b = instance.weights[unc] / x[unc]
    scale = np.maximum(np.abs(b), np.finfo(float).tiny)
    sol, _ = nnls(A / scale[:, None], b / scale)
    p[list(tight)] = sol
    return p


def guess_active_set(instance: Instance, x: np.ndarray) -> tuple[ActiveSet, list[tuple[float, str, int]]]:
    """The active set suggested by a numeric solution ``x``, and the
    decisions ranked from most to least ambiguous (``(margin, kind, index)``
    with kind ``"resource"`` or ``"user"``) for the neighbour search."""
    D, R, w, k = instance.demands, instance.capacity, instance.weights, instance.max_tasks
    usage = x @ D
    slack = 1 - usage / R
    fin = np.isfinite(k) & (k > 0)
    at_cap = fin & (x >= k * (1 - FEASIBILITY_RTOL))
    capped = [int(i) for i in np.flatnonzero(at_cap)]
    tight = [int(j) for j in np.flatnonzero(slack <= FEASIBILITY_RTOL)]
    p = estimate_prices(instance, x, capped, tight)
    budget = float(w[(k > 0) & ~at_cap].sum()) or 1.0
    rel_price = p * R / budget
    binding = tuple(j for j in tight if rel_price[j] > DUAL_TOL)
    kk = np.where(fin, k, 1.0)
    mu = np.where(fin, (w / kk - D @ p) * kk / w, 0.0)  # multiplier as a fraction of the budget
    caps = tuple(i for i in capped if mu[i] > DUAL_TOL)
    margins: list[tuple[float, str, int]] = []
    for j in range(instance.m):
        margins.append((max(abs(float(slack[j])), float(rel_price[j])), "resource", j))
    for i in np.flatnonzero(fin):
        gap = abs(1 - float(x[i]) / float(k[i]))
        margins.append((max(gap, abs(float(mu[i]))), "user", int(i)))
    margins.sort()
    return ActiveSet(binding=binding, capped=caps), margins


def neighbour_sets(first: ActiveSet, margins: list[tuple[float, str, int]]) -> Iterator[ActiveSet]:
    """``first``, then every single flip of one decision (most ambiguous
    first), then pairs of flips among the :data:`PAIR_FLIP_DEPTH` most
    ambiguous decisions."""

    def flip(a: ActiveSet, kind: str, idx: int) -> ActiveSet:
        if kind == "resource":
            b = set(a.binding) ^ {idx}
            return ActiveSet(tuple(sorted(b)), a.capped)
        c = set(a.capped) ^ {idx}
        return ActiveSet(a.binding, tuple(sorted(c)))

    seen = {first}
    yield first
    decisions = [(kind, idx) for _, kind, idx in margins]
    for kind, idx in decisions:
        cand = flip(first, kind, idx)
        if cand not in seen:
            seen.add(cand)
            yield cand
    for (k1, i1), (k2, i2) in combinations(decisions[:PAIR_FLIP_DEPTH], 2):
        cand = flip(flip(first, k1, i1), k2, i2)
        if cand not in seen:
            seen.add(cand)
            yield cand

