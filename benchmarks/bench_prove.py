"""Time to proof (or to an exactly re-verified counterexample) of every
(policy, property) cell of the paper's Table 2 (Ghodsi et al., NSDI 2011)
with ``analyzer.prove``, at 2x2, 2x3, 3x2, 3x3, and the largest size proved
within a per-cell limit.

    python benchmarks/bench_prove.py                      # sizes up to 3x3, 600 s per cell
    python benchmarks/bench_prove.py --limit 60 --grow 5  # then grow proved cells up to 5x5
    python benchmarks/bench_prove.py --sizes 2x2 --limit 60

Targets (issue 13): every ✓ cell proved at 2x2 in <= 60 s on 2 cores; DRF
strategy-proofness, sharing incentive and envy-freeness proved at 3x3 in
<= 600 s; every ✗ cell refuted at the smallest size where it fails.
Single-resource fairness speaks only of one resource: its sizes are n x 1.
"""

from __future__ import annotations

import argparse
import time

from _common import ROOT  # noqa: F401  (puts the repository on sys.path)

from analyzer import prove
from analyzer.properties.base import available_properties
from proofs.prover.properties import get_negation

TABLE_POLICIES = ("drf", "asset", "ceei")


def sizes_of(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in (s.split("x") for s in text.split(","))]


def cell(policy: str, prop: str, n: int, m: int, limit: float, workers: int) -> tuple[str, float]:
    """(``"proved"``/``"cex"``/``"unknown"``, seconds) at one size."""
    fixed = get_negation(prop).resources
    t0 = time.perf_counter()
    r = prove(policy, prop, n, fixed or m, timeout=limit, workers=workers)
    return {"counterexample": "cex"}.get(r.status, r.status), time.perf_counter() - t0


def smallest_counterexample(policy: str, prop: str, limit: float, workers: int, top: int = 3) -> str:
    """The first size (by ``n + m``, then ``n``; ``n, m <= top``) with an
    exactly verified counterexample, and whether every smaller size
    (componentwise) was proved, which makes it the smallest."""
    neg = get_negation(prop)
    sizes = sorted(((n, m) for n in range(neg.min_users, top + 1) for m in range(1, top + 1)),
                   key=lambda s: (s[0] + s[1], s[0]))
    status: dict[tuple[int, int], str] = {}
    for n, m in sizes:
        status[n, m], _ = cell(policy, prop, n, m, limit, workers)
        if status[n, m] == "cex":
            below = [st for (a, b), st in status.items() if a <= n and b <= m and (a, b) != (n, m)]
            return f"{n}x{m}" + (" (smaller sizes proved)" if all(st == "proved" for st in below) else "")
    return "none"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2x2,2x3,3x2,3x3")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per cell and size (default 600)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--grow", type=int, default=0, help="then grow proved cells n, m up to this size")
    ap.add_argument("--policies", default=",".join(TABLE_POLICIES))
    args = ap.parse_args()
    sizes = sizes_of(args.sizes)
    props = list(available_properties())[:8]
    head = (f"{'policy':<7}{'property':<26}" + "".join(f"{f'{n}x{m}':>18}" for n, m in sizes)
            + "   largest proved; smallest counterexample")
    print(head)
    met2, met3 = True, True
    for pol in args.policies.split(","):
        for prop in props:
            row, largest = [], None
            for n, m in sizes:
                status, sec = cell(pol, prop, n, m, args.limit, args.workers)
                row.append(f"{status} {sec:7.2f}s")
                if status == "proved":
                    largest = (n, get_negation(prop).resources or m)
                if (n, m) == (2, 2) and status != "cex" and (status != "proved" or sec > 60):
                    met2 = False
                if (n, m) == (3, 3) and pol == "drf" and prop in ("sharing-incentive", "strategy-proofness",
                                                                   "envy-freeness") and status != "proved":
                    met3 = False
            if largest is not None and args.grow:
                n, m = largest
                one = get_negation(prop).resources is not None
                while n < args.grow or (m < args.grow and not one):
                    n, m = (n + 1, m) if n <= m or one or m >= args.grow else (n, m + 1)
                    status, sec = cell(pol, prop, n, m, args.limit, args.workers)
                    if status != "proved":
                        break
                    largest = (n, get_negation(prop).resources or m)
            big = "-" if largest is None else f"{largest[0]}x{largest[1]}"
            if largest is None or any(c.startswith("cex") for c in row):
                big += "; smallest counterexample " + smallest_counterexample(pol, prop, args.limit, args.workers)
            print(f"{pol:<7}{prop:<26}" + "".join(f"{c:>18}" for c in row) + f"   {big}", flush=True)
    print(f"target: every cell decided at 2x2 within 60 s: {'met' if met2 else 'NOT met'}")
    if any(s == (3, 3) for s in sizes):
        print(f"target: DRF SP, SI, EF proved at 3x3 within {args.limit:g} s: {'met' if met3 else 'NOT met'}")


if __name__ == "__main__":
    main()
