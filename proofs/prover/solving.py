"""One case of a proof, decided twice: z3 on the case's SMT-LIB2 script
(:func:`solve_case`), then, for an ``unsat``, cvc5 on the same text
(:func:`confirm`). :func:`proofs.prover.driver.run_cases` runs both in its
worker processes, every z3 question before any cvc5 re-check (a
counterexample ends a proof without waiting for cvc5), under the proof's
common deadline. A case is ``"unsat"`` only when both solvers say so.
"""

from __future__ import annotations

import os
import re
import time

from models import PolicyError

from .encodings import get_encoding
from .properties import Query, get_negation
from .result import SAT, UNKNOWN, UNSAT, CaseResult
from .symbolic import Case

#: What a worker receives: policy, property, n, m, domain, case, deadline,
#: weighted, capped, and the file to write the case's SMT-LIB2 script to
#: (``None``: none).
Job = tuple[str, str, int, int, str, Case, float, bool, bool, str | None]


def case_file(directory: str, policy: str, prop: str, n: int, m: int, domain: str, weighted: bool, capped: bool,
              k: int) -> str:
    """The file of case ``k``'s script in ``directory``:
    ``drf.strategy-proofness.2x2.positive.case01.smt2`` (``.weighted``,
    ``.capped`` before ``.case`` for those classes; characters other than
    letters, digits, ``.``, ``-`` and ``_`` of a policy's parameters
    become ``_``)."""
    cls = "".join(f".{w}" for w, on in (("weighted", weighted), ("capped", capped)) if on)
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", policy)
    return os.path.join(directory, f"{stem}.{prop}.{n}x{m}.{domain}{cls}.case{k + 1:02d}.smt2")


def case_script(job: Job) -> tuple[Query, str]:
    """The case's query and its SMT-LIB2 script (written to the job's
    file when it names one)."""
    from .smtlib import header, script, write

    policy, prop, n, m, domain, case, _, weighted, capped, path = job
    enc = get_encoding(policy)
    query = get_negation(prop).build(enc, n, m, domain, case, weighted=weighted, capped=capped)
    text = script(query.constraints, header(policy, prop, n, m, domain, weighted, capped, case.label(n),
                                            enc.normalise))
    if path is not None:
        write(path, text)
    return query, text


def write_scripts(jobs: list[Job]) -> None:
    """Write the scripts of ``jobs`` (the cases no worker reached)."""
    for job in jobs:
        try:
            case_script(job)
        except OSError as exc:
            raise PolicyError(f"emit_smt2: cannot write {job[9]}: {exc.strerror or exc}") from None


def solve_case(job: Job) -> CaseResult:
    """Build one case and decide its script with z3 (runs in a worker
    process). An ``unsat`` comes back with z3 alone in ``.solvers`` and
    the script in ``.script``, for :func:`confirm`; a ``sat`` with the
    witness's values."""
    from .smtlib import z3_check, z3_version
    from .symbolic import evaluate

    name, deadline = job[5].label(job[2]), job[6]
    if deadline - time.time() <= 0:
        return CaseResult(name, UNKNOWN, 0.0, reason="deadline reached before the case started")
    try:
        query, text = case_script(job)
    except OSError as exc:  # the script's file could not be written
        return CaseResult(name, UNKNOWN, 0.0, reason=f"cannot write {job[9]}: {exc.strerror or exc}")
    answer, seconds, found = z3_check(text, deadline - time.time())
    if answer == SAT:
        return CaseResult(name, SAT, seconds, witness={k: evaluate(found, v) for k, v in query.witness.items()},
                          solvers=(z3_version(),))
    if answer == UNSAT:
        return CaseResult(name, UNSAT, seconds, solvers=(z3_version(),), script=text)
    return CaseResult(name, UNKNOWN, seconds, reason=found)


def confirm(z3_result: CaseResult, deadline: float) -> CaseResult:
    """cvc5 on the script of a case z3 found unsatisfiable, within the
    deadline: ``"unsat"`` from both solvers, or ``"unknown"`` with the
    reason (cvc5 found a model: the solvers disagree; cvc5 gave up or ran
    out of time)."""
    from .cvc5_check import cvc5_version, recheck, refusal

    name, seconds = z3_result.label, z3_result.seconds
    left = deadline - time.time()
    if left <= 0:
        return unconfirmed(z3_result, "deadline reached")
    second = recheck(z3_result.script, left)
    why = refusal(second)
    if why is None:
        return CaseResult(name, UNSAT, seconds, solvers=(*z3_result.solvers, cvc5_version()),
                          recheck_seconds=second.seconds)
    return CaseResult(name, UNKNOWN, seconds, reason=why, recheck_seconds=second.seconds)


def awaiting(result: CaseResult) -> bool:
    """``result`` is z3's ``unsat`` still waiting for cvc5's."""
    return result.status == UNSAT and bool(result.script)


def unconfirmed(z3_result: CaseResult, why: str) -> CaseResult:
    """A z3 ``unsat`` cvc5 never re-checked: ``"unknown"``, saying why."""
    return CaseResult(z3_result.label, UNKNOWN, z3_result.seconds,
                      reason=f"z3 says unsat, not re-checked by cvc5 ({why})")
