"""Margins of many instances at once: the pieces shared by the batched
:meth:`~analyzer.properties.base.Property.margin_many` overrides.

A property's :meth:`~analyzer.properties.base.Property.margin` (Ghodsi et
al., NSDI 2011, Section 3 for the properties it measures) reads the
policy's numeric allocation of one instance and compares numbers derived
from it. Its batched form gets the allocations of all the instances at once
(:func:`allocations`: the tasks a screen has just computed, else one
vectorised batch solve, else the policy's own solver, as
:meth:`~analyzer.properties._common.Evaluator.numeric` gets them one at a
time) and makes the comparisons on stacked arrays (:class:`Stack`), each
member's entries the numbers its own margin computes (up to rounding:
numpy may sum in another order). The margin steers the search, it never
decides; a member without an answer is ``nan``, as in the default.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from models import Instance, Policy, PolicyError, SolverError
from models.filling_numeric import fill_shares
from models.policy import BatchSolver
from models.tolerances import COMPARE_ATOL

from ._batch import answered_groups, mixes_shapes, numeric_batch, remembered
from ._common import Evaluator
from ._sp_screen import group_key, padded
from .base import Property
from .modes import CONTINUOUS


@dataclass(frozen=True)
class Stack:
    """Instances of one group with their tasks, as arrays: demands (K, N, M),
    capacities (K, M), weights, caps and tasks (K, N), which entries are
    real users (K, N) and the instances' positions in the caller's sequence.

    Members are either all of one shape ``(n, m)`` with equal weights
    (``real`` all true), or, for a batch solver that takes mixed shapes
    (CEEI), padded as :func:`._batch.padded_groups` pads them: a padded
    user has no demand, weight 1, cap 0 and 0 tasks; a padded resource
    capacity 1 and no demand.
    """

    idxs: np.ndarray
    D: np.ndarray
    R: np.ndarray
    W: np.ndarray
    caps: np.ndarray
    X: np.ndarray
    real: np.ndarray
    #: Each member's own total weight (its real users' weights summed as
    #: ``instance.weights.sum()`` sums them).
    wsum: np.ndarray


def allocations(policy: Policy, instances: Sequence[Instance], mode: str) -> list[np.ndarray | None]:
    """Numeric tasks of each instance as
    :meth:`~analyzer.properties._common.Evaluator.numeric` gives them: the
    tasks a screen remembered for this very instance object, else one
    vectorised batch solve of the rest (:func:`._batch.numeric_batch`),
    else the policy's own solver; ``None`` where that raises a
    :class:`~models.SolverError` or :class:`~models.PolicyError` (the margin
    is then ``nan``)."""
    xs: list[np.ndarray | None] = [remembered(policy, inst, mode) for inst in instances]
    todo = [k for k, x in enumerate(xs) if x is None]
    if todo and mode == CONTINUOUS and policy.batch_solver() is not None:
        for k, x in zip(todo, numeric_batch(policy, [instances[k] for k in todo], mode), strict=True):
            xs[k] = x
    try:
        ev = Evaluator(policy, mode)
    except PolicyError:  # not a setting: no margin, as one margin call at a time has none
        return xs
    for k in (k for k, x in enumerate(xs) if x is None):
        try:
            xs[k] = ev.numeric(instances[k])
        except (SolverError, PolicyError):  # PolicyError: no continuous solution (discrete-only policies)
            continue
    return xs


def stacks(policy: Policy, instances: Sequence[Instance], xs: Sequence[np.ndarray | None],
           solves: bool = False) -> list[Stack]:
    """The instances with tasks (``xs[k]`` not ``None``) in groups: padded
    to a common shape (:func:`._batch.answered_groups`: a few groups
    whatever the shapes), unless the margin ``solves`` variants of the
    stacked instances with a batch solver that does not take mixed shapes
    (:func:`._batch.mixes_shapes`): then as a filling batch solves them
    together, by :func:`._sp_screen.group_key` (for a row-wise share
    function on two or more resources by number of resources, users
    padded with demand 1, weight 1 and cap 0 as :func:`._sp_screen.padded`
    pads them: frozen at 0 tasks; else by shape and weights)."""
    solver = policy.batch_solver()
    out = []
    if not solves or (solver is not None and mixes_shapes(solver)):
        for idxs, X, real, D, R, W, caps in answered_groups(instances, xs):
            wsum = np.array([instances[k].weights.sum() for k in idxs])
            out.append(Stack(idxs, D, R, W, caps, X, real, wsum))
        return out
    groups: dict[tuple[int, int, bytes], list[tuple[int, np.ndarray]]] = {}
    for k, (inst, x) in enumerate(zip(instances, xs, strict=True)):
        if x is not None:
            groups.setdefault(group_key(policy, inst), []).append((k, x))
    for group in groups.values():
        ks = [k for k, _ in group]
        members = [instances[k] for k in ks]
        n = max(inst.n for inst in members)
        real = np.arange(n)[None, :] < np.array([[inst.n] for inst in members])
        out.append(Stack(np.asarray(ks, dtype=int), padded([inst.demands for inst in members], n, 1.0),
                         np.stack([inst.capacity for inst in members]).astype(float),
                         padded([inst.weights for inst in members], n, 1.0),
                         padded([inst.max_tasks for inst in members], n, 0.0),
                         padded([x for _, x in group], n, 0.0), real,
                         np.array([inst.weights.sum() for inst in members])))
    return out


def stacked_margins(policy: Policy, instances: Sequence[Instance], mode: str,
                    per_stack: Callable[[Stack], np.ndarray], solves: bool = False) -> np.ndarray:
    """Margins of ``instances``: ``per_stack`` of each group of
    :func:`stacks` (one margin per member; ``solves``: it solves variants
    of the members in one batch), ``nan`` where the policy gave no tasks or
    the margin is not finite."""
    out = np.full(len(instances), np.nan)
    xs = allocations(policy, instances, mode)
    for st in stacks(policy, instances, xs, solves):
        out[st.idxs] = per_stack(st)
    out[~np.isfinite(out)] = np.nan
    return out


def variant_margins(prop: Property, policy: Policy, instances: Sequence[Instance], mode: str,
                    per_stack: Callable[[Stack, BatchSolver], tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Margins of ``instances`` for a property that compares each with
    variants of it (other capacities, a user gone) solved in one batch:
    ``per_stack(stack, solver)`` gives each member's margin and whether the
    batch left one of its variants unanswered; such a member, and every
    instance when the policy has no batch solver in ``mode``, gets
    ``prop.margin`` one instance at a time (the default
    :meth:`~analyzer.properties.base.Property.margin_many`), which solves
    an unanswered variant with the policy's own solver."""
    solve = policy.batch_solver() if mode == CONTINUOUS else None
    if solve is None:
        return Property.margin_many(prop, policy, instances, mode)
    alone: list[int] = []

    def run(st: Stack) -> np.ndarray:
        out, unanswered = per_stack(st, solve)
        alone.extend(st.idxs[unanswered].tolist())
        return out

    out = stacked_margins(policy, instances, mode, run, solves=True)
    if alone:
        out[alone] = Property.margin_many(prop, policy, [instances[k] for k in alone], mode)
    return out


def relative_margins(have: np.ndarray, owed: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """:func:`._common.relative_margin` of each member (the first axis), over
    the entries where ``mask`` is true: the smallest ``(have - owed) /
    (|owed| + COMPARE_ATOL)`` over its finite entries, ``inf`` when none."""
    K = have.shape[0]
    have, owed = have.reshape(K, -1), owed.reshape(K, -1)
    ok = mask.reshape(K, -1) & np.isfinite(owed) & np.isfinite(have)
    with np.errstate(invalid="ignore", over="ignore"):
        rel = (have - owed) / (np.abs(owed) + COMPARE_ATOL)
    return np.where(ok, rel, np.inf).min(axis=1, initial=np.inf)


def maxmin_margins(policy: Policy, instances: Sequence[Instance], mode: str,
                   resources: Sequence[int | None]) -> np.ndarray:
    """:func:`._maxmin.maxmin_margin` of each instance on its resource
    ``resources[k]`` (``None``: the property does not apply, ``nan``):
    minus the largest relative distance between the policy's tasks and
    weighted max-min with caps on that resource (Ghodsi et al., NSDI 2011,
    Section 6), the reference of a whole group by one vectorised
    progressive filling on the single resource
    (:func:`models.filling_numeric.fill_shares`; the margin compares it
    with the exact water-filling's floats, equal up to rounding)."""
    out = np.full(len(instances), np.nan)
    todo = [k for k, j in enumerate(resources) if j is not None]
    if not todo:
        return out
    col = np.array([resources[k] for k in todo], dtype=int)

    def per_stack(st: Stack) -> np.ndarray:
        rows = np.arange(len(st.idxs))
        j = col[st.idxs]
        d = np.where(st.real, st.D[rows, :, j], 1.0)  # a padded user: demand 1, cap 0, frozen at 0
        r = st.R[rows, j]
        ref, _ = fill_shares(d / r[:, None], d[:, :, None], r[:, None], st.W, np.where(st.real, st.caps, 0.0))
        with np.errstate(invalid="ignore"):
            gap = np.abs(st.X - ref) / (np.abs(ref) + COMPARE_ATOL)
        return -np.where(st.real, gap, -np.inf).max(axis=1)

    out[todo] = stacked_margins(policy, [instances[k] for k in todo], mode, per_stack)
    return out
