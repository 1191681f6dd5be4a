"""Kueue fair sharing variant (models/variants/kueue.py) against hand-worked examples."""

from __future__ import annotations

from analyzer import Instance, progressive_filling

TWO = {"resources": {"cpu": 8, "mem": 8},
       "users": {"A": {"demand": {"cpu": 1, "mem": 1}}, "B": {"demand": {"cpu": 1, "mem": 1}}}}


def test_even_quota_by_default() -> None:
    # No quotas: each queue's nominal quota is 4 of each; lendable 8. Both shares stay 0 while
    # within quota, so the file order serves A four times, and a fifth time (its use 4 is not
    # above quota yet); then A borrows (1/8) and B takes the remaining three. DRF: 4 and 4.
    r = progressive_filling(Instance.from_dict(TWO), "kueue")
    assert r.picks == ["A"] * 5 + ["B"] * 3
    assert dict(progressive_filling(Instance.from_dict(TWO), "drf").tasks.items()) == {"A": 4, "B": 4}


def test_declared_quotas() -> None:
    # A owns 6 cpu, B 2 (no mem quota: mem is never lent, so it does not count). A: 7 tasks at
    # share 0 (its 7th starts borrowing), then B (share 0) takes the last cpu.
    spec = {"resources": TWO["resources"],
            "users": {"A": {**TWO["users"]["A"], "quota": {"cpu": 6}}, "B": {**TWO["users"]["B"], "quota": {"cpu": 2}}}}
    r = progressive_filling(Instance.from_dict(spec), "kueue")
    assert dict(r.tasks.items()) == {"A": 7, "B": 1}


def test_borrowing_share_divided_by_weight() -> None:
    # Quotas of 2 cpu each (lendable 4). A's share is 0 while its use is at most 2: A, A, A (the
    # third borrows: 1/4, halved by weight 2: 1/8). B is at 0 until its third: B, B, B (1/4).
    # A (1/8) goes, reaching 2/4 / 2 = 1/4, a tie with B broken by file order: A; cpu is full.
    spec = {"resources": TWO["resources"],
            "users": {"A": {**TWO["users"]["A"], "quota": {"cpu": 2}, "weight": 2},
                      "B": {**TWO["users"]["B"], "quota": {"cpu": 2}}}}
    r = progressive_filling(Instance.from_dict(spec), "kueue")
    assert r.picks == ["A", "A", "A", "B", "B", "B", "A", "A"]
