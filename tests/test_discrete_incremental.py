"""models.discrete.Engine: allocation steps on a state that lives across events."""

from __future__ import annotations

import pytest

from analyzer import Instance
from models.discrete import Engine, fill
from models.errors import PolicyError

PAPER = {"resources": {"cpu": 9, "mem": 18},
         "users": {"A": {"demand": {"cpu": 1, "mem": 4}}, "B": {"demand": {"cpu": 3, "mem": 1}}}}
MACHINES = {**PAPER, "machines": [{"count": 3, "cpu": 3, "mem": 6}]}


@pytest.mark.parametrize("policy", ["drf", "asset", "mesos", "mesos:offers=false", "yarn", "volcano", "kueue"])
@pytest.mark.parametrize("spec", [PAPER, MACHINES])
def test_first_step_is_fill(policy: str, spec: dict) -> None:
    inst = Instance.from_dict(spec)
    a = fill(inst, policy, on_full="skip")
    b = Engine(inst, policy, on_full="skip").allocate()
    assert b.picks == a.picks and b.placed == a.placed and b.tasks.tolist() == a.tasks.tolist()
    assert b.failures == a.failures and b.decisions == a.decisions


def test_release_then_allocate_on_a_pool() -> None:
    # Table 1 of the paper: A 3, B 2, cpu full. B gives one task back: B's share (1/3) is now
    # the smallest, its task fits again; A's next (4 mem of the 4 left... 1 cpu of 0) does not.
    inst = Instance.from_dict(PAPER)
    eng = Engine(inst, "drf")
    assert eng.allocate().tasks.tolist() == [3, 2]
    eng.release("B", 1)
    assert eng.tasks.tolist() == [3, 1]
    step = eng.allocate()
    assert [inst.users[i] for i in step.picks] == ["B"]
    assert step.tasks.tolist() == [3, 2]
    assert step.stopped  # A's fourth task: no cpu left


def test_release_from_a_machine_is_refilled_there() -> None:
    inst = Instance.from_dict(MACHINES)
    eng = Engine(inst, "drf", on_full="skip")
    first = eng.allocate()
    k = next(k for k, p in enumerate(first.placed) if p.get(0))
    eng.release(0, first.placed[k][0], machine=k)
    assert 0 not in eng.state.placed[k]
    again = eng.allocate()
    assert again.placed[k].get(0, 0) >= 1  # first fit goes back to the freed machine
    assert again.tasks.tolist() == first.tasks.tolist()


def test_mesos_allocation_counts_carry_over() -> None:
    inst = Instance.from_dict(MACHINES)
    eng = Engine(inst, "mesos", on_full="skip")
    eng.allocate()
    counts = list(eng.state.extra["mesos_counts"])
    eng.release("A", 1)
    eng.allocate()
    assert sum(eng.state.extra["mesos_counts"]) == sum(counts) + 1  # one more accepted offer


def test_release_rejects_bad_input() -> None:
    eng = Engine(Instance.from_dict(PAPER), "drf")
    eng.allocate()
    with pytest.raises(PolicyError, match="holds 2 task"):
        eng.release("B", 3)
    with pytest.raises(PolicyError, match="unknown user"):
        eng.release("Z", 1)
    with pytest.raises(PolicyError, match="unknown machine"):
        eng.release("A", 1, machine=5)


# --- the compiled kernels (numba, optional) give what the Python loops give -------------------
def _random_instances(seed: int, count: int) -> list[Instance]:
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n, K = int(rng.integers(1, 8)), int(rng.integers(2, 10))
        users = {f"u{i}": {"demand": {"cpu": int(rng.integers(0, 4)), "mem": int(rng.integers(1, 6)),
                                      "gpu": int(rng.random() < 0.3)}, "weight": int(rng.integers(1, 4))}
                 for i in range(n)}
        for u in users.values():
            if rng.random() < 0.3:
                u["max_tasks"] = int(rng.integers(0, 9))
        out.append(Instance.from_dict({"resources": {"cpu": 8 * K + 3, "mem": 16 * K + 30, "gpu": K},
                                       "users": users,
                                       "machines": [{"count": K, "cpu": 8, "mem": 16, "gpu": 1},
                                                    {"count": 1, "cpu": 3, "mem": 30}]}))
    return out


@pytest.mark.parametrize("policy", ["drf", "asset", "mesos"])
def test_compiled_kernels_match_python(policy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numba")
    from models import kernels

    monkeypatch.setitem(kernels.COMPILE_MIN_WORK, "placements", 0)  # small instances, compiled all the same
    for inst in _random_instances(3, 25):
        for on_full in ("stop", "skip"):
            a = fill(inst, policy, on_full=on_full)
            monkeypatch.setenv("FAIRALLOC_NO_NUMBA", "1")
            b = fill(inst, policy, on_full=on_full)
            monkeypatch.delenv("FAIRALLOC_NO_NUMBA")
            assert (a.picks, a.placed, a.failures, a.decisions) == (b.picks, b.placed, b.failures, b.decisions)


def test_mesos_per_task_counts_include_released_tasks() -> None:
    # mesos:offers=false counts one allocation per task; a released task does not lower it
    # (as AllocationCountTieBreak upstream). Step 1: A (path), B, A (tie, counts 1-1, path):
    # cpu is full. All tasks given back: shares tie at 0 and B (1 allocation against A's 2)
    # goes first although A's path comes first.
    inst = Instance.from_dict({"resources": {"cpu": 3}, "users": {"A": {"demand": {"cpu": 1}, "max_tasks": 2},
                                                                  "B": {"demand": {"cpu": 1}}}})
    eng = Engine(inst, "mesos:offers=false", on_full="skip")
    first = eng.allocate()
    assert [inst.users[i] for i in first.picks] == ["A", "B", "A"]
    eng.release("A", 2)
    eng.release("B", 1)
    assert inst.users[eng.allocate().picks[0]] == "B"


CAPPED = {"resources": {"cpu": 10, "mem": 10},
          "users": {"A": {"demand": {"cpu": 1, "mem": 1}, "max_tasks": 2}, "B": {"demand": {"cpu": 3, "mem": 3}}}}
CAPPED_GROUPS = {**CAPPED, "users": {"A": {**CAPPED["users"]["A"], "group": "g"},
                                     "B": {**CAPPED["users"]["B"], "group": "g"}}}


@pytest.mark.parametrize("policy", ["drf", "asset", "mesos", "mesos:offers=false", "yarn", "volcano", "kueue"])
@pytest.mark.parametrize("spec", [CAPPED, CAPPED_GROUPS])
def test_a_later_step_keeps_the_caps(policy: str, spec: dict) -> None:
    # A reaches its cap of 2 in the first step; B's third task does not fit (2 cpu left); with
    # on_full=skip the second step must not give A a third task (Volcano's loops used to list every
    # user with a positive cap as active, not those with room left)
    inst = Instance.from_dict(spec)
    eng = Engine(inst, policy, on_full="skip")
    assert eng.allocate().tasks.tolist() == [2, 2]
    assert eng.allocate().tasks.tolist() == [2, 2]
