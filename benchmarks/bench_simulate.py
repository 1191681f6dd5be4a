"""Trace replay speed (Ghodsi et al., NSDI 2011, Section 7.3; issue 14).

The whole Alibaba cluster-trace-v2017 batch-task table (10.2 M task
instances in 67,003 terminated tasks) under DRF on 1,300 machines of 64
cores and memory 1.0, streamed from ``../shared/traces`` (or
``/work/shared/traces``), by the kernel engine (:mod:`analyzer.simulation.fast`,
compiled with numba when installed). Reported: wall and CPU time, task
instances per second, peak resident memory and how much the run added to
it, and, as the baseline measured in the same run, the reference engine
with ``batch=False`` (one task per decision: the per-instance event loop
whose decisions the kernel engine makes) on a prefix of the trace, scaled
to instances per second. numba compiles (or loads its cache) before the
timed run, on a small workload; that time is reported apart.

Goals: the whole table in <= 60 s on 2 cores, >= 10^6 instances per second.
Without numba the kernel runs as Python: only the prefix is measured.

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
from models.compiled import numba_available
from models.kernels import prepare

MACHINES = {"count": 1300, "cpu": 64, "mem": 1.0}
CANDIDATES = (ROOT.parent / "shared" / "traces", Path("/work/shared/traces"))


def trace_path() -> Path | None:
    for folder in CANDIDATES:
        p = folder / "alibaba_v2017_batch_task.csv"
        if p.is_file():
            return p
    return None


def rss_mb() -> float:
    """Peak resident memory of this process so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(path: Path, until: float | None, batch: bool) -> tuple[float, int, dict]:
    """Wall seconds, instances launched, stats (with the process CPU seconds)."""
    w = load_trace(path, machines=MACHINES)
    t0, c0 = time.perf_counter(), time.process_time()
    r = simulate(w, "drf", until=until, record_users=False, batch=batch)
    cpu = time.process_time() - c0
    return time.perf_counter() - t0, r.stats["tasks_launched"], r.stats | {"end": r.end, "util": r.utilization_mean,
                                                                           "cpu": cpu}


def warm_up() -> tuple[float, str]:
    """Compile the kernel (or load numba's cache): seconds, engine. A loaded
    kernel runs compiled from the first event (models/kernels.py)."""
    seconds = prepare(["simulation-run", "simulation-admit"])
    return seconds, "compiled" if numba_available() else "python"


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
    warm, engine = warm_up()
    report(f"kernel engine: {engine}; compile or cache load", warm)
    until = args.until if engine == "compiled" else args.prefix
    rss0 = rss_mb()
    sec, n, stats = run(path, until, batch=True)
    rss = rss_mb()
    what = "whole table" if until is None else f"first {until:g} s"
    met = "met" if sec <= 60 and until is None else "NOT met" if until is None else "(whole table only)"
    report(f"DRF, {what} ({n:,} instances, simulated to t={stats['end']:.0f} s)", sec, f"goal <= 60 s: {met}")
    report("  of which CPU time of this process", stats["cpu"])
    rate = n / sec
    met = "met" if rate >= 1e6 else "NOT met"
    print(f"{'instances per second (kernel engine)':<60s} {rate:12,.0f}    goal >= 1,000,000: {met}")
    print(f"{'instances per CPU second of this process (kernel engine)':<60s} {n / stats['cpu']:12,.0f}    "
          f"(the wall rate depends on the machine's load)")
    print(f"{'instances per second (per-task baseline)':<60s} {base_n / base_s:12,.0f}")
    ratio("kernel engine vs per-task loop (instances per second)", n / base_n * base_s, sec)
    print(f"{'peak resident memory (MB, whole process; numba included)':<60s} {rss:12,.0f}")
    print(f"{'  added by the timed run (MB)':<60s} {rss - rss0:12,.0f}")
    print(f"decisions {stats['decisions']:,}, events {stats['events']:,}, utilisation {stats['util']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
