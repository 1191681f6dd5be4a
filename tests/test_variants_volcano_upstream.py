"""Volcano's own hierarchical DRF test, translated (numbers and expected allocations).

Source: volcano-sh/volcano ``pkg/scheduler/plugins/drf/hdrf_test.go`` (commit ``012c2a26``),
``TestHDRF``: one test per case of its table, named ``test_volcano_TestHDRF_<case>``. A
pod group of ``taskNum`` pods is a user capped at ``taskNum`` tasks, its queue
``root/a/b`` the group ``a/b`` (queues renamed ``q...``: a user and a group may not share
a name here), the hierarchy weights ``[groups]`` weights, memory in G.
"""

from __future__ import annotations

from analyzer import Instance, progressive_filling
from models.discrete import FillState, IntegerData
from models.policy import get_policy
from models.variants.volcano import VolcanoShare, saturated_job


def test_volcano_TestHDRF_rescaling_test() -> None:
    spec = {"resources": {"cpu": 10, "mem": 10},
            "users": {"pg1": {"demand": {"cpu": 1, "mem": 1}, "group": "sci", "max_tasks": 10},
                      "pg21": {"demand": {"cpu": 1}, "group": "eng/dev", "max_tasks": 10},
                      "pg22": {"demand": {"mem": 1}, "group": "eng/prod", "max_tasks": 10}},
            "groups": {"sci": {"weight": 50}, "eng": {"weight": 50}, "eng/dev": {"weight": 50},
                       "eng/prod": {"weight": 50}}}
    r = progressive_filling(Instance.from_dict(spec), "volcano", on_full="skip")
    assert dict(r.tasks.items()) == {"pg1": 5, "pg21": 5, "pg22": 5}  # cpu 5 + 5G, cpu 5, 5G


def test_volcano_TestHDRF_blocking_nodes_test() -> None:
    cpu, mem = {"cpu": 1}, {"mem": 1}
    spec = {"resources": {"cpu": 30, "mem": 30},
            "users": {"pg1": {"demand": cpu, "group": "q1", "max_tasks": 30},
                      "pg2": {"demand": cpu, "group": "q2", "max_tasks": 30},
                      "pg31": {"demand": cpu, "group": "q3/q31", "max_tasks": 30},
                      "pg32": {"demand": mem, "group": "q3/q32", "max_tasks": 30},
                      "pg4": {"demand": mem, "group": "q4", "max_tasks": 30}},
            "groups": {"q1": {"weight": 25}, "q2": {"weight": 25}, "q3": {"weight": 25}, "q4": {"weight": 25},
                       "q3/q31": {"weight": 50}, "q3/q32": {"weight": 50}}}
    r = progressive_filling(Instance.from_dict(spec), "volcano", on_full="skip")
    assert dict(r.tasks.items()) == {"pg1": 10, "pg2": 10, "pg31": 10, "pg32": 15, "pg4": 15}


# --- beyond the upstream file: the rules of drf.go the issue names ---------------------------
def test_volcano_saturated_only_through_a_held_resource() -> None:
    free_none = [0, 5]
    assert not saturated_job([0, 0], None, free_none)  # holds nothing: never saturated
    assert not saturated_job([0, 3], None, free_none)  # holds only mem, of which some is left
    assert saturated_job([2, 3], None, free_none)  # holds cpu, none left, asks for cpu
    assert saturated_job([0, 3], [0, 3], [4, 4])  # holds all it asked for
    assert not saturated_job([0, 3], [0, 6], [4, 4])


def test_volcano_job_order_in_a_queue_ignores_saturation() -> None:
    # mem (9) is exhausted by A (1) and B (8): both saturated; C (cpu only) is not. Inside queue
    # g the jobs go by share alone: A (1/9) before C (1/2) before B (8/9).
    inst = Instance.from_dict({"resources": {"cpu": 100, "mem": 9},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 1}, "group": "g"},
                                         "B": {"demand": {"cpu": 1, "mem": 8}, "group": "g"},
                                         "C": {"demand": {"cpu": 50}, "group": "g"}}})
    data = IntegerData.of(inst)
    st = FillState(instance=inst, data=data, tasks=[1, 1, 1], free=[[48, 0]], placed=[{}])
    share = get_policy("volcano").discrete_form()
    assert isinstance(share, VolcanoShare)
    order = sorted(range(3), key=lambda i: share.key(st, i))
    assert [inst.users[i] for i in order] == ["A", "C", "B"]


def test_volcano_zero_total_resource_is_not_in_the_share() -> None:
    # gpu has total 0 (nobody can hold it): shares count cpu only, DRF order with name ties
    inst = Instance.from_dict({"resources": {"cpu": 4, "gpu": 0}, "zero_capacity": ["gpu"],
                               "users": {"A": {"demand": {"cpu": 1}}, "B": {"demand": {"cpu": 1, "gpu": 1}}}})
    r = progressive_filling(inst, "volcano", on_full="skip")
    assert dict(r.tasks.items()) == {"A": 4, "B": 0}


def test_volcano_flat_fast_path_follows_the_keys() -> None:
    # Without groups the policy picks with numpy; replaying its picks, each one must be the
    # smallest key() among the users still in the race (the generic definition).
    import numpy as np

    rng = np.random.default_rng(5)
    share = get_policy("volcano").discrete_form()
    assert isinstance(share, VolcanoShare)
    checked = 0
    for _ in range(40):
        n = int(rng.integers(2, 6))
        users = {f"u{i}": {"demand": {"cpu": int(rng.integers(0, 4)), "mem": int(rng.integers(1, 5))},
                           "weight": int(rng.integers(1, 3)), "max_tasks": int(rng.integers(1, 6))}
                 for i in range(n)}
        inst = Instance.from_dict({"resources": {"cpu": int(rng.integers(8, 40)), "mem": int(rng.integers(8, 40))},
                                   "users": users})
        r = progressive_filling(inst, "volcano", on_full="skip")
        if r.failures:
            continue  # replay only runs that end by caps (a failure's moment is not recorded)
        checked += 1
        data = IntegerData.of(inst)
        tasks = [0] * n
        for name in r.picks:
            st = FillState(instance=inst, data=data, tasks=list(tasks), free=[[0, 0]], placed=[{}])
            live = [i for i in range(n) if tasks[i] < users[inst.users[i]]["max_tasks"]]
            assert inst.users[min(live, key=lambda u: share.key(st, u))] == name
            tasks[inst.users.index(name)] += 1
    assert checked >= 5
