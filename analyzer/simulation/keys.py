"""Who goes next: a policy's per-user share, seen by the simulator.

The simulator never re-implements a policy's ordering. For a filling
policy (:class:`models.filling.FillingPolicy`: ``drf``, ``asset``,
``single-resource``, ...) the share of a user is the policy's own share
function :meth:`~models.filling.FillingPolicy.shares_for` applied to the
user's *aggregate* use of every resource (for one kind of task, ``x`` tasks
of demand ``d``, that is ``x * share_per_task(d)``, the key of the
discrete engine :class:`models.discrete.LinearShare`), divided by the
user's weight: DRF's key is the dominant share (Ghodsi et al., NSDI 2011,
Section 4), CPU-only fairness's the CPU share (Section 7.2).

Slot-based fair sharing (``slots``, :class:`models.policies.slots.SlotFairSharing`;
the Hadoop fair scheduler of Section 7.2) works on slots: every machine
has ``slots`` of them, the share is slots held over all slots. With
``slot_tasks="one"`` (default: Hadoop, the paper's Section 7.2) each task
takes one slot whatever its size, so a machine can be given more memory or
CPU than it has; with ``slot_tasks="fit"`` a task takes the policy's own
``ceil(max_j d_j / slot_j)`` slots (:meth:`SlotFairSharing.slot_share`)
and never over-commits.

*Placement resources* are the resources a scheduler checks when it puts a
task on a machine: every resource for the filling policies, the slots for
``slots``, and the chosen resource for ``single-resource`` (a CPU-only
scheduler does not look at memory: Section 7.2's over-committed machines);
``aware="all"`` makes every policy check every resource.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from models import Instance, PolicyError, get_policy
from models.filling import FillingPolicy
from models.policies.single_resource import SingleResource
from models.policies.slots import SlotFairSharing
from models.tolerances import SHARE_FORM_RTOL

from .workload import Workload

#: ``slot_tasks`` values (see the module docstring).
SLOT_TASKS: tuple[str, ...] = ("one", "fit")
#: ``aware`` values: the policy's placement resources, or all resources.
AWARE: tuple[str, ...] = ("policy", "all")


@dataclass(eq=False)
class ShareModel:
    """A policy prepared for one workload.

    Attributes
    ----------
    label : str
    columns : int
        Resource columns tracked: the workload's ``m`` plus one slot column
        for slot policies.
    machines : ndarray of int64, shape (K, columns)
    place_cols : ndarray of int
        Columns checked when placing a task.
    """

    label: str
    columns: int
    machines: np.ndarray
    place_cols: np.ndarray
    policy: Any
    instance: Instance | None
    total: np.ndarray
    slot_demand: Any = None
    form: tuple[str, np.ndarray] | None = None

    def extend(self, demand: np.ndarray) -> np.ndarray:
        """A scaled demand with the slot column appended when there is one."""
        if self.slot_demand is None:
            return demand
        return np.append(demand, self.slot_demand(demand))

    def shares(self, usage: np.ndarray) -> np.ndarray:
        """Unweighted policy share of every row of ``usage`` (scaled, shape
        (k, columns))."""
        u = np.asarray(usage, dtype=float)
        if self.instance is None:  # slots: slots held over all slots
            return u[:, -1] / self.total[-1]
        m = self.instance.m
        return np.asarray(self.policy.shares_for(self.instance, u[:, :m], self.total[:m]), dtype=float)


#: Random probe rows used to recognise a share function's form.
FORM_PROBES: int = 64


def detect_form(model: ShareModel) -> tuple[str, np.ndarray] | None:
    """``("max", a)`` when the model's share is ``max_j a_j u_j`` on every
    probe, ``("sum", a)`` when it is ``sum_j a_j u_j``, else ``None``.

    ``a_j`` is the share of one unit of resource ``j`` alone; the probes
    are the unit rows and random rows up to the capacities (seed 0). DRF
    and CPU-only fairness are of the first form, asset fairness of the
    second; the kernel engine (:func:`.fast.kernel_keys`) needs one of them.
    """
    M = model.columns
    a = model.shares(np.eye(M))
    rng = np.random.default_rng(0)
    probe = rng.random((FORM_PROBES, M)) * model.total
    probe[rng.random((FORM_PROBES, M)) < 0.3] = 0.0
    got = model.shares(probe)
    if not np.allclose(model.shares(2 * probe), 2 * got, rtol=SHARE_FORM_RTOL, atol=0.0):
        raise PolicyError(f"policy {model.label!r}: its share is not a function of the resources a user holds "
                          f"(doubling them must double it), so it cannot order users in a running cluster")
    for name, guess in (("max", (probe * a).max(axis=1)), ("sum", probe @ a)):
        if np.allclose(got, guess, rtol=SHARE_FORM_RTOL, atol=0.0):
            return name, a
    return None


def check_placement_options(slot_tasks: Any, aware: Any) -> None:
    """Raise :class:`PolicyError` naming ``slot_tasks`` or ``aware`` when
    its value is not one of :data:`SLOT_TASKS` or :data:`AWARE`."""
    if slot_tasks not in SLOT_TASKS:
        raise PolicyError(f"slot_tasks: must be one of {', '.join(SLOT_TASKS)}, got {slot_tasks!r}")
    if aware not in AWARE:
        raise PolicyError(f"aware: must be one of {', '.join(AWARE)}, got {aware!r}")


def share_model(policy: str | Any, workload: Workload, *, slot_tasks: str = "one", aware: str = "policy") -> ShareModel:
    """Prepare ``policy`` for ``workload`` (see the module docstring).

    Raises
    ------
    PolicyError
        For a policy without a per-user share (not a filling policy), a bad
        ``slot_tasks`` or ``aware``, or a policy that does not apply.
    """
    check_placement_options(slot_tasks, aware)
    pol = get_policy(policy)
    if not isinstance(pol, FillingPolicy):
        raise PolicyError(f"policy {pol.label!r}: the simulator needs a per-user share (a filling policy such as "
                          f"drf, asset, single-resource or slots)")
    m = len(workload.resources)
    machines = workload.machines
    every = np.arange(m)
    if isinstance(pol, SlotFairSharing):
        K = machines.shape[0]
        per = pol.slots
        mach = np.hstack([machines, np.full((K, 1), per, dtype=np.int64)])
        total = mach.sum(axis=0).astype(float)
        if slot_tasks == "one":
            def slot_demand(d: np.ndarray) -> int:
                return 1
        else:
            avg = machines.sum(axis=0).astype(float) / K  # the policy's pool-average slot size

            def slot_demand(d: np.ndarray) -> int:
                return int(SlotFairSharing.slot_share(np.asarray(d, dtype=float)[None, :], avg, per)[0] * per)
        place = every if aware == "all" else np.array([m])
        if aware == "all":
            place = np.arange(m + 1)
        model = ShareModel(label=pol.label, columns=m + 1, machines=mach, place_cols=place, policy=pol,
                           instance=None, total=total, slot_demand=slot_demand)
        model.form = detect_form(model)
        return model
    cap = machines.sum(axis=0)
    inst = Instance.from_arrays(workload.real(cap), np.ones((1, m)), resources=list(workload.resources))
    reason = pol.supports(inst)
    if reason is not None:
        raise PolicyError(f"policy {pol.label!r} does not apply: {reason}")
    place = every
    if isinstance(pol, SingleResource) and aware == "policy":
        col = pol.column(inst)
        assert col is not None  # supports() checked it
        place = np.array([col])
    model = ShareModel(label=pol.label, columns=m, machines=machines.copy(), place_cols=place, policy=pol,
                       instance=inst, total=cap.astype(float))
    model.form = detect_form(model)
    return model
