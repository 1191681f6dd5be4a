"""One progressive filling (Ghodsi et al., NSDI 2011, Section 4.2): the
batched screens of the properties and :meth:`FillingPolicy.solve` run the
same solver, so they give the same task counts, bit for bit, also for a
user-written filling policy whose share of one task is 0 for some users
(issue 17: the batched copy had diverged)."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.properties._batch import numeric_batch
from analyzer.properties._common import Evaluator
from models import Allocation, Instance, Policy, get_policy
from models.filling import FillingPolicy
from models.policy import POLICIES, BatchSolver, register
from tests.strategies import random_instance


class _CpuOnly(FillingPolicy):
    """Max-min on the first resource's share (0 for users without it)."""

    name = "test-cpu-only-batch"
    description = "max-min on the first resource (test only)"

    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        return demands[:, 0] / capacity[0]


@pytest.fixture()
def cpu_only() -> FillingPolicy:
    register(_CpuOnly)
    try:
        yield _CpuOnly()
    finally:
        POLICIES.unregister(_CpuOnly.name)


def test_zero_share_user_batched_screen_equals_solve(cpu_only: FillingPolicy) -> None:
    # A needs no cpu (share 0): B fills first until cpu saturates (3 tasks),
    # then A takes the memory left by DRF: 15 / 4 = 3.75 tasks.
    inst = Instance.from_arrays(np.array([9.0, 18.0]), np.array([[0.0, 4.0], [3.0, 1.0]]))
    assert cpu_only.solve(inst).x.tolist() == [3.75, 3.0]
    ev = Evaluator(cpu_only.name)
    assert ev.numeric(inst).tolist() == [3.75, 3.0]
    xs = numeric_batch(ev.policy, [inst], "continuous")
    assert xs[0] is not None and xs[0].tolist() == [3.75, 3.0]


@pytest.mark.parametrize("name", ["drf", "asset", "leximin-tasks", "test-cpu-only-batch"])
def test_batched_screen_is_the_policy_solver(name: str, cpu_only: FillingPolicy) -> None:
    """Many random instances (zeros, weights, caps) at once: every member
    equals the policy's own solve exactly."""
    rng = np.random.default_rng(17)
    insts = [random_instance(rng, n_max=6, m_max=3) for _ in range(300)]
    ev = Evaluator(name)
    xs = numeric_batch(ev.policy, insts, "continuous")
    for x, inst in zip(xs, insts, strict=True):
        assert x is not None
        assert np.array_equal(x, ev.policy.solve(inst).x), inst.describe()


class _EqualTasks(Policy):
    """Every user the same number of tasks, as many as fit (test only):
    with a vectorised batch solver, and no dispatcher edited to use it."""

    name = "test-equal-tasks-batch"
    description = "equal task counts (test only)"
    batches = 0

    def solve(self, instance: Instance) -> Allocation:
        x, _ = self._batch(instance.demands[None], instance.capacity, instance.weights, instance.max_tasks[None])
        return Allocation(instance=instance, x=x[0], policy=self.label)

    def batch_solver(self) -> BatchSolver | None:
        return self._batch

    def _batch(self, D: np.ndarray, R: np.ndarray, w: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        type(self).batches += 1
        with np.errstate(divide="ignore"):  # a resource nobody uses bounds nothing
            t = (np.broadcast_to(R, (len(D), D.shape[2]))[:, None, :] / D.sum(axis=1, keepdims=True)).min(axis=2)
        return np.broadcast_to(t, k.shape).copy(), np.ones(len(D), dtype=bool)


def test_a_policy_with_a_batch_solver_plugs_into_the_screens() -> None:
    register(_EqualTasks)
    try:
        rng = np.random.default_rng(5)
        insts = [random_instance(rng, n_max=4, m_max=3, caps=False) for _ in range(50)]
        ev = Evaluator(_EqualTasks.name)
        before = _EqualTasks.batches
        xs = numeric_batch(ev.policy, insts, "continuous")
        assert _EqualTasks.batches - before <= len({(i.n, i.m, i.weights.tobytes()) for i in insts})
        for x, inst in zip(xs, insts, strict=True):
            assert x is not None and np.allclose(x, ev.policy.solve(inst).x)
    finally:
        POLICIES.unregister(_EqualTasks.name)


def test_both_orderings_of_the_capped_users_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """The row-wise argsort (few users a member) and the sort of the capped
    users only (many users) order by the same key: the same filling."""
    import models.filling_numeric as kernel

    rng = np.random.default_rng(11)
    insts = [random_instance(rng, n_max=8, m_max=3) for _ in range(100)]
    pol = get_policy("drf")
    rows = [pol.solve(inst).x for inst in insts]
    monkeypatch.setattr(kernel, "_ROW_SORT_USERS", 0)
    for x, inst in zip(rows, insts, strict=True):
        assert np.array_equal(x, pol.solve(inst).x), inst.describe()


class _CountingDRF(FillingPolicy):
    """DRF's share function, counting its calls (test only)."""

    name = "test-counting-drf"
    rowwise_capacity = True
    calls = 0

    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        _CountingDRF.calls += 1
        return (demands / capacity).max(axis=1)


def test_shares_batch_takes_per_row_capacities_in_one_call(cpu_only: FillingPolicy) -> None:
    # members with different capacities: a row-wise share function is called
    # once on the stacked rows (each row with its member's capacity), with
    # the numbers of one call per member; a policy that indexes the capacity
    # vector (cpu-only) is still called member by member, correctly
    rng = np.random.default_rng(4)
    D = rng.integers(1, 9, size=(7, 3, 2)).astype(float)
    R = rng.integers(5, 40, size=(7, 2)).astype(float)
    pol = _CountingDRF()
    _CountingDRF.calls = 0
    got = pol.shares_batch(D, R)
    assert _CountingDRF.calls == 1
    assert np.array_equal(got, np.stack([(D[k] / R[k]).max(axis=1) for k in range(7)]))
    assert np.array_equal(cpu_only.shares_batch(D, R), np.stack([D[k][:, 0] / R[k][0] for k in range(7)]))
    for name in ("drf", "asset", "leximin-tasks"):
        p = get_policy(name)
        assert p.rowwise_capacity
        assert np.array_equal(p.shares_batch(D, R), np.stack([p.share_per_task(D[k], R[k]) for k in range(7)]))
