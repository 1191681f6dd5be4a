"""How large a CEEI instance the exact path (proofs.ceei_exact) solves in 10 s.

For m = 2, 3, 4 resources and a growing number n of users (strictly
positive random integer demands, weights 1..3, no caps, capacities three
times the total demand per task so that every resource tends to bind),
the exact solver runs in a child process with the Groebner size limit
lifted; a size that takes longer than the budget is stopped. Each
line shows the exact time and its ratio to the numeric cvxpy solve of the
same instance, measured in the same run. The last lines give the largest
instance (users x resources) solved exactly within the budget, per m and
overall, and the time of the interval enclosure on the next size.

The default reach of the exact path (``proofs.ceei_exact.EXACT_REACH``)
comes from this script. Measured on the 2-core development machine under
load (2026-11-23): 20 users x 2 resources (7.3 s, degree-14 number field),
8 x 3, 6 x 4; the next sizes (24 x 2, 10 x 3, 7 x 4) exceed 10 s, where the
interval enclosure takes about 0.1 s.

Run: ``python benchmarks/bench_ceei_exact.py [--budget 10] [--seed 0]``
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time
from typing import Any

import numpy as np
from _common import best_of, report

from analyzer import Instance, get_policy

#: Numbers of users tried, in order (stops at the first size over the budget).
SIZES: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40)


def make(n: int, m: int, seed: int) -> Instance:
    rng = np.random.default_rng(seed * 1000 + n * 10 + m)
    demands = rng.integers(1, 10, size=(n, m))
    capacity = demands.sum(axis=0) * 3  # the same multiple everywhere: every resource tends to bind
    weights = rng.integers(1, 4, size=n)
    return Instance.from_exact([int(v) for v in capacity], demands.tolist(), weights=[int(v) for v in weights])


def _child(n: int, m: int, seed: int, max_unknowns: int, out: Any) -> None:
    from proofs.ceei_exact import solve_ceei_exact

    solve_ceei_exact(get_policy("ceei"), make(3, 2, seed + 1))  # warm-up: imports, sympy caches
    inst = make(n, m, seed)
    pol = get_policy("ceei")
    num = pol.solve(inst)
    t_num = best_of(lambda: pol.solve(inst), repeat=1)
    t0 = time.perf_counter()
    a = solve_ceei_exact(pol, inst, max_unknowns=max_unknowns, numeric=num)
    t_exact = time.perf_counter() - t0
    out.put((t_exact, t_num, a.exact, int(a.stats.get("field_degree", 0)), a.stats.get("solver", "")))


def run_one(n: int, m: int, seed: int, budget: float, max_unknowns: int) -> tuple[float, float, bool, int, str] | None:
    """Time one size in a child process; ``None`` when over the budget."""
    q: Any = mp.Queue()
    p = mp.Process(target=_child, args=(n, m, seed, max_unknowns, q))
    p.start()
    # the child also imports cvxpy/sympy and solves numerically: allow for that
    p.join(budget + 30)
    if p.is_alive():
        p.terminate()
        p.join()
        return None
    if q.empty():
        return None
    res = q.get()
    return None if res[0] > budget else res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-users", type=int, default=40)
    args = ap.parse_args()
    best: dict[int, int] = {}
    for m in (2, 3, 4):
        for n in [v for v in SIZES if v <= args.max_users]:
            res = run_one(n, m, args.seed, args.budget, max_unknowns=10**9)
            if res is None:
                print(f"  {n} users x {m} resources: over {args.budget:g} s (stopped)")
                enc = run_one(n, m, args.seed, args.budget, max_unknowns=0)
                if enc is not None:
                    report(f"  enclosure instead ({enc[4]}), {n} x {m}", enc[0])
                break
            t_exact, t_num, exact, degree, solver = res
            report(f"ceei exact ({solver}, degree {degree}), {n} users x {m} resources", t_exact,
                   f"({t_exact / t_num:.0f}x the numeric solve)")
            if exact:
                best[m] = n
    print()
    for m, n in best.items():
        print(f"largest exact CEEI within {args.budget:g} s with {m} resources: {n} users x {m} resources")
    if best:
        m, n = max(best.items(), key=lambda kv: kv[0] * kv[1])
        print(f"largest overall (users x resources): {n} x {m} = {n * m} demand entries")


if __name__ == "__main__":
    main()
