"""Results of the SMT prover: one per case of the split, one per proof."""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Any

from models.display import html_table, short_repr, to_frame

#: The longest repr of a proof result (characters).
REPR_MAX_CHARS: int = 400

#: Case outcomes (z3's answers to "is there a counterexample in this case?").
UNSAT, SAT, UNKNOWN = "unsat", "sat", "unknown"
#: Proof outcomes.
PROVED, COUNTEREXAMPLE, UNDECIDED, VACUOUS = "proved", "counterexample", "unknown", "vacuous"


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
        Why a case is ``"unknown"`` (timeout, z3's reason).
    """

    label: str
    status: str
    seconds: float
    witness: dict[str, Any] | None = None
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"case": self.label, "status": self.status, "seconds": round(self.seconds, 3)}
        if self.reason:
            out["reason"] = self.reason
        return out


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
        prover cannot encode) or ``"vacuous"``; empty otherwise.
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

    def __repr__(self) -> str:
        counts = {s: sum(c.status == s for c in self.cases) for s in (UNSAT, SAT, UNKNOWN)}
        fields: dict[str, Any] = {"status": self.status, "policy": self.policy, "property": self.property,
                                  "users": self.users, "resources": self.resources, "domain": self.domain,
                                  "cases": {k: v for k, v in counts.items() if v}, "seconds": round(self.seconds, 3)}
        summary = self._summary()
        text = short_repr("ProofResult", **fields)
        if summary:
            room = REPR_MAX_CHARS - len(text) - len(", summary=''")
            if room > 20:
                fields["summary"] = summary if len(summary) <= room else summary[:room - 1] + "…"
                text = short_repr("ProofResult", **fields)
        return text

    def _repr_html_(self) -> str:
        caption = (f"{self.policy}, {self.property} ({self.users} users, {self.resources} resources, "
                   f"{self.domain}): {self.status} in {self.seconds:.3g} s")
        head = html_table(["", ""], [["status", self.status], ["summary", self._summary()],
                                     *[[k, v] for k, v in self.assumptions.items()]], caption)
        return head + "\n" + html_table(*self.tidy(), caption=f"{len(self.cases)} cases")

    def tidy(self) -> tuple[list[str], list[list[Any]]]:
        """Columns and rows of :meth:`to_pandas`: one row per case."""
        cols = ["policy", "property", "case", "status", "seconds", "reason"]
        return cols, [[self.policy, self.property, c.label, c.status, c.seconds, c.reason] for c in self.cases]

    def to_pandas(self) -> Any:
        """A tidy ``pandas.DataFrame``: one row per case of the split (its
        label, z3's answer, the time, why it is unknown)."""
        return to_frame(*self.tidy(), owner="ProofResult.to_pandas()")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "status": self.status, "policy": self.policy, "property": self.property,
            "users": self.users, "resources": self.resources, "domain": self.domain,
            "seconds": round(self.seconds, 3), "note": self.note, "reason": self.reason,
            "assumptions": self.assumptions,
            "cases": [c.to_dict() for c in self.cases],
            "counterexample": None if self.counterexample is None else self.counterexample.to_dict(),
        }
