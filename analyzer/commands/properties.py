"""``fairalloc properties``: every fairness property with its definition."""

from __future__ import annotations

import argparse
from typing import Any

from ..cli import add_format_option, write_out
from ..render import Table, render_tables, to_json


def register(sub: Any) -> None:
    p = sub.add_parser("properties", help="list the fairness properties with one-line definitions")
    add_format_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..properties import available_properties

    reg = available_properties()
    names = list(reg)  # the paper's Table 2 order
    if args.format == "json":
        write_out(to_json({n: {"title": reg[n].title, "definition": reg[n].summary, "source": reg[n].source}
                           for n in names}))
        return 0
    rows = [[n, reg[n].summary, reg[n].source] for n in names]
    write_out(render_tables([Table("Properties", ["property", "definition", "source"], rows)], args.format))
    return 0
