"""cvc5's re-check of a case z3 found unsatisfiable, on the same SMT-LIB2
text (:func:`proofs.prover.smtlib.script`).

cvc5 is a second, independent implementation (its own parser, rewriter,
preprocessing and nonlinear arithmetic): a case counts as proved only
when both answer ``unsat``. cvc5 decides nonlinear real arithmetic with
cylindrical algebraic coverings (a decision procedure for ``QF_NRA``,
Abraham et al., 2021), incremental linearisation (the extension lemmas of
Cimatti et al., 2018, which also handle integers) or both interleaved (its
default); on these formulas each of the three answers some cases where the
others give up (``unknown (INCOMPLETE)``) or run on, so they are tried in
turn (:data:`CONFIGS`) until one answers.

cvc5 does not always honour its own time limit inside those procedures,
so each attempt runs in a forked child process that is killed when its
share of the time is spent (and that kills itself, with ``SIGALRM``,
should its parent die first).
"""

from __future__ import annotations

import math
import os
import pickle
import select
import signal
import time
from dataclasses import dataclass

#: cvc5 configurations tried in turn: (what it does, options).
CONFIGS: tuple[tuple[str, dict[str, str]], ...] = (
    ("cylindrical algebraic coverings", {"nl-ext": "none"}),
    ("coverings and linearisation", {}),
    ("incremental linearisation", {"nl-cov": "false"}),
)
#: Seconds after its share at which an attempt's child kills itself when
#: nobody killed it (its parent died), where the parent's death cannot be
#: signalled to it.
ORPHAN_GRACE: int = 5
#: ``prctl`` option: the signal a process gets when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Recheck:
    """cvc5's answer on one script.

    Attributes
    ----------
    answer : {"unsat", "sat", "unknown"}
    seconds : float
        Wall-clock time of every attempt.
    reason : str
        Why it is ``"unknown"`` (each attempt's outcome), or which
        configuration answered.
    """

    answer: str
    seconds: float
    reason: str


def cvc5_version() -> str:
    """``"cvc5 1.2.0"`` (``"cvc5 (not installed)"`` without the package)."""
    try:
        import cvc5
    except ImportError:
        return "cvc5 (not installed)"
    return f"cvc5 {cvc5.__version__}"


def refusal(second: Recheck) -> str | None:
    """``None`` when cvc5 confirmed z3's ``unsat``, else why not, in words
    (a model: the solvers disagree; no answer: what each attempt gave)."""
    if second.answer == "unsat":
        return None
    if second.answer == "sat":
        return "the solvers disagree: z3 says unsat, cvc5 finds a model (sat)"
    return f"z3 says unsat, cvc5 did not confirm it ({second.reason})"


def recheck(text: str, seconds: float) -> Recheck:
    """cvc5 on the SMT-LIB2 script ``text``, within ``seconds``: the first
    definite answer of the :data:`CONFIGS`, else ``"unknown"`` with what
    each attempt gave."""
    t0 = time.perf_counter()
    outcomes = []
    for k, (name, options) in enumerate(CONFIGS):
        left = seconds - (time.perf_counter() - t0)
        if left <= 0:
            outcomes.append(f"{name}: no time left")
            continue
        share = left / (len(CONFIGS) - k)  # an equal share of what is left
        answer, detail = _attempt(text, options, share)
        if answer in ("unsat", "sat"):
            return Recheck(answer, time.perf_counter() - t0, f"{name}")
        outcomes.append(f"{name}: {detail}")
    return Recheck("unknown", time.perf_counter() - t0, "; ".join(outcomes))


def _attempt(text: str, options: dict[str, str], seconds: float) -> tuple[str, str]:
    """One configuration in a child process: ``(answer, detail)``."""
    read, write = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: solve, send the answer, exit without cleanup
        try:
            os.close(read)
            _die_with(parent, seconds)
            try:
                out = _solve(text, options, seconds)
            except Exception as exc:  # reported to the parent, never raised here
                out = ("unknown", f"cvc5 failed: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
            os.write(write, pickle.dumps(out))
        finally:
            os._exit(0)
    os.close(write)
    try:
        return _receive(read, pid, seconds)
    finally:
        os.close(read)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)


def _die_with(parent: int, seconds: float) -> None:
    """Make this child die with its parent (``PR_SET_PDEATHSIG`` on Linux)
    and, wherever that is not available, by ``SIGALRM`` once its time and
    :data:`ORPHAN_GRACE` have passed."""
    signal.alarm(int(math.ceil(seconds)) + ORPHAN_GRACE)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the alarm alone
        pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(0)


def _receive(read: int, pid: int, seconds: float) -> tuple[str, str]:
    """The child's answer, or ``"unknown"`` when ``seconds`` pass first."""
    deadline = time.monotonic() + seconds
    chunks = []
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([read], [], [], max(0.0, left))
        if not ready:
            return "unknown", f"timeout after {seconds:.3g} s"
        chunk = os.read(read, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    try:
        answer, detail = pickle.loads(b"".join(chunks))
    except (pickle.UnpicklingError, EOFError, ValueError):
        return "unknown", "cvc5's process ended without an answer"
    return str(answer), str(detail)


def _solve(text: str, options: dict[str, str], seconds: float) -> tuple[str, str]:
    """cvc5 in this process: parse ``text`` and run its commands."""
    import cvc5

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    for key, value in options.items():
        solver.setOption(key, value)
    solver.setOption("tlimit-per", str(max(1, int(seconds * 1000))))
    symbols = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "case.smt2")
    out = []
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        out.append(command.invoke(solver, symbols))
    lines = "".join(out).strip().splitlines()
    last = lines[-1].strip() if lines else ""
    if last in ("unsat", "sat"):
        return last, ""
    return "unknown", last or "cvc5 gave no answer"
