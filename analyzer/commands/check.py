"""``fairalloc check FILE --policy P --property Q``: does one policy keep one
property on one scenario? Exit 1 with the violation when it does not."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..cli import (
    EXIT_OK,
    EXIT_VIOLATION,
    add_file_argument,
    add_format_option,
    add_solver_options,
    load_instance,
    solver_context,
    write_out,
)
from ..formats import Document, render
from ..render import Table

if TYPE_CHECKING:
    from ..properties.base import Violation


def register(sub: Any) -> None:
    p = sub.add_parser("check", help="check one property of one policy on a scenario (exit 1 when violated)")
    add_file_argument(p)
    p.add_argument("--policy", required=True, help="policy name (see `fairalloc policies`)")
    p.add_argument("--property", required=True, help="property name (see `fairalloc properties`)")
    p.add_argument("--mode", choices=("continuous", "discrete", "dynamic"), default="continuous",
                   help="continuous tasks (default), whole tasks by progressive filling, or dynamic "
                        "(users arrive in the file's order)")
    add_format_option(p)
    add_solver_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from models import get_policy

    from ..checking import check
    from ..properties import get_property

    inst = load_instance(args.file)
    pol = get_policy(args.policy)
    prop = get_property(args.property)
    skipped = prop.applies(inst)
    with solver_context(args):
        v = check(pol, inst, prop, mode=args.mode)
    out: dict[str, Any] = {"policy": pol.label, "property": prop.name, "mode": args.mode,
                           "holds": v is None, "applies": skipped is None}
    if skipped is not None:
        out["reason"] = skipped
    if v is not None:
        out["violation"] = v.to_dict()
    write_out(render(check_document(out, v), args.format))
    return EXIT_VIOLATION if v is not None else EXIT_OK


def check_document(out: dict[str, Any], v: Violation | None) -> Document:
    """The verdict as a field/value table, as JSON data and, in text, as
    the sentence (or the violation's three lines) people read."""
    rows = [[k, out[k]] for k in ("policy", "property", "mode", "holds", "applies", "reason") if k in out]
    if v is not None:
        rows += [["violation", v.message], ["user", v.user], ["exact", v.exact],
                 ["instance", v.instance.describe()]]
    if v is not None:
        text = violation_text(v)
    elif not out["applies"]:
        text = (f"{out['property']}: does not apply to this instance ({out['reason']}); "
                "holds on this instance vacuously\n")
    else:
        text = f"{out['property']} holds on this instance for {out['policy']} ({out['mode']})\n"
    return Document([Table("Check", ["field", "value"], rows)], data=lambda: out, own={"text": lambda: text})


def violation_text(v: Violation) -> str:
    """A violation as ``fairalloc check`` prints it (three lines)."""
    how = "verified in exact arithmetic" if v.exact else "confirmed numerically, not exactly"
    return f"{v.property} VIOLATED by {v.policy} ({v.mode}; {how})\n{v.message}\ninstance: {v.instance.describe()}\n"
