"""Proved bounds on worst-case metrics: "no instance with n users and m
resources has metric worse than v", one z3 query per dominant-resource case
(the policy's encoding from :mod:`proofs.prover.encodings` plus the metric
being worse than ``v``). UNSAT in every case proves the bound; a
satisfiable case yields an instance worse than ``v`` (and, for a metric
defined by a deviation, the deviation: a lie), which the caller re-verifies
exactly. One module per metric; z3 is imported only here. A bound z3
proves is then re-checked by cvc5 on the same SMT-LIB2 text, case by case
(:func:`confirm`): a bound counts as proved only when both solvers answer
``unsat`` on every case, as a proof of a property does
(:mod:`proofs.prover.solving`).

A metric of the allocation alone (efficiency, envy, sharing incentive,
utilization) is a formula over the policy's allocation ``x``; a metric of a
deviation (the manipulation gain: a lie) is a whole query, built like the
negation of the property it quantifies (strategy-proofness) and split into
the same cases (:func:`proofs.prover.driver.split`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from models import PolicyError
from models.policy import parse_policy_spec
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
        for a metric with none (envy, the manipulation gain: unbounded
        above a priori).
    worse_than : callable or None
        ``worse_than(market, x, v) -> list of z3 constraints`` satisfiable
        exactly when the allocation ``x`` on ``market`` has the metric worse
        than ``v`` (a metric of the allocation).
    deviation : callable or None
        ``deviation(encoding, n, m, domain, case, v) -> Query`` (a
        :class:`proofs.prover.properties.Query`): the whole query of a
        metric defined by a deviation, its witness naming the deviation.
    negation : str or None
        The property whose case split :attr:`deviation` shares.
    """

    metric: str
    trivial: Fraction | None
    worse_than: Callable[[Any, Sequence[Any], Fraction], list[Any]] | None = None
    deviation: Callable[..., Any] | None = None
    negation: str | None = None


@dataclass
class Answer:
    """The outcome of one query "is some instance worse than v?".

    ``demands`` (capacities 1) and, for a deviation, ``witness`` (e.g.
    ``{"report": [...]}``) describe the instance z3 built when ``WORSE``.
    """

    status: str
    seconds: float
    demands: list[list[Fraction]] | None = None
    reason: str = ""
    cases: int = 0
    notes: list[str] = field(default_factory=list)
    witness: dict[str, Any] = field(default_factory=dict)
    solvers: tuple[str, ...] = ()


#: Bound encodings by metric name (one module per metric in this package).
BOUNDS: Registry[BoundEncoding] = Registry("bound encoding", lazy=(__name__,))


def supported(policy: str, metric: str) -> str | None:
    """``None`` when a bound can be proved for (policy, metric), else why
    not. ``policy`` is a label (``"fds:beta=1"``); the built-in encodings
    and families count, not the tracer of user policies (its symmetries
    are not the bound's to assume)."""
    from proofs.prover.encodings import ENCODINGS, FACTORIES, get_encoding

    if metric not in BOUNDS:
        return f"no SMT encoding of the metric {metric!r}"
    name, params = parse_policy_spec(policy)
    if name not in FACTORIES and (name not in ENCODINGS or params):
        return f"no SMT encoding of the policy {policy!r}"
    try:
        get_encoding(policy)
    except PolicyError as e:
        return str(e)
    return None


def worse_than(policy: str, metric: str, n: int, m: int, domain: str, v: Fraction, timeout: float) -> Answer:
    """Decide whether an ``n`` x ``m`` instance in ``domain`` has the
    metric worse than ``v`` under ``policy`` (a label; unweighted,
    uncapped, continuous; capacities normalised to 1, which loses nothing
    for the encoded policies: :mod:`proofs.prover.symbolic`)."""
    import z3

    from proofs.prover.symbolic import evaluate

    bound = BOUNDS.get(metric)
    t0 = time.perf_counter()
    deadline = time.monotonic() + timeout
    cases = _cases(policy, bound, n, m, domain)
    for case in cases:
        constraints, terms = _query(policy, bound, n, m, domain, case, v)
        solver = z3.Solver()
        solver.set("timeout", max(1, int((deadline - time.monotonic()) * 1000)))
        solver.add(*constraints)
        answer = solver.check()
        if answer == z3.sat:
            got = {k: evaluate(solver.model(), t) for k, t in terms.items()}
            return Answer(WORSE, time.perf_counter() - t0, got.pop("demands"), cases=len(cases), witness=got)
        if answer != z3.unsat:
            return Answer(UNKNOWN, time.perf_counter() - t0, reason=solver.reason_unknown(), cases=len(cases))
    return Answer(PROVED, time.perf_counter() - t0, cases=len(cases), solvers=(f"z3 {z3.get_version_string()}",))


def confirm(policy: str, metric: str, n: int, m: int, domain: str, v: Fraction, timeout: float) -> Answer:
    """cvc5 on every case of the query "worse than ``v``" that z3 proved
    (:func:`worse_than`), each as its SMT-LIB2 script: ``PROVED`` with both
    solvers named when cvc5 answers ``unsat`` on every case, else
    ``UNKNOWN`` with what cvc5 said (a model: the solvers disagree)."""
    from proofs.prover.cvc5_check import cvc5_version, recheck, refusal
    from proofs.prover.smtlib import script, z3_version

    bound = BOUNDS.get(metric)
    t0 = time.perf_counter()
    deadline = time.monotonic() + timeout
    cases = _cases(policy, bound, n, m, domain)
    for k, case in enumerate(cases):
        constraints, _ = _query(policy, bound, n, m, domain, case, v)
        text = script(constraints, {"fairalloc worst": f"case {k + 1} of the bound: no {n} x {m} instance ({domain}) "
                                                       f"has {metric} worse than {v} under {policy}",
                                    "meaning": "unsat proves the bound on this case"})
        why = refusal(recheck(text, deadline - time.monotonic()))
        if why is not None:
            return Answer(UNKNOWN, time.perf_counter() - t0, reason=f"case {k + 1}: {why}", cases=len(cases))
    return Answer(PROVED, time.perf_counter() - t0, cases=len(cases), solvers=(z3_version(), cvc5_version()))


def _cases(policy: str, bound: BoundEncoding, n: int, m: int, domain: str) -> list[Any]:
    """The cases: the property's split for a deviation (under the
    symmetries the policy has, :func:`proofs.prover.driver.split`), else
    the dominant-resource cases with users interchangeable and resources
    renamed only as far as the policy is anonymous and neutral (every
    allocation metric treats users and resources alike; the policy may
    not: :func:`proofs.prover.symmetry.symmetries`)."""
    from proofs.prover.encodings import get_encoding
    from proofs.prover.symbolic import dominant_cases
    from proofs.prover.symmetry import symmetries

    if bound.negation is not None:
        from proofs.prover.driver import split

        return list(split(policy, bound.negation, n, m, domain))
    enc = get_encoding(policy)
    if enc.normalise != "max":
        return [None]
    sym = symmetries(enc, (n,), m, domain)
    fixed, free = ((), tuple(range(n))) if sym.users else (tuple(range(n)), ())
    return list(dominant_cases(m, fixed, free, 0, sym.resources))


def _query(policy: str, bound: BoundEncoding, n: int, m: int, domain: str, case: Any, v: Fraction
           ) -> tuple[list[Any], dict[str, Any]]:
    """The constraints of one case and the terms of its witness."""
    import z3

    from proofs.prover.encodings import get_encoding
    from proofs.prover.symbolic import market

    enc = get_encoding(policy)
    if bound.deviation is not None:
        q = bound.deviation(enc, n, m, domain, case, v)
        return q.constraints, {k: t for k, t in q.witness.items() if k in ("demands", "report", "roles")}
    assert bound.worse_than is not None, f"bound encoding {bound.metric!r} defines neither form"
    mk, cons = market(n, m, domain, enc.normalise, case)
    x = [z3.Real(f"x{i}") for i in range(n)]
    return [*cons, *enc.formula(mk, x, "p"), *bound.worse_than(mk, x, v)], {"demands": mk.d}
