"""Symmetries of the bounded class: check one instance per orbit.

Two groups act on a point (:mod:`.space`): permutations of the resources
(columns of the capacity and of every demand row) and permutations of the
users (whole triples demand, weight, cap). The grid is closed under both,
so it is the disjoint union of orbits; the prover checks the orbit's
canonical member (:func:`canonical`, the least image) and counts the
orbit's size (:func:`orbit_size`), and the sum of the sizes must equal the
size of the class (checked at the end of every run).

Why checking one member decides the whole orbit:

* **Resources.** For a policy in :data:`RESOURCE_SYMMETRIC` the share of
  one task is a symmetric function of the columns ``d_ij / R_j`` (DRF: the
  maximum, Ghodsi et al., NSDI 2011, Section 4; asset fairness: the sum,
  Section 5.1; leximin on tasks: the constant 1), so renaming resources
  changes no key and no tie-break rank (``largest-task`` compares those
  keys); one pool has no placement; and every property (Section 3) speaks
  of all resources alike (sharing incentive: ``1/n`` of *every* resource;
  strategy-proofness: every report within the bound, a set closed under
  renaming; resource monotonicity: every growth within the bound, likewise).
  Other policies, and properties registered by a user, get no resource
  reduction.
* **Users.** Progressive filling (Algorithm 1) looks at user labels only to
  break ties: the engine ranks users by (task size, input position) with
  the ``largest-task``/``smallest-task`` tie-breaks, where the task size is
  the filling key's rate ``c_i / w_i``. If, on an instance, no two users
  that differ (demand, weight, cap, or the role the property gives them,
  such as the liar of strategy-proofness) have equal rates, the input
  position never decides anything between different users, so permuting the
  users permutes the outcome (identical users may swap their counts, which
  no property can tell apart, and their relative order is the same in every
  deviated instance derived from one instance). The properties are
  symmetric in users. So a deviation of the canonical member whose
  evaluated instances have no such :func:`ties` has the same verdict on
  every member of the orbit. More generally the verdict of a deviation on
  a member depends only on the relative input order of the tied pairs (in
  any of its evaluated instances); :func:`within_ties` gives one member for
  every such order (all orders of each connected group of tied users, on
  the group's positions), which covers the orbit. Policies without linear
  rates, or with another tie-break, are evaluated on every user
  permutation.
* **Weights** (:mod:`.space`): a common factor of all weights changes
  nothing.

Scaling one resource (its capacity and demands) by a common factor is not
used: it maps an integer report or growth within the bound outside the
grid, so strategy-proofness and resource monotonicity would lose cases.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from models import Instance, Policy
from models.discrete import LinearShare, get_discrete_policy

from .space import Point

#: Policies whose share of one task is a symmetric function of the columns
#: ``d_ij / R_j`` (see the module docstring).
RESOURCE_SYMMETRIC: frozenset[str] = frozenset({"drf", "asset", "leximin-tasks"})
#: Policies whose rate of user ``i`` depends on its own demand, weight and
#: the capacities only (DRF, asset fairness, leximin on tasks): removing a
#: user leaves the others' rates as they were.
OWN_RATES: frozenset[str] = RESOURCE_SYMMETRIC
#: The package whose filling policies get the user reduction.
BUILT_IN = "models.policies."
#: Tie-breaks that rank by task size first, then input position.
SIZE_TIE_BREAKS: frozenset[str] = frozenset({"largest-task", "smallest-task"})


def linear_rates(policy: Policy) -> LinearShare | None:
    """The policy's discrete form when the user argument of the module
    docstring applies to it, else ``None``: linear keys, a size-first
    tie-break, and a share function of the package (:mod:`models.policies`,
    whose shares treat every row alike; a policy written by a user might
    read a row's position, so its instances get every user order)."""
    dp = get_discrete_policy(policy)
    if (isinstance(dp, LinearShare) and dp.default_tie_break in SIZE_TIE_BREAKS and not dp.global_keys
            and type(dp.policy).__module__.startswith(BUILT_IN)):
        return dp
    return None


def _column_images(point: Point, resources: bool) -> list[Point]:
    """The point with its columns permuted (every permutation when
    ``resources``, else the identity), users sorted."""
    cap, users = point
    out = []
    perms = itertools.permutations(range(len(cap))) if resources else [tuple(range(len(cap)))]
    for tau in perms:
        moved = tuple(sorted((tuple(row[j] for j in tau), w, k) for row, w, k in users))
        out.append((tuple(cap[j] for j in tau), moved))
    return out


def canonical(point: Point, resources: bool) -> Point:
    """The least image of ``point`` under user permutations and, when
    ``resources``, resource permutations."""
    return min(_column_images(point, resources))


def orbit_size(point: Point, resources: bool) -> int:
    """Number of distinct points in the orbit of ``point``."""
    total = 0
    for _, users in set(_column_images(point, resources)):
        counts = Counter(users)
        total += math.factorial(len(users)) // math.prod(math.factorial(c) for c in counts.values())
    return total


def user_members(point: Point) -> list[tuple[tuple[int, ...], Point]]:
    """Every distinct user permutation of ``point`` as ``(perm, member)``
    with ``member``'s user ``k`` being ``point``'s user ``perm[k]`` (for
    equal members the first permutation is kept)."""
    cap, users = point
    seen: dict[tuple[Any, ...], tuple[int, ...]] = {}
    for perm in itertools.permutations(range(len(users))):
        seen.setdefault(tuple(users[p] for p in perm), perm)
    return [(perm, (cap, seq)) for seq, perm in seen.items()]


def ties(share: LinearShare | None, instance: Instance, roles: Sequence[Any] | None = None, *,
         demands: Sequence[Sequence[int]] | None = None, capacity: Sequence[int] | None = None
         ) -> set[tuple[int, int]] | None:
    """The pairs ``(a, b)``, ``a < b``, of users of ``instance`` that differ
    (demand, weight, cap or ``roles[i]``) but have equal filling rates: the
    only pairs whose input order can decide anything (module docstring).
    ``None`` when the argument does not apply (every order may matter).

    ``demands`` / ``capacity`` replace the instance's (a deviated instance
    without building it: the rates come from the policy's share function on
    exact arrays, as :class:`~models.discrete.LinearShare` computes them).
    """
    if share is None:
        return None
    D = [list(row) for row in (demands if demands is not None else instance.demands_exact)]
    rates = share.rates(instance, D, capacity)
    keys = list(zip(map(tuple, D), instance.weights_exact, instance.max_tasks_exact,
                    roles if roles is not None else [None] * instance.n, strict=True))
    return {(a, b) for a, b in itertools.combinations(range(instance.n), 2)
            if rates[a] == rates[b] and keys[a] != keys[b]}


def within_ties(point: Point, pairs: set[tuple[int, int]] | None) -> list[tuple[tuple[int, ...], Point]]:
    """The user permutations of ``point`` that decide the orbit when only
    the relative order of the tied ``pairs`` matters: every order of each
    connected group of tied users, placed on the group's own positions
    (every other user stays); all of :func:`user_members` when ``pairs`` is
    ``None``. As ``(perm, member)``, ``member``'s user ``k`` being
    ``point``'s user ``perm[k]``; not deduplicated."""
    cap, users = point
    n = len(users)
    if pairs is None:
        return [(perm, (cap, tuple(users[p] for p in perm))) for perm in itertools.permutations(range(n))]
    group = list(range(n))

    def root(a: int) -> int:
        while group[a] != a:
            a = group[a]
        return a

    for a, b in pairs:
        group[root(b)] = root(a)
    comps = [[k for k in range(n) if root(k) == r] for r in sorted({root(k) for k in range(n)})]
    out = []
    for orders in itertools.product(*(itertools.permutations(c) for c in comps)):
        perm = list(range(n))
        for c, order in zip(comps, orders, strict=True):
            for pos, who in zip(c, order, strict=True):
                perm[pos] = who
        out.append((tuple(perm), (cap, tuple(users[p] for p in perm))))
    return out
