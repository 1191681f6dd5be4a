"""The projected Newton iteration on the Eisenberg-Gale dual, vectorised
over a batch of instances (Ghodsi et al., NSDI 2011, Section 5.2; the dual
and the method are derived in :mod:`models.ceei_newton`, which runs it).

Every member of the batch has its own iterates, active set, damping, step
size and stopping test: a member comes out exactly as it would alone. A
member whose Newton system is singular takes a more regularised step, and
one without any finite step stops, uncertified (:mod:`models.batching`),
without touching the others.
"""

from __future__ import annotations

import numpy as np

from .batching import solve_systems
from .tolerances import (
    CEEI_ARMIJO,
    CEEI_MAX_HALVINGS,
    CEEI_MAX_ITERATIONS,
    CEEI_REGULARIZATION,
    CEEI_VALUE_RTOL,
)

#: Machine epsilon of a double (the floor of a free price's Hessian diagonal).
_EPS: float = float(np.finfo(float).eps)


class Dual:
    """The normalised dual ``G`` of a batch of instances, vectorised over
    members and users.

    Users capped at 0 (``live`` False) and resources nobody live uses carry
    zero weight and zero scaled demand: they leave the program (their price
    stays 0). Matrix-vector products use ``np.einsum``, not ``@``: a
    threaded BLAS ``gemv`` on a tall, 8-column matrix measured up to 100x
    slower on a loaded 2-core machine (benchmarks/bench_ceei.py).
    """

    def __init__(self, AT: np.ndarray, v: np.ndarray, k: np.ndarray, live: np.ndarray) -> None:
        self.AT = AT
        #: The identity of the price space (the Newton system's diagonal).
        self.eye = np.eye(AT.shape[1])
        self.v, self.live = v, live
        self.k = np.where(live, k, 0.0)
        fin = np.isfinite(k)
        self.unbounded = live & ~fin
        self.k_fin = np.where(fin & live, k, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            # capped iff q <= thr (a user capped at 0 is always "capped", at 0 tasks)
            self.thr = np.where(fin & live, v / np.where(fin & live, k, 1.0), np.where(live, 0.0, np.inf))
            self.cap_const = np.where(fin & live, v * np.log(np.where(fin & live, k, 1.0)), 0.0)  # v log k
            self.free_const = np.where(live, v * np.log(np.where(live, v, 1.0)) - v, 0.0)  # v log v - v

    def evaluate(self, pi: np.ndarray, sel: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Value, ``q``, ``x(pi)`` and the uncapped mask of the members
        ``sel`` (all when ``None``; ``pi`` has one row per member given);
        value ``inf`` outside the domain (a user without cap and ``q <= 0``)."""
        AT, v, k, live, unb, kf, thr, cc, fc = (
            (self.AT, self.v, self.k, self.live, self.unbounded, self.k_fin, self.thr, self.cap_const,
             self.free_const) if sel is None else
            (self.AT[sel], self.v[sel], self.k[sel], self.live[sel], self.unbounded[sel], self.k_fin[sel],
             self.thr[sel], self.cap_const[sel], self.free_const[sel]))
        q = np.einsum("km,kmn->kn", pi, AT)
        unc = q > thr
        qu = np.where(unc, q, 1.0)
        x = np.where(unc, v / qu, k)
        h = np.where(unc, fc - v * np.log(qu), cc - kf * q)
        value = pi.sum(axis=1) + h.sum(axis=1)
        return np.where((unb & (q <= 0.0)).any(axis=1), np.inf, value), q, x, unc

    def gradient(self, x: np.ndarray, sel: np.ndarray | None = None) -> np.ndarray:
        """``1 - sum_i x_i a_i``: the relative slack of each resource."""
        return 1.0 - np.einsum("kmn,kn->km", self.AT if sel is None else self.AT[sel], x)

    def hessian(self, q: np.ndarray, unc: np.ndarray, sel: np.ndarray | None) -> np.ndarray:
        """``sum_{i uncapped} v_i / q_i^2 a_i a_i^T`` of the members ``sel`` (all when ``None``)."""
        v, AT = (self.v, self.AT) if sel is None else (self.v[sel], self.AT[sel])
        c = np.where(unc, v / np.where(unc, q * q, 1.0), 0.0)
        return np.matmul(AT * c[:, None, :], AT.transpose(0, 2, 1))


def _residual(pi: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Infinity norm of the projected gradient ``pi - max(0, pi - grad)``, per member."""
    return np.abs(pi - np.maximum(pi - grad, 0.0)).max(axis=1, initial=0.0)


def _direction(dual: Dual, pi: np.ndarray, q: np.ndarray, unc: np.ndarray, grad: np.ndarray,
               res: np.ndarray, sel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The projected Newton direction of the members ``sel``: prices within
    ``eps = min(res, 1)`` of 0 whose gradient pushes them down go to 0; the
    others take a Marquardt-regularised Newton step on their block. A
    member whose system is singular even so takes the more regularised step
    of :func:`models.batching.solve_systems`; the mask returned marks the
    members without any finite step (they stop)."""
    eps = np.minimum(res, 1.0)[:, None]
    free = ~((pi <= eps) & (grad > 0.0))
    H = dual.hessian(q, unc, _rows(sel, dual.AT.shape[0]))
    diag = np.diagonal(H, axis1=1, axis2=2)
    floor = np.maximum(np.where(free, diag, -np.inf).max(axis=1, initial=-np.inf), 1.0)[:, None] * _EPS
    mu = CEEI_REGULARIZATION * eps * np.maximum(diag, floor)  # Marquardt: scaled per price
    both = free[:, :, None] & free[:, None, :]
    system = np.where(both, H, 0.0) + dual.eye * np.where(free, mu + (diag <= floor), 1.0)[:, None, :]
    step, failed = solve_systems(system, np.where(free, -grad, 0.0))
    return np.where(free, step, -pi), failed


def _rows(sel: np.ndarray, K: int) -> np.ndarray | None:
    """``sel``, or ``None`` when it is every member in order (no copy).
    ``sel`` is always an increasing selection of members (a ``flatnonzero``),
    so holding ``K`` of them means holding all, in order."""
    return None if sel.size == K else sel


def _line_search(dual: Dual, run: np.ndarray, state: tuple[np.ndarray, ...], d: np.ndarray
                 ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """Armijo search along the projection arc ``max(pi + alpha d, 0)``,
    halving ``alpha``, for the members ``run``. ``state`` is ``(pi, value,
    q, x, unc, grad, res)`` of those members. A step whose predicted
    decrease is at the dual's roundoff is accepted when it does not raise
    the value or lowers the residual. Returns which members accepted a step
    and their new ``(pi, value, q, x, unc, grad)``.

    While every member is still searching (the usual case: the full Newton
    step) they share one ``alpha``, and the trial is computed on the whole
    arrays without selecting rows (the same numbers, fewer copies)."""
    pi, value, q, x, unc, grad, res = state
    K = len(run)
    new: list[np.ndarray] | None = None  # copied at the first partial acceptance
    alpha = np.ones(K)
    searching = np.ones(K, dtype=bool)
    accepted = np.zeros(K, dtype=bool)
    for h in range(CEEI_MAX_HALVINGS):
        s = searching.nonzero()[0]
        whole = s.size == K  # every member searches: all at alpha = 0.5 ** h
        base = pi if whole else pi[s]
        trial = np.maximum(base + (0.5 ** h) * d if whole else base + alpha[s, None] * d[s], 0.0)
        moved = ~(trial == base).all(axis=1)
        if not moved.all():
            searching[s[~moved]] = False  # the trial point no longer moves: give up
            s, trial, base, whole = s[moved], trial[moved], base[moved], False
        if not s.size:
            break
        ok, got = _trial(dual, run[s], trial, base, *((value, grad, res) if whole else (value[s], grad[s], res[s])))
        if whole and ok.all():  # every member takes this step (the usual full Newton step)
            return ok, got
        if ok.any():
            if new is None:
                new = [a.copy() for a in (pi, value, q, x, unc, grad)]
            for target, g in zip(new, got, strict=True):
                target[s[ok]] = g[ok]
        searching[s[ok]] = False
        accepted[s[ok]] = True
        alpha[s] *= 0.5
    return accepted, (pi, value, q, x, unc, grad) if new is None else tuple(new)


def _trial(dual: Dual, rows: np.ndarray, trial: np.ndarray, pi: np.ndarray, value: np.ndarray, grad: np.ndarray,
           res: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """The Armijo test of the trial prices of the members ``rows`` (at
    ``pi``, with ``value``, ``grad`` and ``res`` there): which accept, and
    ``(trial, value, q, x, unc, grad)`` at the trial prices."""
    sel = _rows(rows, dual.AT.shape[0])
    t_value, t_q, t_x, t_unc = dual.evaluate(trial, sel)
    t_grad = dual.gradient(t_x, sel)
    decrease = np.einsum("km,km->k", grad, trial - pi)  # <= 0 along a descent arc
    small = np.abs(decrease) <= CEEI_VALUE_RTOL * (1.0 + np.abs(value))
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(t_value) & np.where(
            small, (t_value <= value) | (_residual(trial, t_grad) < res),
            t_value <= value + CEEI_ARMIJO * decrease)
    return ok, (trial, t_value, t_q, t_x, t_unc, t_grad)


def iterate(dual: Dual, pi: np.ndarray, tol: float) -> tuple[np.ndarray, ...]:
    """Projected Newton iterations from ``pi`` until every member's residual
    is below ``tol``, its line search fails or it has taken
    :data:`~models.tolerances.CEEI_MAX_ITERATIONS` steps. Returns ``(pi, value, q, x, unc, grad,
    res, iterations)``."""
    K = pi.shape[0]
    value, q, x, unc = dual.evaluate(pi)
    grad = dual.gradient(x)
    res = _residual(pi, grad)
    it = np.zeros(K, dtype=int)
    running = res > tol
    while True:
        run = (running & (it < CEEI_MAX_ITERATIONS)).nonzero()[0]
        if not run.size:
            break
        it[run] += 1
        whole = _rows(run, K) is None  # every member runs: no copies
        state = (pi, value, q, x, unc, grad, res) if whole else tuple(
            a[run] for a in (pi, value, q, x, unc, grad, res))
        d, stuck = _direction(dual, state[0], state[2], state[4], state[5], state[6], run)
        ok, new = _line_search(dual, run, state, d)
        ok &= ~stuck  # no finite Newton step: the member stops where it is (not certified)
        if whole and ok.all():
            pi, value, q, x, unc, grad = new
            res = _residual(pi, grad)
            running = res > tol
            continue
        running[run[~ok]] = False  # no acceptable step: stop where it is
        upd = run[ok]
        for target, got in zip((pi, value, q, x, unc, grad), new, strict=True):
            target[upd] = got[ok]
        res[upd] = _residual(pi[upd], grad[upd])
        running[upd] = res[upd] > tol
    return pi, value, q, x, unc, grad, res, it

__all__ = ["Dual", "iterate"]
