"""``fairalloc search --policy P --property Q``: look for a counterexample."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..common import EXIT_INTERRUPTED, EXIT_OK, EXIT_VIOLATION, UsageError, fail, write_out
from ._progress import add_run_options, checked_budget, checked_out, progress_bar, quiet_numeric_warnings


def register(sub: Any) -> None:
    p = sub.add_parser("search", help="search for a counterexample to a property (exit 1 when one is found)")
    p.add_argument("--policy", required=True, help="policy name (drf, asset, ceei, ...)")
    p.add_argument("--property", required=True, help="property name (sharing-incentive, ...)")
    add_run_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ...searching.engine import search
    from ...tables.table import DEFAULT_BUDGET

    budget = checked_budget(args.budget, DEFAULT_BUDGET)
    checked_out(args.out)
    bar = progress_bar(budget, "inst", args.quiet, f"{args.policy} / {args.property}")
    checked = [0]  # counted here: a disabled bar (--quiet, no terminal) counts nothing

    def tick(k: int) -> None:
        checked[0] += k
        bar.update(k)

    try:
        with quiet_numeric_warnings():
            result = search(args.policy, args.property, budget=budget, seed=args.seed,
                            instance_class=args.instance_class, mode=args.mode, out=args.out, workers=args.workers,
                            resume=args.resume, progress=tick, scheduler=args.scheduler)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        where = f"; continue with --resume --out {args.out}" if args.out else ""
        return fail(f"interrupted after {checked[0]} instances{where}", EXIT_INTERRUPTED)
    finally:
        bar.close()
    write_out(render_result(result, args.format))
    return EXIT_VIOLATION if result.counterexample is not None else EXIT_OK


def render_result(result: Any, fmt: str) -> str:
    """The result as a small table (property, policy, outcome, evidence);
    in text, the counterexample's scenario file follows it."""
    from ...formats import Document, render
    from ...render import Table

    v = result.counterexample
    rows = [["policy", result.policy], ["property", result.property],
            ["outcome", "n/a" if result.holds is None else ("holds" if result.holds else "violated")],
            ["instances", result.instances], ["class", result.instance_class.name], ["seed", result.seed],
            ["seconds", round(result.seconds, 3)]]
    if v is not None:
        rows += [["counterexample", v.instance.describe()], ["violation", v.message], ["user", v.user],
                 ["exact", v.exact], ["found in", result.found_in or ""]]
    if result.errors:
        rows.append(["solver errors", f"{result.errors} (first: {result.error})"])
    doc = Document([Table("Search", ["field", "value"], rows)], data=result.to_dict)
    if v is not None:
        doc.own = {"text": lambda: render(Document(doc.tables), "text") + "\n" + v.instance.to_toml()}
    sys.stdout.flush()
    return render(doc, fmt)
