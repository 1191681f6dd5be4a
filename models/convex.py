"""Convex-program helper: a policy defined by an objective and constraints.

A :class:`ConvexPolicy` implements one method, :meth:`ConvexPolicy.build`,
which receives the instance and a cvxpy expression ``x`` (tasks per user)
and returns the objective (a ``cp.Maximize``/``cp.Minimize``) and any extra
constraints. The helper adds the feasibility constraints every policy shares
(capacities ``sum_i x_i d_ij <= R_j``, caps ``x_i <= k_i``, ``x >= 0``),
solves through :func:`models.solvers.solve_problem` (solver fallback chain,
feasibility checked against :data:`~models.tolerances.FEASIBILITY_RTOL`, never
clipped) and returns an :class:`~models.allocation.Allocation`.

For conditioning, the decision variable is the dominant share
``y_i = x_i s_i`` (``s_i = max_j d_ij / R_j``), which lies in ``[0, 1]``;
``build`` sees ``x = y / s``. Users capped at zero tasks are left out of the
program (they get 0), so ``build`` may take ``log(x)``.

Examples
--------
>>> import cvxpy as cp
>>> from models import Instance
>>> class Nash(ConvexPolicy):
...     name = "nash-example"
...     def build(self, instance, x):
...         return cp.Maximize(cp.sum(cp.log(x))), []
>>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
>>> [round(float(v) * 11, 5) for v in Nash().solve(inst).x]
[45.0, 18.0]
"""

from __future__ import annotations

import math
import time
from abc import abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from .allocation import OPTIMAL, Allocation
from .errors import PolicyError
from .instance import Instance
from .policy import Policy
from .solvers import CONIC_SOLVERS, solve_problem
from .tolerances import FEASIBILITY_RTOL, OBJECTIVE_RTOL


class ConvexPolicy(Policy):
    """A policy given by one convex program over tasks per user.

    Subclasses implement :meth:`build`; :attr:`solvers` is the fallback
    chain (conic by default; set :data:`~models.solvers.LP_SOLVERS` for LPs).
    """

    solvers: ClassVar[tuple[str, ...]] = CONIC_SOLVERS

    @abstractmethod
    def build(self, instance: Instance, x: Any) -> tuple[Any, list[Any]]:
        """Objective and extra constraints for tasks ``x`` (a cvxpy
        expression of shape ``(instance.n,)``, every entry positive-capable).

        ``instance`` holds only the users that may get tasks (users capped
        at zero are removed before ``build`` is called).
        """

    def references(self, instance: Instance) -> list[np.ndarray]:
        """Feasible allocations (tasks, shape ``(n,)``) the optimum must be
        at least as good as; a solver answer whose objective is worse (by
        more than :data:`~models.tolerances.OBJECTIVE_RTOL`) is rejected and
        the next solver tried. Default: none.

        This guard only sees errors that move the objective: where some
        users' terms are negligible in it (alpha-fair utilities at
        moderate ``beta``: a user at 6 times the lowest level weighs
        ``6^-15`` at ``beta = 16``) their task counts can be far off while
        the objective agrees to 1e-12, and the guard cannot fire. Such
        policies must certify their answers another way
        (:class:`models.policies.fds.FDS` checks the KKT conditions,
        :mod:`models.alpha_fair`)."""
        return []

    def program(self, instance: Instance) -> list[Any]:
        """The convex program (unsolved)."""
        return [self._build(instance)[0]]

    def solve(self, instance: Instance) -> Allocation:
        """Solve the program with cvxpy (see :meth:`solve_program`)."""
        return self.solve_program(instance)

    def solve_program(self, instance: Instance) -> Allocation:
        """Solve the program through the solver fallback chain.

        Raises
        ------
        SolverError
            When no solver reaches an optimum feasible within
            :data:`~models.tolerances.FEASIBILITY_RTOL`.
        """
        t0 = time.perf_counter()
        prob, recover, var, s, live = self._build(instance)
        if prob is None:
            return Allocation(instance=instance, x=recover(), policy=self.label, status=OPTIMAL,
                              stats={"solver": "none (every user capped at 0)", "seconds": 0.0})

        refs = [np.asarray(r, dtype=float)[live] * s for r in self.references(instance)]

        def feasible(_: Any) -> str | None:
            viol = Allocation(instance=instance, x=recover(), policy=self.label).max_violation()
            if viol > FEASIBILITY_RTOL:
                return f"optimal but infeasible by {viol:.2e}"
            found = float(prob.objective.value)
            sign = 1.0 if prob.objective.NAME == "maximize" else -1.0
            value = var.value
            try:
                for ref in refs:
                    var.value = np.maximum(ref, 0.0)
                    better = float(prob.objective.value)
                    if sign * (better - found) > OBJECTIVE_RTOL * max(1.0, abs(found), abs(better)):
                        return f"objective {found:.6g} worse than a known feasible point's {better:.6g}"
            finally:
                var.value = value
            return None

        solver = solve_problem(prob, self.label, self.solvers, accept=feasible)
        alloc = Allocation(instance=instance, x=recover(), policy=self.label, status=OPTIMAL,
                           stats={"solver": f"cvxpy-{solver.lower()}", "seconds": time.perf_counter() - t0})
        alloc.stats["max_violation"] = alloc.max_violation()
        return alloc

    def _build(self, instance: Instance) -> tuple[Any, Callable[[], np.ndarray], Any, np.ndarray, np.ndarray]:
        import cvxpy as cp

        D, R, k = instance.demands, instance.capacity, instance.max_tasks
        live = np.flatnonzero(~(k <= 0))
        if live.size == 0:
            return None, lambda: np.zeros(instance.n), None, np.zeros(0), live
        sub = instance if live.size == instance.n else instance.replace(
            demands=[instance.demands_exact[i] for i in live],
            weights=[instance.weights_exact[i] for i in live],
            max_tasks=[instance.max_tasks_exact[i] for i in live],
            users=[instance.users[i] for i in live],
        )
        s = (D[live] / R).max(axis=1)
        A = (D[live] / R) / s[:, None]  # share of each resource per unit of dominant share
        y = cp.Variable(live.size, nonneg=True)
        x = cp.multiply(1.0 / s, y)
        used = np.flatnonzero((A > 0).any(axis=0))
        cons: list[Any] = [A[:, used].T @ y <= 1]
        fin = np.flatnonzero(np.isfinite(k[live]))
        if fin.size:
            cons.append(y[fin] <= k[live][fin] * s[fin])
        objective, extra = self.build(sub, x)
        prob = cp.Problem(objective, cons + list(extra))

        def recover() -> np.ndarray:
            out = np.zeros(instance.n)
            out[live] = np.asarray(y.value, dtype=float) / s
            return out

        return prob, recover, y, s, live


def task_variable(instance: Instance) -> tuple[Any, list[Any]]:
    """A cvxpy variable ``x >= 0`` of tasks per user and the constraints
    every allocation obeys: capacities ``D^T x <= R`` and caps ``x_i <= k_i``."""
    import cvxpy as cp

    x = cp.Variable(instance.n, nonneg=True)
    cons: list[Any] = [instance.demands.T @ x <= instance.capacity]
    k = instance.max_tasks
    fin = np.flatnonzero(np.isfinite(k))
    if fin.size:
        cons.append(x[fin] <= k[fin])
    return x, cons


def alpha_fair_objective(u: Any, weights: np.ndarray, beta: float, scale: float = 1.0) -> Any:
    """Weighted alpha-fair utility ``sum_i w_i U_beta(u_i / w_i)`` to maximise.

    ``scale`` (> 0) divides ``u`` first; it does not change the optimum
    (``U_beta(v / c)`` is a positive multiple of ``U_beta(v)`` plus a
    constant) but keeps ``v^(1-beta)`` near 1 for large ``beta``. Even so,
    conic solvers lose accuracy from ``beta`` of about 6 (users far above
    the smallest level then contribute ~0 to the objective, below the
    solver tolerance): FDS and GFJ solve the KKT system instead
    (:mod:`models.alpha_fair`) and use this program only as a start.

    ``U_beta(v) = log v`` for ``beta = 1`` and ``v^(1-beta) / (1-beta)``
    otherwise (Mo and Walrand's alpha-fairness with alpha = beta; Joe-Wong,
    Sen, Lan, Chiang, INFOCOM 2012, Section III). ``beta = 1`` is the
    weighted Nash product; ``beta -> inf`` tends to weighted max-min of
    ``u_i / w_i``.
    """
    import cvxpy as cp

    if beta == 1:  # scaling only adds a constant to the log
        return cp.Maximize(weights @ cp.log(u))
    v = cp.multiply(1.0 / (weights * scale), u)
    if beta < 1:
        return cp.Maximize(weights @ cp.power(v, 1.0 - beta, approx=False) / (1.0 - beta))
    return cp.Minimize(weights @ cp.power(v, 1.0 - beta, approx=False) / (beta - 1.0))


def positive_parameter(policy: Policy, name: str, *, allow_inf: bool = False) -> float:
    """The value of parameter ``name`` of ``policy`` as a float > 0.

    Raises
    ------
    PolicyError
        Naming the policy and the parameter when it is not a number > 0
        (or is infinite and ``allow_inf`` is false).
    """
    raw = policy.params[name]
    number = isinstance(raw, int | float) and not isinstance(raw, bool)
    try:
        value = float(raw) if number else math.nan
    except OverflowError:  # an int past the largest float (a 400-digit beta): infinite as a float
        value = math.inf
    ok = value > 0 and not math.isnan(value) and (allow_inf or not math.isinf(value))
    if not ok:
        need = "a number > 0" + (" (inf allowed)" if allow_inf else "")
        raise PolicyError(f"policy {policy.name!r}: parameter {name!r} must be {need}, got {raw!r}")
    return value


__all__ = ["ConvexPolicy", "alpha_fair_objective", "positive_parameter", "task_variable"]
