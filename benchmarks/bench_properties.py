"""Cost of each property check for DRF, asset fairness and CEEI (on a fifth
of the instances): milliseconds per instance on random small instances (n = 2..4, m = 1..3, the paper's class:
positive integer demands, unweighted, no caps), against the cost of one
numeric DRF solve measured in the same run.

Run: ``python benchmarks/bench_properties.py [N]`` (N instances, default 200).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from _common import ROOT  # noqa: F401  (puts the repo on sys.path)

from analyzer import check, get_policy
from analyzer.properties import available_properties
from tests.strategies import random_instance


def main(n_instances: int = 200) -> None:
    warnings.filterwarnings("ignore", message="Solution may be inaccurate")
    rng = np.random.default_rng(0)
    insts = [random_instance(rng, n_max=4, m_max=3, zeros=False, weights=False, caps=False)
             for _ in range(n_instances)]
    drf = get_policy("drf")
    t0 = time.perf_counter()
    for inst in insts:
        drf.solve(inst)
    base_ms = (time.perf_counter() - t0) / n_instances * 1000
    print(f"{'one numeric DRF solve (baseline)':<48s} {base_ms:8.3f} ms/instance")
    for policy, share in (("drf", 1), ("asset", 1), ("ceei", 5)):
        some = insts[: max(1, n_instances // share)]
        for name, cls in available_properties().items():
            mode = cls.modes[0]  # the dynamic setting's properties: the policy recomputed at every arrival
            check(policy, insts[0], name, mode=mode)  # warm-up (imports)
            t0 = time.perf_counter()
            found = sum(check(policy, inst, name, mode=mode) is not None for inst in some)
            ms = (time.perf_counter() - t0) / len(some) * 1000
            print(f"{policy + ' ' + name:<48s} {ms:8.3f} ms/instance  {ms / base_ms:7.1f} x solve"
                  f"  ({found} violations in {len(some)})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
