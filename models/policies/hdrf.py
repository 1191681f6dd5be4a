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
are blocked keeps using what they cannot, and every node gets at least its
guaranteed share (the paper's hierarchical share guarantee; the tests check
it exactly on random trees).

Weights: a node's share is compared divided by its weight at every level,
and the rescaling target is the smallest *weighted* share (so that, in the
continuous process, it is the identity also with unequal weights).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import PolicyError
from ..hierarchy import ROOT, TreeData, TreePolicy
from ..instance import Instance
from ..policy import register
from ..tolerances import SATURATION_RTOL


@dataclass(frozen=True)
class Event:
    """One step of the filling: its length and what ended it."""

    step: Any
    kind: str


class _Kernel:
    """Event-driven H-DRF filling in one arithmetic (floats or Fractions).

    Task counts and rates are numpy arrays (``dtype=object`` for
    Fractions); node aggregates are summed bottom-up over the tree, so a
    step costs ``O(nodes * m)`` array work. ``tol`` is 0 for Fractions
    (exact ties) and a relative tolerance for floats.
    """

    def __init__(self, data: TreeData, tol: float) -> None:
        self.tree, self.D, self.R, self.w, self.tol, self.zero = (data.tree, data.demands, data.capacity,
                                                                  data.weight, tol, data.zero)
        self.k = data.caps
        self.n, self.m = self.D.shape
        self.sigma = (self.D / self.R).max(axis=1)
        self.uses = np.array(self.D > 0, dtype=bool).reshape(self.n, self.m)
        self.capped_users = [i for i in range(self.n) if self.k[i] is not None]

    # --------------------------------------------------------- comparisons
    def le(self, a: Any, b: Any) -> bool:
        """``a <= b`` up to the tolerance."""
        return bool(a <= b + self.tol * max(abs(a), abs(b)))

    def _vector(self) -> np.ndarray:
        return np.full(self.m, self.zero, dtype=self.D.dtype)

    def _per_node(self, x: np.ndarray) -> list[np.ndarray]:
        """Every node's aggregate ``sum_i x_i d_i`` over the users below it."""
        t = self.tree
        out: list[np.ndarray] = [self._vector()] * len(t.label)
        for node in t.postorder:
            if t.is_leaf(node):
                out[node] = x[t.user[node]] * self.D[t.user[node]]
            else:
                acc = self._vector()
                for c in t.children[node]:
                    acc = acc + out[c]
                out[node] = acc
        return out

    # ---------------------------------------------------------------- state
    def _state(self, x: np.ndarray, agg: list[np.ndarray], sat: np.ndarray
               ) -> tuple[list[Any], list[bool], list[list[int]]]:
        """Share, blocked flag and arg-max resources of every node."""
        t = self.tree
        N = len(t.label)
        h: list[Any] = [self.zero] * N
        blocked = [False] * N
        argmax: list[list[int]] = [[] for _ in range(N)]
        free = np.flatnonzero(~sat)
        for node in t.postorder:
            if t.is_leaf(node):
                i = t.user[node]
                h[node] = x[i] * self.sigma[i]
                capped = self.k[i] is not None and self.le(self.k[i], x[i])
                blocked[node] = bool(capped or self.uses[i, sat].any())
                continue
            blocked[node] = all(blocked[c] for c in t.children[node])
            if free.size == 0:
                continue
            vals = agg[node][free] / self.R[free]
            top = vals.max()
            h[node] = top
            argmax[node] = [int(j) for j, v in zip(free, vals, strict=True) if self.le(top, v)]
        return h, blocked, argmax

    def _rate(self, node: int, V: np.ndarray, slope: list[np.ndarray], argmax: list[list[int]]) -> Any:
        """How fast ``node``'s share rises under leaf rates ``V`` (``slope``:
        every node's usage rate)."""
        t = self.tree
        if t.is_leaf(node):
            return V[t.user[node]] * self.sigma[t.user[node]]
        return max((slope[node][j] / self.R[j] for j in argmax[node]), default=self.zero)

    def _direction(self, node: int, h: list[Any], blocked: list[bool], argmax: list[list[int]],
                   plan: dict[int, tuple[list[int], list[int], Any]]) -> tuple[np.ndarray, bool]:
        """Leaf rates under ``node``: its share rises at rate 1, or it is
        flat (its share does not rise while it receives)."""
        t = self.tree
        V = np.full(self.n, self.zero, dtype=self.D.dtype)
        if t.is_leaf(node):
            V[t.user[node]] = 1 / self.sigma[t.user[node]]
            return V, False
        live = [c for c in t.children[node] if not blocked[c]]
        low = min(h[c] / self.w[c] for c in live)
        recv = [c for c in live if self.le(h[c] / self.w[c], low)]
        sub = {c: self._direction(c, h, blocked, argmax, plan) for c in recv}
        use = [c for c in recv if sub[c][1]] or recv
        for c in use:
            V = V + self.w[c] * sub[c][0]
        plan[node] = (use, [c for c in live if c not in recv], low)
        if node == ROOT:
            return V, False
        users = t.leaves_under[node]
        slope = V[users] @ self.D[users]
        dh = max((slope[j] / self.R[j] for j in argmax[node]), default=self.zero)
        if not dh > 0:
            return V, True
        return V / dh, False

    # ----------------------------------------------------------------- run
    def run(self) -> tuple[list[Any], list[Event]]:
        """Fill until every user is blocked; the task counts and the events."""
        t, R, k = self.tree, self.R, self.k
        x = np.full(self.n, self.zero, dtype=self.D.dtype)
        sat = np.zeros(self.m, dtype=bool)
        events: list[Event] = []
        limit = 4 * (len(t.label) + self.m + 2) ** 2
        while True:
            agg = self._per_node(x)
            usage = agg[ROOT]
            sat |= np.array([not sat[j] and self.le(R[j], usage[j]) for j in range(self.m)], dtype=bool)
            h, blocked, argmax = self._state(x, agg, sat)
            if blocked[ROOT]:
                return list(x), events
            if len(events) > limit:
                raise PolicyError("hdrf: the filling did not terminate (report this instance)")
            plan: dict[int, tuple[list[int], list[int], Any]] = {}
            V, _ = self._direction(ROOT, h, blocked, argmax, plan)
            slope = self._per_node(V)
            steps: list[tuple[Any, str]] = [((R[j] - usage[j]) / slope[ROOT][j], "saturation")
                                            for j in range(self.m) if not sat[j] and slope[ROOT][j] > 0]
            steps += [((k[i] - x[i]) / V[i], "cap") for i in self.capped_users if V[i] > 0]
            for node, (use, waiting, low) in plan.items():
                rise = self._rate(use[0], V, slope, argmax) / self.w[use[0]]
                if rise > 0:
                    steps += [((h[c] / self.w[c] - low) / rise, "join") for c in waiting]
                if node != ROOT:
                    steps += self._crossings(agg[node], slope[node], h[node], argmax[node], sat)
            if not steps:
                raise PolicyError("hdrf: progressive filling is unbounded (a user demands nothing)")
            step, kind = min(steps, key=lambda s: s[0])
            step = max(step, self.zero)
            x = x + step * V
            if self.tol:
                for i in self.capped_users:
                    x[i] = min(x[i], k[i])
            events.append(Event(step=step, kind=kind))

    def _crossings(self, agg: np.ndarray, slope: np.ndarray, top: Any, arg: list[int],
                   sat: np.ndarray) -> list[tuple[Any, str]]:
        """Steps at which another resource overtakes a node's largest share."""
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
    scale_invariant = True  # leaf and group shares are dominant shares of bundles
    solver = "event-filling"

    def fill(self, data: TreeData) -> tuple[list[Any], list[Event]]:
        """The event-driven filling in ``data``'s arithmetic (exact ties for Fractions)."""
        return _Kernel(data, 0 if isinstance(data.zero, Fraction) else SATURATION_RTOL).run()
