"""Trace replay speed (Ghodsi et al., NSDI 2011, Section 7.3; issue 14).

The whole Alibaba cluster-trace-v2017 batch-task table (10.2 M task
instances in 67,003 terminated tasks) under DRF on 1,300 machines of 64
cores and memory 1.0, streamed from ``../shared/traces`` (or
``/work/shared/traces``). Reported: wall time, task instances per second,
peak resident memory, and, as the baseline measured in the same run, the
same engine with ``batch=False`` (one task per decision, one completion
event per task, no level jumps: a per-instance event loop) on a prefix of
the trace, scaled to instances per second.

Goals: the whole table in <= 60 s on 2 cores, >= 10^6 instances per second.

Run: ``python benchmarks/bench_simulate.py [--until SECONDS] [--prefix SECONDS]``
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

from _common import ROOT, ratio, report

from analyzer import load_trace, simulate

MACHINES = {"count": 1300, "cpu": 64, "mem": 1.0}
CANDIDATES = (ROOT.parent / "shared" / "traces", Path("/work/shared/traces"))


def trace_path() -> Path | None:
    for folder in CANDIDATES:
        p = folder / "alibaba_v2017_batch_task.csv"
        if p.is_file():
            return p
    return None


def run(path: Path, until: float | None, batch: bool) -> tuple[float, int, dict]:
    """Wall seconds, instances launched, stats (with the process CPU seconds)."""
    w = load_trace(path, machines=MACHINES)
    t0, c0 = time.perf_counter(), time.process_time()
    r = simulate(w, "drf", until=until, record_users=False, batch=batch)
    cpu = time.process_time() - c0
    return time.perf_counter() - t0, r.stats["tasks_launched"], r.stats | {"end": r.end, "util": r.utilization_mean,
                                                                           "cpu": cpu}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--until", type=float, default=None, help="stop the DRF run at this trace time (default: all)")
    ap.add_argument("--prefix", type=float, default=1500.0, help="trace time simulated by the baseline")
    args = ap.parse_args()
    path = trace_path()
    if path is None:
        print("the Alibaba trace is not in ../shared/traces: nothing to measure")
        return 0
    base_s, base_n, _ = run(path, args.prefix, batch=False)
    report(f"baseline: per-task loop, first {args.prefix:g} s of the trace ({base_n:,} instances)", base_s)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sec, n, stats = run(path, args.until, batch=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    what = "whole table" if args.until is None else f"first {args.until:g} s"
    report(f"DRF, {what} ({n:,} instances, simulated to t={stats['end']:.0f} s)", sec, "goal <= 60 s")
    report("  of which CPU time of this process", stats["cpu"])
    print(f"{'instances per second (batched)':<60s} {n / sec:12,.0f}    goal >= 1,000,000")
    print(f"{'instances per second (per-task baseline)':<60s} {base_n / base_s:12,.0f}")
    ratio("batched vs per-task loop (instances per second)", n / base_n * base_s, sec)
    print(f"{'peak resident memory (MB, whole process)':<60s} {max(rss, rss0) / 1024:12,.0f}")
    print(f"decisions {stats['decisions']:,}, level jumps {stats['jumps']:,}, events {stats['events']:,}, "
          f"utilisation {stats['util']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
