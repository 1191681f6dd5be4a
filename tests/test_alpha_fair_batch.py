"""fds/gfj batched (issue 31): Newton on log-prices for a whole batch of
instances (models/alpha_fair_newton.py), each member as it would be alone,
certified per member; the members the batch does not answer are solved
alone; the screens give the searches' results of the one-by-one path."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer import search
from analyzer.properties._batch import shape_groups
from analyzer.searching import checks
from models import Instance, get_policy
from models.alpha_fair import solve_alpha_fair, solve_alpha_fair_batch
from models.alpha_fair_newton import least_squares
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
