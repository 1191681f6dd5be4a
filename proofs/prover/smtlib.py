"""One case of a proof as a self-contained SMT-LIB2 script, decided by z3
and re-checked by cvc5 on the very same text.

The script is z3's own serialisation of the case's formula
(``Solver.to_smt2``, made strict SMT-LIB2 by :func:`flatten`) behind a comment header saying
what the case is, and a ``set-logic`` line: ``QF_NRA`` (quantifier-free
nonlinear real arithmetic), ``QF_NIRA`` when integer variables occur
(``slots``). Both solvers read that text: z3 parses it back
(:func:`z3_check`), and cvc5 (an independent implementation: its own
parser, rewriter and nonlinear procedures) parses and solves it
(:mod:`proofs.prover.cvc5_check`). ``fairalloc prove --emit-smt2 DIR``
writes the same text to disk, so anyone can re-check a case with any
SMT-LIB2 solver.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import z3

from models import PolicyError

#: Logics of the scripts: nonlinear real arithmetic, and with integers.
REAL_LOGIC, MIXED_LOGIC = "QF_NRA", "QF_NIRA"
#: The n-ary operators SMT-LIB2 wants with two or more arguments, and the
#: term an empty application stands for (see :func:`flatten`).
_EMPTY = {"+": "0.0", "*": "1.0", "and": "true", "or": "false"}
#: An SMT-LIB2 token: a parenthesis, a |quoted| symbol, or any other word.
_TOKEN = re.compile(r"\(|\)|\|[^|]*\||[^\s()|]+")
_HEAD = re.compile(r"\((\+|\*|\^|and|or|to_real)(?=[\s)])")
#: ``and``/``or`` as an argument, not applied (z3's empty conjunction or disjunction).
_ATOM = re.compile(r"(?<=\s)(and|or)(?=[\s)])")


def z3_version() -> str:
    """``"z3 4.13.0"``."""
    return f"z3 {z3.get_version_string()}"


#: The per-user normalisation of the demand rows, in words.
NORMALISED = {"max": "each user's largest demand entry is 1 (the case fixes which)",
              "sum": "each user's demand entries sum to 1", None: "none (task sizes matter to this policy)"}


def header(policy: str, prop: str, n: int, m: int, domain: str, weighted: bool, capped: bool, case: str,
           normalise: str | None) -> dict[str, str]:
    """What a case's script is, for its comment header."""
    return {
        "fairalloc prove": f"one case of the proof that {policy} has {prop} on every instance of the size",
        "policy": policy, "property": prop, "size": f"{n} users x {m} resources",
        "domain": domain + (" (every demand entry > 0)" if domain == "positive"
                            else " (demand entries >= 0, each user needing some resource)"),
        "class": ", ".join(["weights any > 0" if weighted else "unweighted",
                            "task caps any >= 0" if capped else "uncapped"]),
        "case": case,
        "instances": f"capacities 1 (each resource scaled to 1); demand rows: {NORMALISED[normalise]}",
        "meaning": "the formula is the policy's allocation and the property's negation: unsat proves the "
                   "property on every instance of this case; a model (sat) is a candidate counterexample",
        "formula": f"written by {z3_version()}; re-check with any SMT-LIB2 solver (z3 FILE, cvc5 FILE)",
    }


def script(constraints: Iterable[Any], header: Mapping[str, str]) -> str:
    """A complete SMT-LIB2 script asserting ``constraints``: the comment
    ``header`` (one ``; key: value`` line each), the logic, z3's
    declarations and assertions, ``(check-sat)`` and ``(exit)``."""
    solver = z3.Solver()
    solver.add(*constraints)
    body = [line for line in flatten(solver.to_smt2()).splitlines() if not line.startswith(";")]
    mixed = any(re.fullmatch(r"\(declare-fun \S+ \(\) Int\)", line) or re.search(r"\((to_real|to_int|is_int) ", line)
                for line in body)
    logic = MIXED_LOGIC if mixed else REAL_LOGIC
    lines = [f"; {key}: {' '.join(str(value).split())}" for key, value in header.items()]
    return "\n".join([*lines, f"(set-logic {logic})", *body, "(exit)"]) + "\n"


def flatten(text: str) -> str:
    """z3's SMT-LIB2 ``text`` made strict SMT-LIB2, the same formulas: an
    application of ``+``, ``*``, ``and``, ``or`` to one argument becomes
    that argument, to none the neutral element (z3 prints ``(+ x)`` for a
    sum of one term and ``or`` for an empty disjunction, which cvc5
    rejects), and a power ``(^ x 2.0)`` with a whole exponent the product
    ``(* x x)`` (``^`` is z3's own symbol: neither z3's parser nor cvc5's
    reads it back)."""
    for head in reversed(list(_HEAD.finditer(text))):
        args, end = _arguments(text, head.end())
        op, new = head.group(1), None
        if op in _EMPTY and len(args) <= 1:
            new = text[args[0][0]:args[0][1]] if args else _EMPTY[op]
        elif op == "^" and len(args) == 2 and re.fullmatch(r"\d+(?:\.0*)?", text[args[1][0]:args[1][1]]):
            power = int(float(text[args[1][0]:args[1][1]]))
            base = text[args[0][0]:args[0][1]]
            new = "1.0" if power == 0 else base if power == 1 else "(* " + " ".join([base] * power) + ")"
        elif op == "to_real" and len(args) == 1:
            new = _as_real(text[args[0][0]:args[0][1]])
        if new is not None:
            text = text[:head.start()] + new + text[end:]
    return _ATOM.sub(lambda a: _EMPTY[a.group(1)], text)


def _as_real(term: str) -> str | None:
    """An integer term as a real one without a cast: a numeral ``2`` as
    ``2.0``, ``(ite c 1 0)`` as ``(ite c 1.0 0.0)`` (z3's ``ToReal(If(c, 1,
    0))``); ``None`` for anything else (the cast stays, and the logic is
    then ``QF_NIRA``)."""
    if re.fullmatch(r"\d+", term):
        return term + ".0"
    if term.startswith("(ite"):
        args, _ = _arguments(term, len("(ite"))
        if len(args) == 3 and all(re.fullmatch(r"\d+", term[a:b]) for a, b in args[1:]):
            cond, yes, no = (term[a:b] for a, b in args)
            return f"(ite {cond} {yes}.0 {no}.0)"
    return None


def _arguments(text: str, start: int) -> tuple[list[tuple[int, int]], int]:
    """The spans of the arguments of the application whose operator ends
    at ``start``, and the end of the application (after its ``)``)."""
    depth, first = 0, 0
    args: list[tuple[int, int]] = []
    for tok in _TOKEN.finditer(text, start):
        word = tok.group()
        if depth == 0 and word == ")":
            return args, tok.end()
        if depth == 0:
            first = tok.start()
        depth += {"(": 1, ")": -1}.get(word, 0)
        if depth == 0:
            args.append((first, tok.end()))
    return args, len(text)


def emit_directory(path: Any, setting: str = "continuous", field: str = "emit_smt2") -> str | None:
    """The directory of ``prove(..., emit_smt2=DIR)`` (created when
    missing), or ``None``: every case is written there as the very script
    z3 and cvc5 decided, with a comment header (policy, property, size,
    domain, class, case), for ``z3 FILE`` or ``cvc5 FILE`` to re-check
    (``unsat``: the case holds no counterexample). Errors name ``field``
    (the command line says ``--emit-smt2``).

    Raises
    ------
    PolicyError
        Not a path, a file, a directory that cannot be created or written,
        or the discrete setting (no SMT formulas)."""
    if path is None:
        return None
    if setting == "discrete":
        raise PolicyError(f"{field}: the discrete setting enumerates instances; it has no SMT-LIB2 scripts")
    if isinstance(path, bool) or not isinstance(path, str | os.PathLike) or not str(path):
        raise PolicyError(f"{field}: must be a directory path, got {path!r}")
    where = Path(path)
    if where.exists() and not where.is_dir():
        raise PolicyError(f"{field}: {where} exists and is not a directory")
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PolicyError(f"{field}: cannot create the directory {where} ({exc.strerror or exc})") from None
    if not os.access(where, os.W_OK | os.X_OK):
        raise PolicyError(f"{field}: the directory {where} is not writable")
    return str(where)


def write(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file, then
    ``os.replace``): a reader never sees half a script."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)


def z3_check(text: str, seconds: float) -> tuple[str, float, Any]:
    """z3's answer on the script ``text`` (parsed afresh): ``("unsat" |
    "sat" | "unknown", solver seconds, the model or z3's reason)``."""
    solver = z3.Solver()
    solver.set("timeout", max(1, int(seconds * 1000)))
    try:
        solver.from_string(text)
    except z3.Z3Exception as exc:  # a script z3 cannot read back is no proof
        return "unknown", 0.0, f"z3 cannot read the case's SMT-LIB2 script: {' '.join(str(exc).split())[:300]}"
    t0 = time.perf_counter()
    answer = solver.check()
    spent = time.perf_counter() - t0
    if answer == z3.unsat:
        return "unsat", spent, None
    if answer == z3.sat:
        return "sat", spent, solver.model()
    return "unknown", spent, solver.reason_unknown()
