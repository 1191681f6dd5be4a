"""Envy-freeness (Ghodsi et al., NSDI 2011, Section 3)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from models import Instance, Policy
from models.tolerances import COMPARE_ATOL

from ._batch import answered_groups, forget, numeric_batch, remember, widened
from ._common import Evaluator, as_exact_str, leontief_tasks, numeric_below, relative_margin, show
from ._margins import Stack, relative_margins, stacked_margins
from .base import CONTINUOUS, DISCRETE, Property, Violation, register_property

#: Largest number of (envier, envied, resource) triples screened at once.
_BLOCK = 1 << 20


@register_property
class EnvyFreeness(Property):
    """Envy-freeness.

    Ghodsi et al., NSDI 2011, Section 3: no user prefers another user's
    allocation. For Leontief users holding ``x_i`` tasks (bundle
    ``x_j d_j``), with weights and caps: for every pair ``i != j``

    ``x_i >= min(k_i, (w_i / w_j) x_j min_{l: d_il > 0} d_jl / d_il)``,

    i.e. user ``i`` could not run more of its own tasks with ``j``'s bundle
    scaled by the weight ratio ``w_i / w_j`` (a user with twice the weight
    is entitled to twice the bundle; Section 4.3). In the discrete setting
    the right side counts whole tasks (floored).

    No search: every ordered pair is compared, on weighted bundles (the
    envied bundle is scaled by ``w_i / w_j``, so with equal weights it is
    the plain bundle); the envier's own cap bounds what it could run.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    >>> EnvyFreeness().check("drf", inst) is None
    True
    """

    name = "envy-freeness"
    title = "Envy-freeness"
    source = "Ghodsi et al., NSDI 2011, Section 3"
    summary = "no user could run more of its own tasks with another user's bundle (scaled by w_i/w_j; capped)"
    order = 3

    def margin(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> float:
        """Numeric violation margin (``< 0``: violated): the smallest
        relative excess of ``x_i`` over what another's bundle would give it."""
        ev = Evaluator(policy, mode)
        x = ev.numeric(instance)
        if instance.n < 2:
            return float("inf")
        return relative_margin(x, _envy_matrix(instance, x, ev.mode).max(axis=1))

    def margin_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """:meth:`margin` of each instance, the allocations solved in batches
        and every pair of every group of instances compared at once (see
        :meth:`.base.Property.margin_many`)."""

        def per_stack(st: Stack) -> np.ndarray:
            pairs = st.real[:, :, None] & st.real[:, None, :] & ~np.eye(st.X.shape[1], dtype=bool)
            envied = np.where(pairs, _envy_many(st.D, st.W, st.caps, st.X, mode), -np.inf).max(axis=2)
            return np.where(st.real.sum(axis=1) < 2, np.inf, relative_margins(st.X, envied, st.real))

        return stacked_margins(policy, instances, mode, per_stack)

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """Batched screen (see :meth:`.base.Property.screen_many`): some
        user's widened-down tasks below what the widened-up bundles of the
        others would give it. In the discrete setting the counts are whole
        tasks, exact in floats: an instance is flagged exactly when the
        check's own screen finds a user below a floored envied count (a tie
        of whole-task counts is not envy), and the check reuses the run."""
        if mode == DISCRETE:
            ev = Evaluator(policy, mode)
            forget()
            flags = []
            for inst in instances:
                x = ev.numeric(inst)
                remember(ev.policy, inst, mode, x)
                flags.append(inst.n > 1 and bool(numeric_below(x[:, None], _envy_matrix(inst, x, mode)).any()))
            return np.array(flags, dtype=bool)
        xs = numeric_batch(policy, instances, mode)
        out = np.ones(len(instances), dtype=bool)  # not answered by the batch: the full check decides
        for idxs, X, real, D, _, w, caps in answered_groups(instances, xs):
            envied = _envy_many(D, w, caps, widened(X, up=True), mode)
            pairs = real[:, :, None] & real[:, None, :] & ~np.eye(X.shape[1], dtype=bool)  # i envies another j
            out[idxs] = (numeric_below(widened(X, up=False)[:, :, None], envied) & pairs).any(axis=(1, 2))
        return out

    def check(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> Violation | None:
        ev = Evaluator(policy, mode)
        x = ev.numeric(instance)
        envied = _envy_matrix(instance, x, ev.mode)  # (n, n): tasks i runs with j's scaled bundle
        cand = np.argwhere(numeric_below(x[:, None], envied))
        if cand.size == 0:
            return None
        gap = (envied[cand[:, 0], cand[:, 1]] - x[cand[:, 0]]) / np.maximum(np.abs(x[cand[:, 0]]), 1.0)
        xe = ev.verified(instance)
        D, w, k = instance.demands_exact, instance.weights_exact, instance.max_tasks_exact
        for i, j in cand[np.argsort(-gap, kind="stable")]:
            scale = w[i] / w[j]
            bundle = [scale * xe[j] * d for d in D[j]]
            t = leontief_tasks(D[i], bundle, k[i], ev.mode)
            if ev.below(xe[i], t):
                ui, uj = instance.users[i], instance.users[j]
                scaled = "" if scale == 1 else f" scaled by {show(scale)}"
                return ev.violation(
                    self.name, instance, ui,
                    f"{ui} gets {show(xe[i])} tasks but could run {show(t)} with {uj}'s bundle{scaled}",
                    deviation={"kind": "swap-bundle", "user": ui, "envied": uj, "scale": as_exact_str(scale),
                               "bundle": {r: as_exact_str(b) for r, b in zip(instance.resources, bundle, strict=True)}},
                    before={"tasks": as_exact_str(xe[i])},
                    after={"tasks": as_exact_str(t)},
                )
        return None


def _envy_matrix(instance: Instance, x: np.ndarray, mode: str) -> np.ndarray:
    """``E[i, j]``: tasks user ``i`` runs with user ``j``'s bundle scaled by
    ``w_i / w_j`` (capped; floored in discrete mode); ``-inf`` on the
    diagonal. Vectorised in row blocks (:func:`_envy_rows`)."""
    D, w, k = instance.demands, instance.weights, instance.max_tasks
    n, m = D.shape
    out = np.empty((n, n))
    step = max(1, _BLOCK // max(1, n * m))
    for lo in range(0, n, step):
        rows = slice(lo, lo + step)  # the enviers of this block
        out[rows] = _envy_rows(D[rows], w[rows], k[rows], D, w, x, mode)
    np.fill_diagonal(out, -np.inf)
    return out


def _envy_many(D: np.ndarray, w: np.ndarray, k: np.ndarray, x: np.ndarray, mode: str) -> np.ndarray:
    """:func:`_envy_matrix` of a padded group of instances (demands (K, N,
    M), weights, caps and tasks (K, N)) at once, entry by entry the same
    numbers, without its diagonal: ``E[k, i, j]``."""
    return _envy_rows(D, w, k, D, w, x, mode)


def _envy_rows(Di: np.ndarray, wi: np.ndarray, ki: np.ndarray, D: np.ndarray, w: np.ndarray, x: np.ndarray,
               mode: str) -> np.ndarray:
    """``E[..., i, j]``: tasks envier ``i`` (demands ``Di`` (..., b, m),
    weights and caps ``wi``, ``ki`` (..., b)) runs with user ``j``'s bundle
    (demands ``D`` (..., n, m), weights ``w`` and tasks ``x`` (..., n))
    scaled by ``w_i / w_j``, capped, floored in discrete mode (Ghodsi et
    al., NSDI 2011, Section 3: envy-freeness)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(Di[..., :, None, :] > 0, D[..., None, :, :] / np.where(Di > 0, Di, 1.0)[..., :, None, :],
                         np.inf)
        out = ratio.min(axis=-1) * (wi[..., :, None] / w[..., None, :]) * x[..., None, :]  # own tasks per task of j
    out = np.minimum(out, ki[..., :, None])
    return np.floor(out + COMPARE_ATOL) if mode == DISCRETE else out
