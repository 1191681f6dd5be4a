"""Worst-case search speed and strength (issues 22 and 29).

1. DRF efficiency at 6 users x 2 resources, whose infimum over positive
   demands is approached by the family ``(k + m - 1) / (k m)`` = 0.6
   (k = 5, m = 2; Parkes, Procaccia, Shah, EC 2012, Section 5): the time
   until the search's best value is within 1 % of 0.6 (goal <= 60 s), and
   against the baseline in the same run: plain random sampling of the same
   box of log demands with the same number of metric evaluations, demands
   uniform in (0, 1] and, second, log-uniform in the search's box, as the
   ratio of the values reached (random's over the search's; > 1 means the
   search found a worse instance).
2. CEEI's manipulation gain at 2 x 2 (supremum 3/2, proved by the bound):
   the default search (goal: certified >= 1.49) against, in the same run,
   the same search without the metric's targeted starts and, when the
   revision is in the repository, the search of ``--baseline-rev`` (the
   code before issue 29) run from a ``git archive`` of it in a
   subprocess. Reported: the certified value, the process CPU seconds and
   the ratio of CPU seconds (baseline over this search; >= 1: no slower).

Run: python benchmarks/bench_worst.py [--budget N] [--seed S] [--baseline-rev REV] [--only drf|ceei]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from _common import ROOT, report

from analyzer import get_policy
from analyzer.worst import get_metric, worst_case
from analyzer.worst.core import search_run
from analyzer.worst.search import Run, sample
from analyzer.worst.space import Space

TARGET = 0.6  # (k + m - 1) / (k m) at k = 5, m = 2
WITHIN = 0.01
#: The commit this branch started from: the worst-case search before issue 29.
BASELINE_REV = "812914b"
#: The CEEI goal: at least this manipulation gain at 2 x 2 at the default budget.
CEEI_GOAL = 1.49
BASELINE_CODE = ("import json, time; from analyzer import worst_case; t = time.process_time(); "
                 "r = worst_case('ceei', 'manipulation-gain', 2, 2, seed={seed}, bound=False); "
                 "print(json.dumps([str(r.value), float(r.value), time.process_time() - t]))")


def drf(args: argparse.Namespace) -> None:
    t0 = time.perf_counter()
    r = worst_case("drf", "efficiency", 6, 2, seed=args.seed, budget=args.budget, bound=False)
    total = time.perf_counter() - t0
    reached = next((p for p in r.trace if p.value <= TARGET * (1 + WITHIN)), None)
    print(f"DRF efficiency 6x2: search {r.found:.6f} (certified {float(r.value):.6f}, {r.instance.describe()})")
    if reached is None:
        print(f"search did not come within {WITHIN:.0%} of {TARGET} in {r.evaluations} evaluations")
    else:
        report(f"time to within {WITHIN:.0%} of {TARGET} ({reached.evaluations} evaluations)", reached.seconds,
               "(goal <= 60 s)")
    report(f"whole search, {r.evaluations} evaluations, certification included", total)
    for log, what in ((False, "uniform demands"), (True, "log-uniform demands")):
        base = sample(Run(get_policy("drf"), get_metric("efficiency"), Space(6, 2), r.evaluations), args.seed, log)
        hit = next((p.evaluations for p in base.trace if p.value <= TARGET * (1 + WITHIN)), None)
        print(f"{'random sampling, ' + what + f': {base.best_value:.6f}; random / search':<60s} "
              f"{base.best_value / r.found:10.3f} x  (> 1: the search found worse)")
        print(f"  evaluations to within {WITHIN:.0%}: random {hit if hit else 'never'}, "
              f"search {reached.evaluations if reached else 'never'}")


def _untargeted(seed: int) -> tuple[float, float]:
    """The default search without the metric's own starts: value, CPU seconds."""
    met = get_metric("manipulation-gain")
    t0 = time.process_time()
    r = search_run(Run(get_policy("ceei"), met, Space(2, 2), met.default_budget, targeted=False), seed)
    return float(r.value), time.process_time() - t0


def _revision(rev: str, seed: int) -> tuple[float, float] | None:
    """The search of revision ``rev`` in a subprocess: value, CPU seconds."""
    try:
        blob = subprocess.run(["git", "archive", rev, "analyzer", "models", "proofs"], cwd=ROOT, capture_output=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"baseline {rev}: not available ({e})")
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rev.tar"
        path.write_bytes(blob)
        with tarfile.open(path) as tar:
            tar.extractall(tmp, filter="data")
        out = subprocess.run([sys.executable, "-c", BASELINE_CODE.format(seed=seed)], cwd=tmp, capture_output=True,
                             text=True, env={**os.environ, "PYTHONPATH": tmp}, check=False)
    if out.returncode != 0:
        print(f"baseline {rev}: failed ({out.stderr.strip().splitlines()[-1:]})")
        return None
    _, value, cpu = json.loads(out.stdout.strip().splitlines()[-1])
    return float(value), float(cpu)


def ceei(args: argparse.Namespace) -> None:
    t0 = time.process_time()
    r = worst_case("ceei", "manipulation-gain", 2, 2, seed=args.seed, bound=False)
    cpu = time.process_time() - t0
    print(f"CEEI manipulation gain 2x2, default budget ({r.evaluations} evaluations): certified {r.value_text} "
          f"({'>=' if float(r.value) >= CEEI_GOAL else '<'} {CEEI_GOAL}) on {r.instance.describe()}")
    report("this search, CPU (certification included)", cpu)
    for what, got in (("without targeted starts", _untargeted(args.seed)),
                      (f"revision {args.baseline_rev} (before issue 29)", _revision(args.baseline_rev, args.seed))):
        if got is None:
            continue
        value, base_cpu = got
        report(f"{what}: certified {value:.6f}; CPU", base_cpu)
        print(f"{'  CPU ' + what + ' / this search':<60s} {base_cpu / cpu:10.2f} x  (>= 1: no slower)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=2000, help="DRF part: evaluations")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--baseline-rev", default=BASELINE_REV)
    ap.add_argument("--only", choices=("drf", "ceei"), default=None)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores; "
          f"children CPU so far {resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime:.1f} s")
    if args.only in (None, "drf"):
        drf(args)
    if args.only in (None, "ceei"):
        ceei(args)


if __name__ == "__main__":
    main()
