"""Instance strategies and classes of the counterexample search."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from analyzer.searching import (
    InstanceClass,
    grid,
    log_uniform,
    near_ties,
    one_of,
    random_strategies,
    shared_dominant,
    uniform,
)
from analyzer.searching.shrinking import shrink, size


def _key(inst):
    return inst.describe()


def test_grid_is_fixed_ordered_canonical_and_small():
    first = list(itertools.islice(grid(InstanceClass()), 1500))
    again = list(itertools.islice(grid(InstanceClass()), 1500))
    assert [_key(i) for i in first] == [_key(i) for i in again]
    assert len({_key(i) for i in first}) == len(first)  # no instance twice
    shapes = {(i.n, i.m) for i in first}
    assert shapes == {(2, 1), (2, 2), (3, 1), (2, 3), (3, 2), (3, 3)}
    for inst in first:
        assert inst.strictly_positive and not inst.weighted and not inst.capped
        assert all(v.denominator == 1 for v in inst.capacity_exact)
        rows = [tuple(r) for r in inst.demands_exact]
        assert rows == sorted(rows)  # one representative up to renaming users
    # smallest entries come first in every sub-grid
    tops = [max(*i.capacity_exact, *(v for r in i.demands_exact for v in r)) for i in first if (i.n, i.m) == (2, 2)]
    assert tops == sorted(tops) and tops[0] == 1


def test_grid_with_zeros_weights_and_caps():
    cls = InstanceClass(zeros=True, weights=True, caps=True)
    insts = list(itertools.islice(grid(cls), 3000))
    assert any(not i.strictly_positive for i in insts)
    assert any(i.weighted for i in insts)
    assert any(i.capped for i in insts)
    assert all(cls.contains(i) for i in insts)


@pytest.mark.parametrize("options", ["paper", "zeros", "weights", "caps", "all"])
def test_random_strategies_respect_the_class_and_the_seed(options):
    cls = InstanceClass.parse(options)
    for strat in random_strategies(cls):
        a = [strat.draw(np.random.default_rng([7, k])) for k in range(40)]
        b = [strat.draw(np.random.default_rng([7, k])) for k in range(40)]
        assert [_key(i) for i in a] == [_key(i) for i in b]
        assert all(cls.contains(i) for i in a)
        assert all(2 <= i.n <= cls.n_max and 1 <= i.m <= cls.m_max for i in a)
        if cls.zeros:
            assert any(not i.strictly_positive for i in a) or strat.name == "shared-dominant"
        if cls.weights:
            assert any(i.weighted for i in a)
        if cls.caps:
            assert any(i.capped for i in a)


def test_shared_dominant_and_near_ties_shape_the_instances():
    rng = np.random.default_rng(3)
    for _ in range(50):
        inst = shared_dominant(InstanceClass()).draw(rng)
        shares = inst.demands / inst.capacity
        dom = shares.max(axis=1, keepdims=True)
        assert np.any(np.all(shares == dom, axis=0) | np.all(np.isclose(shares, dom), axis=0))
    spreads = []
    for _ in range(50):
        inst = near_ties(InstanceClass()).draw(rng)
        dom = (inst.demands / inst.capacity).max(axis=1)
        spreads.append(dom.max() / dom.min())
    assert np.median(spreads) < 1.5


def test_strategies_compose():
    cls = InstanceClass()
    both = uniform(cls) | log_uniform(cls)
    assert both.name == "uniform|log-uniform"
    big = (
        one_of(both, near_ties(cls))
        .filter(lambda i: i.n >= 3)
        .map(lambda i: i.replace(capacity=[c * 2 for c in i.capacity_exact]))
    )
    rng = np.random.default_rng(0)
    draws = [big.draw(rng) for _ in range(20)]
    assert all(i.n >= 3 for i in draws)
    assert all(all(c % 2 == 0 for c in i.capacity_exact) for i in draws)
    with pytest.raises(ValueError, match="filter"):
        uniform(cls).filter(lambda i: False).draw(rng)


def test_instance_class_parse_and_names():
    assert InstanceClass.parse(None) == InstanceClass()
    assert InstanceClass.parse("default").name == "paper"
    assert InstanceClass.parse("caps+zeros").name == "paper+zeros+caps"
    assert InstanceClass.parse("all") == InstanceClass(zeros=True, weights=True, caps=True)
    assert InstanceClass.from_dict(InstanceClass(weights=True).to_dict()) == InstanceClass(weights=True)
    with pytest.raises(ValueError, match="bogus"):
        InstanceClass.parse("zeros,bogus")


def test_shrink_reaches_a_minimal_failing_instance():
    # "fails" while some user demands at least 3 of a resource and there are 2+ users
    from analyzer.searching.strategies import build

    def fails(inst):
        return "v" if inst.n >= 2 and any(v >= 3 for r in inst.demands_exact for v in r) else None

    start = build([40, 60, 24], [[12, 9, 6], [30, 3, 21], [5, 5, 5]])
    inst, v, checks = shrink(start, fails, InstanceClass())
    assert v == "v" and checks > 0
    assert (inst.n, inst.m) == (2, 1)
    assert sorted(inst.demands_exact[i][0] for i in range(2)) == [1, 3]
    assert inst.capacity_exact == (1,)
    assert size(inst) < size(start)


def test_shrink_makes_fractional_data_integer():
    from fractions import Fraction

    from analyzer.searching.strategies import build

    start = build([Fraction(7, 2), Fraction(9, 4)], [[Fraction(1, 2), 1], [1, Fraction(3, 4)]])
    inst, v, _ = shrink(start, lambda i: "v" if i.n == 2 and i.m == 2 else None, InstanceClass())
    assert v == "v"
    assert all(x.denominator == 1 for x in [*inst.capacity_exact, *(y for r in inst.demands_exact for y in r)])


def test_build_of_integers_is_from_arrays_and_keeps_its_errors():
    """The search's integer fast path builds the instance from_arrays builds
    (same arrays, names, weights and caps); data from_arrays rejects still
    get its error."""
    from analyzer.searching.strategies import build
    from models import Instance, InstanceError

    rng = np.random.default_rng(7)
    for _ in range(200):
        n, m = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        cap = [int(v) for v in rng.integers(1, 30, size=m)]
        dem = [[int(v) for v in row] for row in rng.integers(0, 9, size=(n, m))]
        for row in dem:
            row[int(rng.integers(m))] = 1
        w = [int(v) for v in rng.integers(1, 4, size=n)] if rng.random() < 0.5 else None
        k = [int(v) if rng.random() < 0.5 else None for v in rng.integers(0, 5, size=n)] if rng.random() < 0.5 else None
        got = build(cap, dem, w, k)
        want = Instance.from_arrays(cap, dem, resources=list(got.resources), users=list(got.users), weights=w,
                                    max_tasks=k)
        assert got == want and got.users == want.users and got.resources == want.resources
        for a, b in ((got.capacity, want.capacity), (got.demands, want.demands), (got.weights, want.weights),
                     (got.max_tasks, want.max_tasks)):
            assert a.dtype == b.dtype and np.array_equal(a, b) and not a.flags.writeable
    with pytest.raises(InstanceError, match="capacity"):
        build([0, 2], [[1, 1]])
    with pytest.raises(InstanceError):
        build([2, 2], [[0, 0]])


def test_positions_of_other_shapes_are_skipped_unbuilt_with_the_same_stream():
    """A single-resource property's search draws only the shape of a random
    position with several resources (no instance built), and every position
    it builds is the instance of the full stream."""
    from analyzer.searching import strategies
    from analyzer.searching.instance_stream import make_cell

    cell = make_cell("drf", "single-resource-fairness", 300, 0, "weights,caps,zeros", "continuous")
    assert cell.shapes is not None
    built = {"n": 0}
    decorate = strategies.decorate

    def counting(*args, **kwargs):
        built["n"] += 1
        return decorate(*args, **kwargs)

    strategies.decorate = counting
    single = 0
    try:
        for pos in range(cell.grid_len, cell.grid_len + 200):
            phase, inst = cell.at_if(pos, cell.shapes)
            full = cell.at(pos)
            assert phase == full[0]
            assert (inst is None) == (full[1].m != 1)
            assert inst is None or inst.describe() == full[1].describe()
            single += full[1].m == 1
    finally:
        strategies.decorate = decorate
    assert 0 < single < 200 and built["n"] == 200 + single  # the skipped ones were never finished


def test_int_instance_refuses_what_from_arrays_refuses():
    """The search's fast constructor builds only data from_arrays accepts,
    exactly as it builds it; the rest is None (then built with its errors)."""
    from analyzer.searching.building import int_instance
    from models import Instance

    a = np.array
    ok = int_instance(a([4, 5]), a([[1, 0], [2, 3]]), a([1, 2]), a([np.inf, 3.0]))
    want = Instance.from_arrays([4, 5], [[1, 0], [2, 3]], resources=["r1", "r2"], users=["A", "B"],
                                weights=[1, 2], max_tasks=[None, 3])
    assert ok == want and vars(ok).keys() == vars(want).keys()
    assert [ok.users, ok.resources, ok.name, ok.machines, bool(ok.extensions)] == \
        [want.users, want.resources, want.name, want.machines, bool(want.extensions)]
    for cap, dem, w, k in [([0, 5], [[1, 1]], None, None), ([4, 5], [[0, 0]], None, None),
                           ([4, 5], [[1, -1]], None, None), ([4], [[1, 1]], None, None),
                           ([4, 5], [[1, 1]], [0], None), ([4, 5], [[1, 1]], [1, 1], None),
                           ([4, 5], [[1, 1]], None, [-1.0]), ([2**53, 5], [[1, 1]], None, None),
                           ([4, 5], [[1, 2**53]], None, None)]:
        got = int_instance(a(cap, dtype=np.int64), a(dem, dtype=np.int64), None if w is None else a(w),
                           None if k is None else a(k))
        assert got is None, (cap, dem, w, k)
