"""Naive recursive DRF on a group tree (the baseline of H-DRF).

The approach that Bhattacharya et al., "Hierarchical Scheduling for Diverse
Datacenter Workloads", SoCC 2013 (Sections 3-4), show to be wrong for
multiple resources: treat every subtree as one user whose demand is the
subtree's aggregate, run DRF at each internal node, recursively.

Definition used here (continuous, Leontief):

* the per-unit demand of a leaf is its task vector ``d_i``; that of a group
  is the sum of its children's (the sum of the ``d_i`` below it);
* a group's cap is unbounded unless every user below it is capped; then it
  is the largest ``t`` with ``t * D_g <= sum_i k_i d_i`` (its total demand);
* at the root, weighted DRF (progressive filling, Ghodsi et al., NSDI 2011,
  Sections 4.2-4.3) divides the capacities among the root's children; a
  group receives the bundle ``x_g * D_g`` and divides it among its own
  children by weighted DRF with that bundle as capacity, and so on down.

What a group cannot use inside its fixed-proportion bundle stays idle: the
policy is not Pareto efficient (see :mod:`models.policies.hdrf`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..filling import fill_exact
from ..filling_numeric import fill_numeric
from ..hierarchy import ROOT, Tree, TreeData, TreePolicy
from ..instance import Instance
from ..policy import register


def _unit_and_cap(tree: Tree, D: np.ndarray, k: list[Any], node: int) -> tuple[np.ndarray, Any]:
    """Per-unit demand vector of ``node`` and its cap (``None``: unbounded)."""
    users = tree.leaves_under[node]
    unit = D[users].sum(axis=0)
    if tree.is_leaf(node):
        return unit, k[int(users[0])]
    if any(k[int(i)] is None for i in users):
        return unit, None
    total = sum((k[int(i)] * D[int(i)] for i in users), np.zeros_like(unit))
    return unit, min(total[j] / unit[j] for j in range(unit.shape[0]) if unit[j] > 0)


def recursive_drf(instance: Instance, exact: bool) -> list[Any]:
    """Tasks per user of naive recursive DRF (Fractions when ``exact``).

    Examples
    --------
    The tree of the H-DRF paper's first example: ``n1`` needs only GPUs,
    group ``n2`` holds a CPU user and a GPU user. The group's aggregate
    demand ``<1, 1>`` ties its CPU user to the GPU it gets, so half the
    CPUs stay idle.

    >>> from models import Instance
    >>> inst = Instance.from_dict({"resources": {"cpu": 1, "gpu": 1},
    ...     "users": {"n1": {"demand": {"gpu": 1}},
    ...               "n21": {"demand": {"cpu": 1}, "group": "n2"},
    ...               "n22": {"demand": {"gpu": 1}, "group": "n2"}}})
    >>> [str(v) for v in recursive_drf(inst, exact=True)]
    ['1/2', '1/2', '1/2']
    """
    return _recursive(TreeData.of(instance, exact))


def _recursive(data: TreeData) -> list[Any]:
    """:func:`recursive_drf` on prepared data (its arithmetic decides exactness)."""
    tree, D, k, w, zero = data.tree, data.demands, data.caps, data.weight, data.zero
    exact = isinstance(zero, Fraction)
    x: list[Any] = [zero] * D.shape[0]
    todo = [(ROOT, data.capacity)]
    while todo:
        node, cap = todo.pop()
        kids = tree.children[node]
        cols = np.flatnonzero(np.array([c > 0 for c in cap], dtype=bool))
        if cols.size == 0:
            continue  # the group received nothing
        units, caps = zip(*(_unit_and_cap(tree, D, k, c) for c in kids), strict=True)
        U = np.array([u[cols] for u in units], dtype=D.dtype)
        C = cap[cols]
        sigma = [max(U[r, j] / C[j] for j in range(cols.size)) for r in range(len(kids))]
        rates = [w[c] / s for c, s in zip(kids, sigma, strict=True)]
        t: Any  # exact: a list of Fractions; numeric: an array
        if exact:
            t, _ = fill_exact(U.tolist(), list(C), rates, list(caps))
        else:
            kk = np.array([np.inf if v is None else v for v in caps], dtype=float)
            t, _ = fill_numeric(U, C, np.array(rates, dtype=float), kk)
        for c, units_c, tc in zip(kids, units, t, strict=True):
            if tree.is_leaf(c):
                x[tree.user[c]] = tc
            else:
                todo.append((c, units_c * tc))
    return x


@register
class NaiveHierarchicalDRF(TreePolicy):
    """Naive recursive DRF on the group tree (exact and numeric)."""

    name = "hdrf-naive"
    description = "naive hierarchical DRF: DRF among each node's children on subtree aggregate demands, recursively"
    source = "Bhattacharya et al., SoCC 2013, Sections 3-4 (the approach H-DRF fixes); DRF: Ghodsi et al., NSDI 2011"
    solver = "recursive-filling"

    def fill(self, data: TreeData) -> tuple[list[Any], None]:
        return _recursive(data), None
