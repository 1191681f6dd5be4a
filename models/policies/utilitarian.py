"""Utilitarian allocation: the maximum total number of tasks.

Maximise ``sum_i x_i`` under the capacities and caps, an LP (the
utilitarian welfare of Leontief users whose utility is their task count;
see e.g. Joe-Wong, Sen, Lan, Chiang, INFOCOM 2012, Section III, where
``beta = 0`` of GFJ is this objective). The maximum is often reached by
many allocations; the tie is broken deterministically by leximin on the
weighted task counts ``x_i / w_i`` among the maximisers (a second LP
sequence, :func:`models.convex.leximin_lp`), which has a unique answer.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..allocation import OPTIMAL, Allocation
from ..convex import leximin_lp, task_variable
from ..instance import Instance
from ..policy import Policy, register
from ..solvers import LP_SOLVERS, solve_problem
from ..tolerances import LP_LEVEL_RTOL


@register
class Utilitarian(Policy):
    """Maximum total tasks; ties broken by leximin on ``x_i / w_i``.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.load("examples/paper_two_users.toml")  # R <9, 18>, A <1, 4>, B <3, 1>
    >>> [round(float(v) * 11, 6) for v in Utilitarian().solve(inst).x]   # both resources full
    [45.0, 18.0]
    """

    name = "utilitarian"
    description = "Maximum total tasks (LP); ties broken by leximin on weighted task counts"
    source = "Joe-Wong, Sen, Lan, Chiang, INFOCOM 2012, Section III (efficiency benchmark)"

    def program(self, instance: Instance) -> list[Any]:
        """The LP maximising total tasks, then the tie-break LP sequence."""
        return self._run(instance)[1]

    def solve(self, instance: Instance) -> Allocation:
        return self.solve_program(instance)

    def solve_program(self, instance: Instance) -> Allocation:
        t0 = time.perf_counter()
        x, problems = self._run(instance)
        alloc = Allocation(instance=instance, x=x, policy=self.label, status=OPTIMAL,
                           stats={"solver": "cvxpy-lp-sequence", "stages": len(problems),
                                  "seconds": time.perf_counter() - t0})
        alloc.stats["max_violation"] = alloc.max_violation()
        return alloc

    def _run(self, instance: Instance) -> tuple[np.ndarray, list[Any]]:
        import cvxpy as cp

        w, k = instance.weights, instance.max_tasks
        x, cons = task_variable(instance)
        first = cp.Problem(cp.Maximize(cp.sum(x)), cons)
        solve_problem(first, f"{self.label} (total)", LP_SOLVERS)
        best = float(first.value)
        cons.append(cp.sum(x) >= best * (1 - LP_LEVEL_RTOL))
        stop, rest = leximin_lp(cp.multiply(1.0 / w, x), cons, self.label, LP_SOLVERS)
        return np.minimum(stop * w, k), [first, *rest]
