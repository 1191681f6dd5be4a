"""Mesos DRF sorter variant (models/variants/mesos.py) against hand-worked examples."""

from __future__ import annotations

from analyzer import Instance, progressive_filling

PAPER = {"resources": {"cpu": 9, "mem": 18},
         "users": {"A": {"demand": {"cpu": 1, "mem": 4}}, "B": {"demand": {"cpu": 3, "mem": 1}}}}


def test_offers_three_machines() -> None:
    # Three agents <3 cpu, 6 mem>. Agent 1: both shares 0, count 0 -> A by name, takes 1
    # (mem 6 // 4); B needs 3 cpu, 2 left. Agent 2: A has 2/9, B 0 -> B takes 1 (cpu 3 // 3),
    # then A finds no cpu. Agent 3: A 2/9 < B 1/3 -> A takes 1, B finds 2 cpu.
    inst = Instance.from_dict({**PAPER, "machines": [{"count": 3, "cpu": 3, "mem": 6}]})
    r = progressive_filling(inst, "mesos")
    assert dict(r.tasks.items()) == {"A": 2, "B": 1}
    assert r.picks == ["A", "B", "A"]
    assert sorted(map(len, r.placement.values())) == [1, 1, 1]  # one client per agent


def test_offers_on_a_pool_is_one_agent() -> None:
    # One agent holding everything, sorted once: A (name) takes min(9//1, 18//4) = 4,
    # then B takes min(5//3, 2//1) = 1 of what is left.
    r = progressive_filling(Instance.from_dict(PAPER), "mesos")
    assert dict(r.tasks.items()) == {"A": 4, "B": 1}
    assert r.picks == ["A", "A", "A", "A", "B"]


def test_per_task_excluded_resource_and_count_tie_break() -> None:
    # gpu is excluded: A's share counts cpu/mem only, so A and B both have 3/10 per task and
    # tie at every round; the allocation count then the name decide: A, B, A (A's second task
    # uses the second gpu); a fourth task needs mem 3 with 1 left. DRF counts gpu (1/2 per
    # task for A): B, B before A's second task -> A 1, B 2.
    inst = Instance.from_dict({"resources": {"cpu": 10, "mem": 10, "gpu": 2},
                               "excluded_resources": ["gpu"],
                               "users": {"A": {"demand": {"cpu": 2, "mem": 3, "gpu": 1}},
                                         "B": {"demand": {"cpu": 2, "mem": 3}}}})
    r = progressive_filling(inst, "mesos:offers=false", on_full="skip")
    assert r.picks == ["A", "B", "A"]
    assert dict(progressive_filling(inst, "drf", on_full="skip").tasks.items()) == {"A": 1, "B": 2}


def test_roles_sorted_by_subtree_share() -> None:
    # A, B in role g; C at the top. Per task: C (name C < g), A, C, B, C, A, C; role g's share
    # is its members' total (3/4 after A 2, B 1), so C gets the seventh task and cpu is full.
    inst = Instance.from_dict({"resources": {"cpu": 11, "mem": 4},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 1}, "group": "g"},
                                         "B": {"demand": {"cpu": 1, "mem": 1}, "group": "g"},
                                         "C": {"demand": {"cpu": 2}}}})
    r = progressive_filling(inst, "mesos:offers=false", on_full="skip")
    assert r.picks == ["C", "A", "C", "B", "C", "A", "C"]
    assert dict(r.tasks.items()) == {"A": 2, "B": 1, "C": 4}


def test_zero_total_resource_is_skipped() -> None:
    # gpu has total 0: nobody's share counts it; A asks for it and never fits (skipped).
    inst = Instance.from_dict({"resources": {"cpu": 4, "gpu": 0}, "zero_capacity": ["gpu"],
                               "users": {"A": {"demand": {"cpu": 1, "gpu": 1}}, "B": {"demand": {"cpu": 1}}}})
    r = progressive_filling(inst, "mesos:offers=false", on_full="skip")
    assert dict(r.tasks.items()) == {"A": 0, "B": 4}
    assert r.failures == ["A", "B"]  # B's fifth task finds no cpu


def test_offer_order_follows_the_seed() -> None:
    inst = Instance.from_dict({**PAPER, "machines": [{"name": "s", "count": 1, "cpu": 3, "mem": 6},
                                                     {"name": "b", "count": 1, "cpu": 6, "mem": 12}]})
    a = progressive_filling(inst, "mesos:seed=1")
    assert a.placement == progressive_filling(inst, "mesos:seed=1").placement
    # small agent first: A takes 1 (mem), B 0 (cpu 2); big one: B (share 0) takes 2, A finds no cpu.
    # big first: A takes 3 (all 12 mem), B none; small one: B (0 < 2/3) takes 1.
    outcomes = {tuple(progressive_filling(inst, f"mesos:seed={s}").fill.tasks.tolist()) for s in range(8)}
    assert outcomes == {(1, 2), (3, 1)}
