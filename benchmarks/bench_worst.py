"""Worst-case search speed (issue 22): DRF efficiency at 6 users x 2
resources, whose infimum over positive demands is approached by the family
``(k + m - 1) / (k m)`` = 0.6 (k = 5, m = 2; Parkes, Procaccia, Shah, EC
2012, Section 5).

Measured: the time until the search's best value is within 1 % of 0.6
(goal <= 60 s), and against the baseline in the same run: plain random
sampling of the same box of log demands with the same number of metric
evaluations (policy solves), demands uniform in (0, 1] and, second,
log-uniform in the search's box, as the ratio of the values reached
(random's over the search's; > 1 means the search found a worse instance).

Run: python benchmarks/bench_worst.py [--budget N] [--seed S]
"""

from __future__ import annotations

import argparse
import time

from _common import report

from analyzer import get_policy
from analyzer.worst import get_metric, worst_case
from analyzer.worst.search import Run, sample
from analyzer.worst.space import Space

TARGET = 0.6  # (k + m - 1) / (k m) at k = 5, m = 2
WITHIN = 0.01


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
