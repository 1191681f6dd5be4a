"""Competitive Equilibrium from Equal Incomes (Nash product).

Ghodsi et al., NSDI 2011, Section 5.2: with Leontief users, CEEI is the
allocation maximising the Nash product ``prod_i x_i`` (weighted:
``sum_i w_i log x_i``, the Eisenberg-Gale program) under the capacities and
caps. The program is solved with cvxpy (Clarabel, then SCS as a fallback);
cvxpy is imported only when this policy is solved.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..allocation import OPTIMAL, Allocation
from ..instance import Instance
from ..policy import Policy, register
from ..solvers import CONIC_SOLVERS, solve_problem
from ..tolerances import FEASIBILITY_RTOL

@register
class CEEI(Policy):
    """Weighted CEEI / Eisenberg-Gale program with task caps.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> [round(float(v) * 11, 6) for v in CEEI().solve(inst).x]
    [45.0, 18.0]
    """

    name = "ceei"
    description = "CEEI: maximise the (weighted) Nash product of task counts"
    source = "Ghodsi et al., NSDI 2011, Section 5.2"

    def program(self, instance: Instance) -> list[Any]:
        """The Eisenberg-Gale program, in scaled variables ``y_i = x_i * s_i``
        (``s_i`` the dominant share of one task), unsolved."""
        import cvxpy as cp

        prob, _ = _build(instance)
        assert isinstance(prob, cp.Problem)
        return [prob]

    def solve(self, instance: Instance) -> Allocation:
        """Solve with cvxpy (Clarabel, falling back to SCS)."""
        return self.solve_program(instance)

    def solve_program(self, instance: Instance) -> Allocation:
        t0 = time.perf_counter()
        prob, recover = _build(instance)

        def feasible(_: Any) -> str | None:
            viol = Allocation(instance=instance, x=recover(), policy=self.label).max_violation()
            return None if viol <= FEASIBILITY_RTOL else f"optimal but infeasible by {viol:.2e}"

        solver = solve_problem(prob, self.label, CONIC_SOLVERS, accept=feasible)
        alloc = Allocation(instance=instance, x=recover(), policy=self.label, status=OPTIMAL,
                           stats={"solver": f"cvxpy-{solver.lower()}", "seconds": time.perf_counter() - t0})
        alloc.stats["max_violation"] = alloc.max_violation()
        return alloc


def _build(instance: Instance) -> tuple[Any, Any]:
    import cvxpy as cp

    D, R, w, k = instance.demands, instance.capacity, instance.weights, instance.max_tasks
    s = (D / R).max(axis=1)  # dominant share of one task
    A = (D / R) / s[:, None]  # share of each resource per unit of dominant share
    live = ~(k <= 0)  # users capped at zero get nothing
    idx = np.flatnonzero(live)
    y = cp.Variable(idx.size, pos=True)
    used = np.flatnonzero((A[idx] > 0).any(axis=0))  # rows nobody uses are dropped
    cons = [A[idx][:, used].T @ y <= 1]
    fin = np.isfinite(k[idx])
    if fin.any():
        cons.append(y[np.flatnonzero(fin)] <= k[idx][fin] * s[idx][fin])
    prob = cp.Problem(cp.Maximize(w[idx] @ cp.log(y)), cons)

    def recover() -> np.ndarray:
        x = np.zeros(instance.n)
        x[idx] = np.asarray(y.value, dtype=float) / s[idx]
        return x

    return prob, recover
