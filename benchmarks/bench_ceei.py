"""CEEI speed: projected Newton on the Eisenberg-Gale dual against cvxpy.

1. ``solve(inst, "ceei")`` (Newton) on 10^5 users x 8 resources with weights
   and caps on part of the users (goal <= 1 s), against DRF's vectorised
   filling on the same instance measured in the same run (the cost of CEEI
   relative to the cheapest policy).
2. Newton against the same program in cvxpy with Clarabel (tolerances
   ``models.tolerances.CONIC_SOLVER_TOL``) on 10^4 x 8 (goal >= 20x, same
   answer to 1e-8 relative). Clarabel's exponential cones stall
   ("InsufficientProgress") on the weighted, capped 10^4 instance and often
   on others, so this comparison uses unit weights and no caps; with weights
   and caps it is made on 2,000 users. When Clarabel errors out at the tight
   tolerance, its default tolerances are tried (and the status says so).

Each comparison prints the largest relative difference of the task counts,
both solutions' capacity violations and the objective difference
``sum_i w_i log x_i`` (Newton minus Clarabel: >= 0 means Newton's answer is
at least as good).

Run: ``python benchmarks/bench_ceei.py``  (about a minute; ``--quick`` skips
the 10^4 cvxpy run)
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from _common import best_of, ratio, report
from bench_drf import make

from analyzer import Instance, get_policy, solve
from models.policies.ceei import build_program
from models.tolerances import conic_solver_options


def clarabel(inst: Instance) -> tuple[np.ndarray | None, float, str]:
    """Task counts from cvxpy + Clarabel alone, wall time (compilation
    included) and status. Clarabel is asked for CONIC_SOLVER_TOL first and,
    when it errors out, for its default tolerances; an ``optimal_inaccurate``
    answer is kept and labelled (the policy's fallback chain would reject it)."""
    import cvxpy as cp

    t0 = time.perf_counter()
    for label, options in (("tight", conic_solver_options("CLARABEL")), ("default tolerances", {})):
        prob, recover = build_program(inst)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                prob.solve(solver="CLARABEL", **options)
            except cp.error.SolverError:
                continue
        return recover(), time.perf_counter() - t0, f"{prob.status}, {label}"
    return None, time.perf_counter() - t0, "failed with both tolerance settings"


def compare(label: str, inst: Instance, goal: str) -> None:
    pol = get_policy("ceei")
    t_newton = best_of(lambda: pol.solve(inst), repeat=3)
    a = pol.solve(inst)
    x_c, t_c, status = clarabel(inst)
    report(f"ceei Newton, {label}", t_newton, f"({a.stats['iterations']} iterations)")
    report(f"ceei cvxpy + Clarabel, {label}", t_c, f"(status {status})")
    ratio(f"speed-up Newton vs cvxpy/Clarabel, {label}", t_c, t_newton, goal)
    if x_c is None:
        return
    b = type(a)(instance=inst, x=x_c, policy="ceei")
    rel = np.max(np.abs(a.x - x_c) / np.abs(x_c))
    obj = float(inst.weights @ (np.log(a.x) - np.log(x_c)))
    print(f"  max relative difference of task counts: {rel:.2e}; "
          f"violation Newton {a.max_violation():.1e}, Clarabel {b.max_violation():.1e}; "
          f"objective Newton - Clarabel: {obj:+.1e}")


def main() -> None:
    quick = "--quick" in sys.argv
    big = make(100_000, 8)
    t_ceei = best_of(lambda: solve(big, "ceei"), repeat=3)
    t_drf = best_of(lambda: solve(big, "drf"), repeat=3)
    a = solve(big, "ceei")
    report("ceei solve (Newton), 10^5 users x 8 resources", t_ceei,
           f"(goal <= 1 s; {a.stats['solver']}, {a.stats['iterations']} iterations, gap {a.stats['duality_gap']:.1e})")
    report("drf solve (vectorised filling), same instance", t_drf)
    print(f"{'ceei Newton time / drf filling time (same instance)':<60s} {t_ceei / t_drf:10.1f} x")

    compare("2,000 x 8 with weights and caps", make(2_000, 8), "")
    if not quick:
        plain = make(10_000, 8)
        plain = Instance.from_arrays(plain.capacity, plain.demands)
        compare("10^4 x 8, unit weights, no caps", plain, "(goal >= 20x)")


if __name__ == "__main__":
    main()
