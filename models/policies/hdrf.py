"""Hierarchical DRF (H-DRF), continuous.

Bhattacharya, Culler, Friedman, Ghodsi, Shenker, Stoica, "Hierarchical
Scheduling for Diverse Datacenter Workloads", SoCC 2013, Section 4. Users
are the leaves of a tree of weighted groups (:mod:`models.hierarchy`).

In our words, H-DRF is progressive filling driven from the root:

* a leaf's *share* is its dominant share ``x_i max_j d_ij / R_j``;
* an internal node's share is the dominant share, over the resources that
  are not saturated, of its subtree's aggregate allocation, where the
  vectors of its non-blocked children are rescaled to the smallest weighted
  share among them and blocked children count as they are (the paper's
  "rescaling to minimum nodes" and "ignoring blocked nodes");
* a leaf is *blocked* when it reaches its cap or a resource it uses is
  saturated; an internal node when all its children are;
* at every internal node the non-blocked children with the smallest share
  divided by weight receive resources (the others wait), their weighted
  shares rising together.

In the continuous process the non-blocked children that receive are always
level, so the rescaling changes nothing and a node's share is the dominant
share of its aggregate over unsaturated resources. A child whose share does
not rise while it receives (its aggregate's largest share sits in a
resource its active users do not use) catches up alone. Events (a resource
saturates, a user reaches its cap, a waiting child becomes smallest, the
resource giving a node's share changes) are found exactly; between them
every user's tasks grow linearly. The same kernel runs on floats
(:meth:`HDRF.solve`) and on Fractions (:meth:`HDRF.solve_exact`).

Unlike the naive recursion (:mod:`models.policies.hdrf_naive`), H-DRF does
not tie a group's members to fixed proportions, so a member whose siblings
are blocked keeps using what they cannot.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import PolicyError
from ..hierarchy import ROOT, Tree, TreeData, TreePolicy
from ..instance import Instance
from ..policy import register
from ..tolerances import SATURATION_RTOL


@dataclass(frozen=True)
class Event:
    """One step of the filling: its length and what ended it."""

    step: Any
    kind: str


class _Kernel:
    """Event-driven H-DRF filling over one number type.

    ``tol`` is 0 for Fractions (exact ties) and a relative tolerance for
    floats.
    """

    def __init__(self, tree: Tree, D: np.ndarray, R: np.ndarray, k: list[Any], w: list[Any], tol: float,
                 zero: Any) -> None:
        self.tree, self.D, self.R, self.k, self.w, self.tol, self.zero = tree, D, R, k, w, tol, zero
        n, m = D.shape
        self.n, self.m = n, m
        self.sigma = [max(D[i, j] / R[j] for j in range(m)) for i in range(n)]
        self.uses = np.array([[D[i, j] > 0 for j in range(m)] for i in range(n)], dtype=bool).reshape(n, m)

    # --------------------------------------------------------- comparisons
    def le(self, a: Any, b: Any) -> bool:
        """``a <= b`` up to the tolerance."""
        return a <= b + self.tol * max(abs(a), abs(b))

    # ---------------------------------------------------------------- state
    def _state(self, x: list[Any], sat: np.ndarray) -> tuple[list[Any], list[bool], list[list[int]]]:
        """Share, blocked flag and arg-max resources of every node."""
        t, D, R = self.tree, self.D, self.R
        N = len(t.label)
        h: list[Any] = [self.zero] * N
        blocked = [False] * N
        argmax: list[list[int]] = [[] for _ in range(N)]
        free = [j for j in range(self.m) if not sat[j]]
        for node in t.postorder:
            if t.is_leaf(node):
                i = t.user[node]
                h[node] = x[i] * self.sigma[i]
                capped = self.k[i] is not None and self.le(self.k[i], x[i])
                blocked[node] = bool(capped or self.uses[i, sat].any())
                continue
            blocked[node] = all(blocked[c] for c in t.children[node])
            if not free:
                continue
            users = t.leaves_under[node]
            agg = sum((x[int(i)] * D[int(i)] for i in users), np.full(self.m, self.zero, dtype=D.dtype))
            vals = {j: agg[j] / R[j] for j in free}
            top = max(vals.values())
            h[node] = top
            argmax[node] = [j for j, v in vals.items() if self.le(top, v)]
        return h, blocked, argmax

    def _rate(self, node: int, V: list[Any], argmax: list[list[int]]) -> Any:
        """How fast ``node``'s share rises along leaf rates ``V``."""
        t = self.tree
        if t.is_leaf(node):
            i = t.user[node]
            return V[i] * self.sigma[i]
        users = t.leaves_under[node]
        slope = sum((V[int(i)] * self.D[int(i)] for i in users), np.full(self.m, self.zero, dtype=self.D.dtype))
        return max((slope[j] / self.R[j] for j in argmax[node]), default=self.zero)

    def _direction(self, node: int, h: list[Any], blocked: list[bool], argmax: list[list[int]],
                   plan: dict[int, tuple[list[int], list[int], Any]]) -> tuple[list[Any], bool]:
        """Leaf rates under ``node`` (share rising at rate 1 unless flat)."""
        t = self.tree
        if t.is_leaf(node):
            i = t.user[node]
            V = [self.zero] * self.n
            V[i] = 1 / self.sigma[i]
            return V, False
        live = [c for c in t.children[node] if not blocked[c]]
        low = min(h[c] / self.w[c] for c in live)
        recv = [c for c in live if self.le(h[c] / self.w[c], low)]
        sub = {c: self._direction(c, h, blocked, argmax, plan) for c in recv}
        flat = [c for c in recv if sub[c][1]]
        use = flat or recv
        V = [self.zero] * self.n
        for c in use:
            V = [a + self.w[c] * b for a, b in zip(V, sub[c][0], strict=True)]
        plan[node] = (use, [c for c in live if c not in recv], low)
        if node == ROOT:
            return V, bool(flat)
        dh = self._rate(node, V, argmax)
        if not dh > 0:
            return V, True
        return [v / dh for v in V], False

    # ----------------------------------------------------------------- run
    def run(self) -> tuple[list[Any], list[Event]]:
        t, D, R, k = self.tree, self.D, self.R, self.k
        x: list[Any] = [self.zero] * self.n
        sat = np.zeros(self.m, dtype=bool)
        events: list[Event] = []
        limit = 4 * (len(t.label) + self.m + 2) ** 2
        while True:
            usage = sum((x[i] * D[i] for i in range(self.n)), np.full(self.m, self.zero, dtype=D.dtype))
            for j in range(self.m):
                if not sat[j] and self.le(R[j], usage[j]):
                    sat[j] = True
            h, blocked, argmax = self._state(x, sat)
            if blocked[ROOT]:
                return x, events
            if len(events) > limit:
                raise PolicyError("hdrf: the filling did not terminate (report this instance)")
            plan: dict[int, tuple[list[int], list[int], Any]] = {}
            V, _ = self._direction(ROOT, h, blocked, argmax, plan)
            steps: list[tuple[Any, str]] = []
            use_rate = sum((V[i] * D[i] for i in range(self.n)), np.full(self.m, self.zero, dtype=D.dtype))
            steps += [((R[j] - usage[j]) / use_rate[j], "saturation") for j in range(self.m)
                      if not sat[j] and use_rate[j] > 0]
            steps += [((k[i] - x[i]) / V[i], "cap") for i in range(self.n) if k[i] is not None and V[i] > 0]
            for node, (use, waiting, low) in plan.items():
                rise = self._rate(use[0], V, argmax) / self.w[use[0]]
                if rise > 0:
                    steps += [((h[c] / self.w[c] - low) / rise, "join") for c in waiting]
                if node != ROOT:
                    steps += self._crossings(node, x, V, h[node], argmax[node], sat)
            if not steps:
                raise PolicyError("hdrf: progressive filling is unbounded (a user demands nothing)")
            step, kind = min(steps, key=lambda s: s[0])
            step = max(step, self.zero)
            x = [a + step * v for a, v in zip(x, V, strict=True)]
            if self.tol:
                x = [min(a, k[i]) if k[i] is not None else a for i, a in enumerate(x)]
            events.append(Event(step=step, kind=kind))

    def _crossings(self, node: int, x: list[Any], V: list[Any], top: Any, arg: list[int],
                   sat: np.ndarray) -> list[tuple[Any, str]]:
        """Steps at which another resource overtakes ``node``'s largest share."""
        users = self.tree.leaves_under[node]
        acc = np.full(self.m, self.zero, dtype=self.D.dtype)
        agg = sum((x[int(i)] * self.D[int(i)] for i in users), acc)
        slope = sum((V[int(i)] * self.D[int(i)] for i in users), acc)
        s_top = max((slope[j] / self.R[j] for j in arg), default=self.zero)
        out = []
        for j in range(self.m):
            if sat[j] or j in arg:
                continue
            s = slope[j] / self.R[j]
            if s > s_top:
                out.append(((top - agg[j] / self.R[j]) / (s - s_top), "crossing"))
        return out


def hdrf_fill(instance: Instance, exact: bool) -> tuple[list[Any], list[Event]]:
    """Tasks per user under H-DRF (Fractions when ``exact``) and the events.

    Examples
    --------
    The tree of the H-DRF paper's first example: ``n1`` needs only GPUs,
    group ``n2`` holds a CPU user and a GPU user. At share 1/2 the GPUs
    run out; ``n21`` is then alone in the race and takes every CPU.

    >>> from models import Instance
    >>> inst = Instance.from_dict({"resources": {"cpu": 1, "gpu": 1},
    ...     "users": {"n1": {"demand": {"gpu": 1}},
    ...               "n21": {"demand": {"cpu": 1}, "group": "n2"},
    ...               "n22": {"demand": {"gpu": 1}, "group": "n2"}}})
    >>> x, events = hdrf_fill(inst, exact=True)
    >>> [str(v) for v in x], [e.kind for e in events]
    (['1/2', '1', '1/2'], ['saturation', 'saturation'])
    """
    return HDRF().fill(TreeData.of(instance, exact))


@register
class HDRF(TreePolicy):
    """Hierarchical DRF on the group tree (exact and numeric); the filling
    events are attached as ``allocation.certificate``."""

    name = "hdrf"
    description = "hierarchical DRF (H-DRF): progressive filling on a weighted group tree with rescaled group shares"
    source = "Bhattacharya, Culler, Friedman, Ghodsi, Shenker, Stoica, SoCC 2013, Section 4"
    solver = "event-filling"

    def fill(self, data: TreeData) -> tuple[list[Any], list[Event]]:
        """The event-driven filling in ``data``'s arithmetic (exact ties for Fractions)."""
        return _Kernel(data.tree, data.demands, data.capacity, data.caps, data.weight,
                       0 if isinstance(data.zero, Fraction) else SATURATION_RTOL, data.zero).run()
