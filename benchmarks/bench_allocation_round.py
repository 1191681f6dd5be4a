"""One full allocation round at production scale: 10,000 machines, 1,000 users.

The grid of Apache Mesos's allocator benchmarks (10,000 agents and 1,000
frameworks; Mesos reported about 1 s per allocation round on it in 2018).
Agents here are identical <32 cpu, 128 GiB mem, 1 gpu>; every user asks
for 1-4 cpu and 1-16 GiB per task, one in ten also for a gpu (seeded), so
about 130,000 tasks are placed. Each policy runs once, and is compared
with the engine's plain per-decision heap loop measured in the same run
(``models.discrete.fill(..., "drf", batch=False)``: one heap pop and one
first-fit placement per task).

On the full grid: ``mesos`` (one round of coarse offers: every agent
offered once); with ``--all`` also the per-task variants. On a tenth of
the grid: every variant, including ``volcano``, which recomputes its tree
at every decision (O(n) per task). Goal on the full grid: ``mesos`` in
<= 0.1 s and >= 100x faster than the baseline. With numba installed
(``pip install .[fast]``) the offer round runs compiled; the compilation
(cached on disk after the first run) is timed apart, on a small grid,
before the measurements. Each line gives the wall time and, in brackets,
the process CPU time (the machine may be shared); ``mesos`` is the best of
3 runs, the others one run; as with ``timeit``, the garbage collector is
off during a timed call. Run:
``python benchmarks/bench_allocation_round.py [--all]``.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable

import numpy as np
from _common import ratio, report

from models import Instance
from models.compiled import numba_available
from models.discrete import DiscreteFill, fill
from models.kernels import prepare

#: Variants that hand out one task per decision (placement dominates their time at scale).
PER_TASK = ["mesos:offers=false", "yarn", "kueue"]


def grid(machines: int, users: int, seed: int = 0) -> Instance:
    """The benchmark instance (seeded)."""
    rng = np.random.default_rng(seed)
    cpu = rng.integers(1, 5, size=users)
    mem = rng.integers(1, 17, size=users)
    gpu = (rng.random(users) < 0.1).astype(int)
    agent = {"cpu": 32, "mem": 128, "gpu": 1}
    return Instance.from_dict({
        "resources": {r: v * machines for r, v in agent.items()},
        "users": {f"u{i:04d}": {"demand": {"cpu": int(cpu[i]), "mem": int(mem[i]), "gpu": int(gpu[i])}}
                  for i in range(users)},
        "machines": [{"count": machines, **agent}],
    })


def timed(fn: Callable[[], DiscreteFill], repeat: int = 1) -> tuple[DiscreteFill, float, float]:
    """The result of a call and its smallest wall and CPU times (seconds)
    over ``repeat`` calls; as ``timeit`` does, the garbage collector runs
    before and is off during each call."""
    walls, cpus = [], []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            t0, c0 = time.perf_counter(), time.process_time()
            out = fn()
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        finally:
            gc.enable()
    return out, min(walls), min(cpus)


def compare(inst: Instance, policies: list[str], label: str, goals: bool = False) -> None:
    """Time the baseline and ``policies`` on ``inst``, one run each (``goals``: print the
    issue's targets for ``mesos``)."""

    def run(policy: str, **kw: object) -> DiscreteFill:
        return fill(inst, policy, on_full="skip", record_picks=False, **kw)

    out, base, base_cpu = timed(lambda: run("drf", batch=False))
    report(f"[{label}] baseline: per-decision heap loop, drf ({int(out.tasks.sum())} tasks)", base,
           f"[cpu {base_cpu:.4f} s]")
    for policy in policies:
        res, t, cpu = timed(lambda p=policy: run(p), repeat=3 if policy == "mesos" else 1)
        report(f"[{label}] {policy} ({int(res.tasks.sum())} tasks, {res.decisions} decisions)", t,
               f"[cpu {cpu:.4f} s]{'  (goal <= 0.1 s)' if goals and policy == 'mesos' else ''}")
        ratio(f"[{label}] {policy}: speed vs the baseline (wall)", base, t,
              "(goal >= 100 x)" if goals and policy == "mesos" else "")
        ratio(f"[{label}] {policy}: speed vs the baseline (cpu)", base_cpu, cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machines", type=int, default=10_000)
    ap.add_argument("--users", type=int, default=1_000)
    ap.add_argument("--all", action="store_true",
                    help="also time the per-task variants on the full grid (several minutes each)")
    args = ap.parse_args()
    full = f"{args.machines} x {args.users}"
    print(f"numba: {'yes' if numba_available() else 'no (pure Python kernels)'}")
    report("warm-up: compile (or load the cached) offer kernel", prepare(["mesos-offers"]))
    compare(grid(args.machines, args.users), ["mesos", *(PER_TASK if args.all else [])], full, goals=True)
    tenth = (args.machines // 10, args.users // 10)
    compare(grid(*tenth), ["mesos", *PER_TASK, "volcano"], f"{tenth[0]} x {tenth[1]}")


if __name__ == "__main__":
    main()
