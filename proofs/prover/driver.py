"""Case splitting and the parallel, time-limited solving of the cases.

A proof of "``policy`` has ``property`` on every instance with ``n`` users
and ``m`` resources" is split by the dominant resource of every demand row
(for policies normalised by ``max_j d_ij = 1``), up to the symmetries of
the property (:func:`proofs.prover.symbolic.dominant_cases`); each case is
one z3 query, solved in its own process when ``workers > 1``, under a
common deadline.
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
from .result import SAT, UNKNOWN, UNSAT, CaseResult
from .symbolic import DOMAINS, dominant_cases

#: A case: the dominant resource of every row (users, then extra rows), or
#: ``None`` for an unsplit query.
Case = tuple[int, ...] | None
#: Reason of the cases left unsolved by Ctrl-C.
INTERRUPTED = "interrupted"
#: Seconds a case may overrun the deadline before its process is stopped.
DEADLINE_GRACE: float = 2.0
#: What a worker receives: policy, property, n, m, domain, case, deadline,
#: weighted, capped.
Job = tuple[str, str, int, int, str, Case, float, bool, bool]


def split(policy: str, prop: str, n: int, m: int, domain: str, symmetric: bool = True) -> list[Case]:
    """The cases whose union covers every instance of the fragment (up to
    symmetry; every dominant-resource assignment when not ``symmetric``,
    the baseline of ``benchmarks/bench_prove.py``).

    Raises
    ------
    SizeLimitError
        For a size :func:`check_size` refuses.
    """
    enc, neg = get_encoding(policy), get_negation(prop)
    if domain not in DOMAINS:
        raise ValueError(f"domain: must be one of {', '.join(DOMAINS)}, got {domain!r}")
    check_size(policy, prop, n, m, symmetric)
    if enc.normalise != "max":
        return [None]
    if not symmetric:
        return list(itertools.product(range(m), repeat=n + neg.extra_rows))
    fixed, free = neg.roles(n)
    return list(dominant_cases(m, tuple(fixed), tuple(free), neg.extra_rows))


def check_size(policy: str, prop: str, n: int, m: int, symmetric: bool = True) -> None:
    """Refuse, before any formula is built, a proof past
    :data:`~models.limits.MAX_PROVE_ENTRIES` demand entries, or whose case
    split (:func:`split`) would have more than
    :data:`~models.limits.MAX_PROVE_CASES` cases or take more than
    :data:`~models.limits.MAX_PROVE_ENUMERATION` steps to enumerate
    (counted, not enumerated).

    Raises
    ------
    SizeLimitError
    """
    refuse_above("users", n * m, MAX_PROVE_ENTRIES, f"demand entries ({n} users x {m} resources) in one formula",
                 "the formulas grow with users^2 x resources")
    enc, neg = get_encoding(policy), get_negation(prop)
    if enc.normalise != "max":
        return
    rows = n + neg.extra_rows
    if not symmetric:
        refuse_above("users", float(m) ** rows, MAX_PROVE_CASES, f"proof cases on {m} resources")
        return
    fixed, free = neg.roles(n)
    assignments = float(m) ** (len(fixed) + neg.extra_rows) * math.comb(m + len(free) - 1, len(free))
    refuse_above("users", assignments, MAX_PROVE_CASES, f"dominant-resource assignments on {m} resources",
                 "the case split is enumerated before the first case is solved")
    refuse_above("resources", assignments * math.factorial(min(m, rows)), MAX_PROVE_ENUMERATION,
                 "steps to reduce the case split by symmetry")


def label(case: Case, n: int) -> str:
    """``"dominant r0,r1; report r0"`` (``"all"`` for an unsplit query)."""
    if case is None:
        return "all"
    text = "dominant " + ",".join(f"r{j}" for j in case[:n])
    if len(case) > n:
        text += "; report " + ",".join(f"r{j}" for j in case[n:])
    return text


def solve_case(job: Job) -> CaseResult:
    """Build and solve one case (runs in a worker process)."""
    import z3

    from .symbolic import evaluate

    policy, prop, n, m, domain, case, deadline, weighted, capped = job
    name = label(case, n)
    left = deadline - time.time()
    if left <= 0:
        return CaseResult(name, UNKNOWN, 0.0, reason="deadline reached before the case started")
    query = get_negation(prop).build(get_encoding(policy), n, m, domain, case, weighted=weighted, capped=capped)
    solver = z3.Solver()
    solver.set("timeout", max(1, int(left * 1000)))
    solver.add(*query.constraints)
    t0 = time.perf_counter()
    answer = solver.check()
    seconds = time.perf_counter() - t0
    if answer == z3.unsat:
        return CaseResult(name, UNSAT, seconds)
    if answer == z3.sat:
        model = solver.model()
        return CaseResult(name, SAT, seconds, witness={k: evaluate(model, v) for k, v in query.witness.items()})
    return CaseResult(name, UNKNOWN, seconds, reason=solver.reason_unknown())


def run_cases(policy: str, prop: str, n: int, m: int, domain: str, timeout: float, workers: int | None,
              accept: Callable[[CaseResult], bool], *, weighted: bool = False, capped: bool = False,
              symmetric: bool = True) -> tuple[list[CaseResult], bool]:
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

    Returns
    -------
    (list of CaseResult, bool)
        The results of the cases solved, and whether a case was accepted.
    """
    cases = split(policy, prop, n, m, domain, symmetric)
    deadline = time.time() + timeout
    pending: list[Job] = [(policy, prop, n, m, domain, c, deadline, weighted, capped) for c in cases]
    count = max(1, workers or os.cpu_count() or 1)
    ctx = multiprocessing.get_context("fork")
    running: dict[Any, tuple[Any, Case]] = {}  # result pipe -> (process, case)
    results: list[CaseResult] = []
    why = "deadline reached"
    # one process per case, no shared locks: a case that overruns z3's own
    # timeout is killed at the deadline (plus a grace period) without
    # leaving anything locked (multiprocessing.Pool.terminate can hang then)
    try:
        while pending or running:
            while pending and len(running) < count:
                job = pending.pop(0)
                recv, proc = _start(ctx, job)
                running[recv] = (proc, job[5])
            ready = wait(list(running), timeout=max(0.0, deadline - time.time()) + DEADLINE_GRACE)
            if not ready:
                break
            for conn in ready:
                res = _collect(conn, *running.pop(conn), n)
                results.append(res)
                if res.status == SAT and accept(res):
                    return _in_split_order(results, cases, n), True
    except KeyboardInterrupt:  # keep the cases solved so far
        why = INTERRUPTED
    finally:
        for conn, (proc, _) in running.items():
            proc.kill()
            proc.join()
            conn.close()
    seen = {r.label for r in results}
    results += [CaseResult(label(c, n), UNKNOWN, 0.0, reason=why) for c in cases if label(c, n) not in seen]
    return _in_split_order(results, cases, n), False


def _start(ctx: Any, job: Job) -> tuple[Any, Any]:
    """A worker process solving ``job``, and the pipe its result comes by."""
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_worker, args=(job, send), daemon=True)
    proc.start()
    send.close()
    return recv, proc


def _collect(conn: Any, proc: Any, case: Case, n: int) -> CaseResult:
    """The result a finished worker sent (``unknown`` when it died first)."""
    try:
        res = conn.recv()
    except EOFError:
        res = CaseResult(label(case, n), UNKNOWN, 0.0, reason=f"worker exited with code {proc.exitcode}")
    conn.close()
    proc.join()
    return res


def _in_split_order(results: list[CaseResult], cases: list[Case], n: int) -> list[CaseResult]:
    """``results`` in the order of the case split, not of completion (the
    workers finish in any order; a report must not depend on it)."""
    order = {label(c, n): k for k, c in enumerate(cases)}
    return sorted(results, key=lambda r: order.get(r.label, len(order)))


def _worker(job: Job, conn: Any) -> None:
    """A worker process: solve one case and send its result (Ctrl-C is the
    parent's to handle: it kills the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn.send(solve_case(job))
    conn.close()
