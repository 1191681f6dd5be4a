"""Production allocators' DRF variants (YARN, Mesos, Volcano, Kueue) in
the running cluster.

Ghodsi et al., NSDI 2011, Section 7 runs DRF in Mesos; the variants of
:mod:`models.variants` model how deployed schedulers order users (YARN's
comparator, Mesos's sorter with its ``double`` shares, allocation counts
and coarse offers, Volcano's queues, Kueue's quotas). The simulator does
not re-implement any of them: at every scheduling round it hands the free
space to the variant's own discrete engine (:class:`models.discrete.Engine`,
the allocator with a state that lives across steps: tasks that finish are
given back with ``release``) and launches what that engine placed, where it
placed it. Arrivals, durations, ``until``, resubmission, records and the
event loop are the reference engine's (:class:`.engine.Engine`).

A variant orders users by whole tasks of one demand each (its keys are
functions of a user's task count), so every job of a user must have the
same demand; each round's per-step limit of a user
(:meth:`models.discrete.Engine.allocate`'s ``limit``) is the tasks waiting in
its jobs, launched oldest job first. A step that places a task over a
user's cap is a bug of the variant and raises (it is never silently given
back).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from models import Instance, PolicyError

from .engine import Engine
from .keys import ShareModel
from .queues import QueuedSpec
from .workload import Workload


def is_variant(pol: Any) -> bool:
    """Whether the simulator runs ``pol`` through its own discrete engine
    (a policy defined for whole tasks only: the production variants)."""
    return bool(getattr(pol, "discrete_only", False)) and hasattr(pol, "discrete_form")


def variant_model(pol: Any, workload: Workload) -> ShareModel:
    """The reference engine's view of a variant: every resource is checked
    when placing; the share is the variant's business."""
    m = len(workload.resources)
    return ShareModel(label=pol.label, columns=m, machines=workload.machines.copy(), place_cols=np.arange(m),
                      policy=pol, instance=None, total=workload.capacity.astype(float))


def _instance(workload: Workload) -> tuple[Instance, dict[str, int]]:
    """The static instance the variant's engine runs on: the machines, and
    each user with the demand of its jobs (read once from the workload)."""
    demands: dict[str, np.ndarray] = {}
    for spec in workload.specs():
        d = demands.setdefault(spec.user, spec.demand)
        if not np.array_equal(d, spec.demand):
            raise PolicyError(f"jobs of user {spec.user!r}: a production variant orders users by tasks of one "
                              f"demand, and this user's jobs have different demands")
    res = workload.resources
    rows = workload.real(workload.machines).tolist()
    data = {"resources": dict(zip(res, workload.real(workload.capacity).tolist(), strict=True)),
            "machines": [{"count": 1, **dict(zip(res, row, strict=True))} for row in rows],
            "users": {u: {"demand": dict(zip(res, workload.real(d).tolist(), strict=True)),
                          "weight": workload.weights.get(u, 1.0)} for u, d in demands.items()}}
    return Instance.from_dict(data), {u: k for k, u in enumerate(demands)}


class VariantEngine(Engine):
    """The reference engine whose rounds are a variant's allocation steps."""

    def __init__(self, workload: Workload, model: ShareModel, **options: Any) -> None:
        from models.discrete import Engine as DiscreteEngine

        super().__init__(workload, model, batch=False, **options)
        inst, self.slot = _instance(workload)
        self.alloc = DiscreteEngine(inst, model.policy)

    def _key(self, i: int) -> float:
        return 0.0  # no user heap: the variant orders the users

    def _round(self, t: float) -> None:
        limit: list[int | None] = [0] * len(self.slot)
        for u in self.users:
            limit[self.slot[u.name]] = sum(s.pending for s in u.queue)
        held = self.alloc.tasks
        before = self.alloc.placed
        step = self.alloc.allocate(limit=limit)
        self.decisions += step.decisions
        after = self.alloc.tasks
        K = len(before)
        for u in self.users:
            j = self.slot[u.name]
            got = int(after[j]) - int(held[j])
            if got > int(limit[j] or 0):
                raise RuntimeError(f"{self.model.label}: an allocation step gave user {u.name!r} {got} new tasks, "
                                   f"over its limit {limit[j]} (the tasks it has waiting; a bug of the variant)")
            new = np.array([step.placed[k].get(j, 0) - before[k].get(j, 0) for k in range(K)], dtype=np.int64)
            self._take(t, u.queue, new)

    def _take(self, t: float, queue: Any, new: np.ndarray) -> None:
        """Launch ``new[k]`` tasks on machine ``k`` from the queued jobs, oldest first."""
        while new.any():
            s: QueuedSpec = queue[0]
            k = min(int(new.sum()), s.pending)
            cum = np.cumsum(new)
            part = np.minimum(new, np.maximum(0, k - (cum - new)))  # the first k tasks, lowest machines first
            self._launch(t, s, part, k)
            new = new - part
            if s.pending == 0:
                queue.popleft()

    def _complete(self, t: float, payload: tuple[QueuedSpec, np.ndarray, np.ndarray, int]) -> None:
        s, mach, counts, _k = payload
        j = self.slot[self.users[s.user].name]
        for k, c in zip(mach.tolist(), counts.tolist(), strict=True):
            self.alloc.release(j, int(c), int(k))
        super()._complete(t, payload)
