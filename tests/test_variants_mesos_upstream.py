"""Apache Mesos's own DRF sorter tests, translated (numbers and expected orders).

Source: apache/mesos ``src/tests/sorter_tests.cpp`` (commit ``5ce5d203``), the
``DRFSorterTest`` cases whose outcome is a sort order; one test per upstream case,
named ``test_mesos_<case>``. Each runs :func:`models.variants.mesos.sort_clients`,
the sorter used by the ``mesos`` policy, on the allocations the upstream case
builds step by step (the small :class:`Sorter` below replays its calls).
"""

from __future__ import annotations

from fractions import Fraction

from analyzer import Instance, progressive_filling
from models.variants.mesos import drf_share, sort_clients


class Sorter:
    """Replays DRFSorter calls: allocations, counts, weights, activity."""

    def __init__(self, **totals: float) -> None:
        self.totals = dict(totals)
        self.alloc: dict[str, dict[str, Fraction]] = {}
        self.counts: dict[str, int] = {}
        self.weights: dict[str, float] = {}
        self.inactive: set[str] = set()

    def add(self, *clients: str) -> None:
        for c in clients:
            self.alloc.setdefault(c, {})
            self.counts.setdefault(c, 0)

    def remove(self, client: str) -> None:
        del self.alloc[client], self.counts[client]
        self.inactive.discard(client)

    def allocated(self, client: str, **res: float | str) -> None:
        row = self.alloc[client]
        for r, v in res.items():
            row[r] = row.get(r, Fraction(0)) + Fraction(v)
        self.counts[client] += 1

    def unallocated(self, client: str, **res: float | str) -> None:
        row = self.alloc[client]
        for r, v in res.items():
            row[r] -= Fraction(v)

    def sort(self) -> list[str]:
        return sort_clients(self.totals, self.alloc, counts=self.counts, weights=self.weights,
                            inactive=self.inactive)


def _drf_sequence(p: dict[str, str]) -> None:
    """The DRF case with client ``x`` renamed ``p[x]`` (DRF, ShallowHierarchy, DeepHierarchy)."""
    s = Sorter(cpus=100, mem=100)
    assert s.sort() == []
    s.add(p["a"]); s.allocated(p["a"], cpus=5, mem=5)
    s.add(p["b"]); s.allocated(p["b"], cpus=6, mem=6)
    assert s.sort() == [p["a"], p["b"]]
    s.add(p["c"]); s.allocated(p["c"], cpus=1, mem=1)
    s.add(p["d"]); s.allocated(p["d"], cpus=3, mem=1)
    assert s.sort() == [p["c"], p["d"], p["a"], p["b"]]
    s.remove(p["a"])
    s.unallocated(p["b"], cpus=4, mem=4)
    assert s.sort() == [p["c"], p["b"], p["d"]]
    s.add(p["e"]); s.allocated(p["e"], cpus=1, mem=5)
    s.totals = {"cpus": 50, "mem": 100}
    assert s.sort() == [p["c"], p["b"], p["e"], p["d"]]
    s.totals = {"cpus": 50, "mem": 200}
    s.add(p["f"]); s.allocated(p["f"], cpus=5, mem=1)
    s.allocated(p["c"], cpus=0, mem=15)
    assert s.sort() == [p["e"], p["b"], p["d"], p["c"], p["f"]]
    s.inactive.add(p["d"])
    assert s.sort() == [p["e"], p["b"], p["c"], p["f"]]
    s.inactive.discard(p["d"])
    assert s.sort() == [p["e"], p["b"], p["d"], p["c"], p["f"]]


def test_mesos_DRF() -> None:
    _drf_sequence({x: x for x in "abcdef"})


def test_mesos_ShallowHierarchy() -> None:
    _drf_sequence({x: f"{x}/{x}" for x in "abcdef"})


def test_mesos_DeepHierarchy() -> None:
    _drf_sequence({"a": "a/a/a/a/a", "b": "b/b/b/b", "c": "c/c/c", "d": "d/d", "e": "e/e/e/e/e/e", "f": "f/f"})


def test_mesos_WDRF() -> None:
    s = Sorter(cpus=100, mem=100)
    s.add("a"); s.allocated("a", cpus=5, mem=5)
    s.add("b"); s.weights["b"] = 2; s.allocated("b", cpus=6, mem=6)
    assert s.sort() == ["b", "a"]
    s.add("c"); s.allocated("c", cpus=4, mem=4)
    assert s.sort() == ["b", "c", "a"]
    s.add("d"); s.weights["d"] = 10; s.allocated("d", cpus=10, mem=20)
    assert s.sort() == ["d", "b", "c", "a"]
    s.remove("b")
    assert s.sort() == ["d", "c", "a"]
    s.allocated("d", cpus=10, mem=25)
    assert s.sort() == ["c", "d", "a"]
    s.add("e"); s.weights["e"] = 0.1; s.allocated("e", cpus=1, mem=1)
    assert s.sort() == ["c", "d", "a", "e"]
    s.remove("a")
    assert s.sort() == ["c", "d", "e"]


def test_mesos_UpdateWeight() -> None:
    s = Sorter(cpus=100, mem=100)
    s.add("a", "b")
    s.allocated("a", cpus=5, mem=5)
    s.allocated("b", cpus=6, mem=6)
    assert s.sort() == ["a", "b"]
    s.weights["b"] = 2
    assert s.sort() == ["b", "a"]


def test_mesos_AllocationCountTieBreak() -> None:
    s = Sorter(cpus=100, mem=100)
    s.add(*"abcde")
    s.allocated("a", cpus=3, mem=3)
    s.allocated("b", cpus=3, mem=3)
    for _ in range(3):
        s.allocated("c", cpus=1, mem=1)
    s.allocated("d", cpus=2, mem=2)
    s.allocated("d", cpus=1, mem=1)
    s.allocated("e", cpus=3, mem=3)
    assert s.sort() == ["a", "b", "e", "d", "c"]
    s.unallocated("c", cpus=3, mem=3)
    assert s.sort() == ["c", "a", "b", "e", "d"]
    s.allocated("c", cpus=3, mem=3)
    assert s.sort() == ["a", "b", "e", "d", "c"]
    s.inactive.add("c"); s.inactive.discard("c")
    assert s.sort() == ["a", "b", "e", "d", "c"]
    s.unallocated("c", cpus=3, mem=3)
    s.allocated("c", cpus=3, mem=3)
    assert s.sort() == ["a", "b", "e", "d", "c"]
    s.inactive.add("a")
    s.unallocated("a", cpus=1, mem=3)
    s.allocated("a", cpus=1, mem=3)
    assert s.sort() == ["b", "e", "d", "c"]
    s.inactive.discard("a")
    assert s.sort() == ["b", "e", "a", "d", "c"]


def test_mesos_HierarchicalAllocation() -> None:
    s = Sorter(cpus=100, mem=100)
    s.add("a", "b/c", "b/d")
    assert s.sort() == ["a", "b/c", "b/d"]
    s.allocated("a", cpus=6, mem=6)
    assert s.sort() == ["b/c", "b/d", "a"]
    s.allocated("b/c", cpus=4, mem=4)
    s.allocated("b/d", cpus=3, mem=3)
    assert s.sort() == ["a", "b/d", "b/c"]
    s.allocated("a", cpus=2, mem=2)
    assert s.sort() == ["b/d", "b/c", "a"]
    s.add("b/e/f")
    assert s.sort() == ["b/e/f", "b/d", "b/c", "a"]
    s.allocated("b/e/f", cpus="3.5", mem="3.5")
    assert s.sort() == ["a", "b/d", "b/e/f", "b/c"]
    s.remove("b/e/f")
    assert s.sort() == ["b/d", "b/c", "a"]
    s.unallocated("b/c", cpus=3, mem=3)  # update(b/c, 4 -> 1)
    assert s.sort() == ["b/c", "b/d", "a"]
    s.add("b/e/f")
    s.allocated("b/e/f", cpus="3.5", mem="3.5")
    assert s.sort() == ["b/c", "b/d", "b/e/f", "a"]


def test_mesos_HierarchicalIterationOrder() -> None:
    s = Sorter(cpus=100, mem=100)
    s.add("a/b", "c", "d", "d/e")
    assert s.sort() == ["a/b", "c", "d", "d/e"]
    s.allocated("c", cpus=8, mem=8)
    assert s.sort() == ["a/b", "d", "d/e", "c"]
    s.allocated("d", cpus=3, mem=3)
    s.allocated("d/e", cpus=2, mem=2)
    assert s.sort() == ["a/b", "d/e", "d", "c"]
    s.allocated("a/b", cpus=6, mem=6)
    assert s.sort() == ["d/e", "d", "a/b", "c"]


def test_mesos_AddChildToLeaf() -> None:
    s = Sorter(cpus=100, mem=100)
    s.add("a"); s.allocated("a", cpus=10, mem=10)
    s.add("b"); s.allocated("b", cpus=6, mem=6)
    assert s.sort() == ["b", "a"]
    s.add("a/c"); s.allocated("a/c", cpus=5, mem=5)
    assert s.sort() == ["b", "a/c", "a"]
    s.remove("a")
    assert s.sort() == ["a/c", "b"]
    s.add("a"); s.allocated("a", cpus=10, mem=10)
    assert s.sort() == ["b", "a/c", "a"]
    s.weights["a/c"] = 0.2
    assert s.sort() == ["b", "a", "a/c"]
    s.weights["a"] = 3
    assert s.sort() == ["a", "a/c", "b"]
    s.weights["a/c"] = 1
    assert s.sort() == ["a/c", "a", "b"]


def test_mesos_AddChildToInternal() -> None:
    s = Sorter(cpus=100, mem=100)
    s.add("x/a"); s.allocated("x/a", cpus=10, mem=10)
    s.add("x/b"); s.allocated("x/b", cpus=6, mem=6)
    assert s.sort() == ["x/b", "x/a"]
    s.add("x"); s.allocated("x", cpus=7, mem=7)
    assert s.sort() == ["x/b", "x", "x/a"]
    s.add("z"); s.allocated("z", cpus=20, mem=20)
    assert s.sort() == ["z", "x/b", "x", "x/a"]
    s.remove("x")
    assert s.sort() == ["x/b", "x/a", "z"]


def test_mesos_AddChildToInactiveLeaf() -> None:
    s = Sorter(cpus=100, mem=100)
    s.add("a"); s.allocated("a", cpus=10, mem=10)
    s.add("b"); s.allocated("b", cpus=6, mem=6)
    s.inactive.add("a")
    assert s.sort() == ["b"]
    s.add("a/c"); s.allocated("a/c", cpus=5, mem=5)
    assert s.sort() == ["b", "a/c"]


def test_mesos_RemoveLeafCollapseParent() -> None:
    s = Sorter(cpus=100, mem=100)
    s.add("a"); s.allocated("a", cpus=10, mem=10)
    s.add("b"); s.allocated("b", cpus=6, mem=6)
    s.add("a/c"); s.allocated("a/c", cpus=5, mem=5)
    assert sorted(s.sort()) == ["a", "a/c", "b"]
    s.remove("a/c")
    assert sorted(s.sort()) == ["a", "b"]


def test_mesos_RemoveLeafCollapseParentInactive() -> None:
    s = Sorter(cpus=100, mem=100)
    s.add("a"); s.allocated("a", cpus=10, mem=10)
    s.add("b"); s.allocated("b", cpus=6, mem=6)
    s.add("a/c"); s.allocated("a/c", cpus=5, mem=5)
    s.inactive.add("a")
    assert sorted(s.sort()) == ["a/c", "b"]
    s.remove("a/c")
    assert s.sort() == ["b"]


def test_mesos_ChangeWeightOnSubtree() -> None:
    s = Sorter(cpus=100, mem=100)
    s.weights.update({"b": 3, "a": 2})
    s.add("a/x", "b/y")
    assert s.sort() == ["a/x", "b/y"]
    s.allocated("a/x", cpus=10, mem=10)
    s.allocated("b/y", cpus=10, mem=10)
    assert s.sort() == ["b/y", "a/x"]
    s.add("b/z"); s.allocated("b/z", cpus=5, mem=5)
    assert s.sort() == ["b/z", "b/y", "a/x"]
    s.add("b"); s.allocated("b", cpus=4, mem=4)
    assert s.sort() == ["a/x", "b", "b/z", "b/y"]
    s.add("a/zz"); s.allocated("a/zz", cpus=2, mem=2)
    assert s.sort() == ["a/zz", "a/x", "b", "b/z", "b/y"]


def test_mesos_SplitResourceShares() -> None:
    # b's two 5-disk persistent volumes count as 10 disk: share 0.1 against a's 0.09
    s = Sorter(cpus=100, mem=100, disk=100)
    s.add("a", "b")
    s.allocated("a", cpus=9, mem=9, disk=9)
    s.allocated("b", cpus=9, mem=9, disk=10)
    assert s.sort() == ["a", "b"]


def test_mesos_UpdateTotal() -> None:
    s = Sorter(cpus=10, mem=100)
    s.add("a", "b")
    s.allocated("a", cpus=2, mem=1)
    s.allocated("b", cpus=1, mem=2)
    assert s.sort() == ["b", "a"]
    s.totals = {"cpus": 100, "mem": 10}
    assert s.sort() == ["a", "b"]


def test_mesos_MultipleSlavesUpdateTotal() -> None:
    s = Sorter(cpus=10, mem=100)  # two agents of <5 cpus, 50 mem>
    s.add("a", "b")
    s.allocated("a", cpus=2, mem=1)
    s.allocated("b", cpus=1, mem=3)
    assert s.sort() == ["b", "a"]
    s.totals = {"cpus": 100, "mem": 100}  # agent A becomes <95 cpus, 50 mem>
    assert s.sort() == ["a", "b"]


def test_mesos_RemoveResources() -> None:
    s = Sorter(cpus=10)
    s.add("a", "b")
    s.allocated("a", cpus=6)
    s.allocated("b", cpus=4)
    assert s.sort() == ["b", "a"]
    s.totals = {"cpus": 5}
    s.unallocated("a", cpus=5)
    assert s.sort() == ["a", "b"]


# --- beyond the upstream file: the two rules the issue names ---------------------------------
def test_mesos_double_rounding_orders_exact_ties() -> None:
    # 10/100 / 2 and 15/100 / 3 are both 1/20 exactly; in doubles the second is one ulp smaller.
    assert drf_share([15.0], [100.0], 3.0) < drf_share([10.0], [100.0], 2.0)
    s = Sorter(cpus=100)
    s.add("a", "b")
    s.weights.update({"a": 2, "b": 3})
    s.allocated("a", cpus=10)
    s.allocated("b", cpus=15)
    assert s.sort() == ["b", "a"]  # exact arithmetic would tie, then the path would put a first
    inst = Instance.from_dict({"resources": {"cpu": 100},
                               "users": {"a": {"demand": {"cpu": 10}, "weight": 2},
                                         "b": {"demand": {"cpu": 15}, "weight": 3}}})
    r = progressive_filling(inst, "mesos:offers=false")
    assert r.picks[:3] == ["a", "b", "b"]  # after one task each, b (0.04999...) goes before a (0.05)


def test_mesos_ties_on_full_client_paths() -> None:
    # In role a: user c (client path a/c) and role a/d (user y). All shares 0: compareDRF compares
    # the paths a/c < a/d, so c goes first (comparing the bare name c with a/d would put y first).
    inst = Instance.from_dict({"resources": {"cpu": 4},
                               "users": {"c": {"demand": {"cpu": 1}, "group": "a"},
                                         "y": {"demand": {"cpu": 1}, "group": "a/d"}}})
    r = progressive_filling(inst, "mesos:offers=false")
    assert r.picks == ["c", "y", "c", "y"]


# --- src/tests/hierarchical_allocator_tests.cpp (HierarchicalAllocatorTest; an early 0.2x
# version of the file, whose cases are sorter decisions: each new agent goes, whole, to the
# first client of the sort, frameworks being clients under their role) ------------------
def test_mesos_HierarchicalAllocatorTest_DRF() -> None:
    s = Sorter(cpus=2, mem=1024)
    s.add("role1/framework1")
    assert s.sort()[0] == "role1/framework1"
    s.allocated("role1/framework1", cpus=2, mem=1024)  # slave1
    s.add("role2/framework2")
    s.totals = {"cpus": 3, "mem": 1536}
    assert s.sort()[0] == "role2/framework2"  # role2 share 0
    s.allocated("role2/framework2", cpus=1, mem=512)  # slave2
    s.totals = {"cpus": 6, "mem": 3584}
    assert s.sort()[0] == "role2/framework2"  # role2 0.16 < role1 0.33
    s.allocated("role2/framework2", cpus=3, mem=2048)  # slave3
    s.add("role1/framework3")
    s.totals = {"cpus": 10, "mem": 7680}
    assert s.sort()[0] == "role1/framework3"  # role1 0.2 < role2 0.4; framework3 0 < framework1 1
    s.allocated("role1/framework3", cpus=4, mem=4096)  # slave4
    s.add("role1/framework4")
    s.totals = {"cpus": 11, "mem": 8192}
    # framework4 holds nothing, but role2 (0.36) is below role1 (0.63)
    assert s.sort()[0] == "role2/framework2"


def test_mesos_HierarchicalAllocatorTest_CoarseGrained() -> None:
    s = Sorter(cpus=4, mem=2048)  # two agents of <2 cpus, 1024 mem>
    s.add("role1/framework1")
    s.allocated("role1/framework1", cpus=2, mem=1024)  # both agents, one allocation each
    s.allocated("role1/framework1", cpus=2, mem=1024)
    s.unallocated("role1/framework1", cpus=4, mem=2048)  # recoverResources of both
    s.add("role2/framework2")
    first = s.sort()[0]
    assert first == "role2/framework2"  # equal shares (0); role2 has had fewer allocations
    s.allocated(first, cpus=2, mem=1024)
    assert s.sort()[0] == "role1/framework1"  # the other agent goes to framework1


def test_mesos_HierarchicalAllocatorTest_SameShareFairness() -> None:
    # Two frameworks of one role, one agent <2 cpus, 1024 mem> offered whole and recovered ten
    # times: equal shares (0 after each recovery), so the allocation count alternates them,
    # 5 and 5 (the name alone would give framework1 all ten). Run through the engine's
    # incremental steps (Engine.allocate / release), whose Mesos counts carry over.
    from models.discrete import Engine

    inst = Instance.from_dict({"resources": {"cpus": 2, "mem": 1024},
                               "users": {"framework1": {"demand": {"cpus": 2, "mem": 1024}},
                                         "framework2": {"demand": {"cpus": 2, "mem": 1024}}},
                               "machines": [{"count": 1, "cpus": 2, "mem": 1024}]})
    eng = Engine(inst, "mesos", on_full="skip")
    counts = {"framework1": 0, "framework2": 0}
    for _ in range(10):
        step = eng.allocate()
        (who,) = [inst.users[i] for i in step.picks]
        counts[who] += 1
        eng.release(who, 1)
    assert counts == {"framework1": 5, "framework2": 5}
