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

import math
import os
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from models import Instance, PolicyError, get_policy
from models.registry import Registry

from ..properties._lie_reports import coprime_integers
from ..properties.base import Violation, get_property
from .arguments import validate_size
from .encoding_guard import GUARD_SECONDS, encoding_mismatch

#: A witness re-verifier: ``(policy, integer instance, other witness
#: vectors) -> Violation or None``.
Verifier = Callable[[str, Instance, dict[str, Any]], "Violation | None"]
#: Re-verifiers of a witness whose deviation :func:`analyzer.check` would not
#: search for itself (a constructed lie, a capacity growth), by property name;
#: any other property's witness is re-verified by :func:`analyzer.check`.
VERIFIERS: Registry[Verifier] = Registry("witness verifier")


#: The settings :func:`prove` decides (``"dynamic"``: users arrive in
#: order, the properties of Kash, Procaccia and Shah, JAIR 51, 2014).
SETTINGS: tuple[str, ...] = ("continuous", "discrete", "dynamic")


def prove(policy: str, property: str, users: int = 2, resources: int = 2, *, domain: str = "positive",
          weighted: bool = False, capped: bool = False, setting: str = "continuous", bound: int | None = None,
          timeout: float = 60, workers: int | None = None, mode: str | None = None,
          emit_smt2: str | os.PathLike[str] | None = None) -> Any:
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
    setting, bound : {"continuous", "discrete", "dynamic"}, int or None
        ``"discrete"``: every integer instance with entries in ``1..bound``
        (:mod:`analyzer.proving.discrete`; ``bound`` only there); ``mode`` is ``setting`` as ``check`` names it.
    timeout, workers, emit_smt2 : float, int or None, path or None
        Wall-clock seconds for the whole proof; processes (default: CPUs);
        a directory for every case's SMT-LIB2 script (:mod:`proofs.prover.smtlib`).

    Returns
    -------
    ProofResult
        ``.status`` ``"proved"`` (z3 and cvc5 agreed; ``.solvers``),
        ``"counterexample"`` (``.counterexample`` re-verified by the checker:
        exactly, or numerically with ``.note`` saying so for a policy without
        an exact solver, e.g. FDS/GFJ at a finite ``beta != 1``), ``"vacuous"``
        (no feasible allocation violates it at that size) or ``"unknown"``
        (both: ``.reason``); ``.cases``; ``.assumptions``.

    Raises
    ------
    PolicyError
        Bad input: an unknown policy or property, a bad size, flag or value.

    Examples
    --------
    >>> prove("drf", "sharing-incentive", 2, 2, workers=1).status
    'proved'
    >>> r = prove("asset", "sharing-incentive", 2, 2, workers=1)
    >>> r.status, r.counterexample.exact, prove("drf", "single-resource-fairness", 2, 2).status
    ('counterexample', True, 'vacuous')
    """
    from proofs.prover.properties import get_negation
    from proofs.prover.symbolic import DOMAINS
    setting, emit = _setting(setting, mode, property, bound, weighted, capped, emit_smt2)
    if setting == "discrete":
        return _discrete()(policy, property, users, resources, bound=bound, domain=domain, weighted=weighted,
                           capped=capped, timeout=timeout, workers=workers)
    pol, prop = get_policy(policy).label, get_property(property).name
    validate_size(users, resources, domain, timeout, workers, get_negation(prop).min_users, DOMAINS)
    return _run_proof(pol, prop, users, resources, domain, timeout, workers, weighted, capped, setting, emit)


def _setting(setting: str, mode: str | None, prop: str, bound: Any, weighted: Any, capped: Any,
             emit_smt2: Any = None) -> tuple[str, str | None]:
    """The setting asked for (``mode`` names it as ``check`` does), checked
    with the class (:func:`_validate_class`): one the property is defined
    in (a dynamic property in the dynamic setting only, the others outside
    it; :mod:`proofs.prover.encodings.dynamic` encodes the dynamic steps);
    and the directory of ``emit_smt2`` (or ``None``)."""
    from ..properties.base import require_defined

    if mode is not None:
        if setting != "continuous" and setting != mode:
            raise PolicyError(f"mode: {mode!r} contradicts setting={setting!r} (give one of them)")
        setting = mode
    emit = _validate_class(setting, bound, weighted, capped, emit_smt2)
    require_defined(get_property(prop), setting)
    return setting, emit


def _discrete() -> Callable[..., Any]:
    """:func:`analyzer.proving.discrete.prove_discrete` (imported on use)."""
    try:
        from .discrete import prove_discrete
    except ModuleNotFoundError as e:
        if e.name != f"{__package__}.discrete":
            raise  # a missing dependency of the module, not the module
        raise PolicyError("setting: the discrete prover (analyzer.proving.discrete) is not installed") from None
    return prove_discrete


def _validate_class(setting: Any, bound: Any, weighted: Any, capped: Any, emit_smt2: Any = None) -> str | None:
    """Check the class flags; the directory of ``emit_smt2`` (or ``None``)."""
    if setting not in SETTINGS:
        raise PolicyError(f"setting: must be one of {', '.join(SETTINGS)}, got {setting!r}")
    if setting != "discrete" and bound is not None:
        raise PolicyError(f"bound: only the discrete setting takes a bound, got {bound!r}")
    for flag, value in (("weighted", weighted), ("capped", capped)):
        if not isinstance(value, bool):
            raise PolicyError(f"{flag}: must be True or False, got {value!r}")
    if emit_smt2 is None:
        return None
    from proofs.prover.smtlib import emit_directory

    return emit_directory(emit_smt2, setting)


def _run_proof(pol: str, prop: str, users: int, resources: int, domain: str, timeout: float,
               workers: int | None, weighted: bool = False, capped: bool = False, setting: str = "continuous",
               emit: str | None = None) -> Any:
    """:func:`prove` on validated arguments: say "vacuous" when no feasible
    allocation violates the property at the size, else solve the cases,
    re-verify each satisfiable case's witness exactly, and conclude (status
    ``"unknown"`` with the reason when the policy or the class cannot be
    encoded)."""
    from proofs.prover.driver import check_size, run_cases, split
    from proofs.prover.encodings import Unencodable, get_encoding
    from proofs.prover.properties import get_negation
    from proofs.prover.result import UNDECIDED, ProofResult, verdict_solvers
    from proofs.prover.vacuity import below_speaking_size

    t0, deadline = time.perf_counter(), time.monotonic() + max(timeout, GUARD_SECONDS)
    neg = get_negation(prop)
    result = ProofResult(UNDECIDED, pol, prop, users, resources, domain)
    try:
        enc = get_encoding(pol)
    except Unencodable as e:
        enc, result.reason = None, str(e)
    if enc is not None:
        check_size(pol, prop, users, resources)  # before the first formula (vacuity, cross-check) is built
    result.assumptions = assumptions(users, resources, domain, None if enc is None else enc.normalise, 0, weighted,
                                     capped, setting)
    if _settled(result, neg, enc, weighted, capped, deadline):
        result.seconds = time.perf_counter() - t0
        return result
    assert enc is not None  # _settled returns True without an encoding
    result.assumptions["symmetries"] = _symmetries(pol, prop, users, resources, domain, weighted, capped)
    found: list[Violation] = []

    def accept(case: Any) -> bool:
        v = _reverify(pol, prop, enc.normalise is not None, case.witness)
        if v is not None:
            found.append(v)
        return v is not None

    cases, _ = run_cases(pol, prop, users, resources, domain, timeout, workers, accept,
                         weighted=weighted, capped=capped, emit=emit)
    planned = len(split(pol, prop, users, resources, domain, weighted=weighted, capped=capped))
    result.cases = cases
    result.assumptions["cases"] = planned
    _conclude(result, found, planned)
    if result.status != UNDECIDED:
        result.note = result.note or below_speaking_size(prop, users, resources)
    result.solvers = verdict_solvers(result.status, cases)
    result.seconds = time.perf_counter() - t0
    return result


def _settled(result: Any, neg: Any, enc: Any, weighted: bool, capped: bool, deadline: float | None = None) -> bool:
    """Whether ``result`` is decided before solving: ``"vacuous"`` (no
    feasible allocation violates the property at the size, whatever the
    policy), or ``"unknown"`` with the reason (no encoding, a class the
    negation or the encoding does not cover, an encoding not to be trusted
    at one of the sizes the negation uses, or not cross-checked before the
    ``deadline``)."""
    from proofs.prover.result import VACUOUS
    from proofs.prover.vacuity import vacuity

    n, m, domain = result.users, result.resources, result.domain
    why = neg.covers(weighted, capped)
    empty = None if why else vacuity(result.property, n, m, domain, weighted, capped)
    if empty:
        result.status, result.reason = VACUOUS, empty
        return True
    if enc is None:
        return True
    why = why or enc.covers(weighted, capped) or _encoding_issue(result.policy, enc, neg.sizes(n), m, domain,
                                                                 weighted, capped, deadline)
    result.reason = why or ""
    return bool(why)


def _encoding_issue(pol: str, enc: Any, sizes: tuple[int, ...], m: int, domain: str, weighted: bool,
                    capped: bool, deadline: float | None = None) -> str | None:
    """Why the encoding cannot be trusted at one of ``sizes`` users (the
    negation may evaluate the policy with a user fewer): a size or domain
    it does not cover, or a disagreement with the policy's solver."""
    for n in sizes:
        why = ((enc.validate(n, m, domain) if enc.validate else None)
               or encoding_mismatch(pol, enc, n, m, domain, weighted, capped, deadline))
        if why:
            return why
    return None


def _symmetries(pol: str, prop: str, n: int, m: int, domain: str, weighted: bool, capped: bool) -> str:
    """The reductions the split uses, in words."""
    from proofs.prover.driver import case_symmetries
    from proofs.prover.properties import get_negation

    return case_symmetries(pol, prop, n, m, domain, weighted, capped).words(get_negation(prop).every_user)


def _conclude(result: Any, found: list[Violation], planned: int) -> None:
    """Set ``result``'s status and note from its cases: a re-verified
    witness refutes, every one of the ``planned`` cases unsatisfiable
    proves, anything else is unknown and the note says why."""
    from proofs.prover.result import COUNTEREXAMPLE, PROVED, SAT, UNSAT

    cases = result.cases
    if found:
        result.status, result.counterexample = COUNTEREXAMPLE, found[0]
        if not found[0].exact:
            result.note = (f"witness confirmed numerically, not exactly: {result.policy} has no exact solver "
                           "(floats, by the confirmation margins NUMERIC_CONFIRM_RTOL/ATOL)")
    elif len(cases) == planned and all(c.status == UNSAT for c in cases):
        result.status = PROVED
    elif any(c.status == SAT for c in cases):
        result.reason = "z3 found a candidate counterexample that the exact re-check did not confirm"
    else:
        result.reason = "; ".join(sorted({f"{c.label}: {c.reason}" for c in cases if c.status != UNSAT})) or "timeout"


def assumptions(n: int, m: int, domain: str, normalise: str | None, cases: int, weighted: bool = False,
                capped: bool = False, setting: str = "continuous") -> dict[str, Any]:
    """The encoded fragment, in words."""
    from proofs.prover.cvc5_check import cvc5_version
    from proofs.prover.smtlib import z3_version

    scale = {"max": "each user's largest demand share is 1 (bundles do not depend on task size)",
             "sum": "each user's demand shares sum to 1 (bundles do not depend on task size)",
             None: "none (task sizes matter to this policy)"}[normalise]
    return {
        "users": n, "resources": m,
        "demands": "every entry > 0" if domain == "positive" else "entries >= 0, each user needs some resource",
        "capacities": "any > 0 (normalised to 1: the policies and properties are invariant under scaling a resource)",
        "user scale normalisation": scale,
        "weights": "any > 0" if weighted else "equal (unweighted)",
        "caps": "any task caps >= 0 or none" if capped else "none",
        "setting": "dynamic: users arrive in order, continuous tasks" if setting == "dynamic" else "continuous tasks",
        "solver": f"{z3_version()}, exact real arithmetic; every unsat re-checked by {cvc5_version()}",
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
    """The SMT witness checked exactly by the existing checker (the users
    in the negation's roles, ``"roles"``, passed on to a verifier)."""
    if witness is None:
        return None
    from ..checking import check

    roles = [int(u) for u in witness.get("roles", [])]
    inst, extra = witness_instance({k: v for k, v in witness.items() if k != "roles"}, scale_users)
    extra["roles"] = roles
    if prop in VERIFIERS:
        return VERIFIERS.get(prop)(policy, inst, extra)
    return check(policy, inst, prop, mode="dynamic" if "dynamic" in get_property(prop).modes else "continuous")


@VERIFIERS.register("strategy-proofness")
def _lie(policy: str, inst: Instance, extra: dict[str, Any]) -> Violation | None:
    from ..properties._common import Evaluator
    from ..properties.strategy_proofness import StrategyProofness

    ev = Evaluator(policy)
    liar = extra["roles"][0] if extra.get("roles") else 0
    return StrategyProofness().verify_report(ev, inst, ev.verified(inst), liar, extra["report"])


@VERIFIERS.register("resource-monotonicity")
def _growth(policy: str, inst: Instance, extra: dict[str, Any]) -> Violation | None:
    from ..properties._common import Evaluator, show
    from ..properties.resource_monotonicity import ResourceMonotonicity

    ev = Evaluator(policy)
    cap = extra["capacity"]
    grown = ", ".join(f"{r} {show(c)}" for r, c in zip(inst.resources, cap, strict=True))
    return ResourceMonotonicity().verify_growth(ev, inst, ev.verified(inst), cap,
                                                f"when the capacities grow to {grown}")


@VERIFIERS.register("dynamic-strategy-proofness")
def _dynamic_lie(policy: str, inst: Instance, extra: dict[str, Any]) -> Violation | None:
    """The report tried by every user in turn (the SMT witness does not say
    who lies), verified on the exact deviated instance, every step."""
    from ..properties._dynamic import DynamicEvaluator
    from ..properties.dynamic_strategy_proofness import DynamicStrategyProofness

    ev = DynamicEvaluator(policy)
    xe = ev.verified(inst)
    prop = DynamicStrategyProofness()
    for i in range(inst.n):
        need = inst.demands_exact[i]
        if any(d > 0 and r == 0 for d, r in zip(need, extra["report"], strict=True)):
            continue  # that user needs a resource the report leaves out: not its lie
        v = prop.verify_report(ev, inst, xe, i, list(extra["report"]))
        if v is not None:
            return v
    return None
