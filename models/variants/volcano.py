"""Volcano's ``drf`` plugin with hierarchy enabled (hierarchical DRF, Volcano
v1.x, after Bhattacharya et al., "Hierarchical scheduling for diverse
datacenter workloads", SoCC 2013).

What is modelled, in our words (users are the leaves of the queue tree
given by ``group = "a/b"``; group weights from ``[groups."a/b"]``):

* **Share.** A node's share is the largest, over resources, of its
  allocation divided by the cluster total; a resource with total 0 counts
  as a share of 1 when the node uses any of it and 0 otherwise.
* **Saturation.** A leaf is saturated when it cannot grow: it is at its
  task cap, or some resource its task needs has less free space left in
  the whole cluster than one task asks for. A group is saturated when all
  its children are.
* **Rescaling.** Bottom-up, a group's allocation is not the plain sum of
  its children's: every unsaturated child that holds something is scaled
  down (or up) so that its dominant share equals the smallest dominant
  share among those children (1 if there are none); saturated children
  count as they are. The group's share is computed from that rescaled
  allocation. This keeps one child's large allocation from making its
  whole group look rich (H-DRF's fix for nested DRF; compare
  :mod:`models.variants.mesos`).
* **Order.** From the root down, among the children leading to users
  still in the race, unsaturated ones go before saturated ones, then the
  smaller share divided by weight, then the name.

Without groups this is DRF with a name tie-break and the zero-total rule.
Tasks are handed out one at a time; every decision recomputes the tree.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..discrete import FillState
from ..instance import Instance
from ..policy import register
from ._common import GroupTree, VariantPolicy, VariantShare, totals


def share_of(use: int | Fraction, total: int) -> Fraction:
    """One resource's share as Volcano computes it: ``use / total``, and
    for a total of 0 a share of 1 when anything is used (else 0).

    >>> share_of(3, 12), share_of(0, 0), share_of(2, 0)
    (Fraction(1, 4), Fraction(0, 1), Fraction(1, 1))
    """
    if total == 0:
        return Fraction(1 if use > 0 else 0)
    return Fraction(use) / total


def dominant(use: list[Any], T: list[int]) -> Fraction:
    """The largest of :func:`share_of` over resources."""
    return max((share_of(u, t) for u, t in zip(use, T, strict=True)), default=Fraction(0))


class VolcanoShare(VariantShare):
    """The discrete form of :class:`Volcano`."""

    global_keys = True

    def prepare(self, instance: Instance) -> dict[str, Any]:
        tree = GroupTree.of(instance)
        return {"tree": tree, "children": tree.children(), "cache": None}

    def saturated_leaf(self, state: FillState, i: int, free_total: list[int]) -> bool:
        """At its cap, or a needed resource has less than one task left."""
        cap = state.data.caps[i]
        if cap is not None and int(state.tasks[i]) >= cap:
            return True
        return any(free_total[j] < d for j, d in state.demand(i))

    def node_keys(self, state: FillState) -> list[tuple[bool, Fraction, str]]:
        """``(saturated, share / weight, label)`` of every node after the
        bottom-up rescaling."""
        prep = self.prepared(state.instance)
        tree: GroupTree = prep["tree"]
        T = totals(state.data)
        m = state.instance.m
        free_total = [sum(row[j] for row in state.free) for j in range(m)]
        N = len(tree.parent)
        alloc: list[list[Any]] = [[0] * m for _ in range(N)]
        share = [Fraction(0)] * N
        sat = [False] * N
        for i, k in enumerate(tree.leaf):
            t = int(state.tasks[i])
            alloc[k] = [t * int(d) for d in state.data.demands[i]]
            share[k] = dominant(alloc[k], T)
            sat[k] = self.saturated_leaf(state, i, free_total)
        children = prep["children"]
        for k in range(N - len(tree.leaf) - 1, -1, -1):  # groups, deepest first
            kids = children.get(k, [])
            live = [c for c in kids if share[c] != 0 and not sat[c]]
            floor = min((share[c] for c in live), default=Fraction(1))
            total = [Fraction(0)] * m
            for c in kids:
                if share[c] == 0:
                    continue
                factor = Fraction(1) if sat[c] else floor / share[c]
                total = [a + factor * b for a, b in zip(total, alloc[c], strict=True)]
            alloc[k] = total
            share[k] = dominant(total, T)
            sat[k] = all(sat[c] for c in kids)
        return [(sat[k], share[k] / tree.weight[k], tree.label[k]) for k in range(N)]

    def key(self, state: FillState, i: int) -> tuple[tuple[bool, Fraction, str], ...]:
        """Keys of the user's ancestors from the top down, then its own."""
        prep = self.prepared(state.instance)
        stamp = (id(state), sum(state.tasks))
        if prep["cache"] is None or prep["cache"][0] != stamp:
            prep["cache"] = (stamp, self.node_keys(state))
        nodes = prep["cache"][1]
        return tuple(nodes[k] for k in prep["tree"].path[i])


@register
class Volcano(VariantPolicy):
    """Volcano v1.x hierarchical DRF (see the module docstring)."""

    name = "volcano"
    description = ("Volcano drf plugin with hierarchy (v1.x): H-DRF rescaling of a group's allocation to the "
                   "smallest dominant share of its unsaturated children; share 1 on a zero-total resource in use")
    source = "Volcano v1.x drf plugin (hierarchy); Bhattacharya et al., SoCC 2013; Ghodsi et al., NSDI 2011"
    form = VolcanoShare
