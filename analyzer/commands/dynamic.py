"""``fairalloc dynamic FILE --policy P``: the allocation after every
arrival (users arrive in the file's order; Kash, Procaccia and Shah, JAIR
51, 2014): tasks and dominant shares, one row per step."""

from __future__ import annotations

import argparse
from typing import Any

from ..cli import add_file_argument, add_format_option, add_solver_options, load_instance, solver_context, write_out
from ..formats import Document, render
from ..render import Table, fmt_number


def register(sub: Any) -> None:
    p = sub.add_parser("dynamic", help="the allocation after every arrival (users arrive in the file's order)")
    add_file_argument(p)
    p.add_argument("--policy", default="dynamic-drf",
                   help="a dynamic mechanism (dynamic-drf, cautious-drf) or a static policy, recomputed at every "
                        "arrival (default: dynamic-drf)")
    p.add_argument("--exact", action="store_true", help="exact numbers where the policy has an exact solver")
    add_format_option(p)
    add_solver_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..dynamics.result import dynamic_run

    inst = load_instance(args.file)
    with solver_context(args):
        result = dynamic_run(inst, args.policy, exact=args.exact)
    users = list(inst.users)
    tasks, shares = [], []
    for k in range(1, inst.n + 1):
        got, dom = result.tasks_at(k), result.dominant_shares_at(k)
        tasks.append([k, users[k - 1], *(fmt_number(got[u]) if u in got else "" for u in users)])
        shares.append([k, users[k - 1], *(fmt_number(dom[u]) if u in dom else "" for u in users)])
    title = f"{result.policy}: tasks after each arrival" + (" (exact)" if result.exact else "")
    tables = [Table(title, ["step", "arrives", *users], tasks),
              Table("dominant shares after each arrival", ["step", "arrives", *users], shares)]
    own = {"csv": lambda: _csv(result)}
    write_out(render(Document(tables, data=result.to_dict, own=own), args.format))
    return 0


def _csv(result: Any) -> str:
    """One tidy table: a row per step x user present."""
    from ..dynamics.result import COLUMNS
    from ..formats.csv_format import csv_table

    return csv_table(list(COLUMNS), result.rows())
