"""The group tree of an instance, for the hierarchical policies.

Users are leaves; groups (scenario key ``group = "a/b"``, weights from the
top-level ``[groups."a/b"]`` tables, default 1) are internal nodes; users
without a group hang from the root. This is the weighted tree of
Bhattacharya et al., "Hierarchical Scheduling for Diverse Datacenter
Workloads", SoCC 2013, Section 2: a node's weight counts only against its
siblings'.

Examples
--------
>>> from models import Instance
>>> inst = Instance.from_dict({"resources": {"cpu": 1, "gpu": 1},
...     "users": {"a": {"demand": {"cpu": 1}, "group": "g"},
...               "b": {"demand": {"gpu": 1}, "group": "g"},
...               "c": {"demand": {"gpu": 1}}},
...     "groups": {"g": {"weight": 2}}})
>>> t = Tree.of(inst)
>>> [t.label[k] for k in t.children[ROOT]], t.weight[t.children[ROOT][0]]
(['g', 'c'], Fraction(2, 1))
>>> t.leaves_under[t.children[ROOT][0]].tolist()
[0, 1]
>>> t.parent, t.leaf, t.path, list(t.groups), t.flat
((-1, 0, 1, 1, 0), (2, 3, 4), ((1, 2), (1, 3), (4,)), [1], False)
"""

from __future__ import annotations

import time
from abc import abstractmethod
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from .allocation import Allocation
from .instance import Instance
from .policy import Policy

#: Node id of the root.
ROOT: int = 0


@dataclass(frozen=True, eq=False)
class Tree:
    """A rooted tree: node 0 is the root, then the groups, then the users.

    Attributes
    ----------
    label : tuple of str
        ``""`` for the root, the group path, or the user name.
    weight : tuple of Fraction
        Weight of each node relative to its siblings (root: 1).
    children : tuple of tuple of int
        Child node ids, groups first (sorted by path), then users in
        instance order.
    user : tuple of int
        ``user[k]`` is the user index of leaf ``k`` (``-1`` for groups).
    leaves_under : tuple of ndarray
        User indices of the leaves below each node (a leaf: itself).
    postorder : tuple of int
        Node ids, every child before its parent.

    Notes
    -----
    Groups are numbered by depth, then path, so every child comes after
    its parent; derived views (:attr:`parent`, :attr:`leaf`, :attr:`path`,
    :attr:`groups`, :attr:`flat`) are computed once, on first use.
    """

    label: tuple[str, ...]
    weight: tuple[Fraction, ...]
    children: tuple[tuple[int, ...], ...]
    user: tuple[int, ...]
    leaves_under: tuple[np.ndarray, ...]
    postorder: tuple[int, ...]

    @classmethod
    def of(cls, instance: Instance) -> Tree:
        """The tree given by ``instance.extensions.group``."""
        ext = instance.extensions
        paths = sorted({"/".join(g.split("/")[: k + 1]) for g in ext.group.values()
                        for k in range(g.count("/") + 1)}, key=lambda p: (p.count("/"), p))
        index = {p: k + 1 for k, p in enumerate(paths)}
        label = ["", *paths, *instance.users]
        weight = [Fraction(1), *(ext.group_weights.get(p, Fraction(1)) for p in paths),
                  *instance.weights_exact]
        kids: list[list[int]] = [[] for _ in label]
        for p in paths:
            kids[index[p.rpartition("/")[0]] if "/" in p else ROOT].append(index[p])
        first = len(paths) + 1
        for i, u in enumerate(instance.users):
            g = ext.group.get(u)
            kids[index[g] if g is not None else ROOT].append(first + i)
        user = [-1] * first + list(range(instance.n))
        post: list[int] = []
        stack = [(ROOT, False)]
        while stack:
            k, done = stack.pop()
            if done:
                post.append(k)
                continue
            stack.append((k, True))
            stack.extend((c, False) for c in reversed(kids[k]))
        under: list[np.ndarray] = [np.zeros(0, dtype=int)] * len(label)
        for k in post:
            under[k] = (np.array([user[k]]) if user[k] >= 0
                        else np.concatenate([under[c] for c in kids[k]]).astype(int))
        return cls(label=tuple(label), weight=tuple(weight), children=tuple(tuple(c) for c in kids),
                   user=tuple(user), leaves_under=tuple(under), postorder=tuple(post))

    def is_leaf(self, k: int) -> bool:
        """True when node ``k`` is a user."""
        return self.user[k] >= 0

    @cached_property
    def parent(self) -> tuple[int, ...]:
        """Parent of every node (``-1`` for the root)."""
        out = [-1] * len(self.label)
        for k, kids in enumerate(self.children):
            for c in kids:
                out[c] = k
        return tuple(out)

    @cached_property
    def leaf(self) -> tuple[int, ...]:
        """``leaf[i]`` is the node of user ``i`` (users are the last nodes)."""
        return tuple(k for k, u in enumerate(self.user) if u >= 0)

    @cached_property
    def groups(self) -> range:
        """Node ids of the groups (between the root and the users)."""
        return range(ROOT + 1, len(self.label) - len(self.leaf))

    @cached_property
    def path(self) -> tuple[tuple[int, ...], ...]:
        """Per user, the nodes from the root's child down to its leaf
        (the root excluded)."""
        out = []
        for k in self.leaf:
            p = [k]
            while self.parent[p[-1]] != ROOT:
                p.append(self.parent[p[-1]])
            out.append(tuple(reversed(p)))
        return tuple(out)

    @property
    def flat(self) -> bool:
        """True when no user is in a group."""
        return not self.groups


def group_reason(instance: Instance) -> str | None:
    """The reason a hierarchical policy does not apply (no group tree)."""
    if not instance.extensions.group:
        return "needs a group tree (users with group = \"a/b\")"
    return None


@dataclass(frozen=True, eq=False)
class TreeData:
    """An instance's tree and numbers in one arithmetic (floats or Fractions).

    ``caps[i]`` is ``None`` for an unbounded user; ``weight`` is per node.
    """

    tree: Tree
    demands: np.ndarray
    capacity: np.ndarray
    caps: list[Any]
    weight: list[Any]
    zero: Any

    @classmethod
    def of(cls, instance: Instance, exact: bool) -> TreeData:
        """Fraction object arrays when ``exact``, float arrays otherwise."""
        tree = Tree.of(instance)
        if exact:
            return cls(tree=tree, demands=np.array([list(r) for r in instance.demands_exact], dtype=object),
                       capacity=np.array(list(instance.capacity_exact), dtype=object),
                       caps=list(instance.max_tasks_exact), weight=list(tree.weight), zero=Fraction(0))
        return cls(tree=tree, demands=np.asarray(instance.demands, dtype=float),
                   capacity=np.asarray(instance.capacity, dtype=float),
                   caps=[None if not np.isfinite(v) else float(v) for v in instance.max_tasks],
                   weight=[float(v) for v in tree.weight], zero=0.0)


class TreePolicy(Policy):
    """A policy on the group tree: one :meth:`fill` for floats and Fractions.

    :meth:`supports` asks for a group tree (users with ``group``).
    """

    #: Solver name reported in ``Allocation.stats``.
    solver: str = "tree-filling"

    @abstractmethod
    def fill(self, data: TreeData) -> tuple[list[Any], Any]:
        """Tasks per user (in ``data``'s arithmetic) and a certificate."""

    def supports(self, instance: Instance) -> str | None:
        return super().supports(instance) or group_reason(instance)

    def _solve(self, instance: Instance, exact: bool) -> Allocation:
        t0 = time.perf_counter()
        x, cert = self.fill(TreeData.of(instance, exact))
        stats: dict[str, Any] = {"solver": ("fraction-" if exact else "numpy-") + self.solver,
                                 "seconds": time.perf_counter() - t0}
        if isinstance(cert, list):
            stats["events"] = len(cert)
        return Allocation(instance=instance, x=np.array([float(v) for v in x]), policy=self.label, exact=exact,
                          x_exact=tuple(Fraction(v) for v in x) if exact else None, stats=stats,
                          certificate=cert)

    def solve(self, instance: Instance) -> Allocation:
        return self._solve(instance, exact=False)

    def solve_exact(self, instance: Instance) -> Allocation:
        return self._solve(instance, exact=True)


__all__ = ["ROOT", "Tree", "TreeData", "TreePolicy", "group_reason"]
