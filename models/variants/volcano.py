"""Volcano's ``drf`` plugin with hierarchy enabled (hierarchical DRF, after
Bhattacharya et al., "Hierarchical scheduling for diverse datacenter
workloads", SoCC 2013).

Source: volcano-sh/volcano ``pkg/scheduler/plugins/drf/drf.go`` (read at
commit ``0069b395``, Volcano v1.12 line): ``calculateShare``,
``resourceSaturated``, ``updateHierarchicalShare``, ``compareQueues`` and
``jobOrderFn``; ``helpers.Share`` (``pkg/scheduler/api/helpers``). Its test
``hdrf_test.go`` is translated in ``tests/test_variants_volcano_upstream.py``.

What is modelled, in our words (a user is a *job*; ``group = "a/b"`` is the
job's queue ``root/a/b``; group weights from ``[groups."a/b"]``; a user
without a group: see below):

* **Share** (``calculateShare``). The largest, over the resources of
  positive cluster total, of allocation / total. A resource whose total is
  0 never enters the share (Volcano iterates over the total's resource
  names, which leave out empty ones).
* **Saturation** (``resourceSaturated``). A job is saturated only through a
  resource it already holds: for some resource it holds, it holds all it
  asked for (its cap times its demand; an uncapped job never does), or the
  cluster has none of that resource left (everything allocated) while the
  job asks for it. A job that holds nothing is never saturated. A queue is
  saturated when all its children are.
* **Rescaling** (``updateHierarchicalShare``). Bottom-up, a queue's
  allocation is not the plain sum of its children's: every unsaturated
  child that holds something is scaled so that its dominant share equals
  the smallest dominant share among those children (1 if there are none);
  saturated children count as they are. The queue's share is computed
  from that rescaled allocation.
* **Queue order** (``compareQueues``). Walking both queues' paths from the
  root, level by level: an unsaturated node before a saturated one, then
  the smaller share / weight; equal nodes go one level down; when one path
  ends first the queues tie. Ties go to the queue name (the session's
  fallback: creation time, then UID; equal creation times assumed).
* **Job order** (``jobOrderFn``). Inside the chosen queue, the job with the
  smaller share (unweighted, saturation ignored), then the name.
* **Users without a group.** Each is the one job of its own queue under
  the root, named after the user, with the user's weight (so without any
  groups this is DRF with saturated users last and a name tie-break).

Arithmetic is exact (Fractions); Volcano computes in ``float64``, so shares
that differ only by rounding are ties here. Tasks are handed out one at a
time; every decision recomputes the tree.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import numpy as np

from ..discrete import FillState, Run, integer_steps
from ..hierarchy import Tree
from ..instance import Instance
from ..policy import register
from ._common import VariantPolicy, VariantShare, name_rank, totals


def share_of(use: int | Fraction, total: int) -> Fraction:
    """``helpers.Share``: ``use / total``, and for a total of 0 a share of
    1 when anything is used (else 0). (The ``drf`` plugin never calls it
    with a total of 0: see :func:`dominant`.)

    >>> share_of(3, 12), share_of(0, 0), share_of(2, 0)
    (Fraction(1, 4), Fraction(0, 1), Fraction(1, 1))
    """
    if total == 0:
        return Fraction(1 if use > 0 else 0)
    return Fraction(use) / total


def dominant(use: list[Any], T: list[int]) -> Fraction:
    """``calculateShare``: the largest :func:`share_of` over resources of
    positive total."""
    return max((share_of(u, t) for u, t in zip(use, T, strict=True) if t > 0), default=Fraction(0))


def saturated_job(held: list[Any], asked: list[Any] | None, free_total: list[Any]) -> bool:
    """``resourceSaturated``: for some resource the job holds, it holds all
    it asked for (``asked`` is ``None`` for an unbounded job), or none is
    left in the cluster while it asks for it."""
    for j, h in enumerate(held):
        if h == 0:
            continue
        if asked is not None and asked[j] != 0 and h >= asked[j]:
            return True
        if free_total[j] <= 0 and (asked is None or asked[j] != 0):
            return True
    return False


@functools.total_ordering
class QueueKey:
    """A queue's place in ``compareQueues`` order, then its name."""

    __slots__ = ("levels", "name")

    def __init__(self, levels: tuple[tuple[bool, Fraction], ...], name: str) -> None:
        self.levels, self.name = levels, name

    def _cmp(self, other: QueueKey) -> int:
        for a, b in zip(self.levels, other.levels, strict=False):
            if a != b:
                return -1 if a < b else 1
        return (self.name > other.name) - (self.name < other.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, QueueKey) and self._cmp(other) == 0

    def __lt__(self, other: QueueKey) -> bool:
        return self._cmp(other) < 0

    __hash__ = None  # type: ignore[assignment]


class VolcanoShare(VariantShare):
    """The discrete form of :class:`Volcano`."""

    global_keys = True

    def rates(self, instance: Instance) -> None:
        """Not linear (name tie-break); prepares ``instance``."""
        self.prepared(instance)

    def prepare(self, instance: Instance) -> dict[str, Any]:
        return {"tree": Tree.of(instance), "name": name_rank(instance), "cache": None, "data": None}

    def constants(self, state: FillState) -> dict[str, Any]:
        """Per run: totals and each job's share of one task (resources of
        positive total)."""
        prep = self.prepared(state.instance)
        if prep["data"] is not state.data:
            T = totals(state.data)
            rate = [max((Fraction(d, T[j]) for j, d in state.demand(i) if T[j] > 0), default=Fraction(0))
                    for i in range(state.instance.n)]
            prep.update(T=T, rate=rate, data=state.data)
        return prep

    def node_keys(self, state: FillState) -> tuple[list[bool], list[Fraction]]:
        """Saturation and share / weight of every node of the
        :class:`~models.hierarchy.Tree` after the bottom-up rescaling."""
        prep = self.constants(state)
        tree: Tree = prep["tree"]
        T, rate = prep["T"], prep["rate"]
        m, data = state.instance.m, state.data
        tasks = [int(t) for t in state.tasks]
        held = [[t * int(d) for d in data.demands[i]] for i, t in enumerate(tasks)]
        used = [sum(row[j] for row in held) for j in range(m)]
        free_total = [a - b for a, b in zip(T, used, strict=True)]
        N = len(tree.parent)
        share = [Fraction(0)] * N
        sat = [False] * N
        alloc: dict[int, list[Any]] = {}
        for i, k in enumerate(tree.leaf):
            cap = state.caps[i]
            asked = None if cap is None else [cap * int(d) for d in data.demands[i]]
            share[k] = tasks[i] * rate[i]
            sat[k] = saturated_job(held[i], asked, free_total)
            alloc[k] = held[i]
        for k in reversed(tree.groups):
            kids = tree.children[k]
            live = [c for c in kids if share[c] != 0 and not sat[c]]
            floor = min((share[c] for c in live), default=Fraction(1))
            total: list[Any] = [Fraction(0)] * m
            for c in kids:
                if share[c] != 0:
                    f = Fraction(1) if sat[c] else floor / share[c]
                    total = [a + f * b for a, b in zip(total, alloc[c], strict=True)]
            alloc[k] = total
            share[k] = dominant(total, T)
            sat[k] = all(sat[c] for c in kids)
        return sat, [s / w for s, w in zip(share, tree.weight, strict=True)]

    def key(self, state: FillState, i: int) -> tuple[QueueKey, Fraction, int]:
        """``(queue key, job share, name rank)``. A user without a group is
        the one job of its own queue under the root (named after it)."""
        prep = self.constants(state)
        tree: Tree = prep["tree"]
        stamp = (id(state), sum(state.tasks))
        if prep["cache"] is None or prep["cache"][0] != stamp:
            prep["cache"] = (stamp, self.node_keys(state))
        sat, share = prep["cache"][1]
        path = tree.path[i]
        queue = path[:-1] or path
        levels = tuple((sat[k], share[k]) for k in queue)
        return (QueueKey(levels, tree.label[queue[-1]]), int(state.tasks[i]) * prep["rate"][i], prep["name"][i])

    def drive(self, run: Run) -> bool:
        """One decision at a time, the tree computed once per decision
        (without groups: :meth:`_drive_flat`)."""
        st = run.state
        if self.constants(st)["tree"].flat and st.data.demands.dtype == np.int64:
            self._drive_flat(run)
            return True
        caps = st.caps
        active = [i for i, c in enumerate(caps) if c is None or int(st.tasks[i]) < c]  # room left (a later step)
        while active:
            i = min(active, key=lambda u: self.key(st, u))
            run.decisions += 1
            if not run.place_tasks(i, 1):
                run.failures.append(i)
                active.remove(i)
                if run.stop:
                    return True
                continue
            cap = caps[i]
            if cap is not None and int(st.tasks[i]) >= cap:
                active.remove(i)
        return True


    def _drive_flat(self, run: Run) -> None:
        """Without groups every user is the one job of its own queue: the
        key is ``(saturated, share / weight, name)``, computed for all
        users at once with numpy at each decision (integer shares in the
        same ratios, :func:`~models.discrete.integer_steps`)."""
        st = run.state
        prep = self.constants(st)
        inst, data = st.instance, st.data
        if prep.get("flat_steps") is None:
            prep["flat_steps"] = np.array(integer_steps([r / w for r, w in zip(prep["rate"], inst.weights_exact,
                                                                                strict=True)]), dtype=object)
        steps = prep["flat_steps"]
        D = np.asarray(data.demands, dtype=np.int64)
        T = np.asarray(prep["T"], dtype=object)
        big = 1 << 62
        caps = np.array([big if c is None else c for c in st.caps], dtype=np.int64)
        names = np.asarray(prep["name"], dtype=np.int64)
        needs = D > 0
        active = np.flatnonzero(caps > np.asarray(st.tasks, dtype=np.int64))  # room left (a later step)
        while active.size:
            t = np.asarray(st.tasks, dtype=np.int64)
            free_total = T - (t.astype(object)[:, None] * D).sum(axis=0)
            gone = needs & (free_total <= 0).astype(bool)[None, :]
            sat = (t > 0) & ((t >= caps) | gone.any(axis=1))
            key = t[active].astype(object) * steps[active]
            i = int(active[np.lexsort((names[active], key, sat[active]))[0]])
            run.decisions += 1
            if not run.place_tasks(i, 1):
                run.failures.append(i)
                active = active[active != i]
                if run.stop:
                    return
                continue
            if st.tasks[i] >= caps[i]:
                active = active[active != i]


@register
class Volcano(VariantPolicy):
    """Volcano v1.12 hierarchical DRF (see the module docstring)."""

    name = "volcano"
    description = ("Volcano drf plugin with hierarchy (v1.12): queues by saturation then H-DRF rescaled share / "
                   "weight level by level, jobs inside a queue by share; zero-total resources left out")
    source = ("volcano-sh/volcano pkg/scheduler/plugins/drf/drf.go (v1.12); Bhattacharya et al., SoCC 2013; "
              "Ghodsi et al., NSDI 2011")
    form = VolcanoShare
    memory_note = ("the drf plugin modelled here orders queues and jobs by what they hold now; Volcano's "
                   "decayed usage (the fairshare plugin proposed after volcano#4165) is another plugin, "
                   "not modelled")


__all__ = ["QueueKey", "Volcano", "VolcanoShare", "dominant", "saturated_job", "share_of"]
