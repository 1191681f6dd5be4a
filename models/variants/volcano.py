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

from ..discrete import FillState, _Run, integer_steps
from ..hierarchy import ROOT, Tree
from ..instance import Instance
from ..policy import register
from ._common import VariantPolicy, VariantShare, totals


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
        return {"tree": Tree.of(instance), "cache": None, "data": None}

    def constants(self, state: FillState) -> dict[str, Any]:
        """Per run: totals, and each user's share of one task (``None``
        when it needs a resource of total 0: its share is 1 once it holds
        anything, which it never can)."""
        prep = self.prepared(state.instance)
        if prep["data"] is not state.data:
            T = totals(state.data)
            rate: list[Fraction | None] = []
            for i in range(state.instance.n):
                dem = state.demand(i)
                rate.append(None if any(T[j] == 0 for j, _ in dem) else max(Fraction(d, T[j]) for j, d in dem))
            # flat trees compare share / weight as integers in the same ratios (a user needing a
            # resource of total 0 never holds a task, so its share stays 0: step 0)
            w = state.instance.weights_exact
            steps = integer_steps([Fraction(0) if r is None else r / w[i] for i, r in enumerate(rate)])
            prep.update(T=T, rate=rate, steps=steps, data=state.data)
        return prep

    def saturated_leaf(self, state: FillState, i: int, free_total: list[int]) -> bool:
        """At its cap, or a needed resource has less than one task left."""
        cap = state.data.caps[i]
        if cap is not None and int(state.tasks[i]) >= cap:
            return True
        return any(free_total[j] < d for j, d in state.demand(i))

    def node_keys(self, state: FillState) -> list[tuple[bool, Any, str]]:
        """``(saturated, share / weight, label)`` of every node (ids of
        :class:`~models.hierarchy.Tree`) after the bottom-up rescaling
        (without groups, the shares are integers in the same ratios)."""
        prep = self.constants(state)
        tree: Tree = prep["tree"]
        T, rate = prep["T"], prep["rate"]
        m = state.instance.m
        tasks = [int(t) for t in state.tasks]
        used = [0] * m
        for i, t in enumerate(tasks):
            if t:
                for j, d in state.demand(i):
                    used[j] += t * d
        free_total = [a - b for a, b in zip(T, used, strict=True)]
        if tree.flat:
            steps = prep["steps"]
            # node 0 is the root, then user i is node i + 1 (the root's key is never compared)
            return [(False, 0, tree.label[ROOT]),
                    *((self.saturated_leaf(state, i, free_total), tasks[i] * steps[i], tree.label[k])
                      for i, k in enumerate(tree.leaf))]
        N = len(tree.parent)
        share = [Fraction(0)] * N
        sat = [False] * N
        for i, k in enumerate(tree.leaf):
            t = tasks[i]
            r = rate[i]
            share[k] = Fraction(1 if t else 0) if r is None else t * r
            sat[k] = self.saturated_leaf(state, i, free_total)
        self._rescale(state, tree, tasks, share, sat)
        return [(sat[k], share[k] / tree.weight[k], tree.label[k]) for k in range(N)]

    @staticmethod
    def _rescale(state: FillState, tree: Tree, tasks: list[int],
                 share: list[Fraction], sat: list[bool]) -> None:
        """Groups, deepest first: each unsaturated child scaled to the
        smallest dominant share among them, saturated children as they are."""
        m = state.instance.m
        T = totals(state.data)
        alloc: dict[int, list[Any]] = {k: [tasks[i] * int(d) for d in state.data.demands[i]]
                                       for i, k in enumerate(tree.leaf)}
        for k in reversed(tree.groups):
            kids = tree.children[k]
            live = [c for c in kids if share[c] != 0 and not sat[c]]
            floor = min((share[c] for c in live), default=Fraction(1))
            total: list[Any] = [Fraction(0)] * m
            for c in kids:
                if share[c] == 0:
                    continue
                factor = Fraction(1) if sat[c] else floor / share[c]
                total = [a + factor * b for a, b in zip(total, alloc[c], strict=True)]
            alloc[k] = total
            share[k] = dominant(total, T)
            sat[k] = all(sat[c] for c in kids)

    def key(self, state: FillState, i: int) -> tuple[tuple[bool, Fraction, str], ...]:
        """Keys of the user's ancestors from the top down, then its own."""
        prep = self.prepared(state.instance)
        stamp = (id(state), sum(state.tasks))
        if prep["cache"] is None or prep["cache"][0] != stamp:
            prep["cache"] = (stamp, self.node_keys(state))
        nodes = prep["cache"][1]
        return tuple(nodes[k] for k in prep["tree"].path[i])

    def drive(self, run: _Run) -> bool:
        """One decision at a time; the tree is computed once per decision
        (the engine's generic scan would ask for every user's key)."""
        st = run.state
        path = self.prepared(st.instance)["tree"].path
        caps = st.data.caps
        active = [i for i in range(st.instance.n) if caps[i] is None or caps[i] > 0]
        while active:
            nodes = self.node_keys(st)
            i = min(active, key=lambda u: tuple(nodes[k] for k in path[u]))
            run.decisions += 1
            if not run.place_tasks(i, 1):
                run.failures.append(i)
                active.remove(i)
                if run.stop:
                    return True
                continue
            if caps[i] is not None and int(st.tasks[i]) >= caps[i]:
                active.remove(i)
        return True


@register
class Volcano(VariantPolicy):
    """Volcano v1.x hierarchical DRF (see the module docstring)."""

    name = "volcano"
    description = ("Volcano drf plugin with hierarchy (v1.x): H-DRF rescaling of a group's allocation to the "
                   "smallest dominant share of its unsaturated children; share 1 on a zero-total resource in use")
    source = "Volcano v1.x drf plugin (hierarchy); Bhattacharya et al., SoCC 2013; Ghodsi et al., NSDI 2011"
    form = VolcanoShare
