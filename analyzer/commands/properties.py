"""``fairalloc properties``: every fairness property with its definition."""

from __future__ import annotations

import argparse
from typing import Any

from ..cli import add_format_option, write_out
from ..formats import Document, render
from ..render import Table


def register(sub: Any) -> None:
    p = sub.add_parser("properties", help="list the fairness properties with one-line definitions")
    add_format_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..properties import available_properties

    reg = available_properties()
    names = list(reg)  # the paper's Table 2 order
    rows = [[n, reg[n].summary, reg[n].source] for n in names]
    data = {n: {"title": reg[n].title, "definition": reg[n].summary, "source": reg[n].source,
                "settings": list(reg[n].modes)} for n in names}
    table = Table("Properties", ["property", "definition", "source"], rows)
    write_out(render(Document([table], data=lambda: data), args.format))
    return 0
