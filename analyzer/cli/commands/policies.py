"""``fairalloc policies``: every registered policy with its description."""

from __future__ import annotations

import argparse
from typing import Any

from ...formats import Document, render
from ...render import Table
from ..common import add_format_option, write_out


def register(sub: Any) -> None:
    p = sub.add_parser("policies", help="list the policies")
    add_format_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from models import available

    reg = available()
    rows = []
    for name, cls in reg.items():
        params = ", ".join(f"{k}={v}" for k, v in cls.parameters.items())
        rows.append([name + (f" [{params}]" if params else ""), cls.description])
    data = {name: {"description": cls.description, "source": cls.source, "parameters": dict(cls.parameters)}
            for name, cls in reg.items()}
    write_out(render(Document([Table("Policies", ["policy", "description"], rows)], data=lambda: data), args.format))
    return 0
