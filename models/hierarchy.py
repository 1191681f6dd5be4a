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
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .instance import Instance

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


def group_reason(instance: Instance) -> str | None:
    """The reason a hierarchical policy does not apply (no group tree)."""
    if not instance.extensions.group:
        return "needs a group tree (users with group = \"a/b\")"
    return None


__all__ = ["ROOT", "Tree", "group_reason"]
