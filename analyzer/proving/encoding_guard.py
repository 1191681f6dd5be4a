"""The guard before a proof: an SMT encoding checked against its policy's
exact solver on seeded instances of the class, each in the proof's normal
form, so the prover can fail when an encoding is wrong instead of proving
what a wrong formula satisfies (issue 27: at least 50 decided instances a
class, never fewer)."""

from __future__ import annotations

import functools
from contextvars import ContextVar
from fractions import Fraction
from typing import Any

from models import Instance, PolicyError, get_policy

#: Seeded instances of the class on which :func:`prove` checks an encoding
#: against its policy's exact solver before trusting it (each in the
#: proof's normal form: :func:`proofs.prover.crosscheck.normal_form`).
CROSSCHECK_INSTANCES = 50
#: Instances drawn at most to have :data:`CROSSCHECK_INSTANCES` that z3
#: decides (an undecided one is no evidence either way).
CROSSCHECK_MAX_DRAWN = 100
CROSSCHECK_SEED = 21
#: Wall-clock seconds the cross-check of one proof may take at least (the
#: proof's ``timeout`` when larger); past them the proof is ``"unknown"``
#: with the count decided. The cases then get the whole ``timeout``. (z3
#: decides some instances of the alpha-fair families only after seconds
#: each: CEEI-like fds:beta=1 at 3x2 needs about a minute on a loaded
#: machine; fds and gfj at 3x2, whose float allocations z3 decides 3 times in 50
#: within 300 s, ran 1,000 s before this bound.)
GUARD_SECONDS = 120.0


def crosscheck_instances(n: int, m: int, domain: str, weighted: bool, capped: bool, count: int = CROSSCHECK_INSTANCES,
                         seed: int = CROSSCHECK_SEED) -> list[Instance]:
    """``count`` small integer instances of the class (same seed, same
    instances): demands in ``1..5`` (``0..5`` with zeros, each user needing
    something), capacities in ``2..11``, weights in ``1..3``, caps in
    ``0..3`` (halves) or none."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        D = rng.integers(0 if domain == "zeros" else 1, 6, size=(n, m))
        D[D.sum(axis=1) == 0, 0] = 1
        R = rng.integers(2, 12, size=m)
        w = [int(v) for v in rng.integers(1, 4, size=n)] if weighted else None
        k = [Fraction(int(v), 2) if v >= 0 else None for v in rng.integers(-1, 7, size=n)] if capped else None
        out.append(Instance.from_exact([int(v) for v in R], [[int(v) for v in row] for row in D], weights=w,
                                       max_tasks=k))
    return out


#: The deadline (``time.monotonic()``) of the cross-check :func:`_mismatch`
#: is running for, or ``None``; a context variable, so that the cache of
#: completed cross-checks does not depend on it.
_DEADLINE: ContextVar[float | None] = ContextVar("crosscheck_deadline", default=None)


def encoding_mismatch(policy: str, enc: Any, n: int, m: int, domain: str, weighted: bool, capped: bool,
                      deadline: float | None = None) -> str | None:
    """Why ``enc`` is not ``policy``'s allocation on one of the
    :func:`crosscheck_instances`, each put in the proof's normal form
    (capacities 1, demand rows normalised as ``enc``'s cases are, the
    class's zeros, weights and caps) and checked through the proof's own
    symbolic market (``None`` when it is on all of them): the prover must
    be able to fail when an encoding is wrong, not prove what a wrong
    formula satisfies. With a ``deadline`` (``time.monotonic()``: the
    proof's start plus its timeout or :data:`GUARD_SECONDS`, the larger), a
    cross-check still running then is the reason (not remembered: a later
    call with more time runs it again)."""
    from proofs.prover.crosscheck import OutOfTime

    token = _DEADLINE.set(deadline)
    try:
        return _mismatch(policy, type(get_policy(policy)), enc, n, m, domain, weighted, capped)
    except OutOfTime as e:
        return (f"{policy}: the encoding's cross-check against the policy's solver did not finish within the "
                f"proof's timeout or {GUARD_SECONDS:g} s, the larger ({e.decided} of the {CROSSCHECK_INSTANCES} "
                f"instances it needs decided)")
    finally:
        _DEADLINE.reset(token)


@functools.lru_cache(maxsize=512)
def _mismatch(policy: str, cls: type, enc: Any, n: int, m: int, domain: str, weighted: bool, capped: bool
              ) -> str | None:
    """:func:`encoding_mismatch`, once per policy class, encoding and class
    of instances in a process (:class:`~proofs.prover.crosscheck.OutOfTime`
    past the deadline in :data:`_DEADLINE`: nothing is cached then)."""
    from proofs.prover.crosscheck import first_disagreement, normal_form

    from ..api import solve

    decided, drawn = 0, 0
    while decided < CROSSCHECK_INSTANCES and drawn < CROSSCHECK_MAX_DRAWN:
        batch = crosscheck_instances(n, m, domain, weighted, capped, count=drawn + CROSSCHECK_INSTANCES - decided)
        samples = []
        for raw in batch[drawn:]:
            inst = normal_form(raw, enc.normalise)
            try:
                alloc = solve(inst, policy, exact=True)
            except PolicyError:
                continue
            samples.append((inst, alloc.x_exact if alloc.exact else None, list(alloc.x)))
        found, k = first_disagreement(enc, samples, domain, weighted, capped, _DEADLINE.get())
        if found is not None:
            return f"{policy}: the encoding disagrees with the policy's solver on {found[0].describe()}: {found[1]}"
        decided, drawn = decided + k, len(batch)
    if decided < CROSSCHECK_INSTANCES:
        return (f"{policy}: the encoding could be checked against the policy's solver on only {decided} of "
                f"{drawn} instances of the class (z3 could not decide the others)")
    return None
