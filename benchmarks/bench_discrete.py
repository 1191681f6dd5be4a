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
   or cache load timed apart, first: ``models.kernels.prepare``); without
   it, as Python.

4. A cluster (issue 24): 10,000 machines of 4 shapes, 1,000 users with
   fractional demands, first fit: placements per second (goal >= 3e6 /s),
   against the compiled kernel with a plain scan of the machines from each
   user's cursor (the kernel before its max-tree) and against an eager
   engine step (``Engine.allocate``: the per-machine dicts and free lists
   built, as ``fill`` did before they became lazy), measured in the same
   run, same picks; and fill with its placements read (the lazy dicts
   built). ``--cluster`` runs this part only.

Wall times; CPU times in brackets where the machine may be shared.
Run: ``python benchmarks/bench_discrete.py [--cluster]``
"""

from __future__ import annotations

import heapq
import math
import sys
import time
from collections.abc import Callable

import numpy as np
from _common import best_of, ratio, report

from analyzer import Instance
from models.compiled import numba_available
from models.discrete import Engine, fill, get_discrete_policy
from models.discrete import run as run_module
from models.kernels import prepare


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


def cluster(k: int = 10_000, n: int = 1_000, seed: int = 3) -> Instance:
    """``k`` machines of 4 shapes (cpu, mem) and ``n`` users with fractional
    demands (cpu in quarters, mem in halves)."""
    rng = np.random.default_rng(seed)
    shapes = [(16, 64), (32, 128), (64, 256), (48, 96)]
    users = {f"u{i}": {"demand": {"cpu": f"{int(rng.integers(1, 9))}/4", "mem": f"{int(rng.integers(1, 17))}/2"}}
             for i in range(n)}
    machines = [{"count": k // 4, "name": f"t{t}", "cpu": c, "mem": m} for t, (c, m) in enumerate(shapes)]
    return Instance.from_dict({"resources": {"cpu": sum(c for c, _ in shapes) * (k // 4),
                                             "mem": sum(m for _, m in shapes) * (k // 4)},
                               "users": users, "machines": machines})


def timed(fn: Callable[[], object], repeat: int = 3) -> tuple[float, float]:
    """Smallest wall and CPU seconds of ``repeat`` calls."""
    walls, cpus = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return min(walls), min(cpus)


def bench_cluster() -> None:
    """Section 4 of the module docstring."""
    cl = cluster()
    prepare(["first-fit"])  # compile (or load the cached) kernel: then it runs compiled whatever the size
    got = fill(cl, "drf", placement="first-fit")
    placed = int(got.tasks.sum())
    wall, cpu = timed(lambda: fill(cl, "drf", placement="first-fit"))
    seen_wall, seen_cpu = timed(lambda: fill(cl, "drf", placement="first-fit").placed)
    eager = Engine(cl, "drf", placement="first-fit").allocate()
    e_wall, e_cpu = timed(lambda: Engine(cl, "drf", placement="first-fit").allocate())
    run_module.FIRST_FIT_SCAN = True
    try:
        fill(cl, "drf", placement="first-fit")
        base = fill(cl, "drf", placement="first-fit")
        b_wall, b_cpu = timed(lambda: fill(cl, "drf", placement="first-fit"))
    finally:
        run_module.FIRST_FIT_SCAN = False
    assert base.picks == got.picks, "max-tree and scan place differently"
    assert eager.picks == got.picks and eager.placed == got.placed, "the eager step places differently"
    print(f"cluster: 10,000 machines of 4 shapes, {cl.n:,} users (fractional demands), {placed:,} placements, "
          f"{got.decisions:,} decisions")
    how = "max-tree kernel" if numba_available() else "Python loop, no numba: FIRST_FIT_SCAN and eager steps alike"
    report(f"fill, first fit, {how}", wall, f"[cpu {cpu:.4f} s]")
    print(f"{'placements per second, fill':<60s} {placed / wall:10.3g} /s  [cpu {placed / cpu:.3g} /s]  "
          "(goal >= 3e6 /s)")
    report("fill, then reading the per-machine placements", seen_wall, f"[cpu {seen_cpu:.4f} s]")
    report("baseline: an eager engine step (dicts and lists built)", e_wall, f"[cpu {e_cpu:.4f} s]")
    report("baseline: fill with the kernel scanning from the cursor", b_wall, f"[cpu {b_cpu:.4f} s]")
    print(f"{'placements per second, scanning kernel':<60s} {placed / b_wall:10.3g} /s  [cpu {placed / b_cpu:.3g} /s]")
    ratio("speed-up of fill over the eager step (CPU)", e_cpu, cpu)
    ratio("speed-up of the max-tree over the scan (wall)", b_wall, wall)
    ratio("speed-up of the max-tree over the scan (CPU)", b_cpu, cpu)


def main() -> None:
    if "--cluster" in sys.argv[1:]:
        bench_cluster()
        return
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
    report("warm-up: compile (or load the cached) first-fit kernel", prepare(["first-fit"]))
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
    bench_cluster()

if __name__ == "__main__":
    main()
