"""fds/gfj at finite beta: Newton on the KKT system in log-prices
(:mod:`models.alpha_fair`, what ``solve`` uses) against the convex program in
cvxpy (:class:`models.convex.ConvexPolicy`, the previous path), both checked
against an independent 30-digit solve (``tests/alpha_fair_reference.py``,
nested bisection on the dual in mpmath).

For each policy and beta in {4, 8, 16}: N seeded small-integer instances
(one or two resources, up to four users, weights, caps including 0, zero
demand entries); prints the largest relative error of each path against the
reference, the number of conic answers rejected (SolverError), and the
total solve time of both paths with their ratio.

Run: ``python benchmarks/bench_alpha_fair.py [N]``  (N = 30 by default; a
minute or two, most of it the reference)
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _common import ratio  # puts the repository root on sys.path

from models import SolverError, get_policy
from models.convex import ConvexPolicy
from tests.alpha_fair_reference import alpha_fair_reference
from tests.exact_instances import small_integer_instances


def rel_err(x: np.ndarray, ref: np.ndarray) -> float:
    live = ref > 0
    return float(np.max(np.abs(x[live] - ref[live]) / ref[live], initial=0.0))


def main(n: int) -> None:
    insts = small_integer_instances(seed=4816, count=n, max_users=4, max_resources=2)
    print(f"{'policy':<12s} {'newton max rel err':>20s} {'cvxpy max rel err':>20s} {'cvxpy refused':>14s}")
    for name, unit in (("gfj", "tasks"), ("fds", "dominant")):
        for beta in (4, 8, 16):
            pol = get_policy(f"{name}:beta={beta}")
            e_new = e_old = 0.0
            t_new = t_old = 0.0
            refused = 0
            for inst in insts:
                ref = np.array(alpha_fair_reference(inst, beta, unit))
                t0 = time.perf_counter()
                x = pol.solve(inst).x
                t_new += time.perf_counter() - t0
                e_new = max(e_new, rel_err(x, ref))
                t0 = time.perf_counter()
                try:
                    y = ConvexPolicy.solve(pol, inst).x
                    e_old = max(e_old, rel_err(y, ref))
                except SolverError:
                    refused += 1
                t_old += time.perf_counter() - t0
            print(f"{pol.label:<12s} {e_new:20.2e} {e_old:20.2e} {refused:14d}")
            ratio(f"  {pol.label}: newton vs cvxpy on {n} instances ({t_new:.3f} s vs {t_old:.3f} s)", t_old, t_new)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
