"""Optimisation-phase speed: the margin optimisation of a search (phase 3,
:mod:`analyzer.searching.optimise`) on the cells of the paper's Table 2
(asset, CEEI, DRF x the properties with a margin, default class).

Goal (issue 31): the optimisation phase of the whole table at 10^4
instances a cell in <= 3 CPU s (it was 12.9 CPU s with scipy's Powell
method, one single-instance margin an evaluation).

For each cell, the stream (phases 1-2) runs once to the start of the
optimisation; the phase is then timed from that saved state, twice in this
run, in CPU seconds of this process:

* batched: as a search runs it, each batch of candidates through the
  property's ``margin_many`` (its batched override, where it has one);
* baseline: the same optimiser, each batch through the default
  ``Property.margin_many`` (one ``margin`` call per candidate, as the
  Powell optimiser paid an evaluation).

Both must find the same violation or none. An override gives what
``margin`` gives up to rounding, so a line search may break a tie the other
way and the two runs may spend different numbers of evaluations (a cell
where they do is marked; the phase's CPU seconds are then compared per
evaluation as well). Printed per cell, per policy and in total: CPU
seconds, the ratio, the evaluations and the batches (``margin_many``
calls) and their mean size.

Run: ``python benchmarks/bench_optimise.py [--budget 10000]
[--policies asset,ceei,drf] [--seed 0]``
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import time
import warnings
from collections.abc import Iterator
from typing import Any

from _common import ratio, report

from analyzer.properties.base import Property
from analyzer.searching.checkpoint import SearchState
from analyzer.searching.engine import run_cell
from analyzer.searching.instance_stream import Cell, make_cell
from analyzer.searching.optimise import optimise
from analyzer.searching.stream import Recorder
from analyzer.tables.table import default_properties


class _AtOptimise(Exception):
    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record


class _Catch(Recorder):
    """Stops the search at the checkpoint that opens its optimisation phase."""

    def emit(self, record: dict[str, Any]) -> None:
        if record.get("type") == "progress" and record.get("phase") == "optimise":
            raise _AtOptimise(record)


def start_state(cell: Cell) -> dict[str, Any] | None:
    """The checkpoint record at the start of the cell's optimisation
    phase; ``None`` when the stream finds a violation first."""
    try:
        run_cell(cell, _Catch(None))
    except _AtOptimise as at:
        return at.record
    return None


@contextlib.contextmanager
def counting(prop: Property, batched: bool) -> Iterator[list[int]]:
    """The sizes of the ``margin_many`` calls on ``prop`` (through its own
    override when ``batched``, else through the per-instance default)."""
    sizes: list[int] = []
    own = prop.margin_many if batched else functools.partial(Property.margin_many, prop)

    def spy(policy: Any, instances: Any, mode: str = "continuous") -> Any:
        sizes.append(len(instances))
        return own(policy, instances, mode)

    prop.margin_many = spy  # type: ignore[method-assign]  # this instance only, undone below
    try:
        yield sizes
    finally:
        del prop.margin_many


def timed(cell: Cell, record: dict[str, Any], batched: bool) -> tuple[float, int, list[int], str]:
    """CPU seconds, evaluations, batch sizes and outcome of the phase."""
    st = SearchState.from_record(record)
    with counting(cell.prop, batched) as sizes:
        t0 = time.process_time()
        v = optimise(cell, st, cell.budget, Recorder(None), lambda k: None)
        cpu = time.process_time() - t0
    outcome = "none" if v is None else v.instance.describe()
    return cpu, st.checked - record["checked"], sizes, outcome


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=int, default=10_000)
    ap.add_argument("--policies", default="asset,ceei,drf")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"load average {os.getloadavg()[0]:.2f}; budget {args.budget} a cell; CPU seconds of this process")
    total = {True: 0.0, False: 0.0}
    count = {True: 0, False: 0}
    evals, sizes, same = 0, [], True
    for pol in args.policies.split(","):
        cpu = {True: 0.0, False: 0.0}
        for name in default_properties():
            cell = make_cell(pol, name, args.budget, args.seed, None, "continuous")
            if not cell.prop.has_margin:
                continue
            record = start_state(cell)
            if record is None:
                continue
            runs = {batched: timed(cell, record, batched) for batched in (False, True)}
            same &= runs[True][3] == runs[False][3]
            for batched, (sec, n, _, _) in runs.items():
                cpu[batched] += sec
                count[batched] += n
            evals += runs[True][1]
            sizes += runs[True][2]
            note = "" if runs[True][1] == runs[False][1] else f"; baseline {runs[False][1]}"
            report(f"{pol} {name}: batched ({runs[True][1]} evaluations{note})", runs[True][0])
        for batched in cpu:
            total[batched] += cpu[batched]
        report(f"{pol}: optimisation phase, baseline (margin per candidate)", cpu[False])
        report(f"{pol}: optimisation phase, batched (margin_many)", cpu[True])
        ratio(f"{pol}: batched over baseline", cpu[False], cpu[True])
    report("table: optimisation phase, baseline (margin per candidate)", total[False])
    report("table: optimisation phase, batched (margin_many)", total[True], "goal <= 3 CPU s")
    ratio("table: batched over baseline", total[False], total[True])
    ratio("table: batched over baseline, per evaluation", total[False] / count[False], total[True] / count[True])
    print(f"{evals} evaluations in {len(sizes)} batches (mean {evals / max(1, len(sizes)):.1f}); "
          f"baseline {count[False]} evaluations; the same violations (or none) batched and baseline: {same}")


if __name__ == "__main__":
    main()
