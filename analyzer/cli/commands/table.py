"""``fairalloc table``: the property table (policies x properties)."""

from __future__ import annotations

import argparse
from typing import Any

from ..common import EXIT_INTERRUPTED, EXIT_OK, UsageError, fail, split_list, write_out
from ._progress import add_run_options, behind_bar, checked_budget, checked_out, progress_bar

DEFAULT_POLICIES = "asset,ceei,drf"
#: The columns of a dynamic-setting table: the two dynamic mechanisms and
#: DRF recomputed at every arrival (Kash, Procaccia and Shah, JAIR 51, 2014).
DYNAMIC_POLICIES = "dynamic-drf,cautious-drf,drf"


def register(sub: Any) -> None:
    p = sub.add_parser("table", help="property table: which policy keeps which property (like the paper's Table 2)")
    p.add_argument("--policy", default=None, help=f"comma-separated policies (default: {DEFAULT_POLICIES}; "
                                                  f"{DYNAMIC_POLICIES} with --mode dynamic)")
    p.add_argument("--property", default=None, help="comma-separated properties (default: all)")
    add_run_options(p)
    p.add_argument("--prove", default=None, metavar="N,M",
                   help="also try to prove each ✓ cell with z3 for every size up to N users x M resources")
    p.add_argument("--prove-timeout", type=float, default=60.0, metavar="S",
                   help="seconds per size for --prove (default: 60)")
    p.add_argument("--prove-bound", default=None, metavar="K",
                   help="with --mode discrete --prove: prove each ✓ cell for every integer instance within K")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ...tables.table import DEFAULT_BUDGET, TableRun

    budget = checked_budget(args.budget, DEFAULT_BUDGET)
    checked_out(args.out)
    sizes = prove_sizes(args.prove) if args.prove is not None else None
    if sizes is not None:  # checked before the search, not after
        from ...proving.arguments import validate_timeout

        validate_timeout(args.prove_timeout, "--prove-timeout")
    bound = prove_bound(args.prove_bound, sizes is not None, args.mode)
    props = split_list(args.property, "property") if args.property is not None else None
    try:
        policies = args.policy if args.policy is not None else \
            DYNAMIC_POLICIES if args.mode == "dynamic" else DEFAULT_POLICIES
        job = TableRun(split_list(policies, "policy"), props, budget=budget, seed=args.seed,
                       instance_class=args.instance_class, mode=args.mode, out=args.out, resume=args.resume,
                       workers=args.workers, scheduler=args.scheduler)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    bar = progress_bar(len(job.cells), "cell", args.quiet, "table")
    job.on_cell = lambda r: bar.update(1)
    try:
        with behind_bar(bar):
            table = job.run()
    except KeyboardInterrupt:  # the bar is closed: the cells finished so far are written
        write_out(job.table.render(args.format))
        done, total = len(job.table.cells), len(job.cells)
        where = f"; continue with --resume --out {args.out}" if args.out else ""
        return fail(f"interrupted: {done} of {total} cells done{where}", EXIT_INTERRUPTED)
    if sizes is not None:
        from ...tables.marks import attach_proofs

        try:
            attach_proofs(table, sizes, bound, args.prove_timeout, args.workers, args.scheduler)
        except KeyboardInterrupt:
            write_out(table.render(args.format))
            return fail("interrupted: the cells proved so far are marked above", EXIT_INTERRUPTED)
    write_out(table.render(args.format))
    return EXIT_OK


def prove_sizes(text: str) -> tuple[int, int]:
    """``"3,2"`` -> ``(3, 2)``; anything else is a usage error."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() and int(p) >= 1 for p in parts):
        raise UsageError(f"--prove: expected N,M (whole numbers >= 1), got {text!r}")
    from models.limits import MAX_PROVE_ENTRIES, refuse_above

    refuse_above("--prove", int(parts[0]) * int(parts[1]), MAX_PROVE_ENTRIES,
                 "demand entries (users x resources) to prove")
    return int(parts[0]), int(parts[1])


def prove_bound(text: str | None, proving: bool, mode: str) -> int | None:
    """``--prove-bound K`` checked: a whole number >= 1, only with
    ``--prove``, required with ``--mode discrete --prove``."""
    if text is None:
        if proving and mode == "discrete":
            raise UsageError("--prove-bound: required with --mode discrete --prove (every integer instance in 1..K)")
        return None
    if not proving:
        raise UsageError("--prove-bound: only with --prove N,M")
    if not text.strip().isdigit() or int(text) < 1:
        raise UsageError(f"--prove-bound: must be a whole number >= 1, got {text!r}")
    return int(text)
