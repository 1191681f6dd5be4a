"""Pareto efficiency (Ghodsi et al., NSDI 2011, Section 3)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, cast

import numpy as np

from models import Instance, Policy, PolicyError
from models.tolerances import COMPARE_ATOL, COMPARE_RTOL

from ._batch import answered_groups, numeric_batch, widened
from ._common import Evaluator, confirmed_below, per_user, show
from ._margins import Stack, stacked_margins
from .base import CONTINUOUS, DISCRETE, Property, Violation, register_property


@register_property
class ParetoEfficiency(Property):
    """Pareto efficiency.

    Ghodsi et al., NSDI 2011, Section 3: it is impossible to raise one
    user's allocation without lowering another's. For Leontief users with
    caps: there is no feasible ``x'`` (``sum_i x'_i d_ij <= R_j``,
    ``0 <= x'_i <= k_i``) with ``x' >= x`` and ``x'_i > x_i`` for some ``i``
    (weights play no part). In the discrete setting ``x'`` is a whole-task
    vector on the pooled capacities.

    This is the LP "maximise ``sum_i (x'_i - x_i)`` subject to ``x' >= x``,
    capacities and caps" having optimum 0. For Leontief users its optimum is
    positive exactly when some user ``i`` below its cap has slack on every
    resource it uses (``d_ij > 0``): if ``x' >= x`` raises ``x_i`` then the
    use of every resource with ``d_ij > 0`` rises by at least
    ``(x'_i - x_i) d_ij`` because nobody else falls, so no such resource can
    be saturated; conversely such a user can be raised alone. The check uses
    this exact characterisation (no LP solver, no rounding), and the better
    allocation in the :class:`Violation` raises every such user in turn in
    exact arithmetic.

    No search is needed, so nothing is left untried: every Pareto
    improvement, however many users it raises, raises some user ``i`` with
    everybody else at least as well off, and then ``x + (x'_i - x_i) e_i``
    alone is feasible (it uses no more of any resource than ``x'``). In
    the discrete setting the same argument with one whole task: some user
    fits one more task on the pooled capacities. With machines the task
    placement would matter, which the check refuses.

    A policy that places tasks on machine types
    (:attr:`~models.policy.Policy.places_tasks`, DRFH) is judged on its own
    model in the continuous setting: a task runs only on a machine type it
    fits, so pooled slack is no improvement (on ``examples/two_servers.toml``
    both pooled resources have slack, yet nobody can be raised). The check
    then solves the LP "maximise ``sum_i x'_i`` over placements ``y_il >= 0``
    (only where user ``i``'s task fits type ``l``) with ``x'_i = sum_l y_il``,
    ``x' >= x``, caps and every type's capacities" (scipy/HiGHS) and reports
    a numerically confirmed improvement. For a policy without an exact
    solver a user's room is confirmed relative to its tasks (``x_i`` below
    ``x_i + room`` by the confirmation margin), so that solver noise left on
    a resource is not reported as an improvement.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    >>> ParetoEfficiency().check("drf", inst) is None
    True
    """

    name = "pareto-efficiency"
    title = "Pareto efficiency"
    source = "Ghodsi et al., NSDI 2011, Section 3"
    summary = "no feasible allocation gives some user more tasks and nobody fewer"
    order = 4

    def margin(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> float:
        """Numeric violation margin (``< 0``: violated): minus the largest
        relative number of tasks a user could add alone (continuous)."""
        x = Evaluator(policy, mode).numeric(instance)
        D, k = instance.demands, instance.max_tasks
        slack = instance.capacity - x @ D
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(D > 0, slack[None, :] / np.where(D > 0, D, 1.0), np.inf).min(axis=1)
        room = np.minimum(room, k - x)
        return -float(np.max(room / (np.abs(x) + 1.0)))

    def margin_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """:meth:`margin` of each instance, the allocations solved in batches
        and every user's room computed at once (see
        :meth:`.base.Property.margin_many`)."""

        def per_stack(st: Stack) -> np.ndarray:
            D = st.D
            slack = st.R - np.einsum("kn,knm->km", st.X, D)
            with np.errstate(divide="ignore", invalid="ignore"):
                room = np.where(D > 0, slack[:, None, :] / np.where(D > 0, D, 1.0), np.inf).min(axis=2)
            room = np.minimum(room, st.caps - st.X)
            return -np.where(st.real, room / (np.abs(st.X) + 1.0), -np.inf).max(axis=1)

        return stacked_margins(policy, instances, mode, per_stack)

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """Batched screen (see :meth:`.base.Property.screen_many`): some
        user raisable with everybody's tasks widened down (more room)."""
        xs = numeric_batch(policy, instances, mode)
        out = np.ones(len(instances), dtype=bool)  # not answered by the batch: flagged
        for idxs, X, real, D, R, _, caps in answered_groups(instances, xs):
            out[idxs] = (_raisable_many(widened(X, up=False), D, R, caps, mode) & real).any(axis=1)
        return out

    def check(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> Violation | None:
        ev = Evaluator(policy, mode)
        if ev.mode == DISCRETE and instance.machines:
            raise PolicyError("pareto-efficiency: the discrete check with machines is not supported "
                              "(it would need the task placement); drop [[machines]] to check on the pooled cluster")
        x = ev.numeric(instance)
        if ev.mode == CONTINUOUS and instance.machines and ev.policy.places_tasks:
            return self._placed(ev, instance, x)
        cand = _raisable(instance, x, ev.mode)
        if cand.size == 0:
            return None
        xe = ev.verified(instance)
        D, R, K = instance.demands_exact, instance.capacity_exact, instance.max_tasks_exact
        slack: list[Any] = [R[j] - sum((xe[i] * D[i][j] for i in range(instance.n)), Fraction(0))
                            for j in range(instance.m)]
        better = list(xe)
        raised: list[int] = []
        for i in cand:
            room = _room(D[i], slack, K[i], better[i], ev.mode)
            if room is not None and ev.below(better[i], better[i] + room):  # relative to its tasks when numeric
                better[i] = better[i] + room
                slack = [s - room * d for s, d in zip(slack, D[i], strict=True)]
                raised.append(int(i))
        if not raised:
            return None
        i = raised[0]
        u = instance.users[i]
        others = "" if len(raised) == 1 else f" (and {len(raised) - 1} more user(s) can be raised too)"
        return ev.violation(
            self.name, instance, u,
            f"{u} gets {show(xe[i])} tasks but could get {show(better[i])} with nobody losing: "
            f"every resource it uses has room left{others}",
            deviation={"kind": "better-allocation", "tasks": per_user(instance, better)},
            before={"tasks": per_user(instance, xe)},
            after={"tasks": per_user(instance, better)},
        )


    def _placed(self, ev: Evaluator, instance: Instance, x: np.ndarray) -> Violation | None:
        """The placement LP of the class docstring (continuous, machines)."""
        better = _best_placed(instance, x)
        if better is None:
            return None
        i = int(np.argmax(better - x))
        if not confirmed_below(float(x[i]), float(better[i])):
            return None
        ev.exact = False
        u = instance.users[i]
        return ev.violation(
            self.name, instance, u,
            f"{u} gets {show(float(x[i]))} tasks but could get {show(float(better[i]))} with nobody losing: "
            f"placed on the machine types its task fits, every type has room for it",
            deviation={"kind": "better-allocation", "tasks": per_user(instance, [float(v) for v in better])},
            before={"tasks": per_user(instance, [float(v) for v in x])},
            after={"tasks": per_user(instance, [float(v) for v in better])},
        )


def _best_placed(instance: Instance, x: np.ndarray) -> np.ndarray | None:
    """Tasks per user of a placement maximising the total with nobody below
    ``x`` (``None`` when ``x`` itself cannot be placed)."""
    from scipy.optimize import linprog

    D, k = instance.demands, instance.max_tasks
    n, T = instance.n, len(instance.machines)
    fits = np.array([[bool(np.all(D[i] <= mt.capacity)) for mt in instance.machines] for i in range(n)])
    cols = np.argwhere(fits)  # variables y_il for the (i, l) that fit
    if cols.size == 0:
        return None
    A_cap = np.zeros((T * instance.m, len(cols)))
    for v, (i, typ) in enumerate(cols):
        A_cap[typ * instance.m:(typ + 1) * instance.m, v] = D[i]
    b_cap = np.concatenate([mt.capacity * mt.count for mt in instance.machines])
    owner = np.zeros((n, len(cols)))
    owner[cols[:, 0], np.arange(len(cols))] = 1.0
    fin = np.isfinite(k)
    A = np.vstack([A_cap, -owner, owner[fin]])
    b = np.concatenate([b_cap, -x * (1 - COMPARE_RTOL) + COMPARE_ATOL, k[fin]])
    res = linprog(-np.ones(len(cols)), A_ub=A, b_ub=b, bounds=(0, None), method="highs")
    if res.status != 0:
        return None
    return owner @ res.x


def _raisable(instance: Instance, x: np.ndarray, mode: str) -> np.ndarray:
    """Screen: users below their cap with room on every resource they use."""
    D, R, k = instance.demands, instance.capacity, instance.max_tasks
    slack = R - x @ D
    tol = COMPARE_RTOL * R + COMPARE_ATOL
    if mode == DISCRETE:  # one more whole task must fit
        fits = np.all((D <= slack[None, :] + tol[None, :]) | (D == 0), axis=1)
        below_cap = x + 1 <= k + COMPARE_ATOL
    else:
        fits = np.all((slack[None, :] > tol[None, :]) | (D == 0), axis=1)
        below_cap = x < k - (COMPARE_RTOL * np.where(np.isfinite(k), k, 0.0) + COMPARE_ATOL)
    return np.flatnonzero(fits & below_cap)


def _raisable_many(X: np.ndarray, D: np.ndarray, R: np.ndarray, k: np.ndarray, mode: str) -> np.ndarray:
    """:func:`_raisable` of a padded group (see
    :func:`._batch.answered_groups`) as a (K, n) mask: tasks ``X`` (K, n),
    demands ``D`` (K, n, m), capacities ``R`` (K, m), caps ``k`` (K, n),
    row by row the comparisons of one instance (a padded user, capped at 0
    and demanding nothing, is never raisable; a padded resource is demanded
    by nobody)."""
    slack = R - np.einsum("kn,knm->km", X, D)
    tol = COMPARE_RTOL * R + COMPARE_ATOL
    if mode == DISCRETE:
        fits = np.all((D <= (slack + tol)[:, None, :]) | (D == 0), axis=2)
        below_cap = X + 1 <= k + COMPARE_ATOL
    else:
        fits = np.all(((slack > tol)[:, None, :]) | (D == 0), axis=2)
        below_cap = X < k - (COMPARE_RTOL * np.where(np.isfinite(k), k, 0.0) + COMPARE_ATOL)
    return cast(np.ndarray, fits & below_cap)


def _room(need: tuple[Fraction, ...], slack: list[Any], cap: Fraction | None, have: Any, mode: str) -> Any | None:
    """How many more tasks the user can take alone (exact); ``None`` if none."""
    room = min(s / d for s, d in zip(slack, need, strict=True) if d > 0)
    if cap is not None:
        room = min(room, cap - have)
    if mode == DISCRETE:
        room = math.floor(room)
    return room
