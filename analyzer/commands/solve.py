"""``fairalloc solve FILE``: each policy's allocation, side by side."""

from __future__ import annotations

import argparse
from typing import Any

from ..cli import (
    UsageError,
    add_file_argument,
    add_format_option,
    add_solver_options,
    load_instance,
    solver_context,
    split_list,
    write_out,
)
from ..formats import Document, render
from ..render import Table

DEFAULT_POLICIES = "drf,asset,ceei"


def register(sub: Any) -> None:
    p = sub.add_parser("solve", help="allocate with one or more policies, side by side")
    add_file_argument(p)
    p.add_argument("--policy", default=DEFAULT_POLICIES, help=f"comma-separated policies (default: {DEFAULT_POLICIES})")
    p.add_argument("--exact", action="store_true", help="exact numbers where the policy has an exact solver")
    p.add_argument("--explain", action="store_true",
                   help="with --exact (implied): say why each allocation is optimal (filling stages, CEEI prices "
                        "and KKT check)")
    add_format_option(p)
    add_solver_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from models import get_policy

    from ..api import solve

    inst = load_instance(args.file)
    if args.explain and args.format == "csv":
        raise UsageError("--explain: not with --format csv (one tidy table of numbers); use text, md, latex or json")
    policies = [get_policy(name) for name in split_list(args.policy, "policy")]
    exact = args.exact or args.explain
    with solver_context(args):
        allocs = [solve(inst, pol, exact=exact) for pol in policies]
    explanations: list[list[str]] = []
    if args.explain:  # proofs is imported only when asked for
        from proofs import explain

        explanations = [explain(pol, a) for pol, a in zip(policies, allocs, strict=True)]
    tables, notes = allocation_tables(inst, allocs)
    if explanations:
        tables.append(Table("Why each allocation is optimal", ["policy", "argument"],
                            [[a.policy, line] for a, lines in zip(allocs, explanations, strict=True)
                             for line in lines]))

    def data() -> dict[str, Any]:
        out = [a.to_dict() for a in allocs]
        for entry, lines in zip(out, explanations, strict=False):
            entry["explanation"] = lines
        return {"instance": inst.to_dict(), "allocations": out}

    write_out(render(Document(tables, notes, data, own={"csv": lambda: tidy_csv(allocs)}), args.format))
    return 0


def tidy_csv(allocs: list[Any]) -> str:
    """One tidy CSV table: a row per policy x user x resource."""
    from ..formats.csv_format import csv_table

    tidy = [a.tidy() for a in allocs]
    return csv_table(tidy[0][0], [row for _, rows in tidy for row in rows])


def allocation_tables(inst: Any, allocs: list[Any]) -> tuple[list[Table], list[str]]:
    """Tables (tasks, dominant shares, bundles, utilization) and notes."""
    names = [a.policy for a in allocs]

    def tasks(a: Any, i: int) -> Any:
        return a.x_exact[i] if a.exact else float(a.x[i])

    def dom(a: Any, i: int) -> Any:
        return a.dominant_shares_exact[i] if a.exact else float(a.dominant_shares[i])

    title = f" ({inst.name})" if inst.name else ""
    t_tasks = Table(f"Tasks per user{title}", ["user", *names],
                    [[u, *[tasks(a, i) for a in allocs]] for i, u in enumerate(inst.users)])
    t_dom = Table("Dominant share per user", ["user", *names],
                  [[u, *[dom(a, i) for a in allocs]] for i, u in enumerate(inst.users)])
    exact = bool(allocs) and all(a.exact for a in allocs)  # then capacities are shown exactly too

    def bundle(a: Any, i: int, j: int) -> Any:
        return a.bundles_exact[i][j] if a.exact else float(a.bundles[i, j])

    def util(a: Any, j: int) -> Any:
        return a.utilization_exact[j] if a.exact else float(a.utilization[j])

    t_bundle = Table("Bundle per user and resource", ["user", "resource", *names],
                     [[u, r, *[bundle(a, i, j) for a in allocs]]
                      for i, u in enumerate(inst.users) for j, r in enumerate(inst.resources)])
    t_util = Table("Utilization per resource", ["resource", "capacity", *names],
                   [[r, inst.capacity_exact[j] if exact else float(inst.capacity[j]), *[util(a, j) for a in allocs]]
                    for j, r in enumerate(inst.resources)])
    notes = [f"{a.policy}: {a.message}" for a in allocs if a.message]
    return [t_tasks, t_dom, t_bundle, t_util], notes
