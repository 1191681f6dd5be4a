"""The check shared by single-resource and bottleneck fairness: the
allocation must equal weighted max-min with caps on one resource."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from models import Instance, Policy, PolicyError
from models.tolerances import COMPARE_ATOL, COMPARE_RTOL, DOMINANT_NEAR, SCREEN_BATCH_ATOL, SCREEN_BATCH_RTOL

from ._batch import numeric_batch, stacked
from ._common import Evaluator, maxmin_on_resource, per_user, show
from .base import DISCRETE, Violation

#: Why single-resource and bottleneck fairness are not defined for whole tasks.
WHOLE_TASKS_WHY = "whole-task max-min is not unique"


def check_maxmin_on(prop: str, policy: str | Policy, instance: Instance, mode: str, j: int) -> Violation | None:
    """A verified difference between the policy's allocation and weighted
    max-min on resource ``j``, or ``None``."""
    ev = Evaluator(policy, mode)
    if ev.mode == DISCRETE:
        raise PolicyError(f"{prop}: defined for the continuous setting only ({WHOLE_TASKS_WHY})")
    x = ev.numeric(instance)
    ref = maxmin_on_resource(instance, j)
    reff = np.array([float(v) for v in ref])
    off = np.abs(x - reff) > COMPARE_RTOL * np.abs(reff) + COMPARE_ATOL
    if not off.any():
        return None
    xe = ev.verified(instance)
    # the harmed users (below the reference) first, largest gap first
    order = np.lexsort((-np.abs(x - reff), ~(x < reff)))
    for i in order:
        if ev.below(xe[i], ref[i]) or ev.below(ref[i], xe[i]):
            u = instance.users[i]
            res = instance.resources[j]
            return ev.violation(
                prop, instance, u,
                f"{u} gets {show(xe[i])} tasks; max-min on {res} gives it {show(ref[i])}",
                deviation={"kind": "max-min-reference", "resource": res, "tasks": per_user(instance, ref)},
                before={"tasks": per_user(instance, xe)},
                after={"tasks": per_user(instance, ref)},
            )
    return None


def screen_maxmin_many(policy: Policy, instances: Sequence[Instance], mode: str,
                       resources: Sequence[int | None]) -> np.ndarray:
    """Batched screen of :func:`check_maxmin_on` (see
    :meth:`.base.Property.screen_many`): the policy's tasks differ from
    max-min on ``resources[k]`` (``None``: nothing to check) by more than
    the comparison tolerance less a widening for rounding. Uncapped
    max-min is ``w_i R_j / (d_ij sum(w))`` in floats; capped instances take
    the exact water-filling. Discrete mode flags everything (the check
    rejects it)."""
    if mode == DISCRETE:
        return np.ones(len(instances), dtype=bool)
    xs = numeric_batch(policy, instances, mode)
    out = np.ones(len(instances), dtype=bool)
    groups: dict[int, list[int]] = {}  # the answered instances to compare, by number of users
    for k, (x, inst, j) in enumerate(zip(xs, instances, resources, strict=True)):
        if j is None:
            out[k] = False
        elif x is not None:
            groups.setdefault(inst.n, []).append(k)
    for ks in groups.values():
        out[ks] = _off_maxmin([instances[k] for k in ks], stacked([cast(np.ndarray, xs[k]) for k in ks]),
                              [cast(int, resources[k]) for k in ks])
    return out


def _off_maxmin(insts: Sequence[Instance], X: np.ndarray, js: Sequence[int]) -> np.ndarray:
    """:func:`screen_maxmin_many`'s comparison for instances with equal
    numbers of users, their tasks ``X`` (K, n) and resources ``js``, all at
    once: row by row the numbers of a one-instance comparison."""
    W = stacked([inst.weights for inst in insts])
    Dj = stacked([inst.demands[:, j] for inst, j in zip(insts, js, strict=True)])
    Rj = np.array([inst.capacity[j] for inst, j in zip(insts, js, strict=True)])
    ref = W * Rj[:, None] / (Dj * W.sum(axis=1)[:, None])
    capped = np.isfinite(stacked([inst.max_tasks for inst in insts])).any(axis=1)
    for r in np.flatnonzero(capped).tolist():  # capped: the exact water-filling
        ref[r] = [float(v) for v in maxmin_on_resource(insts[r], js[r])]
    dist = np.abs(X - ref) + SCREEN_BATCH_RTOL * (np.abs(X) + np.abs(ref)) + SCREEN_BATCH_ATOL
    return cast(np.ndarray, (dist > COMPARE_RTOL * np.abs(ref) + COMPARE_ATOL).any(axis=1))


def maxmin_margin(policy: str | Policy, instance: Instance, mode: str, j: int) -> float:
    """Numeric violation margin (``< 0``: violated): minus the largest
    relative distance between the policy's tasks and max-min on ``j``."""
    ev = Evaluator(policy, mode)
    x = ev.numeric(instance)
    ref = np.array([float(v) for v in maxmin_on_resource(instance, j)])
    return -float(np.max(np.abs(x - ref) / (np.abs(ref) + COMPARE_ATOL)))


def common_dominant(instance: Instance) -> int | None:
    """A resource that is (exactly) a dominant resource of every user, or
    ``None``. Dominant: largest ``d_ij / R_j`` (Section 4).

    Decided on the float shares where they are :data:`DOMINANT_NEAR` apart
    (float roundoff cannot reverse such an order) and in exact arithmetic
    for the pairs closer than that: the first resource, in index order,
    that exact arithmetic alone would find. Remembered for the last
    instances asked about (a search asks its class, its screen, its margin
    and its check of one instance)."""
    hit = _DOMINANT.get(id(instance))
    if hit is not None and hit[0] is instance:
        return hit[1]
    if len(_DOMINANT) >= DOMINANT_MEMO:
        _DOMINANT.clear()
    j = _common_dominant(instance)
    _DOMINANT[id(instance)] = (instance, j)
    return j


#: :func:`common_dominant` of the last instances, by ``id`` (with the
#: instance itself, so that a reused ``id`` never matches).
_DOMINANT: dict[int, tuple[Instance, int | None]] = {}
#: Entries kept in :data:`_DOMINANT`.
DOMINANT_MEMO: int = 4096


def _common_dominant(instance: Instance) -> int | None:
    """:func:`common_dominant`, computed: on the float shares as Python
    numbers (a few users and resources: numpy's per-call overhead is most
    of the cost), the same comparisons in the same order."""
    S = (instance.demands / instance.capacity).tolist()
    keep = 1 - DOMINANT_NEAR
    cands: list[int] = list(range(instance.m))
    for row in S:  # resources that may be dominant for every user (the others are not)
        lo = max(row) * keep
        cands = [j for j in cands if row[j] >= lo]
        if not cands:
            return None
    for j in cands:  # the pairs that may be exactly above j's share, decided exactly
        if all(_at_least(instance, i, j, k) for i, row in enumerate(S) for k, s in enumerate(row)
               if k != j and s >= row[j] * keep):
            return j
    return None


def _at_least(instance: Instance, i: int, j: int, k: int) -> bool:
    """Exactly ``d_ij / R_j >= d_ik / R_k``."""
    d, R = instance.demands_exact[i], instance.capacity_exact
    return bool(d[j] * R[k] >= d[k] * R[j])
