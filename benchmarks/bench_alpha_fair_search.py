"""fds/gfj search speed against DRF's (issue 31): the search a user runs,
``fairalloc search --policy P --property envy-freeness --budget 10000 --seed 1``,
for drf, fds and gfj (beta = 2, the default), all measured in this run.

Goal: fds and gfj within 3x of drf's time in the same run. fds/gfj screen
each chunk of the stream with one batched Newton solve on log-prices
(:meth:`models.policies.fds.FDS.solve_many`, :mod:`models.alpha_fair_newton`);
the baseline is the per-instance solver (no batch solver: every instance
solved alone by :meth:`~models.policies.fds.FDS.solve`, as before issue 31),
run in one process at ``--baseline-budget`` beside the batched path in one
process at the same budget. Same outcome both ways (printed).

Wall seconds measure the machine's other users too: CPU seconds of all
processes (this one and its pool's workers) are printed beside them, and
the ratios are given in both.

Run: ``python benchmarks/bench_alpha_fair_search.py [--budget 10000]
[--baseline-budget 2000] [--property envy-freeness] [--seed 1]``
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import warnings
from typing import Any

from _common import ratio, report

from analyzer import search
from models.policies.fds import FDS


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(policy: str, prop: str, budget: int, seed: int, workers: int | None) -> tuple[float, float, Any]:
    """Wall and CPU seconds of one search, and its result."""
    c0, t0 = cpu_seconds(), time.perf_counter()
    result = search(policy, prop, budget=budget, seed=seed, workers=workers)
    return time.perf_counter() - t0, cpu_seconds() - c0, result


def per_instance(policy: str, prop: str, budget: int, seed: int) -> tuple[float, float, Any]:
    """:func:`timed` in one process with fds/gfj's batch solver switched
    off: every instance through the per-instance solver."""
    own = FDS.batch_solver
    FDS.batch_solver = lambda self: None  # type: ignore[method-assign]
    try:
        return timed(policy, prop, budget, seed, 1)
    finally:
        FDS.batch_solver = own  # type: ignore[method-assign]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=10_000)
    ap.add_argument("--baseline-budget", type=int, default=2_000)
    ap.add_argument("--property", default="envy-freeness")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=None, help="processes (default: the search's default)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    search("fds", args.property, budget=20, seed=0, workers=1)  # untimed warm-up: lazy imports
    runs = {p: timed(p, args.property, args.budget, args.seed, args.workers) for p in ("drf", "fds", "gfj")}
    for p, (wall, cpu, r) in runs.items():
        verdict = "holds" if r.counterexample is None else "violated"
        report(f"search {p} / {args.property}, budget {args.budget}, seed {args.seed}", wall,
               f"(CPU {cpu:.2f} s; {r.instances} instances, {verdict})")
    for p in ("fds", "gfj"):
        ratio(f"{p} / drf, wall (goal <= 3)", runs[p][0], runs["drf"][0])
        ratio(f"{p} / drf, CPU seconds (goal <= 3)", runs[p][1], runs["drf"][1])
    b = args.baseline_budget
    for p in ("fds", "gfj"):
        w_old, c_old, old = per_instance(p, args.property, b, args.seed)
        w_new, c_new, new = timed(p, args.property, b, args.seed, 1)
        report(f"{p}: per-instance solver, 1 process, budget {b}", w_old, f"(CPU {c_old:.2f} s)")
        report(f"{p}: batched Newton, 1 process, budget {b}", w_new, f"(CPU {c_new:.2f} s)")
        ratio(f"  {p}: batched vs per-instance, CPU seconds", c_old, c_new)
        print(f"{'  same outcome per-instance and batched':<60s} {str(old.outcome() == new.outcome()):>10s}")


if __name__ == "__main__":
    main()
