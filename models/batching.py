"""Batches that never fail: a member's numerical trouble stays the member's.

A vectorised solver runs many independent instances at once (the property
screens' :data:`~models.policy.BatchSolver`; CEEI's batched Newton method,
:mod:`models.ceei_dual`). One member with a singular or ill-conditioned
system must not fail the others, and must come out as it would alone. The
pieces, for any batched solver (a batched Newton method for another policy
plugs in the same way):

* :func:`solve_systems` solves a stack of linear systems (one Newton system
  per member). A member whose system is exactly singular, or whose solution
  is not finite, is solved again with a regularised system (its diagonal
  raised by :data:`~models.tolerances.BATCH_FALLBACK_REGULARIZATION` times
  its largest diagonal entry); a member for which that fails too is
  returned in a mask, for the solver to stop iterating it. The decision
  depends on the member's own system only, so the member's step is the one
  it would take alone.
* :func:`run_batch` calls a :data:`~models.policy.BatchSolver` and returns
  the tasks and the mask of members it answered: a member whose tasks are
  not finite, or every member when the solver raises a numerical error
  (:data:`NUMERIC_ERRORS`) for the whole batch, is not answered.
* The caller solves each member that was not answered with the policy's own
  per-instance solver (:meth:`~models.policy.Policy.solve`, which certifies
  its answer or raises :class:`~models.errors.SolverError`): see
  :mod:`analyzer.properties._batch`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .tolerances import BATCH_FALLBACK_REGULARIZATION

if TYPE_CHECKING:  # pragma: no cover
    from .policy import BatchSolver

#: The exceptions that mean "this computation met a numerical dead end"
#: (a singular matrix, a floating-point trap), not a bug or bad input.
NUMERIC_ERRORS: tuple[type[BaseException], ...] = (np.linalg.LinAlgError, FloatingPointError, ZeroDivisionError,
                                                    OverflowError)


def solve_systems(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Solve ``A[k] x[k] = b[k]`` for every member ``k`` of a stack.

    Parameters
    ----------
    A : ndarray, shape (K, m, m)
    b : ndarray, shape (K, m)

    Returns
    -------
    x : ndarray, shape (K, m)
        The solutions; 0 for the failed members.
    failed : ndarray of bool, shape (K,)
        The members whose system stayed singular, or whose solution stayed
        not finite, after the regularised retry.

    Notes
    -----
    The plain solve of the whole stack is LAPACK's ``gesv`` on each member,
    as for a stack of one; when it meets an exactly singular member, the
    singular members are found by the same LU factorisation
    (``slogdet``'s sign is 0) and the others solved again together, so a
    member's solution never depends on the rest of the stack.

    Examples
    --------
    >>> A = np.array([[[2.0, 0.0], [0.0, 4.0]], [[1.0, 1.0], [1.0, 1.0]]])
    >>> x, failed = solve_systems(A, np.array([[2.0, 4.0], [1.0, 1.0]]))
    >>> x[0].tolist(), failed.tolist()
    ([1.0, 1.0], [False, False])
    """
    K = A.shape[0]
    x = np.zeros(b.shape)
    retry = np.zeros(K, dtype=bool)
    try:
        x = np.linalg.solve(A, b[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        with np.errstate(all="ignore"):
            sign, _ = np.linalg.slogdet(A)
        retry = sign == 0
        ok = np.flatnonzero(~retry)
        if ok.size:
            x[ok] = np.linalg.solve(A[ok], b[ok][:, :, None])[:, :, 0]
    retry |= ~np.isfinite(x).all(axis=1)
    failed = np.zeros(K, dtype=bool)
    if retry.any():
        r = np.flatnonzero(retry)
        x[r], failed[r] = _regularised(A[r], b[r])
    return x, failed


def _regularised(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Solutions of ``A + delta s I`` (``s`` each member's largest absolute
    diagonal entry, 1 when that is 0 or not finite) and which members still
    fail (0 for them)."""
    diag = np.abs(np.diagonal(A, axis1=1, axis2=2))
    s = np.where(np.isfinite(diag), diag, 0.0).max(axis=1, initial=0.0)
    s = np.where(s > 0, s, 1.0)
    with np.errstate(all="ignore"):
        system = A + (BATCH_FALLBACK_REGULARIZATION * s)[:, None, None] * np.eye(A.shape[1])
    good = np.isfinite(system).all(axis=(1, 2)) & np.isfinite(b).all(axis=1)
    sign = np.zeros(len(A))
    if good.any():
        with np.errstate(all="ignore"):
            sign[good], _ = np.linalg.slogdet(system[good])
    good &= sign != 0
    x = np.zeros(b.shape)
    if good.any():
        x[good] = np.linalg.solve(system[good], b[good][:, :, None])[:, :, 0]
    failed = ~(good & np.isfinite(x).all(axis=1))
    return np.where(failed[:, None], 0.0, x), failed


def run_batch(solver: BatchSolver, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
              caps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tasks ``(K, n)`` of a batch and which members were answered ``(K,)``.

    Calls ``solver`` (a :data:`~models.policy.BatchSolver`) on the batch; a
    member is answered when the solver says so and its tasks are finite.
    A numerical error of the whole batch (:data:`NUMERIC_ERRORS`) answers
    no member: each is then for the policy's own solver, which raises the
    :class:`~models.errors.SolverError` of its own instance if it fails.
    """
    K, n = demands.shape[0], demands.shape[1]
    try:
        with np.errstate(all="ignore"):
            x, ok = solver(demands, capacity, weights, caps)
    except NUMERIC_ERRORS:
        return np.full((K, n), np.nan), np.zeros(K, dtype=bool)
    x = np.asarray(x, dtype=float)
    return x, np.asarray(ok, dtype=bool) & np.isfinite(x).all(axis=1)


__all__ = ["NUMERIC_ERRORS", "run_batch", "solve_systems"]
