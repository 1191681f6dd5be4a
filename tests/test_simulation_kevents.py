"""The kernel's pending events (analyzer/simulation/kevents.py): buckets of
equal times give the events in exactly the order of a heap of the events
by (time, kind, sequence), through growth and a rebuilt hash table."""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from analyzer.simulation import kevents as ke
from analyzer.simulation import kstore as ks


def _times(rng: np.random.Generator, kind: str, now: float) -> float:
    if kind == "whole":  # few distinct times: long lists per bucket
        return now + float(rng.integers(0, 6))
    if kind == "float":  # (almost) every time its own bucket
        return now + float(rng.uniform(0, 50))
    return now + float(rng.choice([0.0, -0.0, 0.5, 1e16, 1.0, 3.25]))  # signed zeros, past exact integers


@pytest.mark.parametrize("times", ["whole", "float", "odd"])
@pytest.mark.parametrize("seed", range(4))
def test_events_come_out_as_a_heap_by_time_kind_sequence(times: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    c = np.zeros(ks.N_COUNTERS, dtype=np.int64)
    et, ei = ke.grown(np.zeros(0), np.zeros((0, ke.EVENT_COLUMNS), dtype=np.int64, order="F"), c, 4)
    ref: list[tuple[float, int, int, int]] = []
    seq, now, popped = 0, 0.0, 0
    for _ in range(3000):
        if ref and rng.random() < 0.45:
            if c[ks.REHASH]:
                ke.event_rehash(et, ei, c)
            assert et[0] == ref[0][0]
            x = ke.event_pop(et, ei, c)
            when, kind, _seq, spec = heapq.heappop(ref)
            assert (int(ei[x, ke.E_KIND]), int(ei[x, ke.E_SPEC])) == (kind, spec)
            now, popped = max(now, when) if when < 1e15 else now, popped + 1
        else:
            if not ke.has_room(et, c, 1):  # grows as the engine does
                et, ei = ke.grown(et, ei, c, 2 * int(c[ks.EV_N]) + 2)
            if c[ks.REHASH]:
                ke.event_rehash(et, ei, c)
            when, kind = _times(rng, times, now), int(rng.integers(0, 2))
            seq += 1
            ke.event_push(et, ei, c, when, kind, seq, 0, 1)
            heapq.heappush(ref, (when, kind, seq, seq))
        assert c[ks.EV_N] == len(ref)
        assert c[ks.NB] == len({t for t, *_ in ref}) == (ei[:, ke.X_BUCKET] >= 0).sum() <= ei.shape[0] // 2
    assert popped > 1000 and et.size > 64  # the arrays grew, the table was rebuilt


def test_the_hash_table_keeps_no_entry_of_a_drained_time() -> None:
    c = np.zeros(ks.N_COUNTERS, dtype=np.int64)
    et, ei = ke.grown(np.zeros(0), np.zeros((0, ke.EVENT_COLUMNS), dtype=np.int64, order="F"), c, 64)
    ke.event_rehash(et, ei, c)
    for k in range(40):
        ke.event_push(et, ei, c, float(k % 10), k % 2, k, 0, 1)
    while c[ks.EV_N]:
        ke.event_pop(et, ei, c)
    assert c[ks.NB] == 0
    assert (ei[:, ke.X_BUCKET] == -1).all()
