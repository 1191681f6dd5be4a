"""The exhaustive discrete prover (``prove --discrete --bound K``):
instances per second of the check over the whole bounded class, with the
symmetry reduction against the unreduced enumeration measured in the same
run (one process each, every orbit decided, violations collected rather
than stopping at the first), and the time of the discrete DRF rows (every
property defined in the discrete setting) at 2x2, bound 4.

    python benchmarks/bench_prove_discrete.py
    python benchmarks/bench_prove_discrete.py --properties population-monotonicity,strategy-proofness

Ghodsi et al., NSDI 2011, Section 4.2 (Algorithm 1) is the policy checked.
"""

from __future__ import annotations

import argparse
import time

from _common import ROOT, ratio, report  # noqa: F401  (ROOT puts the repository on sys.path)

from analyzer.proving.bounded.space import Space
from analyzer.proving.bounded.worker import Job, check_chunk
from analyzer.proving.discrete import prove_discrete

#: (users, resources, bound) of the instances/second measurements.
SIZES: tuple[tuple[int, int, int], ...] = ((2, 2, 4), (3, 2, 3))
#: The discrete DRF row: every property the discrete setting defines.
ROW: tuple[str, ...] = ("sharing-incentive", "strategy-proofness", "envy-freeness", "pareto-efficiency",
                        "population-monotonicity", "resource-monotonicity")


def whole_class(prop: str, space: Space, reduce: bool) -> tuple[float, int, int]:
    """(seconds, orbits decided, instances covered) for the whole class in
    this process."""
    job = Job("drf", prop, space, resources=True, reduce=reduce, every_hit=True)
    t0 = time.perf_counter()
    r = check_chunk(job, 0, space.size)
    return time.perf_counter() - t0, r.orbits, r.covered


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--properties", default="population-monotonicity,envy-freeness,strategy-proofness",
                    help="properties of the instances/second measurement")
    ap.add_argument("--workers", type=int, default=2, help="processes for the DRF rows (default: 2)")
    args = ap.parse_args()
    for n, m, K in SIZES:
        space = Space(n, m, K)
        for prop in args.properties.split(","):
            fast, orbits, covered = whole_class(prop, space, True)
            slow, points, every = whole_class(prop, space, False)
            assert covered == every == space.class_size
            tag = f"drf {prop} {n}x{m} bound {K}"
            report(f"{tag}: reduced ({orbits} orbits)", fast, f"{covered / fast:,.0f} instances/s")
            report(f"{tag}: unreduced ({points} points)", slow, f"{every / slow:,.0f} instances/s")
            ratio(f"{tag}: reduction speed-up", slow, fast)
    total = 0.0
    for prop in ROW:
        t0 = time.perf_counter()
        r = prove_discrete("drf", prop, 2, 2, bound=4, workers=args.workers, timeout=3600)
        took = time.perf_counter() - t0
        total += took
        report(f"discrete drf {prop} 2x2 bound 4: {r.status}", took, r.cases[0].label if r.cases else r.reason)
    report("discrete drf rows at 2x2 bound 4 (every property)", total)


if __name__ == "__main__":
    main()
