"""``fairalloc prove POLICY PROPERTY --users N --resources M``: decide a
property for every instance of one size with an SMT solver (z3), or, with
``--discrete --bound K``, for every integer instance within the bound by
exhaustive enumeration (:mod:`analyzer.proving.discrete`).

Exit 0 proved, 1 counterexample (printed like ``fairalloc check`` prints
one, re-verified exactly), 3 unknown (timeout or z3 gave up), 4 vacuous
(no feasible allocation violates the property at that size, so it says
nothing about the policy), 2 bad input, 130 interrupted (a discrete run
keeps its ``--resume`` file).
"""

from __future__ import annotations

import argparse
from typing import Any

from ...formats import render
from ..common import (
    EXIT_INTERRUPTED,
    UsageError,
    add_format_option,
    fail,
    write_out,
)
from ._proof_report import EXIT_CODES, proof_document


def register(sub: Any) -> None:
    p = sub.add_parser("prove", help="prove a property for every instance of one size, or find a counterexample (z3)")
    p.add_argument("policy", help="policy name, with parameters (gfj:beta=2) or from --policy-file")
    p.add_argument("property", help="property name (see `fairalloc properties`)")
    p.add_argument("--users", type=int, default=2, help="number of users n (default: 2)")
    p.add_argument("--resources", type=int, default=2, help="number of resources m (default: 2)")
    p.add_argument("--domain", choices=("positive", "zeros"), default="positive",
                   help="demand entries all > 0 (default) or >= 0 with zeros allowed")
    p.add_argument("--weighted", action="store_true",
                   help="any weights w_i > 0 (the checker's weighted definitions, paper Section 4.3)")
    p.add_argument("--capped", action="store_true", help="any task caps k_i >= 0 (or none)")
    p.add_argument("--timeout", type=float, default=60.0, help="wall-clock seconds for the whole proof (default: 60)")
    p.add_argument("--workers", type=int, default=None, help="processes solving cases in parallel (default: CPUs)")
    p.add_argument("--mode", choices=("continuous", "dynamic"), default="continuous",
                   help="setting (default: continuous; dynamic: users arrive in order, the dynamic-* properties)")
    p.add_argument("--discrete", action="store_true",
                   help="the discrete setting: every integer instance within --bound, checked exhaustively")
    p.add_argument("--bound", type=str, default=None, metavar="K",
                   help="with --discrete: capacities and demands (weights, caps) in 1..K (0..K for zeros)")
    p.add_argument("--scheduler", default=None, metavar="ADDR",
                   help="with --discrete: run the chunks on the Dask scheduler at ADDR (tcp://host:port)")
    p.add_argument("--resume", default=None, metavar="FILE",
                   help="with --discrete: progress file, continued when it exists and kept on Ctrl-C")
    p.add_argument("--emit-smt2", default=None, metavar="DIR",
                   help="write every case as a self-contained SMT-LIB2 script to DIR (created when missing), "
                        "the text z3 and cvc5 decided: re-check it with any solver")
    add_format_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from proofs.prover.driver import INTERRUPTED

    from ...proving.smt import prove

    if args.discrete:
        if args.mode != "continuous":
            raise UsageError(f"--mode {args.mode}: not with --discrete")
        if args.emit_smt2 is not None:
            raise UsageError("--emit-smt2: not with --discrete (the discrete setting enumerates instances)")
        from ._prove_discrete import run_discrete

        return run_discrete(args)
    for flag in ("bound", "scheduler", "resume"):
        if getattr(args, flag) is not None:
            raise UsageError(f"--{flag}: only with --discrete")
    from proofs.prover.smtlib import emit_directory

    emit_directory(args.emit_smt2, field="--emit-smt2")
    r = prove(args.policy, args.property, args.users, args.resources, domain=args.domain, weighted=args.weighted,
              capped=args.capped, timeout=args.timeout, workers=args.workers, mode=args.mode,
              emit_smt2=args.emit_smt2)
    write_out(render(proof_document(r), args.format))
    if any(c.reason == INTERRUPTED for c in r.cases) and r.status == "unknown":
        return fail("interrupted: the cases decided so far are listed above", EXIT_INTERRUPTED)
    return EXIT_CODES[r.status]
