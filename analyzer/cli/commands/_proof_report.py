"""The verdict of ``fairalloc prove``, SMT or discrete: the exit code of
each status, the document (tables, JSON) and the text for a terminal.
"""

from __future__ import annotations

from typing import Any

from ...formats import Document
from ...render import Table
from ..common import EXIT_OK, EXIT_SOLVER, EXIT_VIOLATION

#: Exit code of a vacuous proof: the property says nothing at that size.
EXIT_VACUOUS = 4
#: Exit code by proof status.
EXIT_CODES = {"proved": EXIT_OK, "counterexample": EXIT_VIOLATION, "unknown": EXIT_SOLVER, "vacuous": EXIT_VACUOUS}



def proof_document(r: Any) -> Document:
    """The verdict and the cases as tables, as JSON data and, in text, as
    :func:`text` writes them."""
    verdict = [["status", r.status], ["policy", r.policy], ["property", r.property],
               ["size", f"{r.users} users x {r.resources} resources"], ["domain", r.domain],
               ["seconds", round(r.seconds, 3)], ["solvers", ", ".join(r.solvers)], ["note", r.note],
               ["reason", r.reason]]
    if r.counterexample is not None:
        verdict += [["counterexample", r.counterexample.instance.describe()],
                    ["violation", r.counterexample.message]]
    cases = [[c.label, c.status, round(c.seconds, 3), round(c.recheck_seconds, 3), c.reason] for c in r.cases]
    return Document([Table("Proof", ["field", "value"], verdict),
                     Table("Cases", ["case", "status", "z3 seconds", "cvc5 seconds", "reason"], cases)],
                    data=r.to_dict, own={"text": lambda: text(r)})


def verdict_head(r: Any, found: str, proved: str, where: str) -> str:
    """The head line of a proof's verdict: the violation and how it was
    ``found``, ``"P PROVED for X"`` and ``proved`` (the scope), or
    ``"P for X"``, ``where`` and ``": UNKNOWN (why)"`` or ``": VACUOUS
    (why)"`` (SMT and discrete proofs alike)."""
    from .check import violation_text

    if r.status == "counterexample":
        head = violation_text(r.counterexample) + found
    elif r.status == "proved":
        head = f"{r.property} PROVED for {r.policy}{proved}"
    else:
        head = f"{r.property} for {r.policy}{where}: {'VACUOUS' if r.status == 'vacuous' else 'UNKNOWN'} ({r.reason})"
    return head.rstrip("\n")


def text(r: Any) -> str:
    """The verdict, the fragment and the cases, for a terminal."""
    a = r.assumptions
    if "bound" in a:
        return discrete_text(r)
    size = f"{r.users} users x {r.resources} resources"
    scope = (f"demands: {a['demands']}; capacities: any; weights: {a['weights']}; caps: {a['caps']}; "
             f"{a['setting']}")
    head = verdict_head(r, f"constructed by the SMT solver at {size} ({r.domain} demands)",
                        f" on every instance with {size}\n({scope})", f" at {size}")
    if r.status == "vacuous":
        return f"{head}\nnothing to solve: every policy has the property at {size}\n"
    decided = sum(c.status != "unknown" for c in r.cases)
    lines = [head] + ([f"reductions: {a['symmetries']}"] if "symmetries" in a else [])
    lines += [f"{decided} of {a['cases']} cases decided in {r.seconds:.2f} s ({a['solver']}):"]
    lines += [f"  {c.label}: {c.status} ({c.seconds:.2f} s{_recheck(c)}){' ' + c.reason if c.reason else ''}"
              for c in r.cases]
    if r.solvers:
        lines.append(f"{'verdict of' if len(r.solvers) > 1 else 'constructed by'}: {' and '.join(r.solvers)}"
                     + (" (both answered unsat on every case)" if len(r.solvers) > 1 else
                        " (then re-verified by the checker)"))
    return "\n".join(lines) + "\n"


def _recheck(case: Any) -> str:
    """``"; cvc5 0.12 s"`` when cvc5 re-checked the case."""
    return f"; cvc5 {case.recheck_seconds:.2f} s" if case.recheck_seconds else ""


def discrete_text(r: Any) -> str:
    """The verdict of a discrete proof, the class and the counts."""
    a = r.assumptions
    within = f"within the bound {a['bound']}"
    lines = [verdict_head(r, f"found by exhaustive enumeration {within} ({a['class']})",
                          f" (discrete) on every integer instance {within}\n({a['class']})", f" (discrete) {within}")]
    if "deviations" in a:
        lines.append(f"deviations: {a['deviations']}")
    if r.cases:
        c = r.cases[0]
        lines.append(f"{c.label} checked in {r.seconds:.2f} s ({a.get('evaluations', 0):,} exact evaluations; "
                     f"symmetry: {a.get('symmetry', 'none')}; {a['solver']})")
    return "\n".join(lines) + "\n"
