"""Utilitarian allocation: the maximum total number of tasks.

Maximise ``sum_i x_i`` under the capacities and caps, an LP (the
utilitarian welfare of Leontief users whose utility is their task count;
see e.g. Joe-Wong, Sen, Lan, Chiang, INFOCOM 2012, Section III, where
``beta = 0`` of GFJ is this objective). The maximum is often reached by
many allocations; the tie is broken deterministically by leximin on the
weighted task counts ``x_i / w_i`` among the maximisers (a second LP
sequence, :func:`models.leximin.leximin_lp`), which has a unique answer.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..allocation import OPTIMAL, Allocation
from ..convex import task_variable
from ..errors import SolverError
from ..instance import Instance
from ..leximin import leximin_lp
from ..policy import Policy, register
from ..solvers import LP_SOLVERS, solve_problem
from ..tolerances import DUAL_TOL, LP_LEVEL_RTOL


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
        # a tie-break whose levels x_i / w_i span ~30 orders of magnitude is
        # beyond a double-precision LP solver: its excess is bounded here
        return alloc.require_feasible()

    def _run(self, instance: Instance) -> tuple[np.ndarray, list[Any]]:
        """:meth:`_run_scaled` on the instance in well-scaled units: each
        resource measured in units of its capacity and each user's tasks in
        units of ``1 / s_i`` tasks, ``s_i`` its dominant share of one task,
        so that every matrix entry is at most 1 and every variable of a
        feasible point at most 1 (Leontief allocations are invariant under
        both changes; LP solvers' tolerances are not). The objective
        ``sum_i x_i`` is ``sum_i c_i y_i`` with ``c_i = g / s_i``, ``g`` the
        median ``s_i`` (cost 1 at the median user), and the tie-break
        weights are ``w_i s_i / g`` (the same levels ``x_i / w_i``, up to the
        factor ``g``). One common task unit (as before) left entries such
        as a 3e-10 share per unit of a user with 746 units: HiGHS drops
        matrix entries below its ``small_matrix_value`` (1e-9), and the
        answer over-used that resource by 2.5e-7 of its capacity."""
        share = instance.demands / instance.capacity
        dom = share.max(axis=1)
        g = float(np.median(dom))
        scaled = Instance.from_arrays(np.ones(instance.m), share / dom[:, None], resources=instance.resources,
                                      weights=instance.weights * dom / g, max_tasks=instance.max_tasks * dom)
        y, problems = self._run_scaled(scaled, g / dom)
        return y / dom, problems

    def _run_scaled(self, instance: Instance, cost: np.ndarray) -> tuple[np.ndarray, list[Any]]:
        """The LP maximising ``cost . x`` (total tasks, in the units of
        :meth:`_run`), then the leximin tie-break on its optimal face.

        The face is described exactly by complementary slackness with the
        first LP's dual (prices ``p``, cap multipliers ``nu``): an optimal
        ``x`` keeps every priced resource full and every cap multiplier's
        user at its cap, and gives 0 tasks to users whose reduced cost
        ``p . d_i + nu_i - c_i`` is positive. A slack on the total (``cost . x >=
        best (1 - rtol)``) would let the tie-break hand that slack to users
        whose optimum is 0 (they got ~1e-9 tasks); the face has none.

        Raises
        ------
        SolverError
            When the tie-break loses more than
            :data:`~models.tolerances.LP_LEVEL_RTOL` of the optimal total
            (the dual was misread).
        """
        import cvxpy as cp

        w = instance.weights
        x, cons = task_variable(instance)
        first = cp.Problem(cp.Maximize(cost @ x), cons)
        solve_problem(first, f"{self.label} (total)", LP_SOLVERS)
        best = float(first.value)
        zero, face, _full, _capped = self._optimal_face(instance, x, cons, best, cost)
        free = np.flatnonzero(~zero)
        stop = np.zeros(instance.n)
        rest: list[Any] = []
        s = 1.0
        if free.size:
            # no price blocking here (unlike the filling family and drfh): the
            # face pins some capacity rows only through complementary
            # slackness, and blocking users by the remaining priced rows froze
            # users below their face values (R=<2,3>, A<1,2>, B<1,3>, C<1,1>:
            # total 2/3 instead of 4/3; tests/test_policies_utilitarian_face.py)
            # levels x_i / w_i over a common factor s, the geometric middle
            # of the free users' weights (their level coefficients then
            # span half as many orders of magnitude either side of 1)
            s = float(np.sqrt(w[free].min() * w[free].max()))
            stop[free], rest = leximin_lp(cp.multiply(s / w[free], x[free]), face, self.label, LP_SOLVERS)
        out = stop * w / s  # a cap overshoot within tolerance is reported, not clipped (require_feasible)
        if not cost @ out >= best * (1 - LP_LEVEL_RTOL):
            raise SolverError(self.label, "tie-break left the optimal face",
                              f"total {cost @ out:.12g} below the optimum {best:.12g}")
        return out, [first, *rest]

    @staticmethod
    def _optimal_face(instance: Instance, x: Any, cons: list[Any], best: float, cost: np.ndarray
                      ) -> tuple[np.ndarray, list[Any], np.ndarray, np.ndarray]:
        """Users at 0 on every optimum, the constraints of the optimal face
        (complementary slackness with the solved first LP's dual; a
        multiplier counts as positive above
        :data:`~models.tolerances.DUAL_TOL` relative to the optimum, a
        reduced cost relative to the user's cost; the
        capacity rows stay first), and the masks of the resources the face
        pins full and of the users it pins at their cap."""
        D, R, k = instance.demands, instance.capacity, instance.max_tasks
        fin = np.flatnonzero(np.isfinite(k))
        p = np.asarray(cons[0].dual_value, dtype=float).reshape(-1)
        nu = np.zeros(instance.n)
        if fin.size:
            nu[fin] = np.asarray(cons[1].dual_value, dtype=float).reshape(-1)
        scale = DUAL_TOL * max(1.0, best)
        zero = D @ p + nu - cost > DUAL_TOL * cost  # positive reduced cost: 0 tasks in every optimum
        full = np.flatnonzero(p * R > scale)
        capped = np.flatnonzero(np.where(np.isfinite(k), nu * np.where(np.isfinite(k), k, 0.0), 0.0) > scale)
        face = list(cons)
        if zero.any():
            face.append(x[np.flatnonzero(zero)] == 0)
        if full.size:
            face.append(D[:, full].T @ x == R[full])
        if capped.size:
            face.append(x[capped] == k[capped])
        return zero, face, np.isin(np.arange(instance.m), full), np.isin(np.arange(instance.n), capped)
