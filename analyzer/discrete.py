"""Discrete progressive filling and its distance from the continuous optimum.

Ghodsi et al., NSDI 2011: Algorithm 1 (Section 4.2) hands out whole tasks,
always to the user with the lowest (weighted) share; Section 6.2 places them
on machines and states Theorem 7: under its assumptions (every demand entry
positive, every machine holds a *max-task*) the discrete allocation keeps
any two users within one max-task of each other, compared with the
continuous allocation.

* :func:`progressive_filling` -- the front door: a :class:`DiscreteResult`
  (tasks, an exact :class:`~models.Allocation`, the order of picks, the
  placement per machine, utilization and fragmentation).
* :class:`DiscreteRun` -- a policy with the engine's settings (tie-break,
  placement, ...), as a :class:`~models.Policy`: the property checks'
  discrete mode (:mod:`analyzer.properties`) evaluates exactly that run.

:func:`analyzer.comparing.whole_tasks.compare` puts the outcome next to the
continuous solution of the same policy.

The engine itself is :mod:`models.discrete`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from models import Allocation, Instance, Policy, PolicyError, UserMap
from models.allocation import put_exact
from models.discrete import DiscreteFill, DiscretePolicy, fill, get_discrete_policy
from models.display import html_table, short_repr

from .api import as_instance


# ---------------------------------------------------------------------------
# the front door
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DiscreteResult:
    """Whole tasks given by discrete progressive filling.

    Attributes
    ----------
    fill : DiscreteFill
        The engine's raw outcome (scaled integers, run-length picks).
    """

    fill: DiscreteFill

    @property
    def instance(self) -> Instance:
        """The instance filled."""
        return self.fill.instance

    @property
    def policy(self) -> str:
        """Label of the policy."""
        return self.fill.policy

    @property
    def tasks(self) -> UserMap:
        """``name -> int`` tasks per user."""
        return UserMap(self.instance, self.fill.tasks)

    @cached_property
    def allocation(self) -> Allocation:
        """The outcome as an exact :class:`~models.Allocation` (whole
        numbers as Fractions)."""
        f = self.fill
        return Allocation(
            instance=self.instance,
            x=f.tasks.astype(float),
            policy=f.policy,
            exact=True,
            x_exact=tuple(Fraction(int(v)) for v in f.tasks),
            message=(f"discrete progressive filling (tie-break {f.tie_break}, on full: {f.on_full}, "
                     f"placement {f.placement})"),
            stats={"solver": "discrete-filling", "mode": "discrete", "decisions": f.decisions,
                   "tie_break": f.tie_break, "on_full": f.on_full, "placement": f.placement},
        )

    @property
    def picks(self) -> list[str]:
        """User of every successful pick, in order (Table 1 of the paper)."""
        users = self.instance.users
        return [users[i] for i in self.fill.picks]

    @property
    def failures(self) -> list[str]:
        """Users whose chosen task fit nowhere, in order."""
        return [self.instance.users[i] for i in self.fill.failures]

    @property
    def stopped(self) -> bool:
        """True when the ``stop`` variant ended at a task that did not fit."""
        return self.fill.stopped

    @cached_property
    def placement(self) -> dict[str, dict[str, int]]:
        """``machine -> {user: tasks}`` (machines holding no task omitted)."""
        users = self.instance.users
        names = self.fill.data.machine_names
        return {names[k]: {users[i]: c for i, c in sorted(slot.items())}
                for k, slot in enumerate(self.fill.placed) if slot}

    @cached_property
    def usage(self) -> tuple[Fraction, ...]:
        """Exact use of each resource."""
        f = self.fill
        m = self.instance.m
        used = [
            sum(int(c) - int(v) for c, v in zip(f.data.machines[:, j], f.free[:, j], strict=True)) for j in range(m)
        ]
        return tuple(f.data.exact(used[j], j) for j in range(m))

    @cached_property
    def utilization(self) -> tuple[Fraction, ...]:
        """Exact fraction of each resource in use."""
        return tuple(u / c for u, c in zip(self.usage, self.instance.capacity_exact, strict=True))

    @cached_property
    def pending(self) -> list[int]:
        """Users who would take another task (below their cap)."""
        caps = self.fill.data.caps
        return [i for i in range(self.instance.n) if caps[i] is None or self.fill.tasks[i] < caps[i]]

    @cached_property
    def _no_fit(self) -> np.ndarray:
        """Per machine: no pending user's task fits in its free space (all
        False when nobody is pending)."""
        f = self.fill
        K = f.free.shape[0]
        if not self.pending:
            return np.zeros(K, dtype=bool)
        rows = f.data.demands[self.pending]
        D = rows if rows.dtype == object else np.unique(rows, axis=0)  # Python ints past int64: no row unique
        return np.array([not np.any(np.all(D <= f.free[k], axis=1)) for k in range(K)], dtype=bool)

    @cached_property
    def fragmentation(self) -> tuple[Fraction, ...]:
        """Free resources on machines where no pending user's task fits
        (exact, per resource). With ``on_full="skip"`` that is all free
        space; with ``stop`` a pending task may still fit somewhere. Zero
        when nobody is pending (every user at its cap): the rest is idle,
        not fragmented."""
        free = self.fill.free[self._no_fit]
        return tuple(self.fill.data.exact(sum(int(v) for v in free[:, j]), j) for j in range(self.instance.m))

    @cached_property
    def stranded_machines(self) -> int:
        """Machines with free space of which no pending task fits."""
        return int(np.count_nonzero(self._no_fit & np.any(self.fill.free > 0, axis=1)))

    # ------------------------------------------------------------ notebooks
    def __repr__(self) -> str:
        inst = self.instance
        fields: dict[str, Any] = {"policy": self.policy, "users": inst.n, "machines": self.fill.data.machines.shape[0],
                                  "decisions": self.fill.decisions}
        if inst.n <= 8:
            fields["tasks"] = dict(self.tasks.items())
        return short_repr("DiscreteResult", **fields)

    def _repr_html_(self) -> str:
        """Tasks and dominant share per user (continuous columns are in
        :func:`compare`)."""
        a = self.allocation
        rows = [[u, int(self.fill.tasks[i]), float(a.dominant_shares[i])]
                for i, u in zip(range(min(self.instance.n, 1000)), self.instance.users, strict=False)]
        util = ", ".join(f"{r} {float(v):.3g}" for r, v in zip(self.instance.resources, self.utilization, strict=True))
        return html_table(["user", "tasks", "dominant share"], rows,
                          f"{self.policy}: discrete progressive filling (utilization {util})")

    def to_pandas(self) -> Any:
        """A tidy ``pandas.DataFrame``: one row per user x resource, like
        :meth:`models.Allocation.to_pandas` (whole tasks), plus ``mode``
        ``"discrete"``."""
        frame = self.allocation.to_pandas()
        frame.insert(1, "mode", "discrete")
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (exact numbers as ``"p/q"`` strings)."""
        f = self.fill
        res = self.instance.resources
        out: dict[str, Any] = {
            "policy": f.policy,
            "tie_break": f.tie_break,
            "on_full": f.on_full,
            "placement_strategy": f.placement,
            "tasks": dict(self.tasks.items()),
            "failures": self.failures,
            "stopped": self.stopped,
            "decisions": f.decisions,
            "stranded_machines": self.stranded_machines,
        }
        for key, values in (("utilization", self.utilization), ("fragmentation", self.fragmentation)):
            out[key] = {}
            for r, v in zip(res, values, strict=True):
                put_exact(out[key], r, v)
        if f.runs is not None:
            users = self.instance.users
            out["picks"] = [[users[int(i)], int(c)] for i, c in zip(*f.runs, strict=True)]
        if not f.data.pooled:
            out["placement"] = self.placement
        return out


def progressive_filling(
    instance: Instance | Mapping[str, Any] | str | Path,
    policy: str | Policy | DiscretePolicy = "drf",
    **options: Any,
) -> DiscreteResult:
    """Discrete progressive filling (Ghodsi et al., NSDI 2011, Algorithm 1).

    Parameters
    ----------
    instance : Instance, dict or path
        Uses its ``[[machines]]`` when given (a task must fit on one
        machine), else one pool.
    policy : str, Policy or DiscretePolicy
        ``"drf"`` (weighted dominant share), ``"asset"`` (aggregate share),
        any filling policy, or a discrete policy registered with
        :func:`models.discrete.register_discrete`.
    **options
        Keywords of :func:`models.discrete.fill`: ``tie_break`` (who goes
        first among equal keys: ``largest-task``, the default and the
        paper's Table 1, ``smallest-task``, ``index``, ``reverse``,
        ``name``, ``random``), ``on_full`` (``stop``: end at the first
        chosen task that does not fit, the paper's pseudo-code; ``skip``:
        drop that user and go on), ``placement`` (``first-fit``,
        ``best-fit``, ``machine-by-machine`` as in the proof of Theorem 7),
        ``seed`` (random tie-break), ``batch``, ``record_picks``.

    Returns
    -------
    DiscreteResult

    Examples
    --------
    >>> from analyzer import Instance, progressive_filling
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> r = progressive_filling(inst, "drf")
    >>> r.tasks["A"], r.tasks["B"], r.picks
    (3, 2, ['B', 'A', 'A', 'B', 'A'])
    >>> r.allocation.x_exact
    (Fraction(3, 1), Fraction(2, 1))
    """
    inst = as_instance(instance)
    if isinstance(policy, DiscreteRun):
        options = {**policy.options, **options}
        policy = policy.discrete
    return DiscreteResult(fill(inst, policy, **options))


class DiscreteRun(Policy):
    """A discrete policy with the engine's settings, as a policy.

    The property checks compute their allocations by policy
    (:func:`analyzer.properties.base.allocate`): in discrete mode by
    :func:`progressive_filling` with the engine's default settings. This
    wrapper carries other settings (``tie_break``, ``on_full``,
    ``placement``, ``seed``) to that call, so that e.g. the sharing
    incentive of ``fairalloc discrete --placement best-fit`` is checked on
    the run shown (Ghodsi et al., NSDI 2011, Section 3 properties of the
    Section 4.2 Algorithm 1 outcome). It has no continuous solution.

    Parameters
    ----------
    policy : str, Policy or DiscretePolicy
        As for :func:`progressive_filling`.
    **options
        Keywords of :func:`models.discrete.fill`.

    Examples
    --------
    >>> from analyzer import Instance
    >>> from analyzer.properties import get_property
    >>> inst = Instance.from_dict({"resources": {"cpu": 10},
    ...     "users": {"A": {"demand": {"cpu": 3}}, "B": {"demand": {"cpu": 3}}}})
    >>> run = DiscreteRun("drf", tie_break="reverse")
    >>> dict(progressive_filling(inst, run).tasks.items())
    {'A': 1, 'B': 2}
    >>> get_property("envy-freeness").check(run, inst, mode="discrete").message
    "A gets 1 tasks but could run 2 with B's bundle"
    """

    name = "discrete-run"
    description = "a discrete policy with the engine's settings (tie-break, placement, ...)"
    discrete_only = True

    def __init__(self, policy: str | Policy | DiscretePolicy, **options: Any) -> None:
        super().__init__()
        self.discrete = get_discrete_policy(policy)
        self.options = options

    @property
    def label(self) -> str:
        """The discrete policy's label and the settings given."""
        given = ", ".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return self.discrete.label + (f" ({given})" if given else "")

    def supports(self, instance: Instance) -> str | None:
        return self.discrete.supports(instance)

    def solve(self, instance: Instance) -> Allocation:
        """Raises: a discrete run has no continuous solution."""
        raise PolicyError(f"{self.label}: a discrete run has no continuous solution")


__all__ = ["DiscreteResult", "DiscreteRun", "progressive_filling"]
