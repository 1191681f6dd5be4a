"""Kueue's own ``TestDominantResourceShare`` table, translated (its numbers and values).

Source: kubernetes-sigs/kueue ``pkg/cache`` ``TestDominantResourceShare`` (2025 main
branch; same formula as v0.7 for one flat cohort). One test per case of the table that
falls within what the ``kueue`` policy models (one flavor, no lending limit, positive
weight), named ``test_kueue_TestDominantResourceShare_<case>``. The cohort holds the
queue ``cq`` and ``lending-cq``; amounts are in Kueue's units (milli-cpu, gpus).
Left out: "A resource with zero lendable" (lending limits), "multiple flavors",
"above nominal with zero weight" (weights here are positive).
"""

from __future__ import annotations

from analyzer import Instance
from models.discrete import FillState, IntegerData
from models.policy import get_policy
from models.variants.kueue import KueueShare, dominant_resource_share

GPU = "example.com/gpu"
NOMINAL = {"cpu": 2_000, GPU: 5}
LENDABLE = {"cpu": 10_000, GPU: 10}  # cq's quota + lending-cq's (cpu 8, gpu 5)


def test_kueue_TestDominantResourceShare_no_cohort() -> None:
    assert dominant_resource_share({"cpu": 1_000, GPU: 2}, {"cpu": 2_000, GPU: 5}, {}, cohort=False) == (0, "")


def test_kueue_TestDominantResourceShare_usage_below_nominal() -> None:
    assert dominant_resource_share({"cpu": 1_000, GPU: 2}, NOMINAL, LENDABLE) == (0, "")


def test_kueue_TestDominantResourceShare_usage_above_nominal() -> None:
    assert dominant_resource_share({"cpu": 3_000, GPU: 7}, NOMINAL, LENDABLE) == (200, GPU)  # (7-5)*1000/10


def test_kueue_TestDominantResourceShare_one_resource_above_nominal() -> None:
    assert dominant_resource_share({"cpu": 3_000, GPU: 3}, NOMINAL, LENDABLE) == (100, "cpu")  # (3-2)*1000/10


def test_kueue_TestDominantResourceShare_usage_with_workload_above_nominal() -> None:
    got = dominant_resource_share({"cpu": 1_000, GPU: 2}, NOMINAL, LENDABLE, request={"cpu": 4_000, GPU: 4})
    assert got == (300, "cpu")  # (1+4-2)*1000/10


def test_kueue_TestDominantResourceShare_above_nominal_with_integer_weight() -> None:
    assert dominant_resource_share({GPU: 7}, {GPU: 5}, {GPU: 10}, weight=2) == (100, GPU)  # ((7-5)*1000/10)/2


def test_kueue_TestDominantResourceShare_above_nominal_with_decimal_weight() -> None:
    assert dominant_resource_share({GPU: 7}, {GPU: 5}, {GPU: 10}, weight="1/2") == (400, GPU)


def test_kueue_policy_key_is_the_share_after_admitting() -> None:
    # The policy's key: cq holds two tasks of <1 cpu, 1 gpu>; its next workload is a third.
    inst = Instance.from_dict({"resources": {"cpu": 10, "gpu": 10},
                               "users": {"cq": {"demand": {"cpu": 1, "gpu": 1}, "quota": {"cpu": 2, "gpu": 5}},
                                         "lending-cq": {"demand": {"cpu": 1}, "quota": {"cpu": 8, "gpu": 5}}}})
    st = FillState(instance=inst, data=IntegerData.of(inst), tasks=[2, 0], free=[[8, 8]], placed=[{}])
    share = get_policy("kueue").discrete_form()
    assert isinstance(share, KueueShare)
    # after a third task: cpu 3 of quota 2 -> 1 borrowed of 10 lendable: 100 per mille
    assert share.key(st, 0) == (True, 100, 0)
    assert share.key(st, 1) == (False, 0, 1)
