"""One full allocation round at production scale: 10,000 machines, 1,000 users.

The grid of Apache Mesos's allocator benchmarks (10,000 agents and 1,000
frameworks; Mesos reported about 1 s per allocation round on it in 2018).
Agents here are identical <32 cpu, 128 GiB mem, 1 gpu>; every user asks
for 1-4 cpu and 1-16 GiB per task, one in ten also for a gpu (seeded), so
roughly 300,000 tasks are placed. Timed, best of ``--repeat``:

* baseline -- the engine's plain per-decision heap loop
  (``models.discrete.fill(..., "drf", batch=False)``: one heap pop and one
  first-fit placement per task), measured in the same run;
* ``mesos`` -- one round of coarse offers (every agent offered once);
* ``yarn``, ``kueue``, ``mesos:offers=false`` -- per-task heap loops with
  their own keys.

``volcano`` recomputes its tree at every decision (O(n) per task) and is
timed on a tenth of the grid. Run: ``python benchmarks/bench_allocation_round.py``.
"""

from __future__ import annotations

import argparse

import numpy as np
from _common import best_of, ratio, report

from models import Instance
from models.discrete import fill


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machines", type=int, default=10_000)
    ap.add_argument("--users", type=int, default=1_000)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    inst = grid(args.machines, args.users)
    print(f"grid: {args.machines} machines x {args.users} users")

    def run(policy: str, **kw: object) -> object:
        return fill(inst, policy, on_full="skip", record_picks=False, **kw)

    out = run("drf", batch=False)
    print(f"baseline places {int(out.tasks.sum())} tasks in {out.decisions} decisions")
    base = best_of(lambda: run("drf", batch=False), args.repeat)
    report("baseline: per-decision heap loop (drf, first-fit)", base)
    for policy in ("mesos", "mesos:offers=false", "yarn", "kueue"):
        res = run(policy)
        t = best_of(lambda p=policy: run(p), args.repeat)
        report(f"{policy}: one full round ({int(res.tasks.sum())} tasks, {res.decisions} decisions)", t)
        ratio(f"{policy}: speed vs the baseline", base, t)
    small = grid(args.machines // 10, args.users // 10)
    t_small_base = best_of(lambda: fill(small, "drf", on_full="skip", batch=False, record_picks=False), 1)
    t_small = best_of(lambda: fill(small, "volcano", on_full="skip", record_picks=False), 1)
    report(f"volcano on {args.machines // 10} x {args.users // 10}", t_small)
    ratio("volcano: speed vs the baseline on that grid", t_small_base, t_small)


if __name__ == "__main__":
    main()
