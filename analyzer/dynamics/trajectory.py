"""The allocations after every arrival of one policy on one instance (the
dynamic setting's counterpart of :func:`analyzer.api.solve`).

A :class:`~models.dynamic.DynamicPolicy` gives them itself. Any other
policy is lifted naively (Kash, Procaccia and Shah, JAIR 51, 2014, Section
1): recomputed on the users present after every arrival, on the whole
cluster, exactly as ``recompute:policy=P`` does; the exact steps go
through :func:`analyzer.api.solve`, so the lifted policy uses its exact
solver wherever it has one (CEEI's lives in :mod:`proofs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance, Policy, get_policy
from models.dynamic import DynamicPolicy
from models.policies.recompute import Recompute, lift_batch, prefix


@dataclass(frozen=True, eq=False)
class Steps:
    """Tasks after every arrival.

    Attributes
    ----------
    x : ndarray, shape (n, n)
        ``x[k - 1, i]``: user ``i``'s tasks after the ``k``-th arrival (0
        before it arrives).
    x_exact : tuple of tuples or None
        The same in exact numbers when ``exact``.
    exact : bool
        True when every step was solved exactly.
    """

    x: np.ndarray
    x_exact: tuple[tuple[Any, ...], ...] | None
    exact: bool

    def values(self) -> list[list[Any]]:
        """The steps as exact numbers when exact, else floats."""
        if self.exact and self.x_exact is not None:
            return [list(row) for row in self.x_exact]
        return [[float(v) for v in row] for row in self.x]


def lifted(policy: Policy) -> Policy | None:
    """The static policy a mechanism recomputes (``recompute:policy=P``'s
    ``P``, or a static policy itself), ``None`` for a dynamic mechanism."""
    if isinstance(policy, Recompute):
        return policy.inner
    return None if isinstance(policy, DynamicPolicy) else policy


def steps(policy: str | Policy, instance: Instance, exact: bool = False) -> Steps:
    """The allocation after every arrival (the user order of ``instance``).

    Parameters
    ----------
    policy : str or Policy
        A dynamic mechanism (``"dynamic-drf"``) or any static policy, lifted.
    instance : Instance
    exact : bool
        Exact numbers where the policy has an exact solver.

    Examples
    --------
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    >>> [list(map(str, row)) for row in steps("drf", inst, exact=True).x_exact]
    [['9/2', '0'], ['3', '2']]
    """
    pol = get_policy(policy)
    static = lifted(pol)
    if static is None:
        assert isinstance(pol, DynamicPolicy)
        if exact and pol.has_exact:
            xe = tuple(tuple(row) for row in pol.steps_exact(instance))
            return Steps(np.array([[float(v) for v in row] for row in xe]).reshape(instance.n, instance.n), xe, True)
        return Steps(pol.steps(instance), None, False)
    return _lift(static, instance, exact)


def _lift(static: Policy, instance: Instance, exact: bool) -> Steps:
    """The static policy on every prefix of the arrivals."""
    from ..api import solve

    n = instance.n
    rows: list[tuple[Any, ...]] = []
    floats = np.zeros((n, n))
    all_exact = exact
    for k in range(1, n + 1):
        alloc = solve(prefix(instance, k), static, exact=exact)
        floats[k - 1, :k] = alloc.x
        if exact and alloc.exact and alloc.x_exact is not None:
            rows.append(tuple(alloc.x_exact) + (Fraction(0),) * (n - k))
        else:
            all_exact = False
    return Steps(floats, tuple(rows) if all_exact else None, all_exact)


def batch_steps(policy: Policy, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
                caps: np.ndarray) -> np.ndarray | None:
    """Float steps of a batch of instances of one shape and weights,
    shape (K, n, n): the mechanism's own vectorised
    :meth:`~models.dynamic.DynamicPolicy.steps_batch`, or the lifted
    policy's :meth:`~models.policy.Policy.batch_solver` on every prefix;
    ``None`` when the policy has no batch."""
    static = lifted(policy)
    if static is None:
        assert isinstance(policy, DynamicPolicy)
        return policy.steps_batch(demands, capacity, weights, caps)
    if static.batch_solver() is None:
        return None
    return lift_batch(static, demands, capacity, weights, caps)


def steps_many(policy: Policy, instances: Sequence[Instance]) -> list[np.ndarray | None]:
    """Float steps (n, n) of many unrelated instances, for the screens: one
    :func:`batch_steps` per group of equal shape and weights (instances
    with machines or scenario extensions are left out); ``None`` where no
    batch answers (the check then solves it itself)."""
    from ..properties._batch import shape_groups

    out: list[np.ndarray | None] = [None] * len(instances)
    for idxs, members, D, R, caps in shape_groups(instances, lambda inst: not inst.machines and not inst.extensions):
        x = batch_steps(policy, D, R, members[0].weights, caps)
        if x is None:
            return out
        for row, i in zip(x, idxs, strict=True):
            out[i] = row
    return out
