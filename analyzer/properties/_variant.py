"""Derived instances for the numeric screens: an instance with other
capacities, demands, weights or caps, or fewer users, keeping what still
applies of its scenario extensions and machines."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance


def scaled_machines(instance: Instance, capacity: Sequence[Any]) -> tuple[Any, ...]:
    """``instance``'s machine types with resource ``j`` of every machine
    multiplied by ``capacity[j] / R_j`` (exact when ``capacity`` is), so
    that the machines still add up to the pool: how capacity grows on a
    cluster of machines (resource monotonicity) or stays (other variants)."""
    from models.instance import MachineType

    ratio = [Fraction(c) / r for c, r in zip(capacity, instance.capacity_exact, strict=True)]
    out = []
    for mt in instance.machines:
        cap = tuple(v * f for v, f in zip(mt.capacity_exact, ratio, strict=True))
        out.append(MachineType(count=mt.count, capacity=np.array([float(v) for v in cap]), capacity_exact=cap,
                               name=mt.name))
    return tuple(out)


def numeric_variant(
    instance: Instance,
    capacity: np.ndarray | None = None,
    demands: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    max_tasks: np.ndarray | None = None,
    keep: Sequence[int] | None = None,
) -> Instance:
    """A float variant of ``instance`` for a numeric screen, keeping what
    still applies of its scenario extensions.

    Built on the vectorised :meth:`~models.instance.Instance.from_arrays`
    path. Arrays not given are the instance's own; ``keep`` lists the users
    that stay (in order; ``demands``, ``weights`` and ``max_tasks`` given
    are already restricted to them). Users keep their names, so that the
    extensions (group tree, minimum shares, quotas, excluded resources; see
    :class:`~models.instance.Extensions`) follow them as in
    :meth:`~models.instance.Instance.replace`: a removed user leaves its
    group, a changed demand or capacity keeps everything. An instance
    without extensions takes no extra step.

    Examples
    --------
    >>> inst = Instance.from_dict({"resources": {"cpu": 1, "gpu": 1},
    ...     "users": {"a": {"demand": {"cpu": 1}, "group": "g"},
    ...               "b": {"demand": {"gpu": 1}, "group": "g"},
    ...               "c": {"demand": {"gpu": 1}}}})
    >>> numeric_variant(inst, keep=[1, 2]).extensions.group
    {'b': 'g'}
    """
    users = instance.users if keep is None else tuple(instance.users[i] for i in keep)
    rows = slice(None) if keep is None else list(keep)
    variant = Instance.from_arrays(
        instance.capacity if capacity is None else capacity,
        instance.demands[rows] if demands is None else demands,
        resources=instance.resources,
        weights=instance.weights[rows] if weights is None else weights,
        max_tasks=instance.max_tasks[rows] if max_tasks is None else max_tasks,
        users=users,
    )
    if instance.extensions:
        ext = instance.extensions.restrict(variant.users, variant.resources, variant.capacity_exact)
        object.__setattr__(variant, "extensions", ext)
    if instance.machines:  # machine-aware policies (DRFH) keep their machines, grown with the pool
        object.__setattr__(
            variant, "machines", scaled_machines(instance, [Fraction(float(c)) for c in variant.capacity])
        )
    return variant
