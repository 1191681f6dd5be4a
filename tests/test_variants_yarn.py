"""YARN fair scheduler DRF variant (models/variants/yarn.py) against hand-worked examples."""

from __future__ import annotations

from analyzer import Instance, progressive_filling


def test_min_share_first_then_lexicographic_shares() -> None:
    # R = <10 cpu, 10 mem>; A <1, 2>, B <2, 1> with a minimum of 4 cpu. At zero use every ratio
    # is 0 and Hadoop's dominant resource is the first largest: memory, whose minimum is 0, so B
    # is not needy yet and the file order gives A. Then B's dominant resource is cpu (2/10) and
    # it is needy until it uses 4 cpu: B, B. Then fair ratios in usage order: A (2/10, 1/10) <
    # B (4/10, 2/10): A; both (4/10, 2/10): the file order gives A; then B (4/10, 2/10) < A
    # (6/10, 3/10): B; tie at (6/10, 3/10): A's fourth task needs mem 2 with 1 left: skipped;
    # B's fourth needs cpu 2 with 1 left: skipped. (Before the Hadoop-faithful dominant-resource
    # rule, B was needy at zero use and went first.)
    inst = Instance.from_dict({"resources": {"cpu": 10, "mem": 10},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 2}},
                                         "B": {"demand": {"cpu": 2, "mem": 1}, "min_share": {"cpu": 4}}}})
    r = progressive_filling(inst, "yarn", on_full="skip")
    assert r.picks == ["A", "B", "B", "A", "A", "B"]
    assert dict(r.tasks.items()) == {"A": 3, "B": 3}


def test_second_share_breaks_a_dominant_tie() -> None:
    # B <2, 2> is listed before A <2, 1>; dominant shares tie at every round (cpu, 2/10 a task).
    # DRF's tie-break (equal task sizes -> file order) alternates B, A, B, A, B: B 3, A 2. YARN
    # starts with B too (all shares 0, file order), then at each later tie compares the second-
    # largest shares, where A's mem share is smaller: B, A, A, B, A -> A 3, B 2.
    inst = Instance.from_dict({"resources": {"cpu": 10, "mem": 10},
                               "users": {"B": {"demand": {"cpu": 2, "mem": 2}}, "A": {"demand": {"cpu": 2, "mem": 1}}}})
    y = progressive_filling(inst, "yarn")
    assert y.picks == ["B", "A", "A", "B", "A"]
    assert dict(y.tasks.items()) == {"B": 2, "A": 3}
    assert dict(progressive_filling(inst, "drf").tasks.items()) == {"B": 3, "A": 2}


def test_weights_divide_shares() -> None:
    # Weight 2 halves A's shares: A, A for every B while cpu lasts (6 tasks of 1 cpu each).
    inst = Instance.from_dict({"resources": {"cpu": 6, "mem": 6},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 1}, "weight": 2},
                                         "B": {"demand": {"cpu": 1, "mem": 1}}}})
    r = progressive_filling(inst, "yarn")
    assert dict(r.tasks.items()) == {"A": 4, "B": 2}


def test_zero_capacity_resource_does_not_count() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 4, "gpu": 0}, "zero_capacity": ["gpu"],
                               "users": {"A": {"demand": {"cpu": 1}}, "B": {"demand": {"cpu": 1, "gpu": 1}}}})
    r = progressive_filling(inst, "yarn", on_full="skip")
    assert dict(r.tasks.items()) == {"A": 4, "B": 0}
