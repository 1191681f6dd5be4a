"""fds/gfj batched (issue 31): Newton on log-prices for a whole batch of
instances (models/alpha_fair_newton.py), each member as it would be alone,
certified per member; the members the batch does not answer are solved
alone; the screens give the searches' results of the one-by-one path."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from analyzer import search
from analyzer.properties._batch import shape_groups
from analyzer.searching import checks
from models import Instance, get_policy
from models.alpha_fair import priced_sets, solve_alpha_fair, solve_alpha_fair_batch
from models.alpha_fair_newton import KKTBatch, least_squares, newton, start_prices
from models.batching import run_batch
from models.tolerances import ALPHA_FAIR_KKT_RTOL
from tests.exact_instances import small_integer_instances

#: Two resources in the same proportions for every uncapped user (B's
#: <1, 1> and C's <3, 3>; A is capped on r0): the Newton system is
#: singular, the prices of r0 and r1 are not identified.
SINGULAR = Instance.from_dict({"resources": {"r0": 4, "r1": 1},
                               "users": {"A": {"demand": {"r0": 1}, "max_tasks": 3},
                                         "B": {"demand": {"r0": 1, "r1": 1}},
                                         "C": {"demand": {"r0": 3, "r1": 3}}}})


def _groups(insts: list[Instance]) -> list[tuple[list[int], np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    return [(idx, D, R, members[0].weights, caps) for idx, members, D, R, caps in shape_groups(insts)]


@pytest.mark.parametrize("name", ["fds", "gfj", "fds:beta=8", "gfj:beta=16", "fds:beta=0.5"])
def test_batch_members_equal_single_solves(name: str) -> None:
    pol = get_policy(name)
    insts = small_integer_instances(seed=31, count=120, max_users=4, max_resources=3)
    answered = 0
    for idx, D, R, w, caps in _groups(insts):
        x, ok = run_batch(pol.batch_solver(), D, R, w, caps)
        for row, i, good in zip(x, idx, ok, strict=True):
            if good:
                answered += 1
                np.testing.assert_allclose(row, pol.solve(insts[i]).x, rtol=1e-9, atol=1e-12)
    assert answered >= len(insts) - 3  # the rest is solved alone (below)


def test_a_singular_member_does_not_touch_the_others() -> None:
    pol = get_policy("fds")
    others = [i for i in small_integer_instances(seed=7, count=60, max_users=3, max_resources=2)
              if (i.n, i.m) == (3, 2) and np.all(i.weights == 1)][:6]
    assert others
    batch = [*others[:3], SINGULAR, *others[3:]]
    D = np.stack([i.demands for i in batch]).astype(float)
    R = np.stack([i.capacity for i in batch]).astype(float)
    caps = np.stack([i.max_tasks for i in batch]).astype(float)
    x, ok = pol.solve_many(D, R, np.ones(3), caps)
    for k, inst in enumerate(batch):
        if inst is not SINGULAR:
            assert ok[k]
            np.testing.assert_allclose(x[k], pol.solve(inst).x, rtol=1e-9)
    # solved alone (least-squares steps), the singular instance is certified from the max-min limit
    alone = pol.solve(SINGULAR)
    assert alone.stats["solver"] == "newton-log-prices"
    assert alone.certificate.failure() is None


def test_batch_of_one_is_the_single_solve() -> None:
    inst = small_integer_instances(seed=5, count=1, max_users=4, max_resources=3)[0]
    pol = get_policy("gfj:beta=3")
    start = get_policy(pol.limit).solve(inst).x
    one = solve_alpha_fair(inst.capacity, inst.demands, pol.unit(inst), 3.0, start, inst.weights, inst.max_tasks)
    many = solve_alpha_fair_batch(inst.capacity, inst.demands[None], pol.unit(inst)[None], 3.0, start[None],
                                  inst.weights, inst.max_tasks[None], solve=least_squares, max_iterations=200)
    np.testing.assert_array_equal(many.result(0).x, one.x)
    assert many.certified()[0] == (one.failure() is None) and one.residual <= ALPHA_FAIR_KKT_RTOL


def test_an_unused_resource_is_released_in_a_few_iterations() -> None:
    # two users, three resources: at the optimum one resource is under-used
    # and its price 0; the Newton step asks for a price far below any user's
    # (complementary slackness): it leaves the priced set at once instead
    # of taking dozens of damped steps towards -inf
    inst = Instance.from_arrays(capacity=[8, 14, 12], demands=np.array([[10, 7, 8], [1, 4, 3]]),
                                resources=["r1", "r2", "r3"])
    alloc = get_policy("fds").solve(inst)
    assert alloc.stats["solver"] == "newton-log-prices" and alloc.stats["iterations"] <= 10


@pytest.mark.parametrize(("policy", "prop"), [("fds", "envy-freeness"), ("gfj", "sharing-incentive"),
                                              ("fds:beta=8", "pareto-efficiency")])
def test_search_batched_equals_unbatched(policy: str, prop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    out = []
    for batched in (False, True):
        monkeypatch.setattr(checks, "BATCH_SCREEN", batched)
        out.append(search(policy, prop, budget=120, seed=2, workers=1).outcome())
    assert out[0] == out[1]


def test_a_direct_answer_is_remembered_for_the_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    # an instance the batch did not answer is solved alone once: the check
    # and the margin of the same instance reuse that answer
    from analyzer.properties import _batch
    from analyzer.properties._common import Evaluator

    ev = Evaluator("fds")
    calls: list[int] = []
    direct = Evaluator.direct
    monkeypatch.setattr(Evaluator, "direct", lambda self, inst: calls.append(1) or direct(self, inst))
    monkeypatch.setattr(type(ev.policy), "batch_solver", lambda self: None)
    _batch.forget()
    first, again = ev.numeric(SINGULAR), Evaluator("fds").numeric(SINGULAR)
    np.testing.assert_array_equal(first, again)
    assert len(calls) == 1
    _batch.forget()


#: Instances of the searches' stream on which Newton from the max-min limit
#: stalls (more resources over-used, hence priced, than users: an
#: inconsistent Newton system) and which needed the conic start before the
#: priced-set search (models/alpha_fair.py, "Priced sets").
STALLING = [
    ([31, 243, 140], [[1, 90, 53], [81, 1, 15]]),
    ([116, 103, 99, 43], [[13, 4, 27, 3], [22, 26, 8, 11]]),
    ([117, 67, 74], [[29, 9, 10], [13, 18, 18]]),
    ([5, 25, 13], [[14, 52, 4], [1, 6, 68]]),
    ([63, 86, 109, 111], [[1, 1, 6, 7], [3, 6, 1, 1], [3, 4, 5, 1]]),
    ([46, 65, 103, 91], [[7, 16, 23, 13], [10, 2, 4, 17], [3, 15, 12, 4]]),
    ([87, 46, 66, 100], [[21, 12, 7, 21], [11, 1, 19, 19], [16, 12, 3, 6]]),
    ([112, 114, 106], [[2, 9, 2], [8, 1, 9], [4, 11, 5]]),
    ([61, 87, 84, 74], [[5, 11, 12, 3], [8, 1, 11, 7], [7, 13, 1, 12], [6, 1, 12, 4]]),
]


def _kkt_gap(inst: Instance, x: np.ndarray, beta: float, unit: np.ndarray) -> float:
    """An independent optimality check of ``x`` for the alpha-fair program:
    the utility gradient of the users must be a combination, with prices
    >= 0 (scipy's NNLS), of the scaled demands on the resources ``x`` uses
    to capacity; returns the relative residual of that fit."""
    from scipy.optimize import nnls

    A = inst.demands / inst.capacity
    tight = A.T @ x >= 1 - 1e-9
    assert np.all(A.T @ x <= 1 + 1e-9)
    grad = unit * (unit * x / inst.weights) ** -beta
    _, residual = nnls(A[:, tight], grad)
    return float(residual / np.linalg.norm(grad))


@pytest.mark.parametrize(("capacity", "demands"), STALLING)
def test_a_stalling_instance_is_certified_without_the_conic_solver(capacity: list[int],
                                                                   demands: list[list[int]]) -> None:
    inst = Instance.from_arrays(capacity=capacity, demands=np.array(demands))
    pol = get_policy("fds")
    start = get_policy(pol.limit).solve(inst).x
    alone = pol.solve(inst)
    assert alone.stats["solver"] == "newton-log-prices"  # no cvxpy start
    assert alone.certificate.failure() is None
    assert _kkt_gap(inst, alone.x, 2.0, pol.unit(inst)) < 1e-9
    # in a batch (the screens' path), with a member Newton certifies from the limit beside it
    batch = solve_alpha_fair_batch(inst.capacity, np.stack([inst.demands, inst.demands[::-1]]),
                                   np.stack([pol.unit(inst), pol.unit(inst)[::-1]]), 2.0,
                                   np.stack([start, start[::-1]]), inst.weights)
    assert batch.certified().all()
    np.testing.assert_allclose(batch.x[0], alone.x, rtol=1e-9)
    np.testing.assert_allclose(batch.x[1], alone.x[::-1], rtol=1e-9)


def test_priced_sets_are_the_small_subsets_smallest_first() -> None:
    sets = priced_sets(3, 2)
    assert [np.flatnonzero(s).tolist() for s in sets] == [[0], [1], [2], [0, 1], [0, 2], [1, 2]]
    assert len(priced_sets(4, 9)) == 15 and not sets.flags.writeable


def test_a_wrong_priced_set_held_fixed_stops_at_once() -> None:
    # priced set {r1, r2} on the first stalling instance: the optimum prices {r0, r2}
    inst = Instance.from_arrays(capacity=STALLING[0][0], demands=np.array(STALLING[0][1]))
    pol = get_policy("fds")
    unit = pol.unit(inst)[None]
    kkt = KKTBatch(inst.demands[None] / inst.capacity, unit, np.ones((1, 2)), np.full((1, 2), np.inf), 2.0)
    z, _ = start_prices(kkt, get_policy("drf").solve(inst).x[None], np.ones((1, 2)), unit)
    for J, certified in (([False, True, True], False), ([True, False, True], True)):
        mask = np.array([J])
        st, it = newton(kkt, np.where(mask, z, 0.0), mask, ALPHA_FAIR_KKT_RTOL, frozen=True)
        assert bool(st.res[0] <= ALPHA_FAIR_KKT_RTOL) == certified
        assert it[0] <= 8
        assert st.priced[0].tolist() == J  # held fixed


@cache
def _four_by_four() -> list[tuple[list[int], np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    return _groups(small_integer_instances(seed=31, count=400, max_users=4, max_resources=4))


@pytest.mark.parametrize("name", ["fds", "gfj", "fds:beta=8", "gfj:beta=16", "fds:beta=0.5"])
def test_every_member_of_small_batches_is_answered_by_the_batch(name: str) -> None:
    # up to 4 users on up to 4 resources: the priced-set search certifies the
    # members Newton stalls on (before it, 3 of these 400 went to cvxpy for
    # gfj and 3 for fds:beta=0.5); that an answer is the single solve's is
    # test_batch_members_equal_single_solves
    pol = get_policy(name)
    for _, D, R, w, caps in _four_by_four():
        assert run_batch(pol.batch_solver(), D, R, w, caps)[1].all()
