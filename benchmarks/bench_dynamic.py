"""The dynamic setting's hot paths (issue 32), each against a baseline
measured in the same run:

1. the search's screen: Dynamic DRF's steps of a chunk of 256 random
   instances (n = 4, m = 3, the paper's class) in one vectorised batch
   (``DynamicPolicy.steps_batch``) against one instance at a time;
2. one long run: Dynamic DRF over 500 arrivals (m = 3), water-filling from
   floors vectorised over the users, against DRF recomputed at every
   arrival (500 vectorised static solves, the naive lift).

Run: ``python benchmarks/bench_dynamic.py``. Prints CPU seconds and ratios.
"""

from __future__ import annotations

import time

import numpy as np
from _common import ROOT  # noqa: F401  (puts the repo on sys.path)

from analyzer import Instance, dynamic_run, get_policy


def cpu(fn: object) -> float:
    """CPU seconds of one call (best of 3)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        fn()  # type: ignore[operator]
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    rng = np.random.default_rng(0)
    pol = get_policy("dynamic-drf")
    D = rng.integers(1, 10, size=(256, 4, 3)).astype(float)
    R = np.array([20.0, 30.0, 25.0])
    w, caps = np.ones(4), np.full((256, 4), np.inf)
    batch = cpu(lambda: pol.steps_batch(D, R, w, caps))
    insts = [Instance.from_arrays(R, D[b]) for b in range(256)]
    one = cpu(lambda: [pol.steps(inst) for inst in insts])
    print(f"{'screen chunk: 256 instances, batched':<52s} {batch:8.3f} CPU s")
    print(f"{'screen chunk: one instance at a time (baseline)':<52s} {one:8.3f} CPU s   {one / batch:6.1f} x")
    big = Instance.from_arrays(np.array([1000.0, 1000.0, 1000.0]), rng.integers(1, 10, size=(500, 3)).astype(float))
    run = cpu(lambda: dynamic_run(big, "dynamic-drf"))
    lift = cpu(lambda: dynamic_run(big, "recompute:policy=drf"))
    print(f"{'500 arrivals: dynamic-drf':<52s} {run:8.3f} CPU s")
    print(f"{'500 arrivals: drf recomputed (baseline)':<52s} {lift:8.3f} CPU s   {lift / run:6.1f} x")


if __name__ == "__main__":
    main()
