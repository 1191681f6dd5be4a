"""Discrete progressive filling speed (Algorithm 1 of Ghodsi et al., NSDI 2011).

1. 10^6 placements on a pool (100 users x 4 resources, integer demands,
   weights): the batched engine (level jumps + per-user runs) against a
   plain heapq loop (one heap operation per task, integer keys) measured in
   the same run, with the same picks. Goal: <= 1 s, and the ratio.
2. The same with pick recording off (tasks only); the ``skip`` variant
   (users dropped one by one at the end); 10,000 users.
3. On machines (first fit): 8,000 machines, 20 users, ~10^5 placements:
   placements per second (goal >= 10^6 / s), with the
   one-decision-per-heap-operation engine as baseline, same picks. With
   numba installed the batched first-fit loop runs compiled (compilation
   timed apart, on a small cluster, first); without it, as Python.

Wall times; CPU times in brackets where the machine may be shared.
Run: ``python benchmarks/bench_discrete.py``
"""

from __future__ import annotations

import heapq
import math
import time

import numpy as np
from _common import best_of, ratio, report

from analyzer import Instance
from models.compiled import numba_available
from models.discrete import fill, get_discrete_policy


def pool(n: int = 100, m: int = 4, tasks: float = 1e6, seed: int = 0) -> Instance:
    rng = np.random.default_rng(seed)
    demands = rng.integers(1, 10, size=(n, m)).astype(float)
    weights = rng.choice([1.0, 2.0, 3.0], size=n)
    capacity = np.ceil(demands.sum(axis=0) * tasks / n)
    return Instance.from_arrays(capacity, demands, weights=weights)


def machines(k: int = 8000, n: int = 20, seed: int = 1) -> Instance:
    rng = np.random.default_rng(seed)
    demands = rng.integers(1, 5, size=(n, 3))
    node = [64, 256, 32]
    users = {f"u{i}": {"demand": dict(zip("abc", map(int, demands[i]), strict=True))} for i in range(n)}
    return Instance.from_dict({"resources": {r: c * k for r, c in zip("abc", node, strict=True)}, "users": users,
                               "machines": [{"count": k, **dict(zip("abc", node, strict=True))}]})


def plain_heapq(inst: Instance) -> tuple[list[int], list[int]]:
    """Algorithm 1 as written: pop the lowest key, place one task if it
    fits, push the user back; stop at the first task that does not fit."""
    rates = get_discrete_policy("drf").rates(inst)
    den = 1
    for r in rates:
        den = math.lcm(den, r.denominator)
    step = [int(r * den) for r in rates]
    demand = [[int(v) for v in row] for row in inst.demands]
    free = [int(v) for v in inst.capacity]
    tasks = [0] * inst.n
    order = sorted(range(inst.n), key=lambda i: (-rates[i], i))  # largest-task tie-break
    rank = [0] * inst.n
    for pos, i in enumerate(order):
        rank[i] = pos
    heap = [(0, rank[i], i) for i in range(inst.n)]
    heapq.heapify(heap)
    picks: list[int] = []
    while heap:
        key, r, i = heapq.heappop(heap)
        d = demand[i]
        if any(f < v for f, v in zip(free, d, strict=True)):
            break
        for j, v in enumerate(d):
            free[j] -= v
        tasks[i] += 1
        picks.append(i)
        heapq.heappush(heap, (key + step[i], r, i))
    return tasks, picks


def main() -> None:
    inst = pool()
    batched = fill(inst, "drf")
    placements = int(batched.tasks.sum())
    t_batch = best_of(lambda: fill(inst, "drf"), repeat=3)
    t_tasks = best_of(lambda: fill(inst, "drf", record_picks=False), repeat=3)
    t_plain = best_of(lambda: plain_heapq(inst), repeat=1)
    tasks, picks = plain_heapq(inst)
    assert tasks == batched.tasks.tolist() and picks == batched.picks, "batched and plain loops disagree"
    print(f"pool: {inst.n} users x {inst.m} resources, {placements:,} placements, "
          f"{batched.decisions} heap decisions (batched)")
    report(f"batched engine, picks recorded ({placements:,} placements)", t_batch, "(goal <= 1 s)")
    report("batched engine, tasks only", t_tasks)
    report("plain heapq loop (one heap operation per task)", t_plain)
    ratio("speed-up of batched over plain heapq", t_plain, t_batch)
    skip = fill(inst, "drf", on_full="skip")
    t_skip = best_of(lambda: fill(inst, "drf", on_full="skip"), repeat=3)
    report(f"batched engine, skip variant ({int(skip.tasks.sum()):,} placements, "
           f"{skip.decisions} decisions)", t_skip, "(goal <= 1 s)")
    many = pool(n=10_000, tasks=1e6, seed=2)
    big = fill(many, "drf", on_full="skip")
    t_many = best_of(lambda: fill(many, "drf", on_full="skip"), repeat=1)
    report(f"10,000 users, skip ({int(big.tasks.sum()):,} placements, {big.decisions} decisions)", t_many)

    print(f"numba: {'yes' if numba_available() else 'no (pure Python loops)'}")
    t0 = time.perf_counter()
    fill(machines(k=20), "drf", placement="first-fit")
    report("warm-up: compile (or load the cached) kernel, 20 machines", time.perf_counter() - t0)
    cl = machines()
    ff = fill(cl, "drf", placement="first-fit")
    placed = int(ff.tasks.sum())
    c0 = time.process_time()
    t_ff = best_of(lambda: fill(cl, "drf", placement="first-fit"), repeat=3)
    cpu_ff = (time.process_time() - c0) / 3
    t_one = best_of(lambda: fill(cl, "drf", placement="first-fit", batch=False), repeat=1)
    assert fill(cl, "drf", placement="first-fit", batch=False).picks == ff.picks
    print(f"machines: {len(ff.placed)} machines, {cl.n} users, {placed:,} placements (first fit)")
    report("batched runs, first fit", t_ff, f"[cpu {cpu_ff:.4f} s]")
    print(f"{'placements per second, batched runs, first fit':<60s} {placed / t_ff:10.3g} /s  "
          f"[cpu {placed / cpu_ff:.3g} /s]  (goal >= 1e6 /s)")
    report("one decision per heap operation, first fit", t_one)
    ratio("speed-up of batched runs on machines", t_one, t_ff)

if __name__ == "__main__":
    main()
