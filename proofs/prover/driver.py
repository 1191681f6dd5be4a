"""Case splitting and the parallel, time-limited solving of the cases.

A proof of "``policy`` has ``property`` on every instance with ``n`` users
and ``m`` resources" is split by the users in the property's roles (every
assignment, unless the policy treats users alike) and by the dominant
resource of every demand row (for policies normalised by ``max_j d_ij =
1``), each up to the symmetries the policy has, checked
(:mod:`proofs.prover.symmetry`, :func:`proofs.prover.symbolic.dominant_cases`);
each case is one z3 query, solved in its own process when ``workers > 1``,
under a common deadline.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import wait
from typing import Any

from models.limits import MAX_PROVE_CASES, MAX_PROVE_ENTRIES, MAX_PROVE_ENUMERATION, refuse_above

from .encodings import get_encoding
from .properties import get_negation
from .result import SAT, UNKNOWN, CaseResult
from .symbolic import DOMAINS, Case, dominant_cases
from .symmetry import NONE, Symmetries, symmetries

#: Reason of the cases left unsolved by Ctrl-C.
INTERRUPTED = "interrupted"
#: Seconds a case may overrun the deadline before its process is stopped.
DEADLINE_GRACE: float = 2.0


def split(policy: str, prop: str, n: int, m: int, domain: str, symmetric: bool = True, *,
          weighted: bool = False, capped: bool = False) -> list[Case]:
    """The cases whose union covers every instance of the fragment, reduced
    by the symmetries the policy has (:func:`case_symmetries`; none when
    not ``symmetric``, the baseline of ``benchmarks/bench_prove.py``)."""
    neg = get_negation(prop)
    if domain not in DOMAINS:
        raise ValueError(f"domain: must be one of {', '.join(DOMAINS)}, got {domain!r}")
    check_size(policy, prop, n, m)
    sym = case_symmetries(policy, prop, n, m, domain, weighted, capped) if symmetric else NONE
    fixed, free = neg.roles(n)
    if sym.users or neg.every_user:  # the default roles stand for any, or the formula names every user
        assignments, named = [tuple(fixed)], False
    else:  # every tuple of distinct users in the roles; nobody interchangeable
        assignments, named = list(itertools.permutations(range(n), len(fixed))), n > 1 and bool(fixed)
        fixed, free = list(range(n)), []
    doms: list[tuple[int, ...] | None] = [None]
    if get_encoding(policy).normalise == "max":
        _check_split(len(fixed), len(free), neg.extra_rows, m, len(assignments), sym.resources)
        doms = list(dominant_cases(m, tuple(fixed), tuple(free), neg.extra_rows, sym.resources))
    return [Case(d, roles, named) for roles in assignments for d in doms]


def case_symmetries(policy: str, prop: str, n: int, m: int, domain: str, weighted: bool = False,
                    capped: bool = False) -> Symmetries:
    """The symmetries the split of (``policy``, ``prop``) at ``n x m`` may
    use: those the policy has at every size the negation evaluates it at
    (:func:`proofs.prover.symmetry.symmetries`)."""
    enc, neg = get_encoding(policy), get_negation(prop)
    return symmetries(enc, neg.sizes(n), m, domain, weighted, capped)


def check_size(policy: str, prop: str, n: int, m: int) -> None:
    """Refuse, before any formula is built, a proof past
    :data:`~models.limits.MAX_PROVE_ENTRIES` demand entries, or whose case
    split would be too large even with every symmetry (:func:`_check_split`;
    :func:`split` checks again with the symmetries the policy has).

    Raises
    ------
    SizeLimitError
    """
    refuse_above("users", n * m, MAX_PROVE_ENTRIES, f"demand entries ({n} users x {m} resources) in one formula",
                 "the formulas grow with users^2 x resources")
    enc, neg = get_encoding(policy), get_negation(prop)
    if enc.normalise == "max":
        fixed, free = neg.roles(n)
        _check_split(len(fixed), len(free), neg.extra_rows, m, 1, True)


def _check_split(fixed: int, free: int, extra: int, m: int, assignments: int, neutral: bool) -> None:
    """Refuse a case split of more than :data:`~models.limits.MAX_PROVE_CASES`
    cases (``assignments`` of users to the roles, times the dominant
    resources of ``fixed`` rows, a multiset for the ``free`` users, and the
    ``extra`` rows) or, when the split is reduced by renaming resources,
    more than :data:`~models.limits.MAX_PROVE_ENUMERATION` steps to
    enumerate it (counted, not enumerated)."""
    count = assignments * float(m) ** (fixed + extra) * math.comb(m + free - 1, free)
    refuse_above("users", count, MAX_PROVE_CASES, f"proof cases on {m} resources",
                 "the case split is enumerated before the first case is solved")
    if neutral:
        refuse_above("resources", count * math.factorial(min(m, fixed + free + extra)), MAX_PROVE_ENUMERATION,
                     "steps to reduce the case split by symmetry")


def label(case: Case, n: int) -> str:
    """``"dominant r0,r1; report r0"``, with ``"roles u1,u0; "`` before it
    when the split names the users (``"all"`` for an unsplit query)."""
    return case.label(n)


def run_cases(policy: str, prop: str, n: int, m: int, domain: str, timeout: float, workers: int | None,
              accept: Callable[[CaseResult], bool], *, weighted: bool = False, capped: bool = False,
              symmetric: bool = True, emit: str | None = None) -> tuple[list[CaseResult], bool]:
    """Solve every case; stop early once ``accept`` takes a satisfiable one.

    Parameters
    ----------
    timeout : float
        Wall-clock seconds for the whole proof (a common deadline).
    workers : int or None
        Worker processes (default: the CPU count).
    accept : callable
        Called on each satisfiable case in the parent process; ``True``
        (the counterexample was re-verified) stops the run.
    weighted, capped : bool
        Symbolic weights / task caps in the instances.
    symmetric : bool
        Split up to symmetry (see :func:`split`).
    emit : str or None
        A directory to write every case's SMT-LIB2 script to
        (:func:`case_file`; the cases no worker reached are written at the
        end, unless interrupted).

    Returns
    -------
    (list of CaseResult, bool)
        The results of the cases solved, and whether a case was accepted.
    """
    from .solving import awaiting, case_file, unconfirmed, write_scripts

    cases = split(policy, prop, n, m, domain, symmetric, weighted=weighted, capped=capped)
    deadline = time.time() + timeout
    pending: list[Any] = [(policy, prop, n, m, domain, c, deadline, weighted, capped,
                           None if emit is None else case_file(emit, policy, prop, n, m, domain, weighted, capped, k))
                          for k, c in enumerate(cases)]
    results, why, accepted = _drive(pending, max(1, workers or os.cpu_count() or 1), deadline, accept, n)
    if emit is not None and why != INTERRUPTED:  # the cases no worker reached: their scripts too
        write_scripts([task for task in pending if not isinstance(task[0], CaseResult)])
    late = "a counterexample ended the proof first" if accepted else why
    out = [unconfirmed(r, late) if awaiting(r) else r for r in results.values()]
    if not accepted:
        seen = {r.label for r in out}
        out += [CaseResult(label(c, n), UNKNOWN, 0.0, reason=why) for c in cases if label(c, n) not in seen]
    return _in_split_order(out, cases, n), accepted


def _drive(pending: list[Any], count: int, deadline: float, accept: Callable[[CaseResult], bool], n: int
           ) -> tuple[dict[str, CaseResult], str, bool]:
    """Run the tasks of ``pending`` on ``count`` processes: each case's z3
    question, and for each z3 ``unsat`` its cvc5 re-check (queued after
    every case's z3 question). Returns the latest result by case, why the
    run stopped, and whether ``accept`` took a satisfiable case."""
    from .solving import awaiting

    ctx = multiprocessing.get_context("fork")
    running: dict[Any, tuple[Any, str]] = {}  # result pipe -> (process, case label)
    results: dict[str, CaseResult] = {}
    why, accepted = "deadline reached", False
    # one process per task, no shared locks: a case that overruns the
    # solvers' own time limits is killed at the deadline (plus a grace
    # period) without leaving anything locked (multiprocessing.Pool.terminate
    # can hang then)
    try:
        while (pending or running) and not accepted:
            while pending and len(running) < count:
                task = pending.pop(0)
                recv, proc = _start(ctx, task)
                running[recv] = (proc, task[0].label if isinstance(task[0], CaseResult) else label(task[5], n))
            ready = wait(list(running), timeout=max(0.0, deadline - time.time()) + DEADLINE_GRACE)
            if not ready:
                break
            for conn in ready:
                res = _collect(conn, *running.pop(conn))
                results[res.label] = res
                if awaiting(res):
                    pending.append((res, deadline))
                accepted = accepted or (res.status == SAT and accept(res))
    except KeyboardInterrupt:  # keep the cases solved so far
        why = INTERRUPTED
    finally:
        for conn, (proc, _) in running.items():
            proc.kill()
            proc.join()
            conn.close()
    return results, why, accepted


def _start(ctx: Any, task: Any) -> tuple[Any, Any]:
    """A worker process running ``task`` (a :data:`~proofs.prover.solving.Job`,
    or a z3 result to re-check and the deadline), and the pipe its result
    comes by."""
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_worker, args=(task, send), daemon=True)
    proc.start()
    send.close()
    return recv, proc


def _collect(conn: Any, proc: Any, name: str) -> CaseResult:
    """The result a finished worker sent (``unknown`` when it died first)."""
    try:
        res = conn.recv()
    except EOFError:
        res = CaseResult(name, UNKNOWN, 0.0, reason=f"worker exited with code {proc.exitcode}")
    conn.close()
    proc.join()
    return res


def _in_split_order(results: list[CaseResult], cases: list[Case], n: int) -> list[CaseResult]:
    """``results`` in the order of the case split, not of completion (the
    workers finish in any order; a report must not depend on it)."""
    order = {label(c, n): k for k, c in enumerate(cases)}
    return sorted(results, key=lambda r: order.get(r.label, len(order)))


def _worker(task: Any, conn: Any) -> None:
    """A worker process: run one task and send its result (Ctrl-C is the
    parent's to handle: it kills the workers)."""
    from .solving import confirm, solve_case

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn.send(confirm(*task) if isinstance(task[0], CaseResult) else solve_case(task))
    conn.close()
