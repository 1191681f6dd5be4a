"""Continuous progressive filling: the leximin helper.

Ghodsi et al., NSDI 2011, Sections 4.2 and 5 describe DRF and asset fairness
as progressive filling: every user's (weighted) share rises at the same rate;
a user stops when a resource it uses saturates. With Leontief users a
user's share is linear in its task count, ``share_i = x_i * c_i`` where
``c_i`` is the share of one task (DRF: ``max_j d_ij / R_j``; asset fairness:
``sum_j d_ij / R_j``). Filling raises a common *level* ``t``; an active
user holds ``x_i = t * w_i / c_i`` tasks until

* a resource it uses (``d_ij > 0``) saturates, or
* it reaches its cap ``k_i`` (at level ``T_i = k_i c_i / w_i``),

after which it is frozen. Users that do not use a saturated resource keep
rising, which is why stopping at the first saturated resource is wrong as
soon as users have different bottlenecks. The result is the leximin
(lexicographic max-min) vector of weighted shares.

A :class:`FillingPolicy` is defined by one method, :meth:`share_per_task`,
written with numpy operations that also work on object arrays of Fractions
(arithmetic, ``.max``, ``.sum``). The helper then gives three solvers that
tests prove equal:

* :meth:`FillingPolicy.solve` -- vectorised numpy, at most ``m + 1`` stages,
  no per-user Python loop (:mod:`models.filling_numeric`, the one numeric
  filling; :meth:`FillingPolicy.solve_batch` runs it on many instances at
  once for the property screens);
* :meth:`FillingPolicy.solve_exact` -- the same events in ``Fraction``;
* :meth:`FillingPolicy.solve_program` -- the definition, a sequence of
  cvxpy LPs (:mod:`models.leximin`: one per stage, maximise the common
  level of the active users; users with a positive dual on their level
  constraint, or using a priced resource, are blocked).
"""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from .allocation import OPTIMAL, Allocation
from .errors import PolicyError
from .filling_numeric import Stage, fill_shares, stages
from .instance import Instance
from .leximin import LeximinStage, leximin_stages
from .policy import BatchSolver, Policy
from .solvers import LP_SOLVERS
from .tolerances import DUAL_TOL, LP_LEVEL_RTOL


def _fraction(v: Any) -> Fraction:
    """``v`` as a Fraction (a Fraction itself is kept: no copy)."""
    return v if type(v) is Fraction else Fraction(v)


class FillingPolicy(Policy):
    """A policy of the progressive-filling (leximin) family.

    Subclasses implement :meth:`share_per_task`; weights and caps come from
    the instance.
    """

    #: What the filled quantity is called in plain words (certificates,
    #: ``--explain``): "dominant share" for DRF, "aggregate share" for asset
    #: fairness.
    share_label: ClassVar[str] = "share"
    #: True when :meth:`share_per_task` is a row-wise expression in
    #: ``demands / capacity`` (elementwise arithmetic and reductions over
    #: resources, no indexing of the capacity vector): it then also accepts
    #: a capacity per row, shape (n, m) aligned with ``demands``, and
    #: :meth:`shares_batch` fills a batch of different capacities in one
    #: call. A policy without the declaration is called once per member.
    rowwise_capacity: ClassVar[bool] = False

    @abstractmethod
    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        """Share ``c_i >= 0`` of one task of each user, shape (n,).

        A zero share means the user is not constrained by the quantity being
        equalised; such users share the leftover by DRF (see :meth:`solve`).

        Must use only operations that also work on ``dtype=object`` arrays of
        Fractions (so that the exact solver can call it too).
        """

    def shares_for(self, instance: Instance, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        """:meth:`share_per_task` for ``instance`` (float or Fraction arrays).

        Override when the share depends on the instance beyond the arrays,
        e.g. on a resource chosen by name.
        """
        return self.share_per_task(demands, capacity)

    # ------------------------------------------------------------ helpers
    def _coefficients(self, instance: Instance) -> np.ndarray:
        c = np.asarray(self.shares_for(instance, instance.demands, instance.capacity), dtype=float)
        if c.shape != (instance.n,):
            raise PolicyError(
                f"policy {self.name!r}: share_per_task returned shape {c.shape}, expected ({instance.n},)"
            )
        if not np.all(np.isfinite(c) & (c >= 0)):
            i = int(np.argmax(~(np.isfinite(c) & (c >= 0))))
            raise PolicyError(
                f"policy {self.name!r}: share of one task of user {instance.users[i]!r} is {c[i]!r}, must be >= 0"
            )
        return c

    def _coefficients_exact(self, instance: Instance, demands: Sequence[Sequence[Any]] | None = None,
                            capacity: Sequence[Any] | None = None) -> list[Fraction]:
        """Exact shares per task; ``demands`` / ``capacity`` replace the
        instance's (a deviated instance, without building it)."""
        rows = instance.demands_exact if demands is None else demands
        D = np.array([[_fraction(v) for v in row] for row in rows], dtype=object)
        R = np.array([_fraction(v) for v in (instance.capacity_exact if capacity is None else capacity)], dtype=object)
        c = self.shares_for(instance, D, R)
        out = [_fraction(v) for v in np.asarray(c, dtype=object).reshape(-1)]
        if len(out) != instance.n or any(v < 0 for v in out):
            raise PolicyError(f"policy {self.name!r}: exact shares per task must be {instance.n} numbers >= 0")
        return out

    # ------------------------------------------------------------ numeric
    def solve(self, instance: Instance) -> Allocation:
        """Vectorised progressive filling (floats).

        Users whose share of one task is 0 (e.g. a user with no CPU demand
        under CPU-only fair sharing) are not constrained by the share being
        equalised: leximin puts the users with a positive share first, and
        the zero-share users then share what is left by DRF (max-min on
        their weighted dominant shares), a second filling phase.

        Examples
        --------
        >>> from models import Instance, get_policy
        >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
        ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
        ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
        >>> get_policy("drf").solve(inst).x.tolist()
        [3.0, 2.0]
        """
        t0 = time.perf_counter()
        c = self._coefficients(instance)
        x, rounds = fill_shares(c[None], instance.demands[None], instance.capacity[None], instance.weights,
                                instance.max_tasks[None])
        found = stages(rounds, 0)
        return Allocation(
            instance=instance,
            x=x[0],
            policy=self.label,
            stats={"solver": "numpy-filling", "stages": len(found), "seconds": time.perf_counter() - t0},
            certificate=found,
        )

    # ------------------------------------------------------------- batched
    def shares_batch(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        """:meth:`share_per_task` of a batch: demands (K, n, m), capacity
        (m,) or (K, m); returns (K, n). One call on the stacked rows when the
        capacity is shared (the family's share functions are row-wise numpy
        expressions) or when the policy declares :attr:`rowwise_capacity`
        (each row then gets its member's capacity), else one call per member
        (a share function may index the capacity vector)."""
        K, n, m = demands.shape
        if np.ndim(capacity) == 1:
            c = np.asarray(self.share_per_task(demands.reshape(K * n, m), capacity), dtype=float).reshape(K, n)
        elif self.rowwise_capacity:
            rows = np.repeat(np.asarray(capacity, dtype=float), n, axis=0)
            c = np.asarray(self.share_per_task(demands.reshape(K * n, m), rows), dtype=float).reshape(K, n)
        else:
            c = np.stack([np.asarray(self.share_per_task(demands[k], capacity[k]), dtype=float) for k in range(K)])
        if not np.all(np.isfinite(c) & (c >= 0)):
            raise PolicyError(f"policy {self.name!r}: a share of one task is negative or not finite")
        return c

    def solve_batch(self, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
                    caps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Tasks per user of a batch of instances sharing their weights, by
        the filling of :meth:`solve` (the same solver, vectorised over the
        batch): demands (K, n, m), capacity (m,) or (K, m), weights (n,),
        caps (K, n). Returns the tasks (K, n) and, as every
        :data:`~models.policy.BatchSolver`, which members converged (all)."""
        x, _ = fill_shares(self.shares_batch(demands, capacity), demands, capacity, weights, caps)
        return x, np.ones(len(x), dtype=bool)

    def batch_solver(self) -> BatchSolver | None:
        """:meth:`solve_batch` when the policy keeps the family's own
        :meth:`solve` and :meth:`shares_for` (its share of one task then
        depends on the arrays only); ``None`` otherwise."""
        own = type(self).solve is FillingPolicy.solve and type(self).shares_for is FillingPolicy.shares_for
        return self.solve_batch if own else None

    # -------------------------------------------------------------- exact
    def solve_exact(self, instance: Instance) -> Allocation:
        """Progressive filling in exact rational arithmetic (two phases when
        some share of one task is 0, as in :meth:`solve`)."""
        t0 = time.perf_counter()
        c = self._coefficients_exact(instance)
        D, R, W, K = instance.demands_exact, instance.capacity_exact, instance.weights_exact, instance.max_tasks_exact
        rates = [wi / ci if ci else Fraction(1) for wi, ci in zip(W, c, strict=True)]
        x, stages = fill_exact(D, R, rates, [Fraction(0) if ci == 0 else ki for ci, ki in zip(c, K, strict=True)])
        if any(ci == 0 for ci in c):
            left = [R[j] - sum((x[i] * D[i][j] for i in range(instance.n)), Fraction(0)) for j in range(instance.m)]
            dom = [max(D[i][j] / R[j] for j in range(instance.m)) for i in range(instance.n)]
            x2, stages2 = fill_exact(D, left, [wi / di for wi, di in zip(W, dom, strict=True)],
                                     [ki if ci == 0 else Fraction(0) for ci, ki in zip(c, K, strict=True)])
            x = [a + b for a, b in zip(x, x2, strict=True)]
            stages = stages + [replace(st, phase=2) for st in stages2]
        return Allocation(
            instance=instance,
            x=np.array([float(v) for v in x]),
            policy=self.label,
            exact=True,
            x_exact=tuple(x),
            stats={"solver": "fraction-filling", "stages": len(stages), "seconds": time.perf_counter() - t0},
            certificate=stages,
        )

    # -------------------------------------------------------------- cvxpy
    def program(self, instance: Instance) -> list[Any]:
        """The stage LPs that define the policy, solved in order.

        Stage ``s`` maximises the common weighted share ``t`` of the active
        users, with frozen users fixed at their earlier values, under the
        capacities and caps, in variables scaled per stage. Users whose
        level constraint has a positive dual cannot rise further and freeze;
        the others go on to stage ``s + 1``. Zero-share users follow in a
        second sequence on their dominant shares, as in :meth:`solve`.
        """
        return self._run_program(instance)[1]

    def solve_program(self, instance: Instance) -> Allocation:
        """The allocation given by :meth:`program` (slow; the definition)."""
        t0 = time.perf_counter()
        x, problems = self._run_program(instance)
        alloc = Allocation(
            instance=instance,
            x=x,
            policy=self.label,
            stats={"solver": "cvxpy-lp-sequence", "stages": len(problems), "seconds": time.perf_counter() - t0},
        )
        return alloc.require_feasible("the LP sequence")

    def _run_program(self, instance: Instance) -> tuple[np.ndarray, list[Any]]:
        """The leximin LP sequence (:func:`models.leximin.leximin_stages`)
        of :meth:`program`: weighted shares ``y_i = scale_i x_i`` in
        variables divided by ``u``, an estimate of the stage's level, not
        task counts. With data from 1e-9 to 1e9 task counts span ~36 orders
        of magnitude and levels ~20, while the stage variables stay near 1
        and the rows read "fraction of what the frozen users left of R_j
        used by the active users <= 1" (the frozen users, held at their
        levels, are constants, not variables). The scaling changes
        conditioning, not the LP. Users whose share function is zero (e.g.
        no CPU under CPU-only sharing) are a second phase on their dominant
        shares, as in the numeric and exact solvers."""
        import cvxpy as cp

        c = self._coefficients(instance)
        D, R, w, k = instance.demands, instance.capacity, instance.weights, instance.max_tasks
        n = instance.n
        zero = c == 0
        scale = np.where(zero, (D / R).max(axis=1), c) / w  # weighted share of one task
        A = (D / R) / scale[:, None]  # (n, m)
        used = np.flatnonzero((A > 0).any(axis=0))
        Au = A[:, used]

        def build(act: np.ndarray, frozen: np.ndarray, levels: np.ndarray, waiting: np.ndarray) -> LeximinStage:
            # frozen users hold their level less LP_LEVEL_RTOL (the most room
            # they left when they were variables bounded below by it), later
            # phases hold 0: as variables at ~1e-8 of the stage scale they sat
            # below HiGHS' feasibility tolerance (1e-7), which let the active
            # users take the frozen users' share of a resource
            left = 1.0 - (levels[frozen] * (1 - LP_LEVEL_RTOL)) @ Au[frozen]
            cap_level = k[act] * scale[act]
            u = _stage_scale(left, Au[act], cap_level)
            cols = np.flatnonzero((Au[act] > 0).any(axis=0))
            Aa = Au[act][:, cols]
            y = cp.Variable(act.size, nonneg=True)
            t = cp.Variable()
            level = y >= t
            # capacity rows in fractions of what the frozen users left of R_j
            # (right-hand side 1): an entry is user i's fraction of it at the
            # level u, at most 1 (u is at most the level filling it), so HiGHS'
            # small-matrix (1e-9) and feasibility (1e-7) tolerances are
            # fractions of it too. "A y <= 1 / u" put a resource used only at
            # tiny shares per unit of level (slots: a slot's worth of a 1e-9
            # task on 1e9) below both: its entry was dropped ("unbounded"). A
            # resource the frozen users fill (to the solver's tolerance)
            # leaves nothing to the active users that use it.
            room = left[cols]
            free = np.where(room > 0, room, 1.0)
            cons = [(u * Aa / free).T @ y <= (room > 0).astype(float), level]
            capped = np.flatnonzero(np.isfinite(cap_level))
            if capped.size:
                cons.append(y[capped] <= cap_level[capped] / u)
            return LeximinStage(cp.Problem(cp.Maximize(t), cons), t, level, prices=cons[0],
                                blocked_by=lambda priced: (Aa[:, priced] > 0).any(axis=1), unit=u,
                                price_unit=1 / free)

        levels, problems = leximin_stages(n, build, self.label, LP_SOLVERS, DUAL_TOL, phases=(~zero, zero))
        return levels / scale, problems


def _stage_scale(left: np.ndarray, A: np.ndarray, cap_levels: np.ndarray) -> float:
    """A positive estimate of the next stage's level, used only to scale the
    stage LP: the smallest positive one of the active users' cap levels
    (``cap_levels``) and the levels at which a resource would fill (share
    ``left`` of it free, active users' rows ``A``) if nobody were capped; 1
    when none is positive and finite. A zero candidate (a user with cap 0,
    or a resource filled up to roundoff) is skipped: as a scale it gave 1,
    and the other users' cap rows became bounds like ``y <= 1e-16`` that
    HiGHS' feasibility tolerance cannot tell from 0, so users froze at 0
    with them."""
    slope = A.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        sat = np.where(slope > 0, left / slope, np.inf)
    cand = np.concatenate([sat, cap_levels])
    u = float(np.min(cand[cand > 0], initial=np.inf))
    return u if np.isfinite(u) else 1.0


# ---------------------------------------------------------------------------
# exact kernel
# ---------------------------------------------------------------------------
def fill_exact(
    demands: Any,
    capacity: Any,
    rates: list[Fraction],
    caps: Any,
) -> tuple[list[Fraction], list[Stage]]:
    """Progressive filling in Fractions, one event at a time.

    At each event the next level is the smallest of the cap levels of the
    active users and the levels at which a resource used by an active user
    fills; ties are exact.
    """
    n = len(rates)
    m = len(capacity)
    D = [[Fraction(v) for v in row] for row in demands]
    R = [Fraction(v) for v in capacity]
    K = [None if kk is None else Fraction(kk) for kk in caps]
    x = [Fraction(0)] * n
    active = [True] * n
    for i in range(n):
        if K[i] is not None and K[i] == 0:
            active[i] = False
    base = [Fraction(0)] * m
    stages: list[Stage] = []
    while any(active):
        act = [i for i in range(n) if active[i]]
        slope = [sum((rates[i] * D[i][j] for i in act), Fraction(0)) for j in range(m)]
        cand: list[Fraction] = [k / rates[i] for i in act if (k := K[i]) is not None]
        sat_level = {j: (R[j] - base[j]) / slope[j] for j in range(m) if slope[j] > 0}
        cand += list(sat_level.values())
        tstar = min(cand)
        sat = tuple(j for j, lv in sat_level.items() if lv == tstar)
        capped = tuple(i for i in act if (k := K[i]) is not None and k / rates[i] == tstar)
        frozen = tuple(i for i in act if i in capped or any(D[i][j] > 0 for j in sat))
        for i in frozen:
            x[i] = tstar * rates[i]
            active[i] = False
            for j in range(m):
                base[j] += x[i] * D[i][j]
        stages.append(Stage(level=tstar, saturated=sat, frozen=frozen, capped=capped))
    return x, stages


__all__ = ["FillingPolicy", "Stage", "fill_exact", "OPTIMAL"]
