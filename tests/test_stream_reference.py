"""The search's instance stream is bit for bit the stream of the code that
defined it: digests of every instance (fields, dtypes, read-only flags,
exact values) at the first positions of a few cells and instance classes,
against ``tests/data/stream_digests.json``. Written by the unbatched
generator (numpy ``Generator`` per position, the constructor's checks) of
main at 6127763, regenerated when the policy left the streams' seed material
(issue 31: a table's row walks one stream) by ``Cell.at_if``, one position
at a time through numpy's ``Generator``. Regenerate only when the stream's
definition changes on purpose:
``python tests/test_stream_reference.py > tests/data/stream_digests.json``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from analyzer.searching.instance_stream import make_cell
from models import Instance

REFERENCE = Path(__file__).parent / "data" / "stream_digests.json"
#: Positions per cell: the grid's 30 % and random draws of every strategy.
BUDGET = 2000
CASES = [("ceei", "sharing-incentive", None), ("drf", "strategy-proofness", "zeros"),
         ("asset", "envy-freeness", "weights,caps"), ("drf", "pareto-efficiency", "zeros,weights,caps")]
WANTED: dict[str, Callable[[int, int], bool] | None] = {"all": None, "n3": lambda n, m: n == 3 or m == 1}


def _bytes(phase: str, inst: Instance | None) -> bytes:
    if inst is None:
        return f"{phase}|None".encode()
    parts = [phase, repr(inst.resources), repr(inst.users), repr((inst.n, inst.m))]
    for a in (inst.capacity, inst.demands, inst.weights, inst.max_tasks):
        parts += [a.dtype.str, repr(a.shape), repr(a.flags.writeable), a.tobytes().hex()]
    parts += [repr(inst.capacity_exact), repr(inst.demands_exact), repr(inst.weights_exact),
              repr(inst.max_tasks_exact), repr(inst.machines), repr(inst.name), repr(bool(inst.extensions))]
    return "|".join(parts).encode()


def digests(one_at_a_time: bool = False) -> dict[str, str]:
    """sha256 of each cell's first :data:`BUDGET` positions, read in chunks
    of 256 as the search reads them (``one_at_a_time``: through
    ``Cell.at_if``, numpy's ``Generator`` per position, the reference)."""
    out = {}
    for policy, prop, cls in CASES:
        cell = make_cell(policy, prop, BUDGET, 0, cls, "continuous")
        for label, wanted in WANTED.items():
            h = hashlib.sha256()
            for start in range(0, BUDGET, 256):
                chunk = range(start, min(BUDGET, start + 256))
                drawn = [cell.at_if(pos, wanted) for pos in chunk] if one_at_a_time else cell.at_many(chunk, wanted)
                for phase, inst in drawn:
                    h.update(_bytes(phase, inst))
            out[f"{policy}|{prop}|{cls}|{label}"] = h.hexdigest()
    return out


def test_the_stream_is_the_reference_stream() -> None:
    want = json.loads(REFERENCE.read_text())
    got = digests()
    assert got.keys() == want.keys()
    assert [k for k in got if got[k] != want[k]] == []


@pytest.mark.parametrize(("policy", "prop", "cls"), CASES[1:3])
def test_a_chunk_is_the_positions_one_at_a_time(policy: str, prop: str, cls: str) -> None:
    """The batched path (Python draws) against numpy's ``Generator`` per position."""
    cell = make_cell(policy, prop, BUDGET, 5, cls, "continuous")
    positions = range(cell.grid_len - 3, cell.grid_len + 300)
    for pos, (phase, inst) in zip(positions, cell.at_many(positions, None), strict=True):
        one_phase, one = cell.at(pos)
        assert _bytes(phase, inst) == _bytes(one_phase, one)


if __name__ == "__main__":
    json.dump(digests(one_at_a_time=True), sys.stdout, indent=1)
    sys.stdout.write("\n")
