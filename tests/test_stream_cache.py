"""One stream per property: the policies of a table's row walk the same
instances, a process draws each block of them once (the per-process cache
of :mod:`analyzer.searching.instance_stream`), and a table runs a row's
cells in turn in one process (:func:`analyzer.searching.instance_stream.same_stream`)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from analyzer.searching import instance_stream
from analyzer.searching.instance_stream import BLOCK, make_cell, same_stream
from analyzer.tables import table
from models import Instance


def _same(a: Instance | None, b: Instance | None) -> bool:
    if a is None or b is None:
        return a is b
    return all(np.array_equal(x, y) for x, y in ((a.capacity, b.capacity), (a.demands, b.demands),
                                                 (a.weights, b.weights), (a.max_tasks, b.max_tasks)))


@pytest.fixture(autouse=True)
def _empty_cache():
    instance_stream.clear_cache()
    yield
    instance_stream.clear_cache()


@pytest.mark.parametrize(("prop", "cls"), [("single-resource-fairness", "zeros"), ("envy-freeness", "weights,caps")])
def test_cached_chunks_are_the_positions_one_at_a_time(prop: str, cls: str) -> None:
    """Chunks not aligned with the blocks, read twice, with the cell's own
    shape filter and without: each position is the instance numpy's
    ``Generator`` draws there."""
    cell = make_cell("drf", prop, 1000, 3, cls, "continuous")
    g = cell.grid_len
    for wanted in (None, cell.shapes):
        for lo, hi in ((g - 5, g + 100), (g + 100, g + BLOCK + 40), (g + 60, g + BLOCK + 10)):
            got = cell.at_many(range(lo, hi), wanted)
            want = [cell.at_if(pos, wanted) for pos in range(lo, hi)]
            assert [p for p, _ in got] == [p for p, _ in want]
            assert all(_same(a, b) for (_, a), (_, b) in zip(got, want, strict=True))
    if prop == "single-resource-fairness":
        assert any(inst is None for _, inst in cell.at_many(range(g, g + 50), cell.shapes))


def test_the_policies_of_a_row_share_the_drawn_instances() -> None:
    """The stream depends on the property, not the policy: a second
    policy's cell reads the instances the first one drew (the same objects),
    another property's cell draws its own."""
    drf = make_cell("drf", "envy-freeness", 2000, 0, None, "continuous")
    ceei = make_cell("ceei", "envy-freeness", 2000, 0, None, "continuous")
    other = make_cell("drf", "pareto-efficiency", 2000, 0, None, "continuous")
    assert drf.entropy == ceei.entropy != other.entropy
    span = range(drf.grid_len, drf.grid_len + 300)
    first = drf.at_many(span, drf.shapes)
    assert all(a is b for (_, a), (_, b) in zip(first, ceei.at_many(span, ceei.shapes), strict=True))
    assert not any(_same(a, b) for (_, a), (_, b) in zip(first, other.at_many(span, other.shapes), strict=True))


def test_the_cache_holds_at_most_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(instance_stream, "CACHE_INSTANCES", 3 * BLOCK)
    cell = make_cell("drf", "envy-freeness", 1000, 1, None, "continuous")
    g = cell.grid_len
    first = cell.at_many(range(g, g + BLOCK), None)
    for b in range(1, 6):
        cell.at_many(range(g + b * BLOCK, g + (b + 1) * BLOCK), None)
        assert instance_stream._CACHED[0] <= 3 * BLOCK
    again = cell.at_many(range(g, g + BLOCK), None)  # evicted, drawn again: the same instances
    assert all(a is not b and _same(a, b) for (_, a), (_, b) in zip(first, again, strict=True))


def test_a_table_runs_a_row_in_one_process_costly_rows_first(monkeypatch: pytest.MonkeyPatch) -> None:
    cells = [make_cell(p, q, 10, 0, None, "continuous") for q in ("envy-freeness", "strategy-proofness")
             for p in ("drf", "asset", "ceei")]
    rows = same_stream(cells)
    assert [[c.prop.name for c in row] for row in rows] == [["envy-freeness"] * 3, ["strategy-proofness"] * 3]
    assert same_stream([*cells, make_cell("drf", "envy-freeness", 10, 0, "zeros", "continuous")])[2][0].cls.zeros
    halves = same_stream(cells[:3], at_least=2)  # one row, two workers: both busy
    assert [[c.policy.label for c in g] for g in halves] == [["drf", "asset"], ["ceei"]]
    assert len(same_stream(cells[:3], at_least=5)) == 3 and same_stream([], 2) == []
    ran: list[list[str]] = []

    def run_row(args):  # the table's task: one row, its cells in turn
        ran.append([f"{c.policy.label}|{c.prop.name}" for c, _, _ in args])
        return [table._run_one(*a) for a in args]

    class Pool:  # a pool of two workers, tasks in order
        def imap_unordered(self, fn, args):
            return map(fn, args)

    monkeypatch.setattr(table, "_run_row", run_row)
    monkeypatch.setattr(table, "worker_pool", lambda n, s: contextlib.nullcontext((Pool(), 2)))
    monkeypatch.setattr(table, "warm_up", lambda cells: None)
    t = table.property_table(["drf", "asset", "ceei"], ["envy-freeness", "strategy-proofness"], budget=10, workers=2)
    assert ran == [["ceei|strategy-proofness", "drf|strategy-proofness", "asset|strategy-proofness"],
                   ["ceei|envy-freeness", "drf|envy-freeness", "asset|envy-freeness"]]  # no filling path: costlier
    assert len(t.cells) == 6


def test_a_chunk_of_the_search_draws_one_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks are aligned on positions as the search's chunks are (a pool's
    workers then never draw the same block twice)."""
    cell = make_cell("drf", "envy-freeness", 1000, 0, None, "continuous")
    drawn: list[range] = []
    draw = instance_stream.Cell.draw_block
    monkeypatch.setattr(instance_stream.Cell, "draw_block", lambda self, ks, w: drawn.append(ks) or draw(self, ks, w))
    for start in range(0, 4 * BLOCK, BLOCK):
        cell.at_many(range(start, start + BLOCK), None)
    g = cell.grid_len
    assert drawn == [range(0, 2 * BLOCK - g), range(2 * BLOCK - g, 3 * BLOCK - g), range(3 * BLOCK - g, 4 * BLOCK - g)]
    assert cell.at_many(range(2 * BLOCK - 7, 2 * BLOCK + 9), None) and len(drawn) == 3  # from the cache
