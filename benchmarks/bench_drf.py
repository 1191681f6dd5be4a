"""DRF speed: vectorised continuous progressive filling.

1. ``solve(inst, "drf")`` on 10^6 users x 8 resources (goal <= 0.5 s), with
   weights and caps on part of the users.
2. The same policy on 2,000 users: vectorised filling against its definition
   as iterated cvxpy LPs (goal >= 100x), measured in the same run.

Run: ``python benchmarks/bench_drf.py``
"""

from __future__ import annotations

import numpy as np
from _common import best_of, ratio, report

from analyzer import Instance, get_policy, solve


def make(n: int, m: int, seed: int = 0) -> Instance:
    rng = np.random.default_rng(seed)
    demands = rng.uniform(0.1, 4.0, size=(n, m)) * (rng.random((n, m)) > 0.2)
    demands[np.arange(n), rng.integers(0, m, n)] += 0.5  # no all-zero rows
    capacity = demands.sum(axis=0) * rng.uniform(0.5, 5.0, size=m)
    weights = rng.choice([1.0, 2.0, 3.0], size=n)
    caps = np.where(rng.random(n) < 0.1, rng.uniform(0.5, 10, n), np.inf)
    return Instance.from_arrays(capacity, demands, weights=weights, max_tasks=caps)


def main() -> None:
    big = make(1_000_000, 8)
    t_big = best_of(lambda: solve(big, "drf"), repeat=3)
    report("drf solve, 10^6 users x 8 resources", t_big, "(goal <= 0.5 s)")

    small = make(2_000, 8, seed=1)
    pol = get_policy("drf")
    t_np = best_of(lambda: pol.solve(small), repeat=5)
    t_lp = best_of(lambda: pol.solve_program(small), repeat=1)
    x_np, x_lp = pol.solve(small).x, pol.solve_program(small).x
    report("drf numpy filling, 2,000 x 8", t_np)
    report("drf as iterated cvxpy LPs (HiGHS), 2,000 x 8", t_lp)
    ratio("speed-up numpy vs cvxpy LP sequence", t_lp, t_np, "(goal >= 100x)")
    print(f"max |x_numpy - x_lp| / max(x): {np.max(np.abs(x_np - x_lp)) / np.max(x_np):.2e}")


if __name__ == "__main__":
    main()
