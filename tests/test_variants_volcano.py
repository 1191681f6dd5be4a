"""Volcano hierarchical DRF variant (models/variants/volcano.py) against hand-worked examples."""

from __future__ import annotations

from fractions import Fraction

from analyzer import Instance, progressive_filling
from models.variants.volcano import dominant, share_of

GROUPED = {"resources": {"cpu": 11, "mem": 4},
           "users": {"A": {"demand": {"cpu": 1, "mem": 1}, "group": "g"},
                     "B": {"demand": {"cpu": 1, "mem": 1}, "group": "g"},
                     "C": {"demand": {"cpu": 2}}}}


def test_rescaled_group_share() -> None:
    # Same instance as the Mesos roles test. C (name), A, C, B, C; then A's second task: A has
    # 1/2, B 1/4, so g's allocation is A rescaled to 1/4 plus B: share 1/2 (Mesos: 3/4), below
    # C's 6/11, so g goes again and B gets its second task. Now mem is full: A and B are
    # saturated, C is served but its fourth task needs 2 cpu with 1 left.
    r = progressive_filling(Instance.from_dict(GROUPED), "volcano", on_full="skip")
    assert r.picks == ["C", "A", "C", "B", "C", "A", "B"]
    assert dict(r.tasks.items()) == {"A": 2, "B": 2, "C": 3}
    m = progressive_filling(Instance.from_dict(GROUPED), "mesos:offers=false", on_full="skip")
    assert dict(m.tasks.items()) == {"A": 2, "B": 1, "C": 4}


def test_group_weight() -> None:
    # With weight 2, g's share is halved: g gets two tasks for each of C's, as long as mem lasts.
    spec = {**GROUPED, "groups": {"g": {"weight": 2}}}
    r = progressive_filling(Instance.from_dict(spec), "volcano", on_full="skip")
    assert r.picks[:4] == ["C", "A", "B", "C"]
    assert dict(r.tasks.items()) == {"A": 2, "B": 2, "C": 3}


def test_zero_total_never_enters_the_share() -> None:
    # helpers.Share gives 1 for a use of a zero total, but calculateShare only visits resources
    # of positive total (the upstream fix: a zero-total resource never enters the share)
    assert share_of(0, 0) == 0 and share_of(5, 0) == 1 and share_of(3, 12) == Fraction(1, 4)
    assert dominant([1, 0], [4, 0]) == Fraction(1, 4)
    assert dominant([1, 2], [4, 0]) == Fraction(1, 4)


def test_flat_is_drf_with_name_ties() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
                               "users": {"B": {"demand": {"cpu": 3, "mem": 1}}, "A": {"demand": {"cpu": 1, "mem": 4}}}})
    r = progressive_filling(inst, "volcano")
    assert r.picks == ["A", "B", "A", "B", "A"]  # the paper's Table 1 order, but A first by name
