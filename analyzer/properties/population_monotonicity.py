"""Population monotonicity (Ghodsi et al., NSDI 2011, Section 6)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from models import Instance, Policy
from models.batching import run_batch
from models.policy import BatchSolver

from ._batch import batchable, numeric_batch, numeric_many, shape_groups, widened
from ._common import Evaluator, as_exact_str, numeric_below, per_user, relative_margin, show
from ._margins import Stack, relative_margins, variant_margins
from ._variant import numeric_variant
from .base import CONTINUOUS, Property, Violation, register_property


@register_property
class PopulationMonotonicity(Property):
    """Population monotonicity.

    Ghodsi et al., NSDI 2011, Section 6 (Table 2): when a user leaves the
    system and relinquishes its resources, none of the remaining users'
    allocations decreases. For Leontief users with weights and caps: for
    every user ``r``, the policy's allocation ``x'`` on the instance without
    ``r`` (same capacities, weights and caps of the others) satisfies
    ``x'_i >= x_i`` for every ``i != r``. Discrete setting: whole tasks.

    Applies to instances with at least two users.

    What it tries: every user leaving alone, all ``n`` of them (for the
    filling family and CEEI in one batch, the leaver capped at 0 tasks,
    which is the same as leaving: a filling user capped at 0 is frozen at 0
    from the start and, share functions being row-wise, changes no other
    user's share; CEEI drops a user capped at 0 from the program). What it
    never tries: several users leaving together. That is not needed for
    the property over a class of instances: a group's departure is a
    sequence of single departures, so a loss after it is a loss at some
    single step, on a sub-instance, which the search's instance stream
    covers (the paper's definition is also "a user leaves").

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    >>> PopulationMonotonicity().check("drf", inst) is None
    True
    """

    name = "population-monotonicity"
    title = "Population monotonicity"
    source = "Ghodsi et al., NSDI 2011, Section 6"
    summary = "when any one user leaves, no remaining user gets fewer tasks"
    order = 7

    def applies(self, instance: Instance) -> str | None:
        return None if instance.n >= 2 else "needs at least two users"

    def applies_to_shape(self, n: int, m: int) -> bool:
        return n >= 2

    def margin(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> float:
        """Numeric violation margin (``< 0``: violated): the smallest relative
        change of a remaining user's tasks when one user leaves."""
        if self.applies(instance) is not None:
            return float("inf")
        x, after = _screen(Evaluator(policy, mode), instance)
        before = np.broadcast_to(x, after.shape).copy()
        np.fill_diagonal(before, np.inf)  # the leaver itself is not compared
        return relative_margin(after, before)

    def margin_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """:meth:`margin` of each instance, every user of every instance of a
        group leaving in one batch solve (the leaver capped at 0, as
        :meth:`margin` does it); an instance with a departure the batch does
        not answer gets :meth:`margin` itself (see
        :meth:`.base.Property.margin_many`)."""
        def per_stack(st: Stack, solve: BatchSolver) -> tuple[np.ndarray, np.ndarray]:
            B, n = st.X.shape
            caps = np.repeat(st.caps, n, axis=0).reshape(B, n, n)
            caps[:, np.arange(n), np.arange(n)] = 0.0  # row r: user r left
            after, ok = run_batch(solve, np.repeat(st.D, n, axis=0), np.repeat(st.R, n, axis=0),
                                  np.repeat(st.W, n, axis=0), caps.reshape(B * n, n))
            left = st.real[:, :, None] & st.real[:, None, :] & ~np.eye(n, dtype=bool)  # r left, i stayed
            out = relative_margins(after.reshape(B, n, n), np.broadcast_to(st.X[:, None, :], (B, n, n)), left)
            unanswered = (~ok.reshape(B, n) & st.real).any(axis=1)
            return np.where(st.real.sum(axis=1) < 2, np.inf, out), unanswered

        return variant_margins(self, policy, instances, mode, per_stack)

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """Batched screen (see :meth:`.base.Property.screen_many`): every
        user of every instance of a group leaving, all in one batch solve (the
        leaver capped at 0, as :meth:`check` does it); an instance is flagged
        when some remaining user's widened-down tasks fall below its tasks
        before, or when the batch leaves a member unanswered."""
        xs = numeric_batch(policy, instances, mode)
        flags = np.ones(len(instances), dtype=bool)
        solve = policy.batch_solver() if mode == CONTINUOUS else None
        if solve is None:
            return flags
        answered = {id(inst) for inst, x in zip(instances, xs, strict=True) if x is not None}
        for idxs, _, D, R, caps in shape_groups(instances, keep=lambda inst: id(inst) in answered):
            B, n = D.shape[0], D.shape[1]
            K = np.repeat(caps, n, axis=0).reshape(B, n, n)
            K[:, np.arange(n), np.arange(n)] = 0.0  # row r: user r left
            after, ok = run_batch(solve, np.repeat(D, n, axis=0), np.repeat(R, n, axis=0),
                                  instances[idxs[0]].weights, K.reshape(B * n, n))
            x = np.stack([cast(np.ndarray, xs[i]) for i in idxs])[:, None, :]  # answered: not None
            loss = numeric_below(widened(after.reshape(B, n, n), up=False), x)
            loss[:, np.arange(n), np.arange(n)] = False
            flags[idxs] = ~ok.reshape(B, n).all(axis=1) | loss.any(axis=(1, 2))
        return flags

    def check(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> Violation | None:
        if self.applies(instance) is not None:
            return None
        ev = Evaluator(policy, mode)
        x, after = _screen(ev, instance)
        loss = numeric_below(after, x[None, :])
        np.fill_diagonal(loss, False)
        found = [int(r) for r in np.flatnonzero(loss.any(axis=1))]
        if not found:
            return None
        xe = ev.verified(instance)
        for r in found:
            keep = [i for i in range(instance.n) if i != r]
            smaller = _without(instance, r, exact=True)
            ye = ev.verified(smaller)
            for pos, i in enumerate(keep):
                if ev.below(ye[pos], xe[i]):
                    u, gone = instance.users[i], instance.users[r]
                    return ev.violation(
                        self.name, instance, u,
                        f"{u} gets {show(xe[i])} tasks, but only {show(ye[pos])} once {gone} leaves",
                        deviation={"kind": "remove", "user": gone},
                        before={"tasks": per_user(instance, xe)},
                        after={"tasks": {**per_user(smaller, ye)}, "removed": gone, "loss_of": u,
                               "loss": as_exact_str(xe[i] - ye[pos])},
                    )
        return None


def _screen(ev: Evaluator, instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    """Numeric tasks ``x`` and ``after[r, i]``: user ``i``'s tasks once user
    ``r`` left (the diagonal is meaningless)."""
    x = ev.numeric(instance)
    n = instance.n
    if ev.mode == CONTINUOUS and batchable(ev.policy):
        # in progressive filling a user capped at zero takes nothing: the same as leaving
        caps = np.repeat(instance.max_tasks[None, :], n, axis=0)
        caps[np.arange(n), np.arange(n)] = 0.0
        after = numeric_many(ev, instance, caps=caps)
    else:
        after = np.empty((n, n))
        for r in range(n):
            keep = np.flatnonzero(np.arange(n) != r)
            after[r, keep] = ev.numeric(_without(instance, r, exact=False))
            after[r, r] = np.inf
    return x, after


def _without(instance: Instance, r: int, exact: bool) -> Instance:
    """``instance`` minus user ``r`` (exact values kept when ``exact``)."""
    keep = [i for i in range(instance.n) if i != r]
    if not exact:
        return numeric_variant(instance, keep=keep)
    return instance.replace(
        demands=[list(instance.demands_exact[i]) for i in keep],
        weights=[instance.weights_exact[i] for i in keep],
        max_tasks=[instance.max_tasks_exact[i] for i in keep],
        users=[instance.users[i] for i in keep],
    )
