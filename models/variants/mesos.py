"""Apache Mesos's DRF sorter and hierarchical allocator (Mesos 1.x, 1.5 and
later for hierarchical roles).

What is modelled, in our words:

* **Share.** A client's share is the largest, over resources, of its
  allocation divided by the cluster total, divided by the client's weight
  (the paper's weighted dominant share, Ghodsi et al., NSDI 2011, Sections
  4 and 4.3). Two kinds of resources are left out of the maximum:
  resources named in the scenario's ``excluded_resources`` (Mesos's
  ``--fair_sharing_excluded_resource_names``, typically GPUs) and resources
  whose cluster total is 0 (``zero_capacity``).
* **Ties.** Equal shares are ordered by how many allocations the client
  has received so far (fewer first), then by name.
* **Roles.** With ``group = "a/b"`` users hang in a tree of roles. At every
  level the children are sorted by the share of their *whole subtree's*
  allocation (divided by the role's weight from ``[groups."a"]``), with the
  same tie-breaks; a subtree's allocation count is the sum of its members'.
  This is plain nesting of the sorter, not the H-DRF rescaling of Bhattacharya
  et al. (compare :mod:`models.variants.volcano`).
* **Coarse offers** (``offers=true``, the default). The allocator visits
  the machines ("agents") once each, in a random order drawn from ``seed``;
  for each machine it sorts the clients once and offers the machine's free
  resources to them in that order; each client takes as many of its tasks
  as fit on that machine (up to its cap) and the rest goes to the next
  client. One pass over the machines is one allocation round; on a pool
  (no ``[[machines]]``) the whole cluster is a single agent. A client's
  allocation count grows by one per accepted offer. With ``offers=false``
  the same sort hands out one task at a time (progressive filling), and
  the count is the number of tasks.

Differences from the paper's Algorithm 1: the exclusions and zero totals,
the count/name tie-break (the paper leaves ties open), and with offers the
machine-major order, which lets one client take a whole machine at once.
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from typing import Any

import numpy as np

from ..discrete import FillState, _Run, integer_steps
from ..instance import Instance
from ..policy import register
from ..hierarchy import Tree
from ._common import VariantPolicy, VariantShare, demand_floor, name_rank, subtree_usage, totals

#: More tasks than any machine can hold (``take`` keeps what fits).
_ALL = 1 << 62


class MesosShare(VariantShare):
    """The discrete form of :class:`Mesos`."""

    @property
    def global_keys(self) -> bool:  # type: ignore[override]
        """Per-task mode with roles: a key depends on the siblings' use, so
        every decision sorts again; flat, a key is the user's own."""
        if self._prepared is None:
            return True
        return not self._prepared[1]["tree"].flat

    def rates(self, instance: Instance) -> None:
        """Not linear (ties by count and name); prepares ``instance``."""
        self.prepared(instance)
        return None

    def prepare(self, instance: Instance) -> dict[str, Any]:
        excluded = set(instance.extensions.excluded_resources)
        counted = [j for j, r in enumerate(instance.resources)
                   if r not in excluded and instance.capacity_exact[j] > 0]
        return {"tree": Tree.of(instance), "counted": counted, "name": name_rank(instance), "cache": None}

    def node_keys(self, state: FillState, counts: list[int]) -> list[tuple[Fraction, int, str]]:
        """``(share / weight, allocations, label)`` of every node."""
        prep = self.prepared(state.instance)
        tree: Tree = prep["tree"]
        T = totals(state.data)
        out = []
        for k, use in enumerate(subtree_usage(tree, state)):
            share = max((Fraction(use[j], T[j]) for j in prep["counted"]), default=Fraction(0))
            out.append((share / tree.weight[k], counts[k], tree.label[k]))
        return out

    def subtree_counts(self, state: FillState) -> list[int]:
        """Per-task mode: a node's allocations are its subtree's tasks."""
        tree: Tree = self.prepared(state.instance)["tree"]
        counts = [0] * len(tree.parent)
        for i, k in enumerate(tree.leaf):
            counts[k] = int(state.tasks[i])
        for k in range(len(tree.parent) - 1, -1, -1):
            if tree.parent[k] >= 0:
                counts[tree.parent[k]] += counts[k]
        return counts

    def key(self, state: FillState, i: int) -> tuple[tuple[Any, int, str], ...]:
        """Keys of the user's roles from the top down, then its own."""
        prep = self.prepared(state.instance)
        tree: Tree = prep["tree"]
        if tree.flat:
            t = int(state.tasks[i])
            return ((t * self.flat_rates(state)[i], t, tree.label[tree.leaf[i]]),)
        stamp = (id(state), sum(state.tasks))
        if prep["cache"] is None or prep["cache"][0] != stamp:
            prep["cache"] = (stamp, self.node_keys(state, self.subtree_counts(state)))
        nodes = prep["cache"][1]
        return tuple(nodes[k] for k in prep["tree"].path[i])

    def flat_rates(self, state: FillState) -> list[int]:
        """Without roles, a user's share per task, as integers in the same
        ratios (:func:`~models.discrete.integer_steps`; exact and fast)."""
        prep = self.prepared(state.instance)
        if prep.get("rates") is None:
            T = totals(state.data)
            out = []
            for i, w in enumerate(state.instance.weights_exact):
                d = state.data.demands[i]
                out.append(max((Fraction(int(d[j]), T[j]) for j in prep["counted"]), default=Fraction(0)) / w)
            prep["rates"] = integer_steps(out)
        return prep["rates"]

    def drive(self, run: _Run) -> bool:
        """Coarse offers: machines in a seeded random order, each offered
        to the clients in sorted order."""
        if not self.params["offers"]:
            return False
        st = run.state
        data = st.data
        inst = st.instance
        prep = self.prepared(inst)
        tree: Tree = prep["tree"]
        agents = np.random.default_rng(int(self.params["seed"])).permutation(len(st.free)).tolist()
        counts = [0] * len(tree.parent)

        def room(i: int) -> int:
            cap = data.caps[i]
            return _ALL if cap is None else cap - int(st.tasks[i])

        active = [i for i in range(inst.n) if room(i) > 0]
        floor = [int(v) for v in demand_floor(data, active)]

        def exhausted(free: list[int]) -> bool:
            return any(f < d for f, d in zip(free, floor, strict=True))

        def offer(i: int, k: int) -> None:
            run.decisions += 1
            if run.take(i, room(i), k):
                for node in tree.path[i]:
                    counts[node] += 1

        if tree.flat:
            rate = self.flat_rates(st)
            names = prep["name"]
            heap = [(0, 0, names[i], i) for i in active]
            heapq.heapify(heap)
            for k in agents:
                free = st.free[k]
                popped = []
                while heap and not exhausted(free):
                    i = heapq.heappop(heap)[3]
                    offer(i, k)
                    popped.append(i)
                for i in popped:
                    if room(i) > 0:
                        heapq.heappush(heap, (int(st.tasks[i]) * rate[i], counts[tree.leaf[i]], names[i], i))
            return True
        for k in agents:
            nodes = self.node_keys(st, counts)
            for i in sorted(active, key=lambda u: tuple(nodes[x] for x in tree.path[u])):
                if exhausted(st.free[k]):
                    break
                offer(i, k)
            active = [i for i in active if room(i) > 0]
        return True


@register
class Mesos(VariantPolicy):
    """Apache Mesos 1.x DRF sorter with coarse offers (see the module
    docstring)."""

    name = "mesos"
    description = ("Mesos 1.x DRF sorter: weighted dominant share without excluded or zero-total resources, "
                   "ties by allocation count then name, nested roles, machine-by-machine offers (seeded order)")
    source = "Apache Mesos 1.x DRFSorter / HierarchicalAllocator; Ghodsi et al., NSDI 2011, Section 4"
    parameters = {"offers": True, "seed": 0}
    form = MesosShare
