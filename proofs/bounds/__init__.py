"""Proved bounds on worst-case metrics: "no instance with n users and m
resources has metric worse than v", one z3 query per dominant-resource case
(the policy's encoding from :mod:`proofs.prover.encodings` plus the metric
being worse than ``v``). UNSAT in every case proves the bound; a
satisfiable case yields an instance worse than ``v``, which the caller
re-verifies exactly. One module per metric; z3 is imported only here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from models.registry import Registry

PROVED = "proved"
WORSE = "worse"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class BoundEncoding:
    """A metric as a formula.

    Attributes
    ----------
    metric : str
        The metric's name.
    trivial : Fraction or None
        A bound true by definition (the start of a bisection); ``None``
        for a metric with none (envy: unbounded above).
    worse_than : callable
        ``worse_than(market, x, v) -> list of z3 constraints`` satisfiable
        exactly when the allocation ``x`` on ``market`` has the metric worse
        than ``v``.
    """

    metric: str
    trivial: Fraction | None
    worse_than: Callable[[Any, Sequence[Any], Fraction], list[Any]]


@dataclass
class Answer:
    """The outcome of one query "is some instance worse than v?"."""

    status: str
    seconds: float
    demands: list[list[Fraction]] | None = None
    reason: str = ""
    cases: int = 0
    notes: list[str] = field(default_factory=list)


#: Bound encodings by metric name (one module per metric in this package).
BOUNDS: Registry[BoundEncoding] = Registry("bound encoding", lazy=(__name__,))


def supported(policy: str, metric: str) -> str | None:
    """``None`` when a bound can be proved for (policy, metric), else why not."""
    from proofs.prover.encodings import ENCODINGS

    if metric not in BOUNDS:
        return f"no SMT encoding of the metric {metric!r}"
    if policy not in ENCODINGS:
        return f"no SMT encoding of the policy {policy!r}"
    return None


def worse_than(policy: str, metric: str, n: int, m: int, domain: str, v: Fraction, timeout: float) -> Answer:
    """Decide whether an ``n`` x ``m`` instance in ``domain`` has the
    metric worse than ``v`` under ``policy`` (unweighted, uncapped,
    continuous; capacities normalised to 1, which loses nothing for the
    encoded policies: :mod:`proofs.prover.symbolic`)."""
    import z3

    from proofs.prover.encodings import get_encoding
    from proofs.prover.symbolic import dominant_cases, evaluate, market
    from proofs.prover.symmetry import symmetries

    enc, bound = get_encoding(policy), BOUNDS.get(metric)
    sym = symmetries(enc, (n,), m, domain)  # every metric treats users and resources alike; the policy may not
    fixed, free = ((), tuple(range(n))) if sym.users else (tuple(range(n)), ())
    cases: list[tuple[int, ...] | None] = (
        list(dominant_cases(m, fixed, free, 0, sym.resources)) if enc.normalise == "max" else [None])
    t0 = time.perf_counter()
    deadline = time.monotonic() + timeout
    for case in cases:
        mk, cons = market(n, m, domain, enc.normalise, case)
        x = [z3.Real(f"x{i}") for i in range(n)]
        solver = z3.Solver()
        solver.set("timeout", max(1, int((deadline - time.monotonic()) * 1000)))
        solver.add(*cons, *enc.formula(mk, x, "p"), *bound.worse_than(mk, x, v))
        answer = solver.check()
        if answer == z3.sat:
            return Answer(WORSE, time.perf_counter() - t0, evaluate(solver.model(), mk.d), cases=len(cases))
        if answer != z3.unsat:
            return Answer(UNKNOWN, time.perf_counter() - t0, reason=solver.reason_unknown(), cases=len(cases))
    return Answer(PROVED, time.perf_counter() - t0, cases=len(cases))
