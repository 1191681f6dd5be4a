"""Shared pieces of the production-allocator variants.

* :class:`VariantPolicy` -- the registry face of a variant: a
  :class:`~models.policy.Policy` whose only solution is discrete.
* :class:`VariantShare` -- the :class:`~models.discrete.DiscretePolicy`
  side, with per-instance preparation cached.
* :class:`GroupTree` -- the tree of groups (scenario key ``group = "a/b"``,
  weights from ``[groups."a/b"]``) with users as leaves, for the
  hierarchical variants (Mesos roles, Volcano queues).

Shares are exact: usage and totals are the engine's scaled integers
(:class:`~models.discrete.IntegerData`), ratios are ``Fraction``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ..allocation import Allocation
from ..discrete import DiscretePolicy, FillState, IntegerData
from ..errors import PolicyError
from ..instance import Instance
from ..policy import Policy


class VariantShare(DiscretePolicy):
    """A variant's discrete policy; ``self.params`` are the policy's."""

    def __init__(self, policy: VariantPolicy) -> None:
        self.policy = policy
        self.params: dict[str, Any] = policy.params
        self._prepared: tuple[Instance, Any] | None = None

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.policy.name

    @property
    def label(self) -> str:
        return self.policy.label

    def prepared(self, instance: Instance) -> Any:
        """:meth:`prepare` of ``instance``, computed once per instance."""
        if self._prepared is None or self._prepared[0] is not instance:
            self._prepared = (instance, self.prepare(instance))
        return self._prepared[1]

    def prepare(self, instance: Instance) -> Any:
        """Per-instance constants (override)."""
        return None

    def task_sizes(self, instance: Instance) -> list[Fraction]:
        """Weighted dominant share of one task over the resources of
        positive capacity (for the ``largest-task`` tie-break, which the
        variants only reach after their own tie-breaks)."""
        out = []
        for row, w in zip(instance.demands_exact, instance.weights_exact, strict=True):
            parts = [Fraction(d) / c for d, c in zip(row, instance.capacity_exact, strict=True) if c > 0]
            out.append(max(parts, default=Fraction(0)) / w)
        return out


class VariantPolicy(Policy):
    """A production allocator's DRF variant, known to the policy registry.

    Subclasses set ``name``, ``description``, ``source``, ``parameters``
    and :attr:`form`. The continuous solvers raise: these policies decide
    whole tasks (and, for some, whole machines) one at a time.
    """

    form: ClassVar[type[VariantShare]]
    discrete_only = True

    def discrete_form(self) -> VariantShare:
        """The discrete policy run by :func:`models.discrete.fill`."""
        return self.form(self)

    def supports(self, instance: Instance) -> str | None:
        """Variants accept resources of capacity 0 (each treats them its
        own way)."""
        return self.discrete_form().supports(instance)

    def solve(self, instance: Instance) -> Allocation:
        """Not defined: raises :class:`PolicyError`."""
        raise PolicyError(f"policy {self.label!r} is defined for whole tasks only: use `fairalloc discrete` "
                          f"or --mode discrete")

    def solve_exact(self, instance: Instance) -> Allocation:
        """Not defined: raises :class:`PolicyError`."""
        return self.solve(instance)


def totals(data: IntegerData) -> list[int]:
    """Scaled cluster total of every resource."""
    return [int(v) for v in data.machines.sum(axis=0)]


def usage(state: FillState, i: int) -> list[int]:
    """Scaled use of every resource by user ``i``."""
    t = int(state.tasks[i])
    return [t * int(d) for d in state.data.demands[i]]


def name_rank(instance: Instance) -> list[int]:
    """Rank of every user's name in lexicographic order."""
    order = sorted(range(instance.n), key=lambda i: instance.users[i])
    rank = [0] * instance.n
    for r, i in enumerate(order):
        rank[i] = r
    return rank


def scaled(instance: Instance, data: IntegerData, table: dict[str, dict[str, Fraction]]) -> list[list[Fraction]]:
    """A per-user ``{resource: amount}`` table (``min_share``, ``quota``)
    in the engine's scaled units (exact; missing entries are 0), one full
    row per user."""
    return [[table.get(u, {}).get(r, Fraction(0)) * data.scale[j] for j, r in enumerate(instance.resources)]
            for u in instance.users]


@dataclass(frozen=True, eq=False)
class GroupTree:
    """Groups as inner nodes, users as leaves.

    Node ``k`` has ``parent[k]`` (``-1``: the root's child), ``weight[k]``
    and ``label[k]`` (group path or user name, the name tie-break). Nodes
    are numbered so that every child comes after its parent; users are the
    last ``n`` nodes, user ``i`` being node ``leaf[i]``.
    """

    parent: tuple[int, ...]
    weight: tuple[Fraction, ...]
    label: tuple[str, ...]
    leaf: tuple[int, ...]
    path: tuple[tuple[int, ...], ...]

    @property
    def flat(self) -> bool:
        """True when no user is in a group."""
        return len(self.parent) == len(self.leaf)

    @classmethod
    def of(cls, instance: Instance) -> GroupTree:
        """The tree of ``instance``'s ``group`` keys."""
        ext = instance.extensions
        groups: list[str] = []
        for u in instance.users:
            g = ext.group.get(u)
            if g is None:
                continue
            parts = g.split("/")
            for k in range(len(parts)):
                p = "/".join(parts[: k + 1])
                if p not in groups:
                    groups.append(p)
        groups.sort(key=lambda p: (p.count("/"), p))
        index = {g: k for k, g in enumerate(groups)}
        parent = [index["/".join(g.split("/")[:-1])] if "/" in g else -1 for g in groups]
        weight = [ext.group_weights.get(g, Fraction(1)) for g in groups]
        label = list(groups)
        leaf = []
        for i, u in enumerate(instance.users):
            g = ext.group.get(u)
            parent.append(index[g] if g is not None else -1)
            weight.append(instance.weights_exact[i])
            label.append(u)
            leaf.append(len(parent) - 1)
        path = []
        for k in leaf:
            p = [k]
            while parent[p[-1]] != -1:
                p.append(parent[p[-1]])
            path.append(tuple(reversed(p)))
        return cls(parent=tuple(parent), weight=tuple(weight), label=tuple(label), leaf=tuple(leaf),
                   path=tuple(path))

    def children(self) -> dict[int, list[int]]:
        """``node -> children`` (``-1`` is the root)."""
        out: dict[int, list[int]] = {}
        for k, p in enumerate(self.parent):
            out.setdefault(p, []).append(k)
        return out

    def subtree_usage(self, state: FillState) -> list[list[int]]:
        """Scaled use of every resource by every node's subtree."""
        m = state.instance.m
        use = [[0] * m for _ in self.parent]
        for i, k in enumerate(self.leaf):
            use[k] = usage(state, i)
        for k in range(len(self.parent) - 1, -1, -1):
            p = self.parent[k]
            if p >= 0:
                row = use[p]
                for j, v in enumerate(use[k]):
                    row[j] += v
        return use


def resource_ranks(shares: list[Fraction]) -> list[Fraction]:
    """Shares sorted from the largest down (lexicographic comparison)."""
    return sorted(shares, reverse=True)


def demand_floor(data: IntegerData, users: list[int]) -> np.ndarray:
    """Per resource, the smallest demand among ``users`` (a machine with
    less free space than this in some resource fits none of them)."""
    if not users:
        return np.zeros(data.demands.shape[1], dtype=data.demands.dtype)
    return data.demands[users].min(axis=0)


__all__ = ["GroupTree", "VariantPolicy", "VariantShare", "demand_floor", "name_rank", "resource_ranks", "scaled",
           "totals", "usage"]
