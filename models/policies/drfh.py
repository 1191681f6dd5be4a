"""DRFH: Dominant Resource Fairness for heterogeneous servers.

Wang, Liang, Li, "Multi-resource fair allocation in heterogeneous cloud
computing systems", INFOCOM 2014 (and IEEE TPDS 2015), Section III: a user's
*global dominant share* is the share of the whole pool's dominant resource
it holds, ``G_i = sum_l x_il max_j d_ij / R_j`` with ``x_il`` its tasks on
server ``l`` and ``R_j`` the pool's total; DRFH is max-min fairness on the
(weighted) global dominant shares under every server's own capacities.

Continuous model: tasks are divisible, so the ``count`` identical machines
of a type act together as one server of ``count`` times the capacity; a
user's tasks are only placed on machine types its single task fits on
(``d_ij <= capacity_tj`` for every ``j``). Leximin is computed by a sequence
of LPs (:func:`models.leximin.leximin_lp`). The placement (tasks per user and
machine type) is attached as ``allocation.certificate["placement"]``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..allocation import OPTIMAL, Allocation
from ..instance import Instance
from ..leximin import leximin_lp
from ..policy import Policy, register
from ..solvers import LP_SOLVERS
from ..tolerances import DUAL_TOL, LP_LEVEL_RTOL, RESOLVE_TIGHTEN


@register
class DRFH(Policy):
    """Weighted DRFH with task caps on machine types.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_dict({"resources": {"cpu": 14, "mem": 14},
    ...     "users": {"A": {"demand": {"cpu": 0.2, "mem": 1}}, "B": {"demand": {"cpu": 1, "mem": 0.2}}},
    ...     "machines": [{"cpu": 2, "mem": 12}, {"cpu": 12, "mem": 2}]})
    >>> [round(float(v), 6) for v in DRFH().solve(inst).x]
    [10.0, 10.0]
    """

    name = "drfh"
    description = "DRFH: max-min on global dominant shares with per-machine capacities (needs machines)"
    source = "Wang, Liang, Li, INFOCOM 2014, Section III"
    places_tasks = True

    def supports(self, instance: Instance) -> str | None:
        base = super().supports(instance)  # capacity 0 (zero_capacity) is rejected there
        if base is not None:
            return base
        if not instance.machines:
            return "DRFH needs machines (a [[machines]] list in the scenario)"
        return None

    def program(self, instance: Instance) -> list[Any]:
        """The leximin LP sequence over tasks per user and machine type."""
        return self._run(instance)[2]

    def solve(self, instance: Instance) -> Allocation:
        return self.solve_program(instance)

    def solve_program(self, instance: Instance) -> Allocation:
        from ..errors import PolicyError

        reason = self.supports(instance)
        if reason is not None:
            raise PolicyError(f"policy {self.label!r} does not apply: {reason}")
        t0 = time.perf_counter()
        x, placement, problems = self._run(instance)
        alloc = Allocation(instance=instance, x=x, policy=self.label, status=OPTIMAL,
                           stats={"solver": "cvxpy-lp-sequence", "stages": len(problems),
                                  "seconds": time.perf_counter() - t0},
                           certificate={"placement": placement})
        return alloc.require_feasible("the LP sequence")

    def solve_tight(self, instance: Instance) -> Allocation:
        """:meth:`solve` with the leximin LP tolerances
        (:data:`~models.tolerances.LP_LEVEL_RTOL`,
        :data:`~models.tolerances.DUAL_TOL`) times
        :data:`~models.tolerances.RESOLVE_TIGHTEN`."""
        x, placement, problems = self._run(instance, tight=True)
        return Allocation(instance=instance, x=x, policy=self.label, status=OPTIMAL,
                          stats={"solver": "cvxpy-lp-sequence (tight)", "stages": len(problems)},
                          certificate={"placement": placement})

    def _run(self, instance: Instance, tight: bool = False) -> tuple[np.ndarray, np.ndarray, list[Any]]:
        import cvxpy as cp

        D, R, w, k = instance.demands, instance.capacity, instance.weights, instance.max_tasks
        types = instance.machines
        caps = np.array([mt.capacity * mt.count for mt in types])  # (T, m)
        fits = np.array([[bool(np.all(D[i] <= mt.capacity)) for mt in types] for i in range(instance.n)])
        X = cp.Variable((instance.n, len(types)), nonneg=True)
        cons: list[Any] = [D.T @ X <= caps.T]
        if not fits.all():
            cons.append(X[~fits] == 0)
        total = cp.sum(X, axis=1)
        fin = np.flatnonzero(np.isfinite(k))
        if fin.size:
            cons.append(total[fin] <= k[fin])
        dom = (D / R).max(axis=1)
        f = RESOLVE_TIGHTEN if tight else 1.0
        # price blocking: a user cannot rise when, on every machine type it
        # fits, it needs a resource whose capacity row there is priced
        # (rows of cons[0] flattened as (resource, type))
        stop, problems = leximin_lp(cp.multiply(dom / w, total), cons, self.label, LP_SOLVERS,
                                    level_rtol=LP_LEVEL_RTOL * f, dual_tol=DUAL_TOL * f,
                                    blocking=_all_types_blocked(D, fits))
        placement = np.asarray(X.value, dtype=float)
        return np.minimum(stop * w / dom, k), placement, problems


def _all_types_blocked(D: np.ndarray, fits: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """For :func:`~models.leximin.leximin_lp`: from the priced capacity rows
    (flattened (resource, type)), the users that need a priced resource on
    every machine type they fit."""
    uses = D > 0

    def blocked(priced: np.ndarray) -> np.ndarray:
        P = priced.reshape(D.shape[1], fits.shape[1])  # (m, T)
        on_type = np.einsum("ij,jt->it", uses.astype(float), P.astype(float)) > 0  # (n, T)
        return np.all(on_type | ~fits, axis=1)

    return blocked
