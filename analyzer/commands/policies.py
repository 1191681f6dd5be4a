"""``fairalloc policies``: every registered policy with its description."""

from __future__ import annotations

import argparse
from typing import Any

from ..cli import add_format_option, write_out
from ..render import Table, render_tables, to_json


def register(sub: Any) -> None:
    p = sub.add_parser("policies", help="list the policies")
    add_format_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from models import available

    reg = available()
    if args.format == "json":
        write_out(to_json({name: {"description": cls.description, "source": cls.source,
                                  "parameters": dict(cls.parameters)} for name, cls in reg.items()}))
        return 0
    rows = []
    for name, cls in reg.items():
        params = ", ".join(f"{k}={v}" for k, v in cls.parameters.items())
        rows.append([name + (f" [{params}]" if params else ""), cls.description])
    write_out(render_tables([Table("Policies", ["policy", "description"], rows)], args.format))
    return 0
