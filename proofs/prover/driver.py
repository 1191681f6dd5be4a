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
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import wait
from typing import Any

from .encodings import get_encoding
from .properties import get_negation
from .result import SAT, UNKNOWN, UNSAT, CaseResult
from .symbolic import DOMAINS, Case, dominant_cases
from .symmetry import NONE, Symmetries, symmetries

#: Reason of the cases left unsolved by Ctrl-C.
INTERRUPTED = "interrupted"
#: Seconds a case may overrun the deadline before its process is stopped.
DEADLINE_GRACE: float = 2.0
#: What a worker receives: policy, property, n, m, domain, case, deadline,
#: weighted, capped.
Job = tuple[str, str, int, int, str, Case, float, bool, bool]


def split(policy: str, prop: str, n: int, m: int, domain: str, symmetric: bool = True, *,
          weighted: bool = False, capped: bool = False) -> list[Case]:
    """The cases whose union covers every instance of the fragment, reduced
    by the symmetries the policy has (:func:`case_symmetries`; none when
    not ``symmetric``, the baseline of ``benchmarks/bench_prove.py``)."""
    neg = get_negation(prop)
    if domain not in DOMAINS:
        raise ValueError(f"domain: must be one of {', '.join(DOMAINS)}, got {domain!r}")
    sym = case_symmetries(policy, prop, n, m, domain, weighted, capped) if symmetric else NONE
    fixed, free = neg.roles(n)
    if sym.users:
        assignments, named = [tuple(fixed)], False
    else:  # every tuple of distinct users in the roles; nobody interchangeable
        assignments, named = list(itertools.permutations(range(n), len(fixed))), n > 1 and bool(fixed)
        fixed, free = list(range(n)), []
    doms: list[tuple[int, ...] | None] = [None]
    if get_encoding(policy).normalise == "max":
        doms = list(dominant_cases(m, tuple(fixed), tuple(free), neg.extra_rows, sym.resources))
    return [Case(d, roles, named) for roles in assignments for d in doms]


def case_symmetries(policy: str, prop: str, n: int, m: int, domain: str, weighted: bool = False,
                    capped: bool = False) -> Symmetries:
    """The symmetries the split of (``policy``, ``prop``) at ``n x m`` may
    use: those the policy has at every size the negation evaluates it at
    (:func:`proofs.prover.symmetry.symmetries`)."""
    enc, neg = get_encoding(policy), get_negation(prop)
    return symmetries(enc, neg.sizes(n), m, domain, weighted, capped)


def label(case: Case, n: int) -> str:
    """``"dominant r0,r1; report r0"``, with ``"roles u1,u0; "`` before it
    when the split names the users (``"all"`` for an unsplit query)."""
    return case.label(n)


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
    cases = split(policy, prop, n, m, domain, symmetric, weighted=weighted, capped=capped)
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
