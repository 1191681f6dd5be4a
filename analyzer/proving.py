"""``prove``: machine-checked verdicts for small sizes.

The policy and the negated property are one formula over the reals per
case (:mod:`proofs.prover`); z3 decides each case in exact real
arithmetic. Every case unsatisfiable proves the property for every
instance of the encoded fragment; a satisfiable case gives a candidate
counterexample, which is reported only after the existing checker
re-verified it exactly (:func:`analyzer.check` or, for a constructed lie
or capacity growth, the property's own exact verification of that
deviation).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from models import Instance, PolicyError, get_policy
from models.registry import Registry

from .properties._lie_reports import coprime_integers
from .properties.base import Violation, get_property

#: A witness re-verifier: ``(policy, integer instance, other witness
#: vectors) -> Violation or None``.
Verifier = Callable[[str, Instance, dict[str, Any]], "Violation | None"]
#: Re-verifiers of a witness whose deviation :func:`analyzer.check` would not
#: search for itself (a constructed lie, a capacity growth), by property name;
#: any other property's witness is re-verified by :func:`analyzer.check`.
VERIFIERS: Registry[Verifier] = Registry("witness verifier")


#: The settings :func:`prove` decides.
SETTINGS: tuple[str, ...] = ("continuous", "discrete")


def prove(policy: str, property: str, users: int = 2, resources: int = 2, *, domain: str = "positive",
          weighted: bool = False, capped: bool = False, setting: str = "continuous", bound: int | None = None,
          timeout: float = 60, workers: int | None = None) -> Any:
    """Prove or refute that ``policy`` has ``property`` on every instance
    with ``users`` users and ``resources`` resources.

    Parameters
    ----------
    policy : str
        A policy name, with parameters (``"gfj:beta=2"``) or a registered
        user policy; one the prover cannot encode gives ``"unknown"``.
    property : str
        A property name (``sharing-incentive``, ``envy-freeness``, ...).
    users, resources : int
        The size ``n x m``.
    domain : {"positive", "zeros"}
        Demand entries ``> 0``, or ``>= 0`` (each user needing something).
    weighted, capped : bool
        Any weights ``w_i > 0`` / task caps (the checker's weighted
        definitions, Ghodsi et al., NSDI 2011, Section 4.3).
    setting, bound : {"continuous", "discrete"}, int or None
        ``"discrete"``: every integer instance with entries in ``1..bound``
        (:mod:`analyzer.proving_discrete`; ``bound`` only there).
    timeout : float
        Wall-clock seconds for the whole proof.
    workers : int or None
        Processes solving cases in parallel (default: the CPU count).

    Returns
    -------
    ProofResult
        ``.status`` ``"proved"``, ``"counterexample"`` (``.counterexample``
        re-verified by the checker: exactly, or numerically with ``.note``
        saying so for a policy without an exact solver, e.g. FDS/GFJ at a
        finite ``beta != 1``) or ``"unknown"`` (``.reason``); ``.cases``;
        ``.assumptions``.

    Raises
    ------
    PolicyError
        Bad input: an unknown policy or property, a bad size, flag or value.

    Examples
    --------
    >>> prove("drf", "sharing-incentive", 2, 2, workers=1).status
    'proved'
    >>> r = prove("asset", "sharing-incentive", 2, 2, workers=1)
    >>> r.status, r.counterexample.exact
    ('counterexample', True)
    """
    from proofs.prover.symbolic import DOMAINS
    _validate_class(setting, bound, weighted, capped)
    if setting == "discrete":
        return _discrete()(policy, property, users, resources, bound=bound, domain=domain, weighted=weighted,
                           capped=capped, timeout=timeout, workers=workers)
    from proofs.prover.properties import get_negation

    pol, prop = get_policy(policy).label, get_property(property).name
    _validate(users, resources, domain, timeout, workers, get_negation(prop).min_users, DOMAINS)
    return _run_proof(pol, prop, users, resources, domain, timeout, workers, weighted, capped)


def _discrete() -> Callable[..., Any]:
    """:func:`analyzer.proving_discrete.prove_discrete` (imported on use)."""
    try:
        from .proving_discrete import prove_discrete
    except ModuleNotFoundError as e:
        if e.name != f"{__package__}.proving_discrete":
            raise  # a missing dependency of the module, not the module
        raise PolicyError("setting: the discrete prover (analyzer.proving_discrete) is not installed") from None
    return prove_discrete


def _validate_class(setting: Any, bound: Any, weighted: Any, capped: Any) -> None:
    if setting not in SETTINGS:
        raise PolicyError(f"setting: must be one of {', '.join(SETTINGS)}, got {setting!r}")
    if setting != "discrete" and bound is not None:
        raise PolicyError(f"bound: only the discrete setting takes a bound, got {bound!r}")
    for flag, value in (("weighted", weighted), ("capped", capped)):
        if not isinstance(value, bool):
            raise PolicyError(f"{flag}: must be True or False, got {value!r}")


def _run_proof(pol: str, prop: str, users: int, resources: int, domain: str, timeout: float,
               workers: int | None, weighted: bool = False, capped: bool = False) -> Any:
    """:func:`prove` on validated arguments: solve the cases, re-verify
    each satisfiable case's witness exactly, and conclude (status
    ``"unknown"`` with the reason when the policy or the class cannot be
    encoded)."""
    from proofs.prover.driver import check_size, run_cases, split
    from proofs.prover.encodings import Unencodable, get_encoding
    from proofs.prover.properties import get_negation
    from proofs.prover.result import UNDECIDED, ProofResult

    t0 = time.perf_counter()
    neg = get_negation(prop)
    result = ProofResult(UNDECIDED, pol, prop, users, resources, domain)
    try:
        enc = get_encoding(pol)
    except Unencodable as e:
        result.reason = str(e)
        result.assumptions = assumptions(users, resources, domain, None, 0, weighted, capped)
        return result
    check_size(pol, prop, users, resources)  # before the cross-check builds the first formula
    result.assumptions = assumptions(users, resources, domain, enc.normalise, 0, weighted, capped)
    why = (enc.covers(weighted, capped) or neg.covers(weighted, capped)
           or (enc.validate(users, resources, domain) if enc.validate else None)
           or encoding_mismatch(pol, enc, users, resources, domain, weighted, capped))
    if why:
        result.reason = why
        return result
    found: list[Violation] = []

    def accept(case: Any) -> bool:
        v = _reverify(pol, prop, enc.normalise is not None, case.witness)
        if v is not None:
            found.append(v)
        return v is not None

    cases, _ = run_cases(pol, prop, users, resources, domain, timeout, workers, accept,
                         weighted=weighted, capped=capped)
    planned = len(split(pol, prop, users, resources, domain))
    result.cases = cases
    result.assumptions["cases"] = planned
    _conclude(result, found, planned, neg.resources)
    result.seconds = time.perf_counter() - t0
    return result


#: Seeded instances on which :func:`prove` checks an encoding against its
#: policy's exact solver before trusting it.
CROSSCHECK_INSTANCES = 2
CROSSCHECK_SEED = 21


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


def encoding_mismatch(policy: str, enc: Any, n: int, m: int, domain: str, weighted: bool, capped: bool
                      ) -> str | None:
    """Why ``enc`` is not ``policy``'s allocation on one of the
    :func:`crosscheck_instances` (``None`` when it is on all of them): the
    prover must be able to fail when an encoding is wrong, not prove what
    a wrong formula satisfies."""
    return _mismatch(policy, type(get_policy(policy)), enc, n, m, domain, weighted, capped)


@functools.lru_cache(maxsize=512)
def _mismatch(policy: str, cls: type, enc: Any, n: int, m: int, domain: str, weighted: bool, capped: bool
              ) -> str | None:
    """:func:`encoding_mismatch`, once per policy class, encoding and class
    of instances in a process."""
    from proofs.prover.crosscheck import disagreement

    from .api import solve

    for inst in crosscheck_instances(n, m, domain, weighted, capped):
        try:
            alloc = solve(inst, policy, exact=True)
        except PolicyError:
            continue
        what = disagreement(enc, inst, alloc.x_exact if alloc.exact else None, list(alloc.x), weighted, capped)
        if what:
            return f"{policy}: the encoding disagrees with the policy's solver on {inst.describe()}: {what}"
    return None


def _conclude(result: Any, found: list[Violation], planned: int, speaks_of: int | None) -> None:
    """Set ``result``'s status and note from its cases: a re-verified
    witness refutes, every one of the ``planned`` cases unsatisfiable
    proves (vacuously when the property speaks only of ``speaks_of``
    resources), anything else is unknown and the note says why."""
    from proofs.prover.result import COUNTEREXAMPLE, PROVED, SAT, UNSAT

    cases = result.cases
    if found:
        result.status, result.counterexample = COUNTEREXAMPLE, found[0]
        if not found[0].exact:
            result.note = (f"witness confirmed numerically, not exactly: {result.policy} has no exact solver "
                           "(floats, by the confirmation margins NUMERIC_CONFIRM_RTOL/ATOL)")
    elif len(cases) == planned and all(c.status == UNSAT for c in cases):
        result.status = PROVED
        if speaks_of is not None and speaks_of != result.resources:
            result.note = f"holds vacuously: the property speaks only of {speaks_of} resource(s)"
    elif any(c.status == SAT for c in cases):
        result.reason = "z3 found a candidate counterexample that the exact re-check did not confirm"
    else:
        result.reason = "; ".join(sorted({f"{c.label}: {c.reason}" for c in cases if c.status != UNSAT})) or "timeout"


def _validate(users: Any, resources: Any, domain: Any, timeout: Any, workers: Any, min_users: int,
              domains: tuple[str, ...]) -> None:
    def whole(value: Any, name: str, least: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise PolicyError(f"{name}: must be a whole number >= {least}, got {value!r}")

    whole(users, "users", min_users)
    whole(resources, "resources", 1)
    if workers is not None:
        whole(workers, "workers", 1)
    if domain not in domains:
        raise PolicyError(f"domain: must be one of {', '.join(domains)}, got {domain!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0 or math.isinf(timeout):
        raise PolicyError(f"timeout: must be a positive number of seconds, got {timeout!r}")


def assumptions(n: int, m: int, domain: str, normalise: str | None, cases: int, weighted: bool = False,
                capped: bool = False) -> dict[str, Any]:
    """The encoded fragment, in words."""
    import z3

    scale = {"max": "each user's largest demand share is 1 (bundles do not depend on task size)",
             "sum": "each user's demand shares sum to 1 (bundles do not depend on task size)",
             None: "none (task sizes matter to this policy)"}[normalise]
    return {
        "users": n, "resources": m,
        "demands": "every entry > 0" if domain == "positive" else "entries >= 0, each user needs some resource",
        "capacities": "any > 0 (normalised to 1: the policies and properties are invariant under scaling a resource)",
        "user scale normalisation": scale,
        "weights": "any > 0" if weighted else "equal (unweighted)",
        "caps": "any task caps >= 0 or none" if capped else "none", "setting": "continuous tasks",
        "solver": f"z3 {z3.get_version_string()}, exact real arithmetic",
        "cases": cases,
    }


def witness_instance(witness: dict[str, Any], scale_users: bool) -> tuple[Instance, dict[str, Any]]:
    """The witness as an integer instance: each resource scaled (with its
    capacity) and, when the policy ignores task sizes, each user scaled, to
    coprime integers (its task cap divided by the same factor: the tasks
    scale inversely, the bundles stay); weights (``"weights"``) and caps
    (``"caps"``) carried over; the other witness vectors scaled alike."""
    D = [list(r) for r in witness["demands"]]
    weights = witness.get("weights")
    caps = [Fraction(c) for c in witness["caps"]] if "caps" in witness else None
    extra = {k: list(v) for k, v in witness.items() if k not in ("demands", "weights", "caps")}
    m = len(D[0])
    cols = []
    for j in range(m):
        values = [row[j] for row in D] + [v[j] for v in extra.values()] + [Fraction(1)]
        cols.append(math.lcm(*(Fraction(v).denominator for v in values)))
    D = [[v * cols[j] for j, v in enumerate(row)] for row in D]
    extra = {k: [v * cols[j] for j, v in enumerate(vec)] for k, vec in extra.items()}
    if scale_users:
        scaled = [coprime_integers(row) for row in D]
        if caps is not None:  # row i multiplied by f_i: its tasks (and cap) divided by f_i
            caps = [c * next(Fraction(a) / Fraction(b) for a, b in zip(row, new, strict=True) if b)
                    for c, row, new in zip(caps, D, scaled, strict=True)]
        D = scaled
        if "report" in extra:
            extra["report"] = coprime_integers(extra["report"])
    w = None if weights is None else [Fraction(v) for v in weights]
    return Instance.from_exact([Fraction(c) for c in cols], D, weights=w, max_tasks=caps), extra


def _reverify(policy: str, prop: str, scale_users: bool, witness: dict[str, Any] | None) -> Violation | None:
    """The SMT witness checked exactly by the existing checker."""
    if witness is None:
        return None
    from .checking import check

    inst, extra = witness_instance(witness, scale_users)
    if prop in VERIFIERS:
        return VERIFIERS.get(prop)(policy, inst, extra)
    return check(policy, inst, prop)


@VERIFIERS.register("strategy-proofness")
def _lie(policy: str, inst: Instance, extra: dict[str, Any]) -> Violation | None:
    from .properties._common import Evaluator
    from .properties.strategy_proofness import StrategyProofness

    ev = Evaluator(policy)
    return StrategyProofness().verify_report(ev, inst, ev.verified(inst), 0, extra["report"])


@VERIFIERS.register("resource-monotonicity")
def _growth(policy: str, inst: Instance, extra: dict[str, Any]) -> Violation | None:
    from .properties._common import Evaluator, show
    from .properties.resource_monotonicity import ResourceMonotonicity

    ev = Evaluator(policy)
    cap = extra["capacity"]
    grown = ", ".join(f"{r} {show(c)}" for r, c in zip(inst.resources, cap, strict=True))
    return ResourceMonotonicity().verify_growth(ev, inst, ev.verified(inst), cap,
                                                f"when the capacities grow to {grown}")
