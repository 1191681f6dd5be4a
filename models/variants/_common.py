"""Shared pieces of the production-allocator variants.

* :class:`VariantPolicy` -- the registry face of a variant: a
  :class:`~models.policy.Policy` whose only solution is discrete.
* :class:`VariantShare` -- the :class:`~models.discrete.DiscretePolicy`
  side, with per-instance preparation cached.
* :func:`subtree_usage` -- per node of the group tree
  (:class:`models.hierarchy.Tree`, the one builder of the tree of
  ``group = "a/b"`` keys), the use of its subtree, for the hierarchical
  variants (Mesos roles, Volcano queues).

Shares are exact: usage and totals are the engine's scaled integers
(:class:`~models.discrete.IntegerData`), ratios are ``Fraction``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ..allocation import Allocation
from ..discrete import DiscretePolicy, FillState, IntegerData
from ..errors import PolicyError
from ..hierarchy import Tree
from ..instance import Instance
from ..policy import Policy


class VariantShare(DiscretePolicy):
    """A variant's discrete policy; ``self.params`` are the policy's.

    Every variant's key ends with its scheduler's own last tie-break (file
    order, name or client path), so the engine's tie-break rank is never
    reached: the default is the cheap ``index``.
    """

    default_tie_break = "index"

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
    #: Why the simulator gives this variant no usage half-life (the part of
    #: the scheduler that is modelled orders users by what they hold now),
    #: said when a half-life key is given (:mod:`analyzer.simulation.memory`).
    memory_note: ClassVar[str] = "the modelled ordering has no usage memory"

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


def subtree_usage(tree: Tree, state: FillState) -> list[list[int]]:
    """Scaled use of every resource by every node's subtree (node ids of
    :class:`~models.hierarchy.Tree`)."""
    m = state.instance.m
    use = [[0] * m for _ in tree.parent]
    for i, k in enumerate(tree.leaf):
        use[k] = usage(state, i)
    for k in tree.postorder:
        p = tree.parent[k]
        if p >= 0:
            row = use[p]
            for j, v in enumerate(use[k]):
                row[j] += v
    return use


def demand_floor(data: IntegerData, users: list[int]) -> np.ndarray:
    """Per resource, the smallest demand among ``users`` (a machine with
    less free space than this in some resource fits none of them)."""
    if not users:
        return np.zeros(data.demands.shape[1], dtype=data.demands.dtype)
    return data.demands[users].min(axis=0)


__all__ = ["VariantPolicy", "VariantShare", "demand_floor", "name_rank", "scaled", "subtree_usage",
           "totals", "usage"]
