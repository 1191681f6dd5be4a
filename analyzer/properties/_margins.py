"""Margins of many instances at once: the pieces shared by the batched
:meth:`~analyzer.properties.base.Property.margin_many` overrides.

A property's :meth:`~analyzer.properties.base.Property.margin` (Ghodsi et
al., NSDI 2011, Section 3 for the properties it measures) reads the
policy's numeric allocation of one instance and compares numbers derived
from it. Its batched form gets the allocations of all the instances at once
(:func:`tasks`: the tasks a screen has just computed, else one
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
from models.batching import run_batch
from models.filling_numeric import fill_shares
from models.policy import BatchSolver
from models.tolerances import COMPARE_ATOL

from ._batch import PAD_FLOOR, mixes_shapes, remembered
from ._common import Evaluator
from ._sp_screen import KeyedFill, fill_for
from ._variant import numeric_variant
from .base import Property
from .modes import CONTINUOUS


@dataclass(frozen=True)
class Stack:
    """Instances of one group with their tasks, as arrays: demands (K, N, M),
    capacities (K, M), weights, caps and tasks (K, N), which entries are
    real users (K, N) and the instances' positions in the caller's sequence.

    The members are grouped as the policy's batch solver solves them
    together (:func:`groups`): of one shape, or padded to a common one
    (a padded user has weight 1, cap 0 and 0 tasks; a padded resource
    capacity 1 and no demand).
    """

    idxs: np.ndarray
    D: np.ndarray
    R: np.ndarray
    W: np.ndarray
    caps: np.ndarray
    X: np.ndarray
    real: np.ndarray

    @property
    def wsum(self) -> np.ndarray:
        """Each member's total weight (of its real users)."""
        return np.where(self.real, self.W, 0.0).sum(axis=1)

    def rows(self, keep: np.ndarray) -> Stack:
        """The members where ``keep`` (K,) is true."""
        return Stack(self.idxs[keep], self.D[keep], self.R[keep], self.W[keep], self.caps[keep], self.X[keep],
                     self.real[keep])


#: A group of instances as arrays: positions, demands, capacities, weights,
#: caps, real users (see :class:`Stack`).
Group = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def groups(policy: Policy, instances: Sequence[Instance], mode: str, mixed: bool = False) -> list[Group]:
    """The instances in groups the policy's batch solver solves together,
    each stacked (:data:`Group`). For a batch solver that takes mixed shapes
    (:func:`._batch.mixes_shapes`: CEEI), or when nothing is to be solved
    (``mixed``: the tasks are known), by size as
    :func:`._batch.padded_groups` groups them (users and resources up to
    :data:`._batch.PAD_FLOOR`, then within a factor 2), a padded user with
    no demand; otherwise as :func:`._sp_screen.group_key` groups them (for
    a row-wise share function on two or more resources by number of
    resources, a padded user with demand 1, frozen at 0 tasks by its cap 0;
    else by shape and weights). Instances of one shape take one
    ``np.array`` per array."""
    solver = policy.batch_solver() if mode == CONTINUOUS else None
    mixed = mixed or (solver is not None and mixes_shapes(solver))
    by_m = bool(getattr(policy, "rowwise_capacity", False))  # group_key's two kinds of groups
    keys: dict[tuple[int, int, bytes], list[int]] = {}
    for k, inst in enumerate(instances):
        n, m = inst.demands.shape
        if mixed:
            key = ((max(n, PAD_FLOOR) - 1).bit_length(), (max(m, PAD_FLOOR) - 1).bit_length(), b"")
        else:
            key = (0, m, b"") if by_m and m >= 2 else (n, m, inst.weights.tobytes())
        keys.setdefault(key, []).append(k)
    out = []
    for idxs in keys.values():
        members = [instances[k] for k in idxs]
        n_k = np.array([inst.demands.shape[0] for inst in members])
        fill = 0.0 if mixed else 1.0  # a padded user's demand
        arrays = [[inst.demands for inst in members], [inst.capacity for inst in members],
                  [inst.weights for inst in members], [inst.max_tasks for inst in members]]
        if len({inst.demands.shape for inst in members}) == 1:
            D, R, W, caps = (np.array(a, dtype=float) for a in arrays)
        else:
            D, R, W, caps = (_padded(a, v) for a, v in zip(arrays, (fill, 1.0, 1.0, 0.0), strict=True))
        out.append((np.asarray(idxs, dtype=int), D, R, W, caps, np.arange(int(n_k.max()))[None, :] < n_k[:, None]))
    return out


def _padded(arrays: Sequence[np.ndarray], fill: float) -> np.ndarray:
    """The arrays stacked as floats, each padded with ``fill`` to the
    largest extent on every axis."""
    shape = tuple(max(s) for s in zip(*(a.shape for a in arrays), strict=True))
    out = np.full((len(arrays), *shape), fill)
    for k, a in enumerate(arrays):
        out[k][tuple(slice(0, s) for s in a.shape)] = a
    return out


def tasks(policy: Policy, mode: str, members: Sequence[Instance], group: Group,
          known: Sequence[np.ndarray | None]) -> tuple[np.ndarray, np.ndarray]:
    """Numeric tasks of the members of a group (K, N; 0 for padded users)
    and which members have them, as
    :meth:`~analyzer.properties._common.Evaluator.numeric` gets them one at
    a time: the tasks a screen remembered for this very instance object
    (``known``, per member: :func:`._batch.remembered`), else one
    vectorised batch solve of the rest (:func:`models.batching.run_batch`),
    else the policy's own solver; none where that raises a
    :class:`~models.SolverError` or :class:`~models.PolicyError`."""
    _, D, R, W, caps, real = group
    X = np.zeros(real.shape)
    have = np.zeros(len(members), dtype=bool)
    for row, x in enumerate(known):
        if x is not None:
            X[row, :len(x)] = x
            have[row] = True
    solver = policy.batch_solver() if mode == CONTINUOUS else None
    miss = np.flatnonzero(~have)
    if miss.size and solver is not None:
        x, ok = run_batch(solver, D[miss], R[miss], W[miss], caps[miss])
        X[miss[ok]] = np.where(real[miss[ok]], x[ok], 0.0)
        have[miss[ok]] = True
    if have.all():
        return X, have
    try:
        ev = Evaluator(policy, mode)
    except PolicyError:  # not a setting: no margin, as one margin call at a time has none
        return X, have
    for row in np.flatnonzero(~have).tolist():
        try:
            x = ev.numeric(members[row])
        except (SolverError, PolicyError):  # PolicyError: no continuous solution (discrete-only policies)
            continue
        X[row, :len(x)] = x
        have[row] = True
    return X, have


def stacks(policy: Policy, instances: Sequence[Instance], mode: str, solves: bool = False) -> list[Stack]:
    """The instances with their tasks in :func:`groups` (padded across
    shapes when a screen has just solved them all, the stream's near
    misses, unless the caller ``solves`` variants of the members with the
    policy's batch solver), the members the policy gives no tasks left out
    (:func:`tasks`)."""
    known = [remembered(policy, inst, mode) for inst in instances]
    out = []
    for group in groups(policy, instances, mode, mixed=not solves and all(x is not None for x in known)):
        idxs, D, R, W, caps, real = group
        ks = idxs.tolist()
        X, have = tasks(policy, mode, [instances[k] for k in ks], group, [known[k] for k in ks])
        st = Stack(idxs, D, R, W, caps, X, real)
        out.append(st if have.all() else st.rows(have))
    return out


def allocations(policy: Policy, instances: Sequence[Instance], mode: str) -> list[np.ndarray | None]:
    """Numeric tasks of each instance as :func:`tasks` gets them (``None``:
    none)."""
    out: list[np.ndarray | None] = [None] * len(instances)
    for st in stacks(policy, instances, mode):
        for k, x, n in zip(st.idxs.tolist(), st.X, st.real.sum(axis=1).tolist(), strict=True):
            out[k] = x[:n]
    return out


def stacked_margins(policy: Policy, instances: Sequence[Instance], mode: str,
                    per_stack: Callable[[Stack], np.ndarray], solves: bool = False) -> np.ndarray:
    """Margins of ``instances``: ``per_stack`` of each group of
    :func:`stacks` (one margin per member; ``solves``: it solves variants
    of the members with the policy's batch solver), ``nan`` where the
    policy gave no tasks or the margin is not finite."""
    out = np.full(len(instances), np.nan)
    for st in stacks(policy, instances, mode, solves):
        if len(st.idxs):
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
    Section 6), the reference of a whole group at once: without caps its
    closed form ``w_i R_j / (d_ij sum(w))`` (with integer data the one
    rounding of the exact water-filling's value: the same floats), with
    caps one vectorised progressive filling on the single resource
    (:func:`models.filling_numeric.fill_shares`; equal to the exact
    water-filling up to rounding)."""
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
        caps = np.where(st.real, st.caps, 0.0)
        capped = np.isfinite(np.where(st.real, caps, np.inf)).any(axis=1)
        ref = (st.W * r[:, None]) / (d * st.wsum[:, None])
        if capped.any():
            ref[capped] = fill_shares(d[capped] / r[capped, None], d[capped, :, None], r[capped, None], st.W[capped],
                                      caps[capped])[0]
        with np.errstate(invalid="ignore"):
            gap = np.abs(st.X - ref) / (np.abs(ref) + COMPARE_ATOL)
        return -np.where(st.real, gap, -np.inf).max(axis=1)

    out[todo] = stacked_margins(policy, [instances[k] for k in todo], mode, per_stack)
    return out


def batch_fill(ev: Evaluator, insts: Sequence[Instance]) -> KeyedFill:
    """How the strategy-proofness margins of a group of instances of one
    shape and weights (:class:`._sp_screen.Group`) fill their deviated
    instances when the policy is not filled in lockstep
    (:func:`._sp_screen.fill_for`): the reports of all the members in one
    call of the policy's batch solver (CEEI's Newton batch), each row
    solved as :func:`._batch.numeric_many` solves it for its own member (a
    row the batch does not answer by the policy's own solver); the
    member-by-member fill when the policy has no batch solver in the mode.
    The same numbers up to rounding, so the same key."""
    one_by_one = fill_for(ev, insts)
    solver = ev.policy.batch_solver() if ev.mode == CONTINUOUS else None
    if solver is None:
        return one_by_one
    W = np.array([inst.weights for inst in insts], dtype=float)

    def together(D: np.ndarray, cap: np.ndarray, Kc: np.ndarray, b: np.ndarray, who: np.ndarray) -> np.ndarray:
        x, ok = run_batch(solver, D, cap, W[b], Kc)
        for r in np.flatnonzero(~ok).tolist():
            x[r] = ev.direct(numeric_variant(insts[b[r]], capacity=cap[r], demands=D[r], max_tasks=Kc[r]))
        return x

    return KeyedFill(one_by_one.key, together)

