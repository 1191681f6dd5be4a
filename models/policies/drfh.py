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
machine type) is attached as ``allocation.certificate["placement"]``; its
per-machine-type feasibility is checked in exact arithmetic
(:func:`placement_violation`) and bounded like the pooled one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from ..allocation import OPTIMAL, Allocation
from ..errors import PolicyError, SolverError
from ..instance import Instance
from ..leximin import leximin_lp
from ..policy import Policy, register
from ..solvers import LP_SOLVERS
from ..tolerances import DUAL_TOL, FEASIBILITY_RTOL, LP_LEVEL_RTOL, RESOLVE_TIGHTEN


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
        reason = self.supports(instance)
        if reason is not None:
            raise PolicyError(f"policy {self.label!r} does not apply: {reason}")
        t0 = time.perf_counter()
        x, placement, problems = self._run(instance)
        alloc = Allocation(instance=instance, x=x, policy=self.label, status=OPTIMAL,
                           stats={"solver": "cvxpy-lp-sequence", "stages": len(problems),
                                  "seconds": time.perf_counter() - t0},
                           certificate={"placement": placement})
        return _require_placement(alloc.require_feasible("the LP sequence"))

    def solve_tight(self, instance: Instance) -> Allocation:
        """:meth:`solve` with the leximin LP tolerances
        (:data:`~models.tolerances.LP_LEVEL_RTOL`,
        :data:`~models.tolerances.DUAL_TOL`) times
        :data:`~models.tolerances.RESOLVE_TIGHTEN`."""
        x, placement, problems = self._run(instance, tight=True)
        return _require_placement(Allocation(instance=instance, x=x, policy=self.label, status=OPTIMAL,
                                             stats={"solver": "cvxpy-lp-sequence (tight)", "stages": len(problems)},
                                             certificate={"placement": placement}))

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
        x = stop * w / dom  # cap overshoot: bounded by require_feasible, not clipped
        return x, _placement_of(x, np.asarray(X.value, dtype=float)), problems


def _placement_of(x: np.ndarray, X: np.ndarray) -> np.ndarray:
    """The last LP's placement with each user's row scaled to hold exactly
    its allocation ``x[i]``: a frozen user may be placed more tasks than its
    level in the last stage (free room nobody else can use), and its row
    then shrinks, which keeps every machine type within capacity; a row
    that grows (solver slack) is bounded by :func:`placement_violation`."""
    held = X.sum(axis=1)
    scale = np.divide(x, held, out=np.ones_like(held), where=held > 0)
    return X * scale[:, None]


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


def placement_violation(instance: Instance, x: np.ndarray, placement: np.ndarray) -> tuple[Fraction, str]:
    """The largest relative excess of a DRFH placement, in exact arithmetic.

    Wang, Liang, Li, INFOCOM 2014, Section III: tasks are placed server by
    server, so feasibility is per machine type, not on the pooled totals.
    Every float of ``placement`` (tasks per user and machine type) is read
    exactly as a Fraction and checked against the instance's exact demands
    and capacities: each type's use of each resource within ``count`` times
    its capacity, no tasks on a type a user's single task does not fit on,
    no negative entry, and each user's tasks on all types equal to
    ``x[i]`` (the placement carries the allocation it certifies).

    Returns
    -------
    (Fraction, str)
        The largest relative violation (0 when exactly feasible) and what
        it is, for the error message.
    """
    D, k = instance.demands_exact, instance.max_tasks_exact
    X = [[Fraction(float(v)) for v in row] for row in np.asarray(placement, dtype=float)]
    worst, where = Fraction(0), "feasible"

    def see(v: Fraction, what: str) -> None:
        nonlocal worst, where
        if v > worst:
            worst, where = v, what

    for t, mt in enumerate(instance.machines):
        name = mt.name or f"m{t}"
        for j, r in enumerate(instance.resources):
            cap = mt.capacity_exact[j] * mt.count
            use = sum((X[i][t] * D[i][j] for i in range(instance.n)), Fraction(0))
            see((use - cap) / cap if cap > 0 else use, f"{r} on machine type {name!r}")
        for i, u in enumerate(instance.users):
            if any(d > c for d, c in zip(D[i], mt.capacity_exact, strict=True)):
                see(abs(X[i][t]) / _at_least_one(Fraction(float(x[i]))),
                    f"tasks of {u} on {name!r}, where one does not fit")
            see(-X[i][t], f"negative tasks of {u} on {name!r}")
    for i, u in enumerate(instance.users):
        held, xi, cap_i = sum(X[i], Fraction(0)), Fraction(float(x[i])), k[i]
        see(abs(held - xi) / _at_least_one(xi), f"{u}'s placed tasks against its allocation")
        if cap_i is not None:
            see((held - cap_i) / _at_least_one(cap_i), f"{u}'s placed tasks against its cap")
    return worst, where


def _at_least_one(v: Fraction) -> Fraction:
    """``max(1, |v|)``: the scale of a relative excess of a task count."""
    return max(Fraction(1), abs(v))


def _require_placement(alloc: Allocation) -> Allocation:
    """Record :func:`placement_violation` in ``stats["placement_violation"]``
    and raise :class:`~models.errors.SolverError` when it exceeds
    :data:`~models.tolerances.FEASIBILITY_RTOL` (never clipped)."""
    viol, where = placement_violation(alloc.instance, alloc.x, alloc.certificate["placement"])
    alloc.stats["placement_violation"] = float(viol)
    if not viol <= FEASIBILITY_RTOL:
        raise SolverError(alloc.policy, f"placement infeasible by {float(viol):.2e}",
                          f"{where} exceeds its bound by more than {FEASIBILITY_RTOL:g}")
    return alloc
