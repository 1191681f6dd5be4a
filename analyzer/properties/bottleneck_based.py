"""Bottleneck-based fairness (Dolev et al., ITCS 2012)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, cast

import numpy as np

from models import Instance, Policy, PolicyError
from models.tolerances import COMPARE_ATOL, COMPARE_RTOL

from ._batch import answered_groups, numeric_batch, widened
from ._common import Evaluator, as_exact_str, per_user, show
from ._margins import Stack, stacked_margins
from .base import CONTINUOUS, DISCRETE, Property, Violation, register_property


@register_property
class BottleneckBasedFairness(Property):
    """Bottleneck-based fairness ("no justified complaints").

    Dolev, Feitelson, Halpern, Kupferman, Linial, "No justified complaints:
    on fair sharing of multiple resources", ITCS 2012, Section 3, in the
    form of Gutman and Nisan, "Fair allocation without trade", AAMAS 2012,
    Section 2. A resource is a *bottleneck* when it is fully used. User
    ``i`` (entitlement ``e_i = w_i / sum_k w_k``) has a *justified
    complaint* when it is below its cap ``k_i`` and, on every bottleneck
    ``j`` it uses (``d_ij > 0``), it holds less than its entitlement
    (``x_i d_ij / R_j < e_i``) *and* less than some other user
    (``x_i d_ij < x_k d_kj``). A user none of whose resources is a
    bottleneck complains justifiably too (it could simply get more). An
    allocation is bottleneck-based fair when nobody has a justified
    complaint. Gutman and Nisan show that a competitive equilibrium from
    incomes proportional to the entitlements is always BBF (policy
    ``bbf``). Continuous setting only; re-verified exactly for policies
    with an exact solver.

    No search: every user's complaint is decided from the allocation
    (every full resource it uses, every other user). Entitlements are
    ``w_i / sum(w)`` whatever the caps (a capped user at its cap never
    complains).

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    >>> BottleneckBasedFairness().check("ceei", inst) is None
    True
    >>> print(BottleneckBasedFairness().check("drf", inst).message)  # doctest: +NORMALIZE_WHITESPACE
    u0 has a justified complaint: it gets 3 tasks and on every full resource it uses (r0)
    it holds less than its entitlement 1/2 and less than another user
    """

    name = "bottleneck-based-fairness"
    modes = (CONTINUOUS,)
    #: With whole tasks a complaint can be unavoidable: ``R = <1>``, two users demanding ``<1>``.
    undefined_why = "with whole tasks every allocation can leave a justified complaint"
    title = "Bottleneck-based fairness"
    source = "Dolev et al., ITCS 2012, Section 3; Gutman and Nisan, AAMAS 2012, Section 2"
    summary = "no user below its cap is, on every full resource it uses, below its entitlement and below another user"

    def margin(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> float:
        """Numeric violation margin (``< 0``: violated, ``0`` when it holds).

        Per user: the largest over the resources it uses of
        ``min(-slack_j, max(share_ij / e_i - 1, amount_ij / max_k amount_kj - 1))``
        (``slack_j = 1 - usage_j / R_j``), or ``x_i / k_i - 1`` at its cap;
        the margin is the smallest over users.
        """
        ev = Evaluator(policy, mode)
        return float(_margins(instance, ev.numeric(instance)).min())

    def margin_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """:meth:`margin` of each instance, the allocations solved in batches
        and every user of a group of instances measured at once (see
        :meth:`.base.Property.margin_many`)."""

        def per_stack(st: Stack) -> np.ndarray:
            users = _margins_many(st.D, st.R, st.W / st.wsum[:, None], st.caps, st.X)
            return np.where(st.real, users, np.inf).min(axis=1)

        return stacked_margins(policy, instances, mode, per_stack)

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """Batched screen (see :meth:`.base.Property.screen_many`): some
        user may complain, every comparison taken on its unfavourable side
        (:func:`_complaints_widened`); the discrete setting flags everything
        (the check rejects it)."""
        out = np.ones(len(instances), dtype=bool)  # not answered by the batch: flagged
        if mode == DISCRETE:
            return out
        xs = numeric_batch(policy, instances, mode)
        for idxs, X, real, D, R, w, caps in answered_groups(instances, xs):
            out[idxs] = (_complaints_widened(X, real, D, R, w, caps) & real).any(axis=1)
        return out

    def check(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> Violation | None:
        ev = Evaluator(policy, mode)
        if ev.mode == DISCRETE:
            raise PolicyError(f"{self.name}: defined for the continuous setting only ({self.undefined_why})")
        x = ev.numeric(instance)
        suspects = np.flatnonzero(_complaints_numeric(instance, x))
        if suspects.size == 0:
            return None
        xe = ev.verified(instance)
        exact = ev.exact
        D: Sequence[Sequence[Any]]  # Fractions when exact, else floats (as ``xe``)
        R: Sequence[Any]
        if exact:
            D, R = instance.demands_exact, instance.capacity_exact
            W = sum(instance.weights_exact, Fraction(0))
            ent = [w / W for w in instance.weights_exact]
            caps: list[Any] = list(instance.max_tasks_exact)
        else:
            D = tuple(tuple(float(v) for v in row) for row in instance.demands)
            R = tuple(float(v) for v in instance.capacity)
            ent = list(instance.weights / instance.weights.sum())
            caps = [None if np.isinf(k) else float(k) for k in instance.max_tasks]
        n, m = instance.n, instance.m
        amount = [[xe[i] * D[i][j] for j in range(m)] for i in range(n)]
        usage = [sum((amount[i][j] for i in range(n)), 0) for j in range(m)]
        full = [not ev.below(usage[j], R[j]) for j in range(m)]
        for i in (int(v) for v in suspects):
            if caps[i] is not None and not ev.below(xe[i], caps[i]):
                continue
            used = [j for j in range(m) if D[i][j] > 0]
            protected = [
                j for j in used
                if full[j] and (not ev.below(amount[i][j] / R[j], ent[i])
                                or not any(ev.below(amount[i][j], amount[k][j]) for k in range(n) if k != i))
            ]
            if protected:
                continue
            u = instance.users[i]
            bottlenecks = [instance.resources[j] for j in used if full[j]]
            if bottlenecks:
                why = (f"on every full resource it uses ({', '.join(bottlenecks)}) it holds less than its "
                       f"entitlement {show(ent[i])} and less than another user")
            else:
                why = "no resource it uses is full"
            return ev.violation(
                self.name, instance, u,
                f"{u} has a justified complaint: it gets {show(xe[i])} tasks"
                + (", below its cap," if caps[i] is not None else "") + f" and {why}",
                deviation={"kind": "justified-complaint", "entitlement": as_exact_str(ent[i]),
                           "bottlenecks": bottlenecks},
                before={"tasks": per_user(instance, xe)},
            )
        return None


def _margins(instance: Instance, x: np.ndarray) -> np.ndarray:
    """Per-user margins of :meth:`BottleneckBasedFairness.margin`."""
    w = instance.weights
    return _margins_many(instance.demands, instance.capacity, w / w.sum(), instance.max_tasks, x)


def _margins_many(D: np.ndarray, R: np.ndarray, ent: np.ndarray, k: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per-user margins of :meth:`BottleneckBasedFairness.margin` from
    demands (..., n, m), capacities (..., m), entitlements, caps and tasks
    (..., n): one instance or a stack of them (a user with no demand and
    no tasks, a padded one, adds 0 to the usage and the top amounts)."""
    amount = x[..., :, None] * D
    slack = 1 - amount.sum(axis=-2) / R
    top = amount.max(axis=-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        vs_ent = amount / R[..., None, :] / ent[..., :, None] - 1
        vs_top = np.where(top[..., None, :] > 0, amount / np.where(top > 0, top, 1.0)[..., None, :] - 1, 0.0)
        at_cap = np.where(np.isfinite(k) & (k > 0), x / np.where(k > 0, k, 1.0) - 1, np.where(k == 0, 0.0, -np.inf))
    prot = np.minimum(-slack[..., None, :], np.maximum(vs_ent, vs_top))
    prot = np.where(D > 0, prot, -np.inf).max(axis=-1)
    return np.maximum(prot, at_cap)


def _complaints_numeric(instance: Instance, x: np.ndarray) -> np.ndarray:
    """Screen (floats with the comparison tolerance): users that may have a
    justified complaint."""
    D, R, w, k = instance.demands, instance.capacity, instance.weights, instance.max_tasks
    tol = COMPARE_RTOL
    amount = x[:, None] * D  # (n, m)
    usage = amount.sum(axis=0)
    full = usage >= R * (1 - tol) - COMPARE_ATOL
    ent = w / w.sum()
    below_ent = amount / R < ent[:, None] * (1 - tol) - COMPARE_ATOL
    below_max = amount < amount.max(axis=0)[None, :] * (1 - tol) - COMPARE_ATOL
    uses = D > 0
    protected = uses & full[None, :] & ~(below_ent & below_max)
    below_cap = x < k * (1 - tol) - COMPARE_ATOL
    return below_cap & ~protected.any(axis=1)


def _complaints_widened(X: np.ndarray, real: np.ndarray, D: np.ndarray, R: np.ndarray, w: np.ndarray,
                        k: np.ndarray) -> np.ndarray:
    """:func:`_complaints_numeric` of a padded group (see
    :func:`._batch.answered_groups`: tasks ``X`` (K, n), real users
    ``real``, demands (K, n, m), capacities (K, m), weights and caps (K,
    n)) as a (K, n) mask, each comparison on its unfavourable side: the
    user's own tasks widened down, the largest amount of a resource
    widened up. Every float step is monotone in the tasks, so a user
    protected (or at its cap) here is protected with the tasks the check
    reads: the mask holds every suspect of the check (and may hold more)."""
    tol = COMPARE_RTOL
    low = widened(X, up=False)
    amount = low[:, :, None] * D  # (K, n, m)
    full = np.einsum("knm->km", amount) >= R * (1 - tol) - COMPARE_ATOL
    wr = np.where(real, w, 0.0)
    ent = wr / wr.sum(axis=1)[:, None]
    below_ent = amount / R[:, None, :] < ent[:, :, None] * (1 - tol) - COMPARE_ATOL
    top = (widened(X, up=True)[:, :, None] * D).max(axis=1)  # (K, m)
    below_max = amount < top[:, None, :] * (1 - tol) - COMPARE_ATOL
    protected = (D > 0) & full[:, None, :] & ~(below_ent & below_max)
    below_cap = low < k * (1 - tol) - COMPARE_ATOL
    return cast(np.ndarray, below_cap & ~protected.any(axis=2))
