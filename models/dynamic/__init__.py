"""The dynamic setting: users arrive one at a time, in the instance's user
order, and what a user was given is never taken back.

Kash, Procaccia and Shah, "No Agent Left Behind: Dynamic Fair Division of
Multiple Resources", JAIR 51, 2014, Section 2: ``n`` agents, known in
advance, arrive at steps ``1..n``; at step ``k`` the mechanism allocates to
the agents ``1..k`` present, and allocations are irrevocable. A
:class:`DynamicPolicy` gives the allocation after every arrival
(:meth:`DynamicPolicy.steps`); as a static :class:`~models.policy.Policy`
it answers with the allocation after the last arrival, so ``solve``,
``table`` and the static properties see the end of the run.

Weights generalise the paper's ``k/n``: at step ``k`` the present users are
entitled to ``W_k / W`` of every resource, ``W_k`` their weight and ``W``
everybody's (``k/n`` unweighted; :func:`present_fractions`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ..allocation import Allocation
from ..instance import Instance
from ..policy import Policy


def present_fractions(weights: Sequence[Any]) -> list[Any]:
    """``W_k / W`` for ``k = 1..n``: the share of every resource the users
    present after the ``k``-th arrival may hold (exact for exact weights).

    >>> present_fractions([Fraction(1)] * 4)
    [Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1, 1)]
    """
    total = sum(weights, type(weights[0])(0))
    out, run = [], type(weights[0])(0)
    for w in weights:
        run += w
        out.append(run / total)
    return out


def batch_arrays(demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray, caps: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A batch of :meth:`DynamicPolicy.steps_batch` as float arrays of one
    shape each: demands (K, n, m), capacities (K, m), weights (K, n), caps
    (K, n), and the rates of dominant-share filling ``w_i / max_j (d_ij /
    R_j)`` (tasks per unit of weighted dominant share), (K, n)."""
    D = np.asarray(demands, dtype=float)
    K, n, m = D.shape
    R = np.broadcast_to(np.asarray(capacity, dtype=float), (K, m))
    w = np.broadcast_to(np.asarray(weights, dtype=float), (K, n))
    k = np.broadcast_to(np.asarray(caps, dtype=float), (K, n))
    return D, R, w, k, w / (D / R[:, None, :]).max(axis=2)


def exact_rates(instance: Instance) -> list[Fraction]:
    """:func:`batch_arrays`'s rates in Fractions for one instance."""
    R = instance.capacity_exact
    return [w / max(d / c for d, c in zip(row, R, strict=True))
            for w, row in zip(instance.weights_exact, instance.demands_exact, strict=True)]


class DynamicPolicy(Policy):
    """A mechanism of the dynamic setting (Kash et al., JAIR 2014).

    Subclasses implement :meth:`steps_batch` (floats, vectorised over a batch
    of instances of one shape) and :meth:`steps_exact` (Fractions); the
    allocation after the last arrival is the policy's static answer.
    """

    #: The mechanism decides from the users present only: the allocation
    #: after step ``k`` does not depend on the users arriving later (their
    #: number and weights aside: ``n`` is known in advance).
    online: ClassVar[bool] = True

    @abstractmethod
    def steps_batch(self, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
                    caps: np.ndarray) -> np.ndarray:
        """Tasks after every arrival for a batch: demands (K, n, m),
        capacity (m,) or (K, m), weights (n,), caps (K, n); returns
        (K, n, n), entry ``[b, k - 1, i]`` user ``i``'s tasks after the
        ``k``-th arrival (0 for a user not arrived yet)."""

    @abstractmethod
    def steps_exact(self, instance: Instance) -> list[tuple[Fraction, ...]]:
        """Tasks after every arrival in exact arithmetic: ``n`` tuples of
        ``n`` Fractions (0 for a user not arrived yet)."""

    def steps(self, instance: Instance) -> np.ndarray:
        """Tasks after every arrival (floats), shape (n, n)."""
        return self.steps_batch(instance.demands[None], instance.capacity, instance.weights,
                                instance.max_tasks[None])[0]

    def solve(self, instance: Instance) -> Allocation:
        """The allocation after the last arrival (floats)."""
        x = self.steps(instance)[-1]
        return Allocation(instance=instance, x=x, policy=self.label,
                          stats={"solver": "dynamic-steps", "steps": instance.n})

    def solve_exact(self, instance: Instance) -> Allocation:
        """The allocation after the last arrival (Fractions)."""
        x = self.steps_exact(instance)[-1]
        return Allocation(instance=instance, x=np.array([float(v) for v in x]), policy=self.label, exact=True,
                          x_exact=tuple(x), stats={"solver": "dynamic-steps-exact", "steps": instance.n})

    def solve_batch(self, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
                    caps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The last step of :meth:`steps_batch`, as a
        :data:`~models.policy.BatchSolver`."""
        x = self.steps_batch(demands, capacity, weights, caps)[:, -1]
        return x, np.ones(len(x), dtype=bool)

    def batch_solver(self) -> Any:
        return self.solve_batch


__all__ = ["DynamicPolicy", "batch_arrays", "exact_rates", "present_fractions"]
