"""Apache Mesos's DRF sorter and hierarchical allocator (Mesos 1.x; the
hierarchical sorter of Mesos 1.3 and later).

Sources (apache/mesos): ``src/master/allocator/sorter/drf/sorter.cpp``
(``DRFSorter::sort``, ``calculateShare``; read at commit ``a637df6d``) and
``sorter.hpp`` (``Node::compareDRF``, commit ``9934d41b``); the unit tests
``src/tests/sorter_tests.cpp`` (commit ``5ce5d203``) are translated in
``tests/test_variants_mesos_upstream.py``.

What is modelled, in our words:

* **Share** (``calculateShare``). A client's share is the largest, over
  resources, of its allocation divided by the cluster total, divided by
  the client's weight. Computed as Mesos does, in ``double``: ``allocation
  / total`` per resource, the maximum, then ``/ weight``. So two shares
  that are equal in exact arithmetic can differ in the last bit and order
  the clients: with weights 2 and 3 and allocations 10/100 and 15/100,
  ``0.1 / 2 = 0.05`` but ``0.15 / 3 = 0.049999999999999996``, so the
  weight-3 client goes first (exact DRF would call it a tie). Left out of
  the maximum: resources named in ``excluded_resources`` (Mesos's
  ``--fair_sharing_excluded_resource_names``) and resources whose total is
  0 (``scalar.value() > 0.0``). Allocation totals are exact sums converted
  to ``double`` once (Mesos sums scalars in fixed point, three decimals).
* **Ties** (``compareDRF``). Equal shares are ordered by the number of
  allocations the client (or, for a role, its subtree) has received, fewer
  first, then by the node's *full path* (``a/b/user``, compared
  byte-wise), not by the bare user name.
* **Roles.** With ``group = "a/b"`` user ``u`` is the client ``a/b/u``.
  At every level the children are sorted by the share of their whole
  subtree's allocation divided by the node's own weight (``[groups."a"]``),
  with the same tie-breaks; the sorted order is the pre-order walk of the
  sorted tree. This is plain nesting of the sorter, not the H-DRF
  rescaling of Bhattacharya et al. (compare :mod:`models.variants.volcano`).
  :func:`sort_clients` is the sorter itself on given allocations (the
  upstream tests run through it).
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

Differences from the paper's Algorithm 1 (Ghodsi et al., NSDI 2011,
Section 4): the exclusions and zero totals, the double arithmetic, the
count/path tie-break (the paper leaves ties open), and with offers the
machine-major order, which lets one client take a whole machine at once.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar

from ..discrete import FillState, Run
from ..hierarchy import Tree
from ..instance import Instance
from ..policy import register
from ._common import VariantPolicy, VariantShare, subtree_usage
from ._mesos_offers import offer_round


def drf_share(allocation: Sequence[float], totals: Sequence[float], weight: float = 1.0) -> float:
    """``DRFSorter::calculateShare`` in ``double``: the largest
    ``allocation / total`` over resources of positive total, ``/ weight``.

    >>> drf_share([10.0], [100.0], 2.0) > drf_share([15.0], [100.0], 3.0)
    True
    """
    share = 0.0
    for a, t in zip(allocation, totals, strict=True):
        if t > 0.0:
            share = max(share, a / t)
    return share / weight


def sort_clients(totals: Mapping[str, float], allocations: Mapping[str, Mapping[str, Any]], *,
                 counts: Mapping[str, int] | None = None, weights: Mapping[str, float] | None = None,
                 inactive: Collection[str] = (), excluded: Collection[str] = ()) -> list[str]:
    """``DRFSorter::sort``: client paths in the order the sorter returns them.

    Parameters
    ----------
    totals : mapping
        Cluster total per resource name.
    allocations : mapping
        Client path (``"a/b"``) -> resource -> allocated amount; every
        client of the sorter is a key (an empty mapping for none).
    counts : mapping, optional
        Client path -> number of allocations made to it (default 0).
    weights : mapping, optional
        Node path (role or client) -> weight (default 1).
    inactive : collection
        Deactivated clients (left out of the result).
    excluded : collection
        Resource names left out of the shares.
    """
    counts = counts or {}
    weights = weights or {}
    names = [r for r in totals if r not in excluded]
    tot = [float(totals[r]) for r in names]
    clients = set(allocations)
    # a client whose path is also an internal node becomes the virtual leaf "path/."
    internal = {"/".join(p.split("/")[:k]) for p in clients for k in range(1, p.count("/") + 1)}
    leaf_of = {c: (f"{c}/." if c in internal else c) for c in clients}
    kids: dict[str, list[str]] = {}
    for leaf in leaf_of.values():
        parts = leaf.split("/")
        for k in range(1, len(parts) + 1):
            node, parent = "/".join(parts[:k]), "/".join(parts[: k - 1])
            if node not in kids.get(parent, []):
                kids.setdefault(parent, []).append(node)
    use: dict[str, list[Fraction]] = {}
    cnt: dict[str, int] = {}
    for c, leaf in leaf_of.items():
        row = [Fraction(allocations[c].get(r, 0)) for r in names]
        parts = leaf.split("/")
        for k in range(1, len(parts) + 1):
            node = "/".join(parts[:k])
            use[node] = [a + b for a, b in zip(use.get(node, [Fraction(0)] * len(names)), row, strict=True)]
            cnt[node] = cnt.get(node, 0) + int(counts.get(c, 0))
    client_of = {leaf: c for c, leaf in leaf_of.items()}
    out: list[str] = []

    def walk(parent: str) -> None:
        live = [k for k in kids.get(parent, []) if k in kids or client_of[k] not in inactive]
        live.sort(key=lambda k: (drf_share([float(a) for a in use[k]], tot, float(weights.get(k, 1.0))),
                                 cnt[k], k))
        for k in live:
            if k in kids:
                walk(k)
            else:
                out.append(client_of[k])

    walk("")
    return out


def client_paths(tree: Tree, instance: Instance) -> list[str]:
    """Full path of every node: a group's path, ``group/user`` for a user."""
    out = list(tree.label)
    for i, k in enumerate(tree.leaf):
        g = instance.extensions.group.get(instance.users[i])
        out[k] = f"{g}/{instance.users[i]}" if g else instance.users[i]
    return out


class MesosShare(VariantShare):
    """The discrete form of :class:`Mesos`."""

    @property
    def global_keys(self) -> bool:  # type: ignore[override]
        """Per-task mode with roles: a key depends on the siblings' use, so
        every decision sorts again; flat, a key is the user's own."""
        if self._prepared is None:
            return True
        return not self._prepared[1]["flat"]

    def rates(self, instance: Instance) -> None:
        """Not linear (double shares, ties by count and path); prepares
        ``instance``."""
        self.prepared(instance)

    def prepare(self, instance: Instance) -> dict[str, Any]:
        excluded = set(instance.extensions.excluded_resources)
        counted = [j for j, r in enumerate(instance.resources)
                   if r not in excluded and instance.capacity_exact[j] > 0]
        flat = not instance.extensions.group
        # without roles the tree (built on demand by tree()) is only needed off the fast paths
        tree = None if flat else Tree.of(instance)
        paths = list(instance.users) if tree is None else client_paths(tree, instance)
        user_path = paths if tree is None else [paths[k] for k in tree.leaf]
        order = sorted(range(instance.n), key=lambda i: user_path[i])
        path_rank = [0] * instance.n
        for r, i in enumerate(order):
            path_rank[i] = r
        return {"flat": flat, "tree": tree, "counted": counted, "paths": paths, "user_path": user_path,
                "path_rank": path_rank, "cache": None, "data": None}

    def tree(self, instance: Instance) -> Tree:
        """The role tree of ``instance`` (built once, when first needed)."""
        prep = self.prepared(instance)
        tree: Tree | None = prep["tree"]
        if tree is None:
            tree = prep["tree"] = Tree.of(instance)
            prep["paths"] = client_paths(tree, instance)
        return tree

    def constants(self, state: FillState) -> dict[str, Any]:
        """Per run: counted totals and weights (``double``); each user's
        counted demand in real units (exact) is added by :meth:`share`."""
        prep = self.prepared(state.instance)
        if prep["data"] is not state.data:
            data, counted = state.data, prep["counted"]
            T = data.machines.sum(axis=0)
            prep["T"] = [float(Fraction(int(T[j]), data.scale[j])) for j in counted]
            prep["dem"] = None  # per-user demands as Fractions, made by share() when needed
            prep["w"] = [float(w) for w in state.instance.weights_exact]
            prep["data"] = data
        return prep

    def share(self, state: FillState, i: int, tasks: int | None = None) -> float:
        """User ``i``'s share in ``double`` (with ``tasks`` tasks, default
        its current count)."""
        prep = self.constants(state)
        if prep["dem"] is None:
            data, counted = state.data, prep["counted"]
            prep["dem"] = [[Fraction(int(data.demands[i][j]), data.scale[j]) for j in counted]
                           for i in range(state.instance.n)]
        t = int(state.tasks[i]) if tasks is None else tasks
        return drf_share([float(t * d) for d in prep["dem"][i]], prep["T"], prep["w"][i])

    def node_keys(self, state: FillState, counts: list[int]) -> list[tuple[float, int, str]]:
        """``(share / weight, allocations, path)`` of every node."""
        prep = self.constants(state)
        tree = self.tree(state.instance)
        sc, counted = state.data.scale, prep["counted"]
        out = []
        for k, use in enumerate(subtree_usage(tree, state)):
            alloc = [float(Fraction(use[j], sc[j])) for j in counted]
            out.append((drf_share(alloc, prep["T"], float(tree.weight[k])), counts[k], prep["paths"][k]))
        return out

    @staticmethod
    def allocations(state: FillState, i: int) -> int:
        """Per-task mode: allocations made to user ``i`` so far, one per
        task, including tasks since released (:meth:`Engine.release
        <models.discrete.Engine.release>`; Mesos never lowers the count)."""
        released = state.extra.get("released")
        return int(state.tasks[i]) + (released[i] if released else 0)

    def subtree_counts(self, state: FillState) -> list[int]:
        """Per-task mode: a node's allocations are its subtree's."""
        tree = self.tree(state.instance)
        counts = [0] * len(tree.parent)
        for i, k in enumerate(tree.leaf):
            counts[k] = self.allocations(state, i)
        for k in range(len(tree.parent) - 1, -1, -1):
            if tree.parent[k] >= 0:
                counts[tree.parent[k]] += counts[k]
        return counts

    def key(self, state: FillState, i: int) -> tuple[tuple[Any, int, str], ...]:
        """Keys of the user's roles from the top down, then its own."""
        prep = self.prepared(state.instance)
        if prep["flat"]:
            return ((self.share(state, i), self.allocations(state, i), prep["user_path"][i]),)
        stamp = (id(state), sum(state.tasks))
        if prep["cache"] is None or prep["cache"][0] != stamp:
            prep["cache"] = (stamp, self.node_keys(state, self.subtree_counts(state)))
        nodes = prep["cache"][1]
        return tuple(nodes[k] for k in self.tree(state.instance).path[i])

    def drive(self, run: Run) -> bool:
        """Coarse offers: machines in a seeded random order, each offered
        to the clients in sorted order (:mod:`models.variants._mesos_offers`)."""
        if not self.params["offers"]:
            return False
        offer_round(self, run, int(self.params["seed"]))
        return True


@register
class Mesos(VariantPolicy):
    """Apache Mesos 1.x DRF sorter with coarse offers (see the module
    docstring)."""

    name = "mesos"
    description = ("Mesos 1.x DRF sorter: weighted dominant share in doubles without excluded or zero-total "
                   "resources, ties by allocation count then full client path, nested roles, machine-by-machine "
                   "offers (seeded order)")
    source = ("Apache Mesos 1.x src/master/allocator/sorter/drf/sorter.cpp (DRFSorter, compareDRF) and the "
              "hierarchical allocator; Ghodsi et al., NSDI 2011, Section 4")
    parameters: ClassVar[dict[str, Any]] = {"offers": True, "seed": 0}
    form = MesosShare
    memory_note = "the DRF sorter reads current allocations only (no decay)"


__all__ = ["Mesos", "MesosShare", "client_paths", "drf_share", "sort_clients"]
