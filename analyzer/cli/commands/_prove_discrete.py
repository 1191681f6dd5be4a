"""``fairalloc prove ... --discrete --bound K``: the discrete setting of
``fairalloc prove`` (:func:`analyzer.proving.discrete.prove_discrete`):
every integer instance within the bound, exhaustively.

Exit codes as ``fairalloc prove``; Ctrl-C keeps the ``--resume`` file and
exits 130. A progress bar (instances covered) shows on a terminal.
"""

from __future__ import annotations

import argparse

from ...formats import render
from ..common import EXIT_INTERRUPTED, UsageError, fail, write_out


def run_discrete(args: argparse.Namespace) -> int:
    """Run the discrete proof the arguments ask for."""
    from ...proving.discrete import INTERRUPTED, prove_discrete
    from ._progress import behind_bar, progress_bar
    from ._proof_report import EXIT_CODES, proof_document

    if args.bound is None:
        raise UsageError("--bound: required with --discrete (capacities and demands in 1..K)")
    if not args.bound.strip().isdigit() or int(args.bound) < 1:
        raise UsageError(f"--bound: must be a whole number >= 1, got {args.bound!r}")
    bar = progress_bar(0, "instance", False, "prove")

    def advance(done: int, total: int) -> None:
        bar.total, bar.n = total, done
        bar.refresh()

    with behind_bar(bar, quiet_warnings=False):
        r = prove_discrete(args.policy, args.property, args.users, args.resources, bound=int(args.bound),
                           domain=args.domain, weighted=args.weighted, capped=args.capped, timeout=args.timeout,
                           workers=args.workers, scheduler=args.scheduler, resume=_resume_path(args.resume),
                           progress=advance)
    write_out(render(proof_document(r), args.format))
    if r.status == "unknown" and any(c.reason == INTERRUPTED for c in r.cases):
        kept = f"; continue with --resume {args.resume}" if args.resume else ""
        return fail(f"interrupted: {r.cases[0].label} checked{kept}", EXIT_INTERRUPTED)
    return EXIT_CODES[r.status]


def _resume_path(path: str | None) -> str | None:
    """``path`` when its directory exists and it is not a directory."""
    from pathlib import Path

    if path is None:
        return None
    p = Path(path)
    if p.is_dir() or not p.parent.is_dir():
        raise UsageError(f"--resume: {path} must be a file in an existing directory")
    return path
