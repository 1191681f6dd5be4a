"""The naive lift of a static policy to the dynamic setting: recomputed on
the users present after every arrival, on the whole cluster.

Kash, Procaccia and Shah (JAIR 51, 2014, Section 1) start from this
mechanism: a static policy (DRF, say) run again at every arrival gives the
first user the whole cluster and then takes part of it back, which the
dynamic setting forbids (allocations are irrevocable: the property
``irrevocability`` of :mod:`analyzer.properties`). ``recompute:policy=drf``
names it; in the dynamic setting every static policy is lifted this way
without the prefix (``check("drf", inst, "irrevocability", mode="dynamic")``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..allocation import Allocation
from ..dynamic import DynamicPolicy
from ..errors import PolicyError
from ..instance import Instance
from ..policy import Policy, get_policy, register


def prefix(instance: Instance, k: int) -> Instance:
    """The instance of the first ``k`` users (the ones present after the
    ``k``-th arrival), same cluster; extensions follow the users kept."""
    return instance.replace(demands=[list(r) for r in instance.demands_exact[:k]],
                            weights=list(instance.weights_exact[:k]), max_tasks=list(instance.max_tasks_exact[:k]),
                            users=list(instance.users[:k]))


def lift_batch(inner: Policy, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
               caps: np.ndarray) -> np.ndarray:
    """:meth:`DynamicPolicy.steps_batch` of the static policy ``inner``
    recomputed on every prefix: one call of its batch solver per arrival
    where it has one (members it leaves unconverged, and every member
    otherwise, solved one at a time)."""
    D = np.asarray(demands, dtype=float)
    K, n, m = D.shape
    R = np.asarray(capacity, dtype=float)
    w = np.asarray(weights, dtype=float)
    k_caps = np.broadcast_to(np.asarray(caps, dtype=float), (K, n))
    out = np.zeros((K, n, n))
    solver = inner.batch_solver()
    for k in range(1, n + 1):  # one static solve (a batch) per arrival
        done = np.zeros(K, dtype=bool)
        if solver is not None:
            x, done = solver(D[:, :k], R, w[:k], k_caps[:, :k])
            out[done, k - 1, :k] = x[done]
        for b in np.flatnonzero(~done):
            inst = Instance.from_arrays(R if R.ndim == 1 else R[b], D[b, :k], weights=w[:k], max_tasks=k_caps[b, :k])
            out[b, k - 1, :k] = inner.solve(inst).x
    return out


@register
class Recompute(DynamicPolicy):
    """A static policy recomputed on the users present at every arrival.

    Parameters
    ----------
    policy : str
        The static policy lifted (``"drf"``, ``"fds:beta=2"``: one parameter
        at most, as names split parameters at commas).

    Examples
    --------
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    >>> [tuple(map(str, s)) for s in get_policy("recompute:policy=drf").steps_exact(inst)]
    [('9/2', '0'), ('3', '2')]
    """

    name = "recompute"
    description = "a static policy recomputed on the users present at every arrival (recompute:policy=drf)"
    source = "Kash, Procaccia and Shah, JAIR 51, 2014, Section 1 (the naive dynamic mechanism)"
    parameters = {"policy": "drf"}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        spec = self.params["policy"]
        if not isinstance(spec, str) or not spec:
            raise PolicyError(f"policy 'recompute': parameter 'policy' must name a static policy, got {spec!r}")
        inner = get_policy(spec)
        if isinstance(inner, DynamicPolicy):
            raise PolicyError(f"policy 'recompute': {inner.label!r} is already a dynamic mechanism")
        if inner.discrete_only:
            raise PolicyError(f"policy 'recompute': {inner.label!r} is defined for whole tasks only")
        #: The static policy recomputed at every arrival.
        self.inner: Policy = inner

    @property
    def label(self) -> str:
        """``recompute:policy=NAME`` (the lifted policy always named)."""
        return f"{self.name}:policy={self.inner.label}"

    @property
    def scale_invariant(self) -> bool:  # type: ignore[override]  # the lifted policy's declaration, per object
        """The lifted policy's declaration: recomputing it on every prefix
        keeps a report's scale as irrelevant as it was."""
        return self.inner.scale_invariant

    @property
    def has_exact(self) -> bool:
        return self.inner.has_exact

    def supports(self, instance: Instance) -> str | None:
        return self.inner.supports(instance)

    def solve(self, instance: Instance) -> Allocation:
        """The static policy on every user (the last step)."""
        return self._relabel(self.inner.solve(instance))

    def solve_exact(self, instance: Instance) -> Allocation:
        return self._relabel(self.inner.solve_exact(instance))

    def _relabel(self, alloc: Allocation) -> Allocation:
        from dataclasses import replace

        return replace(alloc, policy=self.label)

    def steps_batch(self, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
                    caps: np.ndarray) -> np.ndarray:
        return lift_batch(self.inner, demands, capacity, weights, caps)

    def steps_exact(self, instance: Instance) -> list[tuple[Fraction, ...]]:
        out = []
        for k in range(1, instance.n + 1):
            x = self.inner.solve_exact(prefix(instance, k)).x_exact
            assert x is not None
            out.append(tuple(Fraction(v) for v in x) + (Fraction(0),) * (instance.n - k))
        return out
