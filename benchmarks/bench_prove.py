"""Time to prove property tables with ``analyzer.prove`` (z3).

    python benchmarks/bench_prove.py                 # the extended table at 3x2, the ratio, discrete DRF
    python benchmarks/bench_prove.py --size 2x2      # the extended table at 2x2
    python benchmarks/bench_prove.py --table2        # Table 2 cells at 2x2, 2x3, 3x2, 3x3, 600 s per cell
    python benchmarks/bench_prove.py --table2 --limit 60 --grow 5  # then grow proved cells up to 5x5
    python benchmarks/bench_prove.py --second-solver  # what cvc5's re-check costs at 2x2

Default run (issues 21 and 27): every cell of the extended table
(policies asset, bbf, ceei, drf, fds, gfj, leximin-tasks, single-resource,
slots, static, utilitarian x the properties with an SMT negation) proved
as ``table --prove 3,2`` proves a cell: each size up to 3x2 (and at least
up to the size the property speaks from), with positive demands and with
zeros, the case split reduced only by the symmetries each policy has
(checked); the total wall and CPU time (goal <= 10 minutes on 2 cores)
and each cell's outcome, with the reason of every unknown.
Baseline in the same run: Table 2's DRF ✓ cells at 3x3, proved with the
case split by dominant resource reduced by the symmetries of users and
resources and without (every assignment); the ratio is the speed-up of
the reduction. Then, when ``analyzer.proving_discrete``
exists, the discrete DRF rows at bound 4.

``--table2`` (issue 13): every (policy, property) cell of the paper's
Table 2 at 2x2, 2x3, 3x2, 3x3, and the largest size proved within a
per-cell limit. Targets: every ✓ cell proved at 2x2 in <= 60 s on 2
cores; DRF strategy-proofness, sharing incentive and envy-freeness proved
at 3x3 in <= 600 s; every ✗ cell refuted at the smallest size where it
fails. Single-resource fairness speaks only of one resource: its sizes
are n x 1.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from _common import ROOT  # noqa: F401  (puts the repository on sys.path)

from analyzer import prove
from analyzer.properties.base import available_properties
from proofs.prover.properties import get_negation

TABLE_POLICIES = ("drf", "asset", "ceei")
#: The extended table of issue 21.
EXTENDED_POLICIES = ("asset", "bbf", "ceei", "drf", "fds", "gfj", "leximin-tasks", "single-resource", "slots",
                     "static", "utilitarian")
#: Goal for the extended table at 3x2 (seconds, 2 cores).
EXTENDED_GOAL = 600.0
#: The size of the extended table's proofs.
EXTENDED_SIZE = "3x2"
#: Seconds per cell and size of the extended table (a cell z3 cannot decide
#: in that time is unknown, with the reason).
EXTENDED_LIMIT = 60.0


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


def outcome(proof: Any) -> str:
    """A cell's outcome in a few words, with the reason of a size not proved."""
    pos = proof.domains["positive"]
    if pos.counterexample is not None:
        return "✗ (prover)"
    if proof.complete:
        return "✓ " + proof.mark()
    if not proof.domains["zeros"].complete and proof.domains["zeros"].counterexample is None:
        return "? " + proof.text()
    return "? " + (pos.reason or proof.text())


def cpu_seconds() -> float:
    """User and system CPU seconds of this process and its finished
    children (the proof's worker processes)."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def extended(args: argparse.Namespace) -> None:
    """The extended table at ``args.size``, as ``table --prove N,M`` proves it."""
    from analyzer.table_proofs import prove_cell
    from proofs.prover.properties import negations

    (n, m), = sizes_of(args.size)
    props = [q for q in available_properties() if q in negations()]
    policies = args.policies.split(",") if args.policies else list(EXTENDED_POLICIES)
    counts: dict[str, int] = {}
    t0, c0 = time.perf_counter(), cpu_seconds()
    for pol in policies:
        for prop in props:
            t1 = time.perf_counter()
            text = outcome(prove_cell(pol, prop, n, m, timeout=args.limit, workers=args.workers))
            counts[text.split()[0]] = counts.get(text.split()[0], 0) + 1
            print(f"{pol:<16}{prop:<26}{time.perf_counter() - t1:8.2f}s  {text}", flush=True)
    total, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    print(f"extended table at {n}x{m} ({len(policies)} policies x {len(props)} properties, both domains): "
          f"{total:.1f} s wall, {cpu:.1f} s CPU; " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
          + f"; goal <= {EXTENDED_GOAL:g} s: {'met' if total <= EXTENDED_GOAL else 'NOT met'}")


def symmetry_ratio(args: argparse.Namespace) -> None:
    """Table 2's DRF ✓ cells (split by dominant resource) at 3x3, with and
    without the symmetry reduction of the case split."""
    from analyzer.proving import _reverify
    from proofs.prover.driver import run_cases
    from proofs.prover.encodings import get_encoding

    drf = ("sharing-incentive", "strategy-proofness", "envy-freeness", "pareto-efficiency", "population-monotonicity")
    cells = [("drf", q) for q in drf]
    times = {True: 0.0, False: 0.0}
    cases = {True: 0, False: 0}
    for pol, prop in cells:
        for symmetric in (True, False):
            def accept(case: Any, pol: str = pol, prop: str = prop) -> bool:
                return _reverify(pol, prop, get_encoding(pol).normalise is not None, case.witness) is not None

            t0 = time.perf_counter()
            results, _ = run_cases(pol, prop, 3, 3, "positive", args.limit, args.workers, accept, symmetric=symmetric)
            times[symmetric] += time.perf_counter() - t0
            cases[symmetric] += len(results)
            if not all(r.status == "unsat" for r in results):
                print(f"  {pol} {prop} {'with' if symmetric else 'without'} the reduction: not every case proved")
    print(f"Table 2 DRF ✓ cells at 3x3: {cases[True]} cases in {times[True]:.2f} s with the symmetry reduction, "
          f"{cases[False]} cases in {times[False]:.2f} s without: ratio {times[False] / times[True]:.1f}x")


def discrete(args: argparse.Namespace) -> None:
    """The discrete DRF rows at bound 4 (when the discrete prover exists)."""
    import importlib.util

    if importlib.util.find_spec("analyzer.proving_discrete") is None:
        print("discrete DRF rows: analyzer.proving_discrete is not available in this checkout")
        return
    props = list(available_properties())
    t0 = time.perf_counter()
    for prop in props:
        t1 = time.perf_counter()
        r = prove("drf", prop, 2, 2, setting="discrete", bound=4, timeout=args.limit, workers=args.workers)
        print(f"discrete drf {prop:<26}{time.perf_counter() - t1:8.2f}s  {r.status} {r.reason[:70]}", flush=True)
    print(f"discrete DRF rows at 2x2, bound 4: {time.perf_counter() - t0:.1f} s")


def second_solver(args: argparse.Namespace) -> None:
    """What cvc5's re-check of every unsat case costs at 2x2 (issue 27):
    each extended cell proved with ``analyzer.prove`` in both domains,
    z3's and cvc5's solver seconds summed from the cases of the same run
    (their ratio is the cost of the second solver), and the cells cvc5
    left unknown."""
    from proofs.prover.properties import negations

    policies = args.policies.split(",") if args.policies else list(EXTENDED_POLICIES)
    z3_s = cvc5_s = wall = 0.0
    lost: list[str] = []
    for pol in policies:
        for prop, neg in negations().items():
            for domain in ("positive", "zeros"):
                t1 = time.perf_counter()
                r = prove(pol, prop, 2, neg.resources or 2, domain=domain, timeout=args.limit, workers=args.workers)
                wall += time.perf_counter() - t1
                z3_s += sum(c.seconds for c in r.cases)
                cvc5_s += sum(c.recheck_seconds for c in r.cases)
                if r.status == "unknown" and "cvc5" in r.reason:
                    lost.append(f"{pol}/{prop}/{domain}")
    print(f"second solver at 2x2: {wall:.1f} s wall for {len(policies)} policies x {len(negations())} properties x 2 "
          f"domains; z3 {z3_s:.1f} s, cvc5 {cvc5_s:.1f} s of solver time (cvc5/z3 = {cvc5_s / max(z3_s, 1e-9):.1f}); "
          f"left unknown by cvc5: {', '.join(lost) or 'none'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table2", action="store_true", help="Table 2 cells at several sizes (issue 13)")
    ap.add_argument("--sizes", default="2x2,2x3,3x2,3x3")
    ap.add_argument("--limit", type=float, default=None,
                    help=f"seconds per cell and size (default 600 with --table2, else {EXTENDED_LIMIT:g})")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--grow", type=int, default=0, help="then grow proved cells n, m up to this size")
    ap.add_argument("--policies", default=None, help="policies (default: the table's)")
    ap.add_argument("--second-solver", action="store_true", help="only what cvc5's re-check costs at 2x2")
    ap.add_argument("--size", default=EXTENDED_SIZE, help=f"the extended table's size (default {EXTENDED_SIZE})")
    args = ap.parse_args()
    if args.second_solver:
        args.limit = args.limit or 120.0
        second_solver(args)
        return
    if not args.table2:
        args.limit = args.limit or EXTENDED_LIMIT
        extended(args)
        symmetry_ratio(args)
        discrete(args)
        return
    args.limit = args.limit or 600.0
    args.policies = args.policies or ",".join(TABLE_POLICIES)
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
