"""The class of bounded integer instances as a numbered grid.

An instance of the class (Ghodsi et al., NSDI 2011, Section 2 model: one
pool of ``m`` resources, ``n`` Leontief users) is a *point*:
``(capacity, users)`` with ``capacity`` a tuple of ``m`` integers in
``1..K`` and ``users`` a tuple of ``n`` triples ``(demand, weight, cap)``:
``demand`` ``m`` integers in ``1..K`` (domain ``"positive"``) or ``0..K``
with some entry positive (domain ``"zeros"``), ``weight`` in ``1..K`` (``1``
when unweighted) and ``cap`` in ``0..K`` (a cap of 0 as
:class:`models.Instance` and the search allow it) or :data:`NO_CAP` (always
:data:`NO_CAP` when uncapped). Every point has an index in
``range(space.size)`` (mixed radix, capacity most significant), so a chunk
of the class is a range of indices and needs no list to be shipped.

Weight vectors with a common factor are not points of their own: scaling
every weight by ``c`` changes no allocation and no property (the filling
key ``tasks_i c_i / w_i`` keeps its order and ties, and every property
reads weights only as ratios ``w_i / w_j`` or ``w_i / sum(w)``), so a
weight vector stands for its multiples within the bound
(:meth:`Space.copies`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from models import Instance

#: The cap of an uncapped user in a point (grid digit 0; digit ``d``
#: stands for the cap ``d - 1``).
NO_CAP = -1
#: A user of a point: (demand row, weight, cap).
User = tuple[tuple[int, ...], int, int]
#: A point: (capacity, users).
Point = tuple[tuple[int, ...], tuple[User, ...]]
#: The demand domains.
DOMAINS: tuple[str, ...] = ("positive", "zeros")


@dataclass(frozen=True)
class Space:
    """The bounded integer instances of one size.

    Parameters
    ----------
    users, resources : int
    bound : int
        ``K``: capacities, demands, weights and caps at most ``K``.
    domain : {"positive", "zeros"}
    weighted, capped : bool
        Whether weights (``1..K``) and caps (``0..K`` or none) vary.
    """

    users: int
    resources: int
    bound: int
    domain: str = "positive"
    weighted: bool = False
    capped: bool = False

    @property
    def low(self) -> int:
        """The least demand entry."""
        return 0 if self.domain == "zeros" else 1

    @cached_property
    def radices(self) -> tuple[int, ...]:
        """Digit bases, most significant first: capacity, then per user
        demand, weight, cap."""
        K, m = self.bound, self.resources
        per_user = (K - self.low + 1,) * m + (K if self.weighted else 1,) + (K + 2 if self.capped else 1,)
        return (K,) * m + per_user * self.users

    @cached_property
    def size(self) -> int:
        """Number of indices (points before removing invalid rows and
        weight multiples)."""
        return math.prod(self.radices)

    @cached_property
    def class_size(self) -> int:
        """Number of instances in the class (every weight vector counted)."""
        K, m, n = self.bound, self.resources, self.users
        rows = K ** m if self.domain == "positive" else (K + 1) ** m - 1
        return K ** m * rows ** n * (K ** n if self.weighted else 1) * ((K + 2) ** n if self.capped else 1)

    def decode(self, index: int, every_weight: bool = False) -> Point | None:
        """The point of ``index``, or ``None`` when it is not a point of its
        own (an all-zero demand row, or, unless ``every_weight``, weights
        with a common factor)."""
        digits = []
        for base in reversed(self.radices):
            index, d = divmod(index, base)
            digits.append(d)
        digits.reverse()
        m = self.resources
        cap = tuple(d + 1 for d in digits[:m])
        users = []
        for k in range(self.users):
            block = digits[m + k * (m + 2): m + (k + 1) * (m + 2)]
            row = tuple(d + self.low for d in block[:m])
            if not any(row):
                return None
            users.append((row, block[m] + 1, block[m + 1] - 1))
        if self.weighted and not every_weight and math.gcd(*(u[1] for u in users)) > 1:
            return None
        return cap, tuple(users)

    def copies(self, point: Point) -> int:
        """How many instances of the class ``point`` stands for: its weight
        vector times every factor that stays within the bound."""
        return self.bound // max(u[1] for u in point[1]) if self.weighted else 1

    def to_dict(self) -> dict[str, Any]:
        """The class, JSON-ready."""
        return {"users": self.users, "resources": self.resources, "bound": self.bound, "domain": self.domain,
                "weighted": self.weighted, "capped": self.capped}

    def describe(self) -> str:
        """The class in words."""
        K = self.bound
        demands = f"demands in {self.low}..{K}" + (" (each user needing some resource)" if self.low == 0 else "")
        weights = f"weights in 1..{K}" if self.weighted else "equal weights"
        caps = f"caps in 0..{K} or none" if self.capped else "no caps"
        return (f"{self.users} users x {self.resources} resources, capacities in 1..{K}, {demands}, {weights}, "
                f"{caps}, one pool")


def to_instance(point: Point) -> Instance:
    """The :class:`~models.Instance` of a point (users ``u0..``, resources
    ``r0..``; exact integers)."""
    cap, users = point
    weights = [u[1] for u in users]
    caps = [None if u[2] == NO_CAP else u[2] for u in users]
    return Instance.from_exact(list(cap), [list(u[0]) for u in users],
                               weights=weights if any(w != 1 for w in weights) else None,
                               max_tasks=caps if any(c is not None for c in caps) else None)


def to_point(instance: Instance) -> Point:
    """The point of an instance of whole numbers (inverse of
    :func:`to_instance`)."""
    users = tuple((tuple(int(v) for v in row), int(w), NO_CAP if k is None else int(k))
                  for row, w, k in zip(instance.demands_exact, instance.weights_exact, instance.max_tasks_exact,
                                       strict=True))
    return tuple(int(c) for c in instance.capacity_exact), users
