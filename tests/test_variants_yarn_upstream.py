"""Hadoop's own DRF comparator tests, translated (numbers and expected orders).

Source: apache/hadoop ``TestDominantResourceFairnessPolicy.java`` (commit ``09b476e6``),
one test per upstream case, named ``test_yarn_<case>``. ``compare(s1, s2) < 0`` there
means s1 gets a container first; here the same two queues (their usage as one task
each, cluster ``<mem, cpu>`` as capacity, minimums as ``min_share``, weights) go
through the ``yarn`` policy's key (:class:`models.variants.yarn.YarnKey`), and the
helper functions are checked on the upstream arrays.
"""

from __future__ import annotations

import math

from analyzer import Instance
from models.discrete import FillState, IntegerData
from models.policy import get_policy
from models.variants.yarn import Ratios, YarnShare, compare, compare_ratios, hadoop_order, sort_ratios


def first(cluster: tuple[int, int], s1: dict, s2: dict) -> str:
    """Which of queues ``s1``/``s2`` the comparator puts first; each is
    ``{"use": (mem, cpu), "min": (mem, cpu), "weight": w}``. Listed s2 first in
    the file so that the file-order tie-break cannot favour s1."""
    users = {}
    for name, s in (("s2", s2), ("s1", s1)):
        u = {"demand": {"mem": s["use"][0], "cpu": s["use"][1]}, "weight": s.get("weight", 1)}
        if any(s.get("min", (0, 0))):
            u["min_share"] = {r: v for r, v in zip(("mem", "cpu"), s["min"], strict=True) if v}
        users[name] = u
    inst = Instance.from_dict({"resources": {"mem": cluster[0], "cpu": cluster[1]}, "users": users})
    data = IntegerData.of(inst)
    state = FillState(instance=inst, data=data, tasks=[1, 1], free=[[0, 0]], placed=[{}])
    share = get_policy("yarn").discrete_form()
    assert isinstance(share, YarnShare)
    k2, k1 = share.key(state, 0), share.key(state, 1)
    return "s1" if k1 < k2 else "s2"


def test_yarn_testSameDominantResource() -> None:
    assert first((8000, 4), {"use": (1000, 1)}, {"use": (2000, 1)}) == "s1"


def test_yarn_testDifferentDominantResource() -> None:
    assert first((8000, 8), {"use": (4000, 3)}, {"use": (2000, 5)}) == "s1"


def test_yarn_testOneIsNeedy() -> None:
    assert first((8000, 8), {"use": (2000, 5), "min": (0, 6)}, {"use": (4000, 3)}) == "s1"


def test_yarn_testBothAreNeedy() -> None:
    # without minimums: dominant shares 2000/8000 against 4000/8000
    assert first((8000, 100), {"use": (2000, 5)}, {"use": (4000, 3)}) == "s1"
    # min-share ratios in usage order (memory first for both): (2/3, 5/6) against (4/5, 3/4);
    # sorted by their own values they would be (5/6, 2/3) against (4/5, 3/4): s2 first.
    assert first((8000, 100), {"use": (2000, 5), "min": (3000, 6)}, {"use": (4000, 3), "min": (5000, 4)}) == "s1"


def test_yarn_testEvenWeightsSameDominantResource() -> None:
    assert first((8000, 8), {"use": (3000, 1), "weight": 2}, {"use": (2000, 1)}) == "s1"
    assert first((8000, 8), {"use": (1000, 3), "weight": 2}, {"use": (1000, 2)}) == "s1"


def test_yarn_testEvenWeightsDifferentDominantResource() -> None:
    assert first((8000, 8), {"use": (1000, 3), "weight": 2}, {"use": (2000, 1)}) == "s1"
    assert first((8000, 8), {"use": (3000, 1), "weight": 2}, {"use": (1000, 2)}) == "s1"


def test_yarn_testSortShares() -> None:
    assert sort_ratios([0.3, 0.2, 0.4]) == [2, 0, 1]  # expected1: {.4, .1}, {.3, 2}, {.2, 1}
    assert sort_ratios([0.2, 0.3, 0.25]) == [1, 2, 0]  # expected2: {.3, 2}, {.25, .1}, {.2, 9}


def test_yarn_testCalculateClusterAndFairRatios() -> None:
    r = Ratios.of([10, 5, 2], [100, 10, 5], [0, 0, 0], 1.0)  # memory, vcores, "test"
    assert math.isclose(r.usage[0], 0.1, abs_tol=1e-5)
    assert math.isclose(r.usage[1], 0.5, abs_tol=1e-5)
    assert math.isclose(r.usage[2], 0.4, abs_tol=1e-5)
    assert r.dominant == 1  # vcores


def test_yarn_testCalculateMinShareRatios() -> None:
    r = Ratios.of([10, 5, 2], [100, 10, 5], [5, 10, 0], 1.0)
    assert math.isclose(r.minimum[0], 2.0, abs_tol=1e-5)
    assert math.isclose(r.minimum[1], 0.5, abs_tol=1e-5)
    assert r.minimum[2] == math.inf  # 2 of a minimum of 0: infinite, not skipped


def test_yarn_testCompareShares() -> None:
    r1 = [[0.4, 0.1, 2.0], [0.3, 2.0, 0.1], [0.2, 1.0, 9.0]]
    r2 = [[0.3, 2.0, 1.0], [0.2, 0.1, 0.5], [0.2, 1.0, 2.0]]
    r3 = [[0.3, 2.0, 1.0], [0.2, 0.1, 2.0], [0.1, 2.0, 1.0]]

    def cmp(a: list[list[float]], b: list[list[float]], k: int) -> int:
        return compare_ratios([row[k] for row in a], [row[k] for row in b])

    expected = {0: [1, -1, 0, 0, 0, 1], 1: [-1, 1, 0, 0, 0, -1], 2: [1, -1, 0, 0, 0, -1]}
    for k, want in expected.items():
        got = [cmp(r1, r2, k), cmp(r2, r1, k), cmp(r1, r1, k), cmp(r2, r2, k), cmp(r3, r3, k), cmp(r2, r3, k)]
        assert got == want


def test_yarn_testCompareSchedulablesWithClusterResourceChanges() -> None:
    s1, s2 = {"use": (2000, 1)}, {"use": (1000, 2)}
    assert first((4000, 5), s1, s2) == "s2"  # [1/2, 1/5] against [1/4, 2/5]
    assert first((8000, 6), s1, s2) == "s1"  # [1/4, 1/6] against [1/8, 1/3]


# --- beyond the upstream file: the rules the issue names ------------------------------------
def test_yarn_dominant_tie_goes_to_memory_whatever_the_file_order() -> None:
    # cpu listed first; usage 1/2 of both: Hadoop's dominant resource is memory (index 0)
    for resources in ({"cpu": 4, "mem": 8}, {"mem": 8, "cpu": 4}):
        names = list(resources)
        order = hadoop_order(names)
        assert names[order[0]] == "mem"
    r = Ratios.of([4, 2], [8, 4], [0, 3], 1.0)  # memory, vcores: a tie at 1/2
    assert r.dominant == 0 and not r.needy  # needy only through memory, whose minimum is 0


def test_yarn_zero_minimum_in_use_is_infinite() -> None:
    # both needy on memory; s1 also uses cpu with a cpu minimum of 0: ratio inf, compared, loses
    s1 = Ratios.of([1000, 1], [8000, 100], [2000, 0], 1.0)
    s2 = Ratios.of([1000, 1], [8000, 100], [2000, 5], 1.0)
    assert s1.needy and s2.needy and s1.minimum[1] == math.inf
    assert compare(s1, s2) > 0 and compare(s2, s1) < 0
