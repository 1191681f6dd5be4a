"""Newton's method on the alpha-fair KKT system in log-prices, vectorised
over a batch of instances (Joe-Wong, Sen, Lan, Chiang, INFOCOM 2012,
Section III; the system and the method are derived in
:mod:`models.alpha_fair`, which runs it).

Every member of the batch has its own log-prices, priced set, step size,
iteration count and stopping test: a member comes out as it would alone
(a batch of one is :func:`models.alpha_fair.solve_alpha_fair`). A member
whose Newton system is singular takes the regularised step of
:func:`models.batching.solve_systems`; one without any finite step stops
where it is, uncertified, without touching the others (the caller then
solves it alone: :func:`models.batching.run_batch`).

Shapes: ``K`` members, ``n`` users, ``m`` resources. Users capped at 0 and
resources no live user needs stay in the arrays with zero scaled demand:
such a user gets 0 tasks, such a resource is never priced.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .batching import solve_systems
from .tolerances import ALPHA_FAIR_KKT_RTOL, CEEI_ARMIJO, CEEI_LINE_SEARCH_STEPS, FEASIBILITY_RTOL

#: Newton iterations before giving up.
MAX_ITERATIONS: int = 200
#: Newton iterations of a member of a batch before it is left to the
#: per-instance solver (:func:`least_squares` steps, :data:`MAX_ITERATIONS`):
#: a member the batch solves converges in a few (quadratically); one still
#: running after this many is crawling along regularised steps of a
#: singular system, which the per-instance steps avoid.
BATCH_MAX_ITERATIONS: int = 30
#: A priced, under-used resource whose share of every user's price is below
#: this leaves the priced set (its price is 0 at the optimum).
PRICE_DROP: float = 1e-14

Rows = np.ndarray | slice
#: Solves a stack of Newton systems ``(K, m, m), (K, m)``: the steps and the
#: members without a finite one.
Solver = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def least_squares(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Newton step of one instance solved alone (a stack of one): the
    least-squares solution of smallest norm (LAPACK ``gelsd``, singular
    values below machine precision times the largest treated as 0; the
    plain solution of a well-conditioned system). Two resources used in
    the same proportions by every uncapped user (``<1, 1>`` and ``<3, 3>``
    beside a user capped on one of them) have prices the allocation does
    not identify: the system is singular, or singular up to rounding, and
    inconsistent away from the optimum; the least-squares step still moves
    the identified combination of their prices, where the plain or the
    regularised step (:func:`~models.batching.solve_systems`) runs off
    along the other. A batch member that does not converge is solved alone
    this way (:meth:`models.policies.fds.FDS.solve_many`,
    :func:`models.batching.run_batch`).
    """
    x = np.linalg.lstsq(A[0], b[0], rcond=None)[0]
    return x[None], ~np.isfinite(x).all(keepdims=True)


class KKTBatch:
    """The KKT maps of a batch (module docstring), in logs.

    Parameters
    ----------
    A : ndarray, shape (K, n, m)
        Scaled demands ``d_ij / R_j``, rows of users capped at 0 zeroed.
    unit, w, k : ndarray, shape (K, n)
        Utility of one task, weights and caps (``inf`` for none).
    beta : float
    """

    def __init__(self, A: np.ndarray, unit: np.ndarray, w: np.ndarray, k: np.ndarray, beta: float) -> None:
        self.A, self.k, self.beta = A, k, beta
        with np.errstate(divide="ignore"):
            self.logA = np.log(A)  # -inf where a user does not use a resource
        self.log_base = np.log(w / unit) + np.log(unit) / beta  # log x_i = log_base_i - log q_i / beta

    def take(self, rows: np.ndarray) -> KKTBatch:
        """The members ``rows`` (repeats allowed) as a batch of their own."""
        sub = object.__new__(KKTBatch)
        sub.A, sub.k, sub.beta = self.A[rows], self.k[rows], self.beta
        sub.logA, sub.log_base = self.logA[rows], self.log_base[rows]
        return sub

    def tasks(self, z: np.ndarray, priced: np.ndarray, rows: Rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``x(p)`` (K', n), ``theta`` (K', n, m; 0 off the priced set) and
        the uncapped mask of the members ``rows``, for log-prices ``z`` on
        ``priced`` (both (K', m))."""
        terms = np.where(priced[:, None, :], self.logA[rows] + np.where(priced, z, 0.0)[:, None, :], -np.inf)
        top = terms.max(axis=2)
        fin = np.isfinite(top)
        safe = np.where(fin, top, 0.0)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            logq = safe + np.log(np.exp(terms - safe[:, :, None]).sum(axis=2))
            theta = np.where(fin[:, :, None], np.exp(terms - logq[:, :, None]), 0.0)
            free = np.exp(np.where(fin, self.log_base[rows] - logq / self.beta, np.inf))
        k = self.k[rows]
        return np.minimum(free, k), theta, free < k

    def residuals(self, x: np.ndarray, priced: np.ndarray, rows: Rows) -> tuple[np.ndarray, np.ndarray]:
        """``log usage`` per resource (K', m) and the KKT residual (K',):
        the largest ``|log usage|`` of a priced resource or ``log usage`` of
        another one (0 when under-used); ``inf`` when not finite."""
        with np.errstate(divide="ignore", invalid="ignore"):
            F = np.log(np.einsum("kn,knm->km", x, self.A[rows]))
            res = np.maximum(np.max(np.where(priced, np.abs(F), 0.0), axis=1, initial=0.0),
                             np.max(np.where(priced, 0.0, F), axis=1, initial=0.0))
        bad = np.any(priced & ~np.isfinite(F), axis=1) | np.any(np.isnan(F), axis=1)
        return F, np.where(bad, np.inf, res)

    def step(self, x: np.ndarray, theta: np.ndarray, unc: np.ndarray, F: np.ndarray, priced: np.ndarray,
             rows: Rows, solve: Solver) -> tuple[np.ndarray, np.ndarray]:
        """Newton directions for ``z`` (0 off the priced set) and the mask
        of members without a finite one, the systems solved by ``solve``."""
        usage = np.exp(np.where(priced, F, 0.0))
        weight = np.where(unc, x, 0.0)[:, :, None] * self.A[rows] / usage[:, None, :]
        both = priced[:, :, None] & priced[:, None, :]
        M = np.where(both, np.matmul(weight.transpose(0, 2, 1), theta) / self.beta, 0.0)  # -dF/dz
        diag = np.diagonal(M, axis1=1, axis2=2)
        top = np.maximum(np.max(np.where(priced, diag, 0.0), axis=1, initial=0.0), 1.0)
        tiny = priced & (diag <= np.finfo(float).eps * top[:, None])
        # a resource whose users are all capped: step as if one uncapped user held it; identity off the priced set
        system = M + np.eye(M.shape[1]) * np.where(tiny, 1.0 / self.beta, np.where(priced, 0.0, 1.0))[:, None, :]
        d, failed = solve(system, np.where(priced, F, 0.0))
        return np.where(priced, d, 0.0), failed


def start_prices(kkt: KKTBatch, x0: np.ndarray, w: np.ndarray, unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Log-prices of every resource from the ``beta = inf`` limit ``x0``
    (K, n): the price a user's level asks for (``q_i = u_i
    level_i^-beta``), on each resource the smallest over its uncapped users
    (the richest user of a resource bounds its price; ``inf`` for a
    resource no uncapped user needs), and the usage of ``x0`` (K, m)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logq = np.log(unit) - kkt.beta * np.log(unit * np.maximum(x0, 0.0) / w)
    uncapped = x0 < kkt.k
    usage = np.einsum("kn,knm->km", x0, kkt.A)
    cand = np.where(uncapped[:, :, None] & (kkt.A > 0), logq[:, :, None] - kkt.logA, np.inf)
    return cand.min(axis=1), usage


def start(kkt: KKTBatch, x0: np.ndarray, w: np.ndarray, unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Log-prices (:func:`start_prices`) and priced set from the ``beta =
    inf`` limit ``x0`` (K, n): the resources ``x0`` saturates are priced."""
    z, usage = start_prices(kkt, x0, w, unit)
    priced = (usage >= 1.0 - FEASIBILITY_RTOL) & np.isfinite(z)
    return np.where(priced, z, 0.0), priced


def update_priced(kkt: KKTBatch, z: np.ndarray, priced: np.ndarray, theta: np.ndarray, F: np.ndarray,
                  rows: Rows) -> tuple[np.ndarray, np.ndarray]:
    """Drop under-used priced resources whose price no longer matters; price
    over-used resources (at a level that just starts to bind their users)."""
    priced = priced & ~(priced & (F < 0) & (theta.max(axis=1) < PRICE_DROP))
    add = ~priced & (F > ALPHA_FAIR_KKT_RTOL)
    if add.any():
        logA = kkt.logA[rows]
        terms = np.where(priced[:, None, :], logA + np.where(priced, z, 0.0)[:, None, :], -np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            logq = np.logaddexp.reduce(terms, axis=2)
            users = (kkt.A[rows] > 0) & np.isfinite(logq)[:, :, None]
            low = np.where(users, logq[:, :, None] - logA, np.inf).min(axis=1)
        z = np.where(add, np.where(np.isfinite(low), low, 0.0), z)
        priced = priced | add
    return priced, z


class _State:
    """Per-member iterates ``z, priced, x, theta, unc, F, res`` (leading axis K)."""

    def __init__(self, kkt: KKTBatch, z: np.ndarray, priced: np.ndarray) -> None:
        every = slice(None)
        self.z, self.priced = z, priced
        self.x, self.theta, self.unc = kkt.tasks(z, priced, every)
        self.F, self.res = kkt.residuals(self.x, priced, every)

    def refresh(self, kkt: KKTBatch, rows: np.ndarray) -> None:
        """Recompute everything of the members ``rows`` from their ``z, priced``."""
        self.x[rows], self.theta[rows], self.unc[rows] = kkt.tasks(self.z[rows], self.priced[rows], rows)
        self.F[rows], self.res[rows] = kkt.residuals(self.x[rows], self.priced[rows], rows)


def newton(kkt: KKTBatch, z: np.ndarray, priced: np.ndarray, tol: float, solve: Solver = solve_systems,
           max_iterations: int = BATCH_MAX_ITERATIONS, frozen: bool = False) -> tuple[_State, np.ndarray]:
    """Newton iterations on the log-prices of every member until its
    residual is at most ``tol``, it has no acceptable step and no priced
    resource to drop, or ``max_iterations``; returns the final state and
    the iterations taken per member. ``solve`` solves the stacked Newton
    systems: :func:`~models.batching.solve_systems` for a batch
    (:data:`BATCH_MAX_ITERATIONS`), :func:`least_squares` for one instance
    alone (:data:`MAX_ITERATIONS`). ``frozen``: the priced set stays as
    given (no resource joins or leaves it; a member without an acceptable
    step stops), for a candidate priced set
    (:func:`models.alpha_fair.solve_alpha_fair_batch`)."""
    st = _State(kkt, z.copy(), priced.copy())
    it = np.zeros(z.shape[0], dtype=int)
    stopped = np.zeros(z.shape[0], dtype=bool)
    while True:
        run = np.flatnonzero((st.res > tol) & (it < max_iterations) & ~stopped)
        if not run.size:
            break
        it[run] += 1
        if not frozen:
            priced, st.z[run] = update_priced(kkt, st.z[run], st.priced[run], st.theta[run], st.F[run], run)
            changed = run[(priced != st.priced[run]).any(axis=1)]  # the others' iterates are up to date
            st.priced[run] = priced
            if changed.size:
                st.refresh(kkt, changed)
        go = run[st.priced[run].any(axis=1) & (st.res[run] > tol)]
        if not go.size:
            continue
        d, failed = kkt.step(st.x[go], st.theta[go], st.unc[go], st.F[go], st.priced[go], go, solve)
        stopped[go[failed]] = True  # no finite Newton step: stops here, not certified
        go, d = go[~failed], d[~failed]
        go, d = _hopeless(st, go, d, tol, stopped) if frozen else _release(kkt, st, go, d)
        accepted = _line_search(kkt, st, go, d)
        if frozen:
            stopped[go[~accepted]] = True
        else:
            _drop_or_stop(kkt, st, go[~accepted], stopped)
    return st, it


def _line_search(kkt: KKTBatch, st: _State, go: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Armijo search on the merit ``sum F^2`` over the priced set along
    ``d`` for the members ``go``, halving the step up to
    :data:`~models.tolerances.CEEI_LINE_SEARCH_STEPS` times (a step that
    lowers the residual is also taken); accepted steps are written into
    ``st``. Returns which members accepted one."""
    priced, z0, res0 = st.priced[go], st.z[go], st.res[go]
    merit = np.sum(np.where(priced, st.F[go], 0.0) ** 2, axis=1)
    alpha = np.ones(go.size)
    searching = np.ones(go.size, dtype=bool)
    for _ in range(CEEI_LINE_SEARCH_STEPS):
        s = np.flatnonzero(searching)
        if not s.size:
            break
        rows = go[s]
        trial = z0[s] + alpha[s, None] * d[s]
        t_x, t_theta, t_unc = kkt.tasks(trial, priced[s], rows)
        t_F, t_res = kkt.residuals(t_x, priced[s], rows)
        with np.errstate(invalid="ignore", over="ignore"):
            t_merit = np.where(np.isfinite(t_res), np.sum(np.where(priced[s], t_F, 0.0) ** 2, axis=1), np.inf)
            ok = (t_merit <= (1.0 - 2.0 * CEEI_ARMIJO * alpha[s]) * merit[s]) | (t_res < res0[s])
        take = rows[ok]
        st.z[take], st.x[take], st.theta[take], st.unc[take] = trial[ok], t_x[ok], t_theta[ok], t_unc[ok]
        st.F[take], st.res[take] = t_F[ok], t_res[ok]
        searching[s[ok]] = False
        alpha[s] *= 0.5
    return ~searching


def _release(kkt: KKTBatch, st: _State, go: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Complementary slackness: an under-used resource has price 0 at the
    optimum. A priced, under-used resource whose Newton step lowers its
    price by more than the factor :data:`PRICE_DROP` (the linear model
    asks for a price that no longer matters to any user) leaves the priced
    set now, instead of after many damped steps towards ``-inf`` (one per
    member and iteration, the most under-used, as when a line search
    fails: a nearly singular system can ask this of several); a member
    releasing one skips this iteration's line search (its iterates are
    recomputed), and :func:`update_priced` prices it again if it then
    becomes over-used. Returns the members and directions that go on to
    the line search."""
    release = st.priced[go] & (st.F[go] < 0) & (d < np.log(PRICE_DROP))
    some = release.any(axis=1)
    if some.any():
        rows = go[some]
        worst = np.where(release[some], st.F[rows], np.inf).argmin(axis=1)
        st.priced[rows, worst] = False
        st.refresh(kkt, rows)
    return go[~some], d[~some]


def _hopeless(st: _State, go: np.ndarray, d: np.ndarray, tol: float, stopped: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Stop the members ``go`` whose priced set, held fixed (``frozen``), is
    not the optimum's: its own equations are solved (every ``|log usage|``
    on it at most ``tol``) while another resource is over-used, or the
    step asks the price of an under-used priced resource to drop by more
    than the factor :data:`PRICE_DROP` (its price belongs at 0). Returns
    the members and directions that go on to the line search."""
    priced, F = st.priced[go], st.F[go]
    solved = np.max(np.where(priced, np.abs(F), 0.0), axis=1, initial=0.0) <= tol
    bad = solved | (priced & (F < 0) & (d < np.log(PRICE_DROP))).any(axis=1)
    stopped[go[bad]] = True
    return go[~bad], d[~bad]


def _drop_or_stop(kkt: KKTBatch, st: _State, rows: np.ndarray, stopped: np.ndarray) -> None:
    """No progress on the priced set: a priced resource that cannot be
    filled (its price belongs at 0) is the usual cause; drop the most
    under-used one of each member ``rows`` and go on, or stop a member
    without one."""
    if not rows.size:
        return
    under = st.priced[rows] & (st.F[rows] < 0)
    has = under.any(axis=1)
    stopped[rows[~has]] = True
    rows, under = rows[has], under[has]
    if rows.size:
        worst = np.where(under, st.F[rows], np.inf).argmin(axis=1)
        st.priced[rows, worst] = False
        st.refresh(kkt, rows)


__all__ = ["BATCH_MAX_ITERATIONS", "MAX_ITERATIONS", "PRICE_DROP", "KKTBatch", "Solver", "least_squares", "newton",
           "start", "start_prices", "update_priced"]
