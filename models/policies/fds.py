"""Alpha-fairness on dominant shares ("FDS", fairness on dominant shares).

Joe-Wong, Sen, Lan, Chiang, "Multi-resource allocation: Fairness-efficiency
tradeoffs in a unifying framework", INFOCOM 2012, Section III (the FDS
family). FDS scores an allocation by the dominant shares ``mu_i = x_i s_i``
(``s_i = max_j d_ij / R_j``) with a fairness parameter ``beta`` and an
efficiency parameter ``lambda``; with ``lambda = (1 - beta) / beta`` the FDS
function is an increasing transform of the alpha-fair utility
``sum_i U_beta(mu_i)`` (``U_1 = log``, ``U_beta(v) = v^(1-beta)/(1-beta)``),
and that member of the family is the one implemented here (weighted:
``sum_i w_i U_beta(mu_i / w_i)``).

``beta = 1`` is the weighted Nash product, i.e. CEEI (Ghodsi et al., NSDI
2011, Section 5.2); ``beta -> inf`` tends to weighted max-min on dominant
shares, i.e. DRF; ``beta = inf`` is accepted and solved as DRF exactly.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..allocation import OPTIMAL, Allocation
from ..alpha_fair import AlphaFairResult, solve_alpha_fair, solve_alpha_fair_batch
from ..batching import run_batch
from ..convex import ConvexPolicy, alpha_fair_objective, positive_parameter
from ..errors import SolverError
from ..instance import Instance
from ..policy import BatchSolver, get_policy, register
from ..tolerances import ALPHA_FAIR_KKT_RTOL, RESOLVE_TIGHTEN


@register
class FDS(ConvexPolicy):
    """Weighted alpha-fair allocation of dominant shares, parameter ``beta > 0``.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.load("examples/paper_two_users.toml")  # R <9, 18>, A <1, 4>, B <3, 1>
    >>> [round(float(v) * 11, 4) for v in FDS(beta=1).solve(inst).x]   # CEEI
    [45.0, 18.0]
    """

    name = "fds"
    description = "Alpha-fair on dominant shares (beta=1: CEEI, beta->inf: DRF)"
    source = "Joe-Wong, Sen, Lan, Chiang, INFOCOM 2012, Section III"
    scale_invariant = True  # the dominant shares mu_i = x_i s_i depend on the bundle only
    parameters = {"beta": 2.0}
    limit = "drf"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.beta = positive_parameter(self, "beta", allow_inf=True)

    def unit(self, instance: Instance) -> np.ndarray:
        """Utility of one task of each user: its dominant share ``s_i``."""
        return self.units(instance.demands[None], instance.capacity[None])[0]

    def units(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        """:meth:`unit` of a batch: demands (K, n, m), capacity (K, m) -> (K, n)."""
        return (demands / capacity[:, None, :]).max(axis=2)

    def references(self, instance: Instance) -> list[np.ndarray]:
        """The max-min limit (``beta = inf``) is feasible, so the optimum
        must score at least as well as it."""
        return [get_policy(self.limit).solve(instance).x]

    def build(self, instance: Instance, x: Any) -> tuple[Any, list[Any]]:
        import cvxpy as cp

        unit = self.unit(instance)
        # scale: the max-min (beta = inf) level, so that utilities are ~1 at the optimum
        level = float(np.min(get_policy(self.limit).solve(instance).x * unit / instance.weights))
        return alpha_fair_objective(cp.multiply(unit, x), instance.weights, self.beta, scale=level), []

    def solve(self, instance: Instance) -> Allocation:
        """Finite ``beta``: Newton's method on the KKT system in log-prices
        (:mod:`models.alpha_fair`, with its priced-set search), started from
        the max-min limit and, if that is not certified, from the convex
        program's answer in cvxpy
        (:meth:`solve_program`). Only a certified answer is returned: the
        objective of the program cannot judge one, since users far above
        the lowest level weigh ~``level^(1-beta)`` in it (at ``beta = 16``
        a user at 6 times the lowest level weighs ``6^-15``).
        ``beta = inf``: the max-min limit. ``beta = 1``: the Eisenberg-Gale
        program (``sum_i w_i log(u_i x_i / w_i)`` differs from ``sum_i w_i
        log x_i`` by a constant), solved by CEEI's own solver: one solver
        per program.

        Raises
        ------
        SolverError
            When no answer is certified (the CLI exits with code 3).
        """
        if np.isinf(self.beta):
            return self._limit(get_policy(self.limit).solve(instance))
        if self.beta == 1:
            return self._limit(get_policy("ceei").solve(instance))
        t0 = time.perf_counter()
        res = self._newton(instance, get_policy(self.limit).solve(instance).x)
        reason = res.failure()
        stats: dict[str, Any] = {"solver": "newton-log-prices"}
        if reason is not None:
            program = super().solve(instance)  # SolverError when no conic solver succeeds
            res = self._newton(instance, program.x)
            if res.failure() is not None:
                raise SolverError(self.label, "not certified",
                                  f"Newton's method on the KKT system failed from the beta=inf limit ({reason}) and "
                                  f"from the conic solver's answer ({res.failure()}); no answer is given rather "
                                  "than an unverified one")
            stats = {"solver": f"newton-log-prices (started from {program.stats.get('solver')})",
                     "fallback": f"newton from the limit rejected: {reason}"}
        alloc = Allocation(instance=instance, x=res.x, policy=self.label, status=OPTIMAL, certificate=res,
                           stats={**stats, "iterations": res.iterations, "residual": res.residual,
                                  "seconds": time.perf_counter() - t0})
        alloc.stats["max_violation"] = alloc.max_violation()
        return alloc

    def solve_tight(self, instance: Instance) -> Allocation:
        """:meth:`solve` with the Newton tolerance times
        :data:`~models.tolerances.RESOLVE_TIGHTEN`.

        Raises
        ------
        SolverError
            When the tighter residual is not reached.
        """
        if np.isinf(self.beta):
            return self.solve(instance)
        if self.beta == 1:
            return self._limit(get_policy("ceei").solve_tight(instance))
        tol = ALPHA_FAIR_KKT_RTOL * RESOLVE_TIGHTEN
        res = self._newton(instance, self.solve(instance).x, tol)
        if not res.residual <= tol:
            raise SolverError(self.label, "not certified", f"KKT residual {res.residual:.2e} above {tol:g} "
                              "in the tight re-solve")
        return Allocation(instance=instance, x=res.x, policy=self.label, status=OPTIMAL, certificate=res,
                          stats={"solver": "newton-log-prices (tight)", "residual": res.residual})

    def batch_solver(self) -> BatchSolver | None:
        """Finite ``beta``: the Newton method of :meth:`solve`, vectorised
        over a batch (:meth:`solve_many`); ``beta = inf`` and ``beta = 1``:
        the batch solver of the policy :meth:`solve` delegates to."""
        if np.isinf(self.beta):
            return get_policy(self.limit).batch_solver()
        if self.beta == 1:
            return get_policy("ceei").batch_solver()
        return self.solve_many

    def solve_many(self, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray, caps: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Tasks of a batch (the :data:`~models.policy.BatchSolver` of
        finite ``beta``) and which members are certified: each member's
        Newton method starts from its max-min limit, as :meth:`solve`
        starts. A member whose limit the limit's batch solver does not
        answer, or whose Newton answer is not certified, is marked
        unanswered: the caller solves it alone with :meth:`solve` (which
        falls back to the conic program), :func:`models.batching.run_batch`.
        """
        D = np.asarray(demands, dtype=float)
        K, n, m = D.shape
        R = np.broadcast_to(np.asarray(capacity, dtype=float), (K, m))
        x = np.full((K, n), np.nan)
        ok = np.zeros(K, dtype=bool)
        limit = get_policy(self.limit).batch_solver()
        if limit is None:  # pragma: no cover - the limits (drf, leximin-tasks) are fillings with a batch
            return x, ok
        x0, started = run_batch(limit, D, R, weights, caps)
        idx = np.flatnonzero(started)
        if idx.size:
            out = solve_alpha_fair_batch(R[idx], D[idx], self.units(D[idx], R[idx]), self.beta, x0[idx], weights,
                                         np.asarray(caps, dtype=float)[idx])
            x[idx], ok[idx] = out.x, out.certified()
        return x, ok

    def _newton(self, instance: Instance, start: np.ndarray, tol: float = ALPHA_FAIR_KKT_RTOL) -> AlphaFairResult:
        return solve_alpha_fair(instance.capacity, instance.demands, self.unit(instance), self.beta, start,
                                instance.weights, instance.max_tasks, tol=tol)

    @property
    def has_exact(self) -> bool:
        """Exact solutions exist only for ``beta = inf``."""
        return bool(np.isinf(self.beta))

    def solve_exact(self, instance: Instance) -> Allocation:
        """Exact only for ``beta = inf`` (the max-min limit, by filling).

        Raises
        ------
        NotImplementedError
            For finite ``beta`` (irrational optima in general).
        """
        if not np.isinf(self.beta):
            raise NotImplementedError(f"policy {self.label!r}: no exact solver for finite beta")
        return self._limit(get_policy(self.limit).solve_exact(instance))

    def _limit(self, alloc: Allocation) -> Allocation:
        from dataclasses import replace

        return replace(alloc, policy=self.label)
