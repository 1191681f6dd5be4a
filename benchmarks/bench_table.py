"""Property-table speed: the full 3 x 8 table (asset, CEEI, DRF x the eight
properties of Ghodsi et al., NSDI 2011, Table 2).

Goal: >= 10^4 instances a cell in <= 120 s on a 2-core machine, using all
cores. The baseline is the same table with one process (``workers=1``),
measured in the same run; the script prints both times, instances per
second, the speed-up, and each cell's time (slowest first).

Run: ``python benchmarks/bench_table.py [--budget 10000] [--policies asset,ceei,drf]
[--workers N] [--no-baseline]``
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

from _common import ratio, report

from analyzer import property_table


def run(policies: list[str], budget: int, workers: int | None) -> tuple[float, object]:
    t0 = time.perf_counter()
    table = property_table(policies, budget=budget, seed=0, workers=workers)
    return time.perf_counter() - t0, table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=10_000, help="instances per cell (default 10^4)")
    ap.add_argument("--policies", default="asset,ceei,drf")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the single-process baseline")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    policies = args.policies.split(",")
    cores = args.workers or os.cpu_count() or 1

    # untimed warm-up: lazy imports (cvxpy, scipy, sympy) happen here, not in
    # whichever of the two timed runs comes first
    property_table(policies, budget=2, seed=1, workers=1)
    t_pool, table = run(policies, args.budget, args.workers)
    n_cells = len(table.cells)
    checked = sum(c.instances for c in table.cells.values())
    report(f"{len(policies)} x {len(table.properties)} table, budget {args.budget}/cell, {cores} workers", t_pool,
           "(goal <= 120 s at budget 10^4 on 2 cores)")
    print(f"{'instances checked':<60s} {checked:10d}    ({checked / t_pool:.0f} instances/s, {n_cells} cells)")
    for r in sorted(table.cells.values(), key=lambda r: -r.seconds)[:8]:
        print(f"  {r.policy + ' / ' + r.property:<58s} {r.seconds:10.2f} s  {r.instances} instances, "
              f"{'holds' if r.holds else 'violated' if r.holds is False else 'n/a'}")
    if not args.no_baseline and cores > 1:
        t_one, one = run(policies, args.budget, 1)
        report("same table, 1 worker (baseline)", t_one)
        ratio("speed-up of the pool over one process", t_one, t_pool)
        same = all(one.cells[k].outcome() == table.cells[k].outcome() for k in table.cells)
        print(f"{'same table with 1 and ' + str(cores) + ' workers':<60s} {str(same):>10s}")
    print()
    print(table.to_text())


if __name__ == "__main__":
    main()
