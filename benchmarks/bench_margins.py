"""Cost of a property's numeric margin per instance, one at a time
(``Property.margin``, the baseline, measured in the same run) and in
batches of B instances (``Property.margin_many``), on the optimisation
phase's case: fresh candidates of one shape close to each other (the
paper's instance with its capacities and demands moved by a few percent;
nothing remembered from a screen).

Prints CPU microseconds per instance and the ratio against the baseline.

Run: ``python benchmarks/bench_margins.py [N]`` (N candidates per cell,
default 192).
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable

import numpy as np
from _common import ROOT  # noqa: F401  (puts the repo on sys.path)

from analyzer import Instance, get_policy
from analyzer.properties import get_property

POLICIES = ("drf", "asset", "ceei")
PROPERTIES = ("sharing-incentive", "envy-freeness", "strategy-proofness", "population-monotonicity",
              "bottleneck-fairness")
BATCHES = (1, 8, 64)


def candidates(prop: str, count: int, seed: int = 0) -> list[Instance]:
    """``count`` instances of one shape (3 users, 2 resources; for
    bottleneck fairness with a common dominant resource) near the paper's."""
    rng = np.random.default_rng(seed)
    cap = np.array([9.0, 18.0])
    dem = np.array([[1.0, 4.0], [3.0, 1.0], [2.0, 2.0]])
    if prop == "bottleneck-fairness":
        dem = np.array([[1.0, 4.0], [2.0, 6.0], [1.0, 3.0]])  # memory is everybody's dominant resource
    out = []
    for _ in range(count):
        moved = dem * np.exp(rng.normal(0, 0.03, (3, 2)))
        out.append(Instance.from_arrays(cap * np.exp(rng.normal(0, 0.03, 2)), moved))
    return out


def cpu(fn: Callable[[], object]) -> float:
    """CPU seconds of one call of ``fn``."""
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def main(count: int = 192) -> None:
    warnings.filterwarnings("ignore", message="Solution may be inaccurate")
    print(f"{'policy property':<40s} {'margin':>9s}" + "".join(f" {'B=' + str(b):>9s} {'ratio':>6s}" for b in BATCHES)
          + "   (CPU us per instance; ratio: margin / margin_many)")
    for policy in POLICIES:
        pol = get_policy(policy)
        for name in PROPERTIES:
            prop = get_property(name)
            fresh = candidates(name, count)
            prop.margin_many(pol, fresh[:2])  # warm-up (imports, caches)
            insts = candidates(name, count)
            one = cpu(lambda insts=insts, prop=prop, pol=pol: [prop.margin(pol, i) for i in insts]) / count
            row = f"{policy + ' ' + name:<40s} {one * 1e6:9.0f}"
            for b in BATCHES:
                insts = candidates(name, count)  # fresh objects: nothing remembered
                many = cpu(lambda insts=insts, b=b, prop=prop, pol=pol: [prop.margin_many(pol, insts[k:k + b])
                                                                         for k in range(0, count, b)]) / count
                row += f" {many * 1e6:9.0f} {one / many:6.1f}"
            print(row)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 192)
