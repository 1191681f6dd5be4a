"""CEEI without a conic solver: a projected Newton method on the dual.

Ghodsi et al., NSDI 2011, Section 5.2: with Leontief users, CEEI is the
allocation maximising ``sum_i w_i log x_i`` (the weighted Eisenberg-Gale
program) subject to the capacities ``sum_i x_i d_ij <= R_j`` and the caps
``0 <= x_i <= k_i``. This module solves its Lagrange dual, which has one
variable per *resource*, so a Newton step costs ``O(n m^2)`` numpy work and
a ``m x m`` linear solve however many users there are.

The dual
--------
Scale resource ``j`` to capacity 1 (``a_ij = d_ij / R_j``) and the weights to
sum 1 (``v_i = w_i / W``); the price of resource ``j`` is ``pi_j >= 0`` and
user ``i`` pays ``q_i = pi . a_i`` per task. Maximising the Lagrangian over
``0 <= x_i <= k_i`` user by user gives ``x_i(pi) = min(k_i, v_i / q_i)`` and
the concave conjugate of ``v_i log x`` restricted to ``x <= k_i``::

    h_i(q) = v_i log v_i - v_i - v_i log q    if q >= v_i / k_i  (uncapped)
    h_i(q) = v_i log k_i - k_i q              if q <= v_i / k_i  (capped)

``h_i`` is convex and continuously differentiable (both pieces equal
``v_i log k_i - v_i`` with slope ``-k_i`` at ``q = v_i / k_i``). The dual is::

    minimise  G(pi) = sum_j pi_j + sum_i h_i(pi . a_i)   over pi >= 0,

with gradient ``1 - sum_i x_i(pi) a_i`` (the relative slack of each resource)
and generalised Hessian ``sum_{i uncapped} v_i / q_i^2 a_i a_i^T``. For every
``pi >= 0``, ``G(pi) - sum_i v_i log x_i(pi) = sum_j pi_j slack_j``: the
duality gap *is* complementary slackness, so ``pi`` with a zero projected
gradient certifies ``x(pi)`` optimal. The prices in resource units are
``p_j = W pi_j / R_j`` (the multipliers of the unscaled program).

The method
----------
Bertsekas' projected Newton method for bound constraints (Bertsekas,
"Projected Newton methods for optimization problems with simple
constraints", SIAM J. Control Optim. 20(2), 1982): prices within ``eps`` of
0 whose gradient pushes them down are held at 0 (the resources nobody
saturates); the others take a Newton step regularised by ``mu I`` with ``mu``
proportional to the residual (which keeps quadratic convergence and handles
a singular Hessian, e.g. when every user of a resource is capped); an
Armijo search along the projection arc keeps ``pi >= 0`` and the iterates in
the domain (``q_i > 0`` for uncapped users). Once objective changes are at
roundoff level (:data:`~models.tolerances.CEEI_VALUE_RTOL`) a step is judged
by its residual instead.

The iteration lives in :mod:`models.ceei_dual`. It runs on a batch of
instances at once (:func:`solve_batch`), each
member with its own iterates, step sizes and stopping test, exactly as if it
were alone: :meth:`models.policies.ceei.CEEI.solve` runs it on a batch of one
(:func:`solve_eisenberg_gale`), the property screens on many.

Examples
--------
The paper's example (Section 5.2): CEEI gives A 45/11 tasks and B 18/11.

>>> import numpy as np
>>> r = solve_eisenberg_gale([9, 18], np.array([[1.0, 4.0], [3.0, 1.0]]))
>>> [round(float(v) * 11, 9) for v in r.x]
[45.0, 18.0]
>>> r.converged, r.failure() is None
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .ceei_dual import Dual, iterate
from .tolerances import CEEI_CERTIFICATE_RTOL, CEEI_NEWTON_TOL, FEASIBILITY_RTOL


@dataclass(frozen=True)
class NewtonResult:
    """Outcome of :func:`solve_eisenberg_gale`.

    Attributes
    ----------
    x : ndarray, shape (n,)
        Tasks per user, ``min(k_i, w_i / (p . d_i))`` (0 for users capped at 0).
    prices : ndarray, shape (m,)
        Resource prices ``p_j >= 0`` in resource units: the Lagrange
        multipliers of the capacities in ``max sum_i w_i log x_i``.
    iterations : int
        Newton iterations taken.
    residual : float
        Final projected-gradient norm (largest relative slack of a priced
        resource or relative excess of any resource).
    gap : float
        Duality gap ``G(pi) - sum_i v_i log x_i`` in normalised units.
    complementary_slackness : float
        ``max_j pi_j |slack_j|`` in normalised units (weights summing to 1,
        so comparable with the duality gap ``sum_j pi_j slack_j``).
    excess : float
        Largest relative capacity excess ``max_j (usage_j / R_j - 1)``.
    converged : bool
        True when the residual reached :data:`~models.tolerances.CEEI_NEWTON_TOL`.
    """

    x: np.ndarray
    prices: np.ndarray
    iterations: int
    residual: float
    gap: float
    complementary_slackness: float
    excess: float
    converged: bool

    def failure(self) -> str | None:
        """``None`` when the solution is certified optimal (every test of
        :data:`ACCEPTANCE` passes: finite task counts, primal feasibility
        within :data:`~models.tolerances.FEASIBILITY_RTOL`, duality gap and
        complementary slackness within
        :data:`~models.tolerances.CEEI_CERTIFICATE_RTOL`, convergence),
        otherwise why not: the reason of the first test that fails."""
        for accept, reason in ACCEPTANCE:
            if not bool(accept(self)):
                return reason(self)
        return None


@dataclass(frozen=True)
class NewtonBatch:
    """Outcome of :func:`solve_batch`: the fields of :class:`NewtonResult`
    with a leading batch axis (``K``)."""

    x: np.ndarray
    prices: np.ndarray
    iterations: np.ndarray
    residual: np.ndarray
    gap: np.ndarray
    complementary_slackness: np.ndarray
    excess: np.ndarray
    converged: np.ndarray

    def result(self, k: int) -> NewtonResult:
        """Member ``k`` as a :class:`NewtonResult`."""
        return NewtonResult(x=self.x[k], prices=self.prices[k], iterations=int(self.iterations[k]),
                            residual=float(self.residual[k]), gap=float(self.gap[k]),
                            complementary_slackness=float(self.complementary_slackness[k]),
                            excess=float(self.excess[k]), converged=bool(self.converged[k]))

    def certified(self) -> np.ndarray:
        """(K,) bool: the members whose :meth:`NewtonResult.failure` is
        ``None`` (the same :data:`ACCEPTANCE` tests, on the whole batch)."""
        ok = np.ones(self.x.shape[0], dtype=bool)
        for accept, _ in ACCEPTANCE:
            ok &= np.asarray(accept(self), dtype=bool)
        return ok


#: The one acceptance test of a Newton answer (Ghodsi et al., NSDI 2011,
#: Section 5.2: the duality gap of the Eisenberg-Gale program certifies
#: optimality), shared by :meth:`NewtonResult.failure` and
#: :meth:`NewtonBatch.certified`: in order, a predicate that holds when the
#: answer passes (elementwise on a batch; NaN measures fail) and the reason
#: given when it does not (fields are scalars on a :class:`NewtonResult`,
#: arrays with a batch axis on a :class:`NewtonBatch`).
ACCEPTANCE: tuple[tuple[Callable[[NewtonResult | NewtonBatch], Any], Callable[[NewtonResult], str]], ...] = (
    (lambda r: np.isfinite(r.x).all(axis=-1), lambda r: "non-finite task counts"),
    (lambda r: r.excess <= FEASIBILITY_RTOL, lambda r: f"capacity exceeded by {r.excess:.2e} (relative)"),
    (lambda r: np.abs(r.gap) <= CEEI_CERTIFICATE_RTOL, lambda r: f"duality gap {r.gap:.2e}"),
    (lambda r: r.complementary_slackness <= CEEI_CERTIFICATE_RTOL,
     lambda r: f"complementary slackness violated by {r.complementary_slackness:.2e}"),
    (lambda r: r.converged, lambda r: f"no convergence in {r.iterations} iterations (residual {r.residual:.2e})"),
)


def solve_batch(
    capacity: np.ndarray,
    demands: np.ndarray,
    weights: np.ndarray | None = None,
    max_tasks: np.ndarray | None = None,
    tol: float = CEEI_NEWTON_TOL,
) -> NewtonBatch:
    """:func:`solve_eisenberg_gale` for a batch of instances: capacity (m,)
    or (K, m), demands (K, n, m), weights (n,) or (K, n), max_tasks (K, n)
    (``inf`` for none). Each member is solved as if it were alone."""
    D = np.asarray(demands, dtype=float)
    K, n, m = D.shape
    R = np.broadcast_to(np.asarray(capacity, dtype=float), (K, m))
    w = np.broadcast_to(np.ones(n) if weights is None else np.asarray(weights, dtype=float), (K, n))
    k = np.broadcast_to(np.inf if max_tasks is None else np.asarray(max_tasks, dtype=float), (K, n))
    live = k > 0  # users capped at 0 get nothing and leave the program
    # scaled demands, transposed (K, m, n) and C-contiguous: every pass over
    # the users is m long contiguous dot products
    AT = np.ascontiguousarray(D.transpose(0, 2, 1)) / R[:, :, None]
    if not live.all():
        AT = np.where(live[:, None, :], AT, 0.0)
    used = (AT > 0).any(axis=2)  # a resource nobody uses has price 0
    W = np.where(live, w, 0.0).sum(axis=1)
    W = np.where(W > 0, W, 1.0)
    dual = Dual(AT, np.where(live, w, 0.0) / W[:, None], k, live)
    pi0 = np.where(used, 1.0 / np.maximum(used.sum(axis=1, keepdims=True), 1), 0.0)  # every q > 0
    pi, value, _, x, _, grad, res, it = iterate(dual, pi0, tol)
    with np.errstate(divide="ignore", invalid="ignore"):
        primal = np.where(live, dual.v * np.log(np.where(live, x, 1.0)), 0.0).sum(axis=1)
    usage_share = np.einsum("kn,knm->km", x, D) / R
    return NewtonBatch(
        x=x,
        prices=np.where(used, pi * W[:, None] / R, 0.0),
        iterations=it,
        residual=res,
        gap=value - primal,
        complementary_slackness=np.max(np.where(used, pi * np.abs(grad), 0.0), axis=1, initial=0.0),
        excess=np.max(usage_share - 1.0, axis=1, initial=0.0),
        converged=res <= tol,
    )


def solve_eisenberg_gale(
    capacity: Sequence[float] | np.ndarray,
    demands: np.ndarray,
    weights: Sequence[float] | np.ndarray | None = None,
    max_tasks: Sequence[float] | np.ndarray | None = None,
    tol: float = CEEI_NEWTON_TOL,
) -> NewtonResult:
    """Solve ``max sum_i w_i log x_i`` s.t. ``sum_i x_i d_i <= R``,
    ``0 <= x_i <= k_i`` through its dual (Ghodsi et al., NSDI 2011, Section
    5.2; the derivation is in the module docstring): :func:`solve_batch` on
    a batch of one.

    Parameters
    ----------
    capacity : array_like, shape (m,)
        Capacities ``R_j > 0``.
    demands : ndarray, shape (n, m)
        Demand vectors ``d_i >= 0``, none all zero.
    weights : array_like, shape (n,), optional
        Weights ``w_i > 0`` (default 1).
    max_tasks : array_like, shape (n,), optional
        Caps ``k_i >= 0``, ``inf`` for none (default: no caps).
    tol : float
        Stopping tolerance on the projected-gradient residual.

    Returns
    -------
    NewtonResult
        The allocation, the prices and the optimality measures; call
        :meth:`NewtonResult.failure` to know whether it is certified.
    """
    D = np.asarray(demands, dtype=float)[None]
    k = None if max_tasks is None else np.asarray(max_tasks, dtype=float)[None]
    w = None if weights is None else np.asarray(weights, dtype=float)
    return solve_batch(np.asarray(capacity, dtype=float), D, w, k, tol).result(0)


class CEEIBatch:
    """Weighted CEEI tasks of a batch of instances (the
    :data:`~models.policy.BatchSolver` of :class:`~models.policies.ceei.CEEI`):
    :func:`solve_batch`, and which members are certified optimal (the
    others are for the policy's own solver, which falls back to cvxpy).

    The members may differ in shape and weights once padded to a common
    one (:attr:`mixed_shapes`): a padded user has cap 0 (it leaves the
    program, :class:`~models.ceei_dual.Dual`) and a padded resource has no
    demand (its price stays 0), so a member's tasks and certificate are its
    own, up to rounding.
    """

    #: Members may be padded to a common shape with users capped at 0 and
    #: resources nobody demands, and carry their own weights (K, n).
    mixed_shapes: bool = True

    def __call__(self, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray, caps: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
        out = solve_batch(capacity, demands, weights, caps)
        return out.x, out.certified()


#: The one :class:`CEEIBatch`.
ceei_batch = CEEIBatch()
