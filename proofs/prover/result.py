"""Results of the SMT prover: one per case of the split, one per proof."""

from __future__ import annotations

import builtins
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from models.display import html_table, short_repr, to_frame

#: The longest repr of a proof result (characters).
REPR_MAX_CHARS: int = 400

#: Case outcomes (z3's answers to "is there a counterexample in this case?").
UNSAT, SAT, UNKNOWN = "unsat", "sat", "unknown"
#: Proof outcomes.
PROVED, COUNTEREXAMPLE, UNDECIDED, VACUOUS = "proved", "counterexample", "unknown", "vacuous"


#: Fields of a :class:`ProofResult` its views show in their own way (not as ``name=value``).
_SHOWN_APART: frozenset[str] = frozenset({"counterexample", "cases", "assumptions", "seconds"})


def _text(value: Any) -> str:
    """A field's value in a view: sequences joined, mappings as ``k: v``."""
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_text(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_text(v) for v in value)
    return str(value)


@dataclass
class CaseResult:
    """One case of the split.

    Attributes
    ----------
    label : str
        The case, e.g. ``"dominant r0,r1; report r0"``.
    status : {"unsat", "sat", "unknown"}
        z3's answer: ``"unsat"`` proves the case.
    seconds : float
        Solver wall-clock time.
    witness : dict or None
        For ``"sat"``: the model's values (Fractions) of the query's
        witness terms (see :class:`proofs.prover.properties.Query`).
    reason : str
        Why a case is ``"unknown"`` (timeout, z3's reason, cvc5 not
        confirming z3's ``"unsat"``).
    solvers : tuple of str
        The solvers that gave the answer, with their versions: z3 and cvc5
        for ``"unsat"`` (both must say it), z3 for ``"sat"`` (the witness is
        then re-verified exactly), none for ``"unknown"``.
    recheck_seconds : float
        cvc5's wall-clock time re-checking z3's ``"unsat"`` (0 when it did
        not run).
    """

    label: str
    status: str
    seconds: float
    witness: dict[str, Any] | None = None
    reason: str = ""
    solvers: tuple[str, ...] = ()
    recheck_seconds: float = 0.0
    #: z3's ``"unsat"`` awaiting cvc5: the case's SMT-LIB2 script.
    script: str = field(default="", repr=False)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"case": self.label, "status": self.status, "seconds": round(self.seconds, 3)}
        if self.recheck_seconds:
            out["recheck_seconds"] = round(self.recheck_seconds, 3)
        if self.solvers:
            out["solvers"] = list(self.solvers)
        if self.reason:
            out["reason"] = self.reason
        return out


def verdict_solvers(status: str, cases: list[CaseResult]) -> tuple[str, ...]:
    """The solvers a proof's verdict rests on: those that agreed on every
    case of a proof, z3 for a counterexample it constructed, none else."""
    if status == PROVED and cases:
        return tuple(s for s in cases[0].solvers if all(s in c.solvers for c in cases))
    if status == COUNTEREXAMPLE:
        return next((c.solvers for c in cases if c.status == SAT), ())
    return ()


@dataclass
class ProofResult:
    """The verdict of :func:`analyzer.prove`.

    Attributes
    ----------
    status : {"proved", "counterexample", "unknown", "vacuous"}
        ``"proved"``: every case is unsatisfiable, so the property holds on
        every instance of the encoded fragment (:attr:`assumptions`);
        ``"counterexample"``: a case is satisfiable and its witness was
        re-verified by the checker (:attr:`counterexample`);
        ``"vacuous"``: no feasible allocation at all violates the property
        at this size, so it says nothing about the policy (:attr:`reason`
        says why; :mod:`proofs.prover.vacuity`); ``"unknown"`` otherwise
        (:attr:`reason` says why).
    policy, property : str
    users, resources : int
    domain : str
    counterexample : Violation or None
        As :func:`analyzer.check` returns it: exactly re-verified, or
        (``.exact`` False, :attr:`note` saying so) numerically confirmed
        for a policy without an exact solver (FDS/GFJ at finite ``beta !=
        1``).
    cases : list of CaseResult
        How the proof was split, each case's answer and time.
    assumptions : dict
        The encoded fragment: sizes, domain, weights, caps, setting, and
        the normalisations used.
    seconds : float
        Wall-clock time of the whole proof.
    note : str
        Remarks (e.g. a size below the one the property speaks from).
    reason : str
        Why the status is ``"unknown"`` (timeout, a policy or class the
        prover cannot encode, the two solvers not agreeing) or
        ``"vacuous"``; empty otherwise.
    solvers : tuple of str
        The solvers the verdict rests on, with their versions: ``("z3
        4.13.0", "cvc5 1.2.0")`` for ``"proved"`` (each agreed on every
        case), ``("z3 4.13.0",)`` for an SMT counterexample (constructed by
        z3, then re-verified by the checker), the enumeration for a
        discrete proof; empty when nothing was decided.
    """

    status: str
    policy: str
    property: str
    users: int
    resources: int
    domain: str
    counterexample: Any = None
    cases: list[CaseResult] = field(default_factory=list)
    assumptions: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    note: str = ""
    reason: str = ""
    solvers: tuple[str, ...] = ()

    @builtins.property  # the field ``property`` shadows the builtin in this class body
    def proved(self) -> bool:
        return self.status == PROVED

    # ------------------------------------------------------------ notebooks
    def _summary(self) -> str:
        """One phrase: what was proved, found or left open."""
        if self.status == COUNTEREXAMPLE and self.counterexample is not None:
            return " ".join(str(getattr(self.counterexample, "message", "")).split())
        if self.status == VACUOUS:
            return self.reason
        return self.note

    def _fields(self) -> dict[str, Any]:
        """Every field but the bulky ones, with a value (a field added later shows too)."""
        return {f.name: v for f in dataclasses.fields(self) if f.name not in _SHOWN_APART
                and (v := getattr(self, f.name)) not in ("", None, (), [], {})}

    def __repr__(self) -> str:
        counts = {s: sum(c.status == s for c in self.cases) for s in (UNSAT, SAT, UNKNOWN)}
        fields = self._fields()
        fields["cases"] = {k: v for k, v in counts.items() if v}
        fields["seconds"] = round(self.seconds, 3)
        text = short_repr("ProofResult", **fields)
        extra: dict[str, str] = {}  # a note or reason is a field already
        if self.counterexample is not None:
            extra = {"summary": self._summary(), "instance": self.counterexample.instance.describe()}
        for key, value in extra.items():  # as much as fits in REPR_MAX_CHARS
            room = REPR_MAX_CHARS - len(text) - len(f", {key}=''")
            if value and room > 20:
                fields[key] = value if len(value) <= room else value[:room - 1] + "…"
                text = short_repr("ProofResult", **fields)
        return text

    def _repr_html_(self) -> str:
        """The verdict (every field, the assumptions), a counterexample's
        instance and violation, and the cases."""
        caption = (f"{self.policy}, {self.property} ({self.users} users, {self.resources} resources, "
                   f"{self.domain}): {self.status} in {self.seconds:.3g} s")
        rows = [*([k, _text(v)] for k, v in self._fields().items()),
                *([k, _text(v)] for k, v in self.assumptions.items())]
        parts = [html_table(["", ""], rows, caption)]
        v = self.counterexample
        if v is not None:
            how = "re-verified in exact arithmetic" if getattr(v, "exact", False) else "confirmed numerically"
            parts.append(html_table(["", ""], [["instance", v.instance.describe()], ["user", v.user],
                                               ["violation", v.message], *([k, _text(d)] for k, d in (
                                                   ("deviation", v.deviation), ("before", v.before),
                                                   ("after", v.after)) if d)],
                                    f"counterexample ({how})"))
            parts.append(v.instance._repr_html_())
        parts.append(html_table(*self.tidy(), caption=f"{len(self.cases)} cases"))
        return "\n".join(parts)

    def tidy(self) -> tuple[list[str], list[list[Any]]]:
        """Columns and rows of :meth:`to_pandas`: one row per case."""
        cols = ["policy", "property", "case", "status", "seconds", "recheck_seconds", "solvers", "reason"]
        return cols, [[self.policy, self.property, c.label, c.status, c.seconds, c.recheck_seconds,
                       ", ".join(c.solvers), c.reason] for c in self.cases]

    def to_pandas(self) -> Any:
        """A tidy ``pandas.DataFrame``: one row per case of the split (its
        label, its answer, z3's and cvc5's times, the solvers that agreed,
        why it is unknown)."""
        return to_frame(*self.tidy(), owner="ProofResult.to_pandas()")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "status": self.status, "policy": self.policy, "property": self.property,
            "users": self.users, "resources": self.resources, "domain": self.domain,
            "seconds": round(self.seconds, 3), "note": self.note, "reason": self.reason,
            "solvers": list(self.solvers), "assumptions": self.assumptions,
            "cases": [c.to_dict() for c in self.cases],
            "counterexample": None if self.counterexample is None else self.counterexample.to_dict(),
        }
