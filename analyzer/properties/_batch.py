"""Many instances at once, for the numeric screens.

The screens evaluate many related instances (a user's candidate reports)
or many unrelated ones (a chunk of a search's stream). A policy with a
vectorised batch solver (:meth:`models.policy.Policy.batch_solver`: the
progressive-filling family, CEEI) solves them together; any other policy
is solved one instance at a time. The result only selects candidates:
every reported violation is re-verified with the policy's own exact solver.

A batch never fails as a whole (:func:`models.batching.run_batch`): a
member the batch solver does not answer (not certified, not finite, or a
numerical error of the batch) is solved alone by the policy's own solver,
which answers it or raises the :class:`~models.errors.SolverError` of that
instance.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol, TypeGuard, cast

import numpy as np

from models import Instance, Policy
from models.batching import run_batch
from models.filling import FillingPolicy
from models.tolerances import SCREEN_BATCH_ATOL, SCREEN_BATCH_RTOL

from ._variant import numeric_variant
from .modes import CONTINUOUS


class SolvesOne(Protocol):
    """What :func:`numeric_many` needs of an evaluator
    (:class:`~analyzer.properties._common.Evaluator`): the policy, the
    setting, and the numeric tasks of one instance."""

    policy: Policy
    mode: str

    def direct(self, instance: Instance) -> np.ndarray: ...


def is_filling(policy: Policy) -> TypeGuard[FillingPolicy]:
    """True for a filling policy whose batch is its own solver (a batch is
    then as cheap as one solve)."""
    return isinstance(policy, FillingPolicy) and policy.batch_solver() is not None


def batchable(policy: Policy) -> bool:
    """True when the policy has a vectorised batch solver
    (:meth:`~models.policy.Policy.batch_solver`)."""
    return policy.batch_solver() is not None


def numeric_many(
    ev: SolvesOne,
    instance: Instance,
    demands: np.ndarray | None = None,
    capacity: np.ndarray | None = None,
    caps: np.ndarray | None = None,
) -> np.ndarray:
    """Numeric tasks per user, shape (K, n), for K variants of ``instance``
    differing in demands (K, n, m), capacities (K, m) and/or caps (K, n):
    one vectorised batch for the filling family in the continuous setting,
    otherwise one solve per variant."""
    K = next(len(a) for a in (demands, capacity, caps) if a is not None)
    D = demands if demands is not None else np.broadcast_to(instance.demands, (K, instance.n, instance.m))
    R = capacity if capacity is not None else instance.capacity
    Kc = caps if caps is not None else np.broadcast_to(instance.max_tasks, (K, instance.n))
    solver = ev.policy.batch_solver() if ev.mode == CONTINUOUS else None
    todo: Any = range(K)
    out = np.empty((K, instance.n))
    if solver is not None:
        out, ok = run_batch(solver, np.asarray(D, dtype=float), np.asarray(R, dtype=float), instance.weights,
                            np.asarray(Kc, dtype=float))
        todo = np.flatnonzero(~ok)  # not answered by the batch: the policy's own solver
    for k in todo:
        out[k] = ev.direct(numeric_variant(instance, capacity=R if R.ndim == 1 else R[k], demands=D[k],
                                           max_tasks=Kc[k]))
    return out


def numeric_batch(policy: Policy, instances: Sequence[Instance], mode: str) -> list[np.ndarray | None]:
    """Numeric tasks per user for many unrelated instances: one vectorised
    batch solve (:meth:`~models.policy.Policy.batch_solver`) per group of
    instances with equal shape ``(n, m)`` and weights, or, for a batch
    solver that takes mixed shapes (:func:`mixes_shapes`: CEEI), per group
    of similar size padded to a common shape (:func:`padded_groups`);
    ``None`` for an instance the batch cannot answer (no batch solver for
    the policy or the mode, or not converged), which the caller treats as a
    candidate for the full check.

    Each member is solved as :meth:`._common.Evaluator.numeric` would solve
    it alone, up to rounding (every batch solver treats its members as
    independent instances).
    """
    out: list[np.ndarray | None] = [None] * len(instances)
    solve = policy.batch_solver() if mode == CONTINUOUS else None
    if solve is None:
        return out
    _MEMO.clear()
    if mixes_shapes(solve):
        groups = padded_groups(instances)
    else:
        groups = [(idxs, D, R[0] if len(members) == 1 else R, members[0].weights, caps)
                  for idxs, members, D, R, caps in shape_groups(instances)]
    label = policy.label
    for idxs, D, R, w, caps in groups:
        x, ok = solved(policy, solve, D, R, w, caps)
        for row, i, good in zip(x, idxs, ok.tolist(), strict=True):
            if good:
                inst = instances[i]
                x_i = row[:inst.demands.shape[0]]
                out[i] = x_i
                _MEMO[id(inst)] = (inst, label, mode, x_i)
    return out


#: The answers of the last batch solves (:func:`solved`), by a digest of
#: the policy, its batch solver and the batch's arrays, oldest first.
_SOLVED: OrderedDict[bytes, tuple[np.ndarray, np.ndarray]] = OrderedDict()
#: Batch solves kept in :data:`_SOLVED` (a table cell screens about 10
#: chunks of 1,024 instances, each in about 20 shape groups; each entry
#: holds the tasks and answered flags).
SOLVED_MEMO: int = 256


def solved(policy: Policy, solve: Any, D: np.ndarray, R: np.ndarray, w: np.ndarray, caps: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`models.batching.run_batch` of ``solve`` on a group, remembered
    for the last :data:`SOLVED_MEMO` groups by content: every cell of a
    property table examines the same stream of instances, so a process
    running several cells of one policy solves each chunk once. The same
    arrays give the same numbers (a batch solve is deterministic), so a
    remembered answer is the one a new solve would give; copies are
    returned."""
    h = hashlib.blake2b(digest_size=20)
    h.update(repr((type(policy).__module__, type(policy).__qualname__, policy.label, type(solve).__module__,
                   type(solve).__qualname__, getattr(solve, "__qualname__", ""))).encode())
    for a in (D, R, w, caps):
        a = np.ascontiguousarray(a, dtype=float)
        h.update(repr(a.shape).encode())
        h.update(a.data)
    key = h.digest()
    hit = _SOLVED.get(key)
    if hit is None:
        hit = run_batch(solve, D, R, w, caps)
        hit = (hit[0].copy(), hit[1].copy())
        _SOLVED[key] = hit
        while len(_SOLVED) > SOLVED_MEMO:
            _SOLVED.popitem(last=False)
    else:
        _SOLVED.move_to_end(key)
    return hit[0].copy(), hit[1].copy()


def mixes_shapes(solver: Any) -> bool:
    """True for a batch solver whose members may differ in shape (padded
    with users capped at 0 and resources nobody demands) and weights
    (``(K, n)``): its ``mixed_shapes`` attribute
    (:class:`models.ceei_newton.CEEIBatch`)."""
    return bool(getattr(solver, "mixed_shapes", False))


#: Users and resources of the smallest padded shape of
#: :func:`padded_groups`: instances up to this size share one batch.
PAD_FLOOR: int = 8


def padded_groups(instances: Sequence[Instance]
                  ) -> list[tuple[list[int], np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The instances in groups of similar size (users and resources each
    up to :data:`PAD_FLOOR`, then within a factor 2: padding never more
    than doubles a member), each padded to its largest shape ``(N, M)``:
    ``(indices, demands (K, N, M), capacities (K, M), weights (K, N), caps
    (K, N))``. A padded user has no demand, weight 1 and cap 0; a padded
    resource capacity 1 and no demand."""
    shapes = [inst.demands.shape for inst in instances]
    keys: dict[tuple[int, int], list[int]] = {}
    for idx, (n, m) in enumerate(shapes):
        keys.setdefault(((max(n, PAD_FLOOR) - 1).bit_length(), (max(m, PAD_FLOOR) - 1).bit_length()), []).append(idx)
    out = []
    for idxs in keys.values():
        N, M = max(shapes[i][0] for i in idxs), max(shapes[i][1] for i in idxs)
        D, R = np.zeros((len(idxs), N, M)), np.ones((len(idxs), M))
        w, caps = np.ones((len(idxs), N)), np.zeros((len(idxs), N))
        exact: dict[tuple[int, int], list[int]] = {}  # the group's rows by exact shape, filled a block at a time
        for row, i in enumerate(idxs):
            exact.setdefault(shapes[i], []).append(row)
        for (n, m), rows in exact.items():
            members = [instances[idxs[r]] for r in rows]
            D[rows, :n, :m] = stacked([inst.demands for inst in members])
            R[rows, :m] = stacked([inst.capacity for inst in members])
            w[rows, :n] = stacked([inst.weights for inst in members])
            caps[rows, :n] = stacked([inst.max_tasks for inst in members])
        out.append((idxs, D, R, w, caps))
    return out


def stacked(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """``np.stack(arrays)`` of arrays of one shape, the same array (one
    concatenation and a reshape: a third of ``np.stack``'s cost on a
    chunk's small per-instance arrays)."""
    return np.concatenate(arrays).reshape(len(arrays), *np.shape(arrays[0]))


#: A padded group with its tasks (:func:`answered_groups`).
AnsweredGroup = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def answered_groups(instances: Sequence[Instance], xs: Sequence[np.ndarray | None]) -> list[AnsweredGroup]:
    """The instances the batch answered (``xs[k]`` not ``None``), in the
    padded groups of :func:`padded_groups`, with their tasks: ``(indices,
    tasks (K, N), real users (K, N), demands (K, N, M), capacities (K, M),
    weights (K, N), caps (K, N))``. A screen compares a group's entries at
    once, counting only the real users (``tasks`` 0 for the padded ones):
    elementwise, each comparison is the one it makes on the instance alone."""
    answered = [k for k, x in enumerate(xs) if x is not None]
    out = []
    for sub, D, R, w, caps in padded_groups([instances[k] for k in answered]):
        idxs = np.array([answered[s] for s in sub], dtype=int)
        n = np.array([len(cast(np.ndarray, xs[k])) for k in idxs.tolist()])
        real = np.arange(D.shape[1])[None, :] < n[:, None]
        X = np.zeros(real.shape)
        X[real] = np.concatenate([cast(np.ndarray, xs[k]) for k in idxs.tolist()])  # row by row, in order
        out.append((idxs, X, real, D, R, w, caps))
    return out


def shape_groups(instances: Sequence[Instance], keep: Any = None
                 ) -> list[tuple[list[int], list[Instance], np.ndarray, np.ndarray, np.ndarray]]:
    """The instances grouped by shape ``(n, m)`` and weights (those
    ``keep(instance)`` accepts, all by default), each group stacked:
    ``(indices, members, demands (K, n, m), capacities (K, m), caps (K, n))``."""
    groups: dict[tuple[int, int, bytes], list[int]] = {}
    for idx, inst in enumerate(instances):
        if keep is None or keep(inst):
            groups.setdefault((inst.n, inst.m, inst.weights.tobytes()), []).append(idx)
    out = []
    for idxs in groups.values():
        members = [instances[i] for i in idxs]
        out.append((idxs, members, stacked([inst.demands for inst in members]).astype(float),
                    stacked([inst.capacity for inst in members]).astype(float),
                    stacked([inst.max_tasks for inst in members]).astype(float)))
    return out


#: The answers of the last :func:`numeric_batch` call by ``id`` of the
#: instance (with the instance itself, so that a reused ``id`` never
#: matches): the check and the margin of an instance of the batch reuse
#: them instead of solving again.
_MEMO: dict[int, tuple[Instance, str, str, np.ndarray]] = {}


def forget() -> None:
    """Drop the remembered tasks (a screen of a new chunk starts)."""
    _MEMO.clear()


def remember(policy: Policy, instance: Instance, mode: str, x: np.ndarray) -> None:
    """Keep ``x``, the tasks of ``policy`` on ``instance`` in ``mode``
    computed by a screen, for the check of the same instance object
    (:func:`remembered`; forgotten at the next :func:`numeric_batch`)."""
    _MEMO[id(instance)] = (instance, policy.label, mode, np.array(x, dtype=float))


def remembered(policy: Policy, instance: Instance, mode: str) -> np.ndarray | None:
    """A copy of the tasks the last :func:`numeric_batch` computed for
    exactly this instance object, policy and mode, or ``None``."""
    hit = _MEMO.get(id(instance))
    if hit is None or hit[0] is not instance or hit[1] != policy.label or hit[2] != mode:
        return None
    return hit[3].copy()


def widened(x: np.ndarray, up: bool) -> np.ndarray:
    """``x`` moved by :data:`~models.tolerances.SCREEN_BATCH_RTOL` (plus the
    absolute floor) up or down: batched screens compare the unfavourable
    side, so that they flag every instance a one-at-a-time screen flags."""
    step = SCREEN_BATCH_RTOL * np.abs(x) + SCREEN_BATCH_ATOL
    return x + step if up else x - step
