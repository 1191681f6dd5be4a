"""Kueue fair sharing variant (models/variants/kueue.py) against hand-worked examples."""

from __future__ import annotations

from analyzer import Instance, progressive_filling

TWO = {"resources": {"cpu": 8, "mem": 8},
       "users": {"A": {"demand": {"cpu": 1, "mem": 1}}, "B": {"demand": {"cpu": 1, "mem": 1}}}}


def test_even_quota_by_default() -> None:
    # No quotas: each queue's nominal quota is 4 of each; lendable 8. A workload that fits within
    # quota goes before one that would borrow: A four times (file order at share 0), then A's
    # fifth would borrow, so B takes four. DRF: 4 and 4 as well, alternating.
    r = progressive_filling(Instance.from_dict(TWO), "kueue")
    assert r.picks == ["A"] * 4 + ["B"] * 4
    assert dict(progressive_filling(Instance.from_dict(TWO), "drf").tasks.items()) == {"A": 4, "B": 4}


def test_declared_quotas() -> None:
    # A owns 6 cpu, B 2, neither any mem: every task borrows mem, which nobody can lend, so it is
    # left out of the share, whose value is then -1 * 1000 / 1000 = -1 for both. A (file order)
    # until its seventh task would borrow cpu (1 of 8 lendable: 125); B (-1) then takes two, and
    # its third would borrow cpu too; the 8 cpu are used up: A 6, B 2.
    spec = {"resources": TWO["resources"],
            "users": {"A": {**TWO["users"]["A"], "quota": {"cpu": 6}}, "B": {**TWO["users"]["B"], "quota": {"cpu": 2}}}}
    r = progressive_filling(Instance.from_dict(spec), "kueue")
    assert r.picks == ["A"] * 6 + ["B"] * 2
    assert dict(r.tasks.items()) == {"A": 6, "B": 2}


def test_borrowing_share_divided_by_weight() -> None:
    # Quotas of 2 cpu and 2 mem each (lendable 4 of each). Within quota first: A, A, B, B. Then
    # the share after the next task: A borrows 1 of 4 (250 per mille) / weight 2 -> 125, B 250:
    # A; A's next 500 / 2 = 250 ties B's 250: file order, A; A's next 750 / 2 = 375 > 250: B;
    # B's next 500 > 375: A; cpu is full.
    spec = {"resources": TWO["resources"],
            "users": {"A": {**TWO["users"]["A"], "quota": {"cpu": 2, "mem": 2}, "weight": 2},
                      "B": {**TWO["users"]["B"], "quota": {"cpu": 2, "mem": 2}}}}
    r = progressive_filling(Instance.from_dict(spec), "kueue")
    assert r.picks == ["A", "A", "B", "B", "A", "A", "B", "A"]


def test_share_after_admitting_truncates_like_go() -> None:
    # With no mem quota every task borrows mem, which nobody can lend: the share is -1 * 1000 /
    # weight_milli, truncated toward zero as in Go: -1 for B, but 0 for A (weight 2), so B goes
    # first until its own cpu borrowing starts.
    spec = {"resources": TWO["resources"],
            "users": {"A": {**TWO["users"]["A"], "quota": {"cpu": 2}, "weight": 2},
                      "B": {**TWO["users"]["B"], "quota": {"cpu": 2}}}}
    r = progressive_filling(Instance.from_dict(spec), "kueue")
    assert r.picks[:3] == ["B", "B", "A"]
