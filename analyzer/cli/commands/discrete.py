"""``fairalloc discrete FILE``: whole tasks by progressive filling, next to
the continuous solution (Ghodsi et al., NSDI 2011, Algorithm 1 and
Theorem 7)."""

from __future__ import annotations

import argparse
from typing import Any

from ...formats import Document, render
from ...render import Table
from ..common import add_file_argument, add_format_option, load_instance, seed_value, write_out

#: Picks are listed in full up to this many runs; longer orders are summarised.
MAX_PICK_RUNS_SHOWN = 40


def register(sub: Any) -> None:
    from models.discrete import ON_FULL, PLACEMENTS, TIE_BREAKS

    p = sub.add_parser(
        "discrete", help="discrete progressive filling (whole tasks, machines) vs the continuous solution"
    )
    add_file_argument(p, "; [[machines]] are used when present")
    p.add_argument("--policy", default="drf", help="policy (default: drf; any filling policy, e.g. asset)")
    p.add_argument("--tie-break", default=None, choices=TIE_BREAKS.names(),
                   help="who goes first among equal shares (default: the policy's, largest-task for drf and asset); "
                        + "; ".join(f"{k}: {tb.help}" for k, tb in TIE_BREAKS.items()))
    p.add_argument("--on-full", default="stop", choices=list(ON_FULL),
                   help="stop at the first chosen task that does not fit (the paper's pseudo-code), "
                        "or skip that user and go on (default: stop)")
    p.add_argument("--placement", default="first-fit", choices=PLACEMENTS.names(),
                   help="how tasks are put on machines (default: first-fit)")
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the random tie-break (default: 0)")
    add_format_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:

    from ...comparing.whole_tasks import compare

    inst = load_instance(args.file)
    cmp = compare(inst, args.policy, tie_break=args.tie_break, on_full=args.on_full,
                  placement=args.placement, seed=args.seed)
    tables, notes = comparison_tables(cmp)
    write_out(render(Document(tables, notes, cmp.to_dict), args.format))
    return 0


def comparison_tables(cmp: Any) -> tuple[list[Table], list[str]]:
    """The tables of ``fairalloc discrete`` and its notes."""
    inst = cmp.instance
    disc = cmp.discrete
    f = disc.fill
    ct = cmp.continuous_tasks()
    cd, dd = cmp.dominant_shares()
    title = f" ({inst.name})" if inst.name else ""
    users = Table(
        f"{f.policy}: continuous vs discrete per user{title}",
        ["user", "tasks (cont.)", "tasks (disc.)", "dominant share (cont.)", "dominant share (disc.)",
         "gap (max-tasks)"],
        [[u, ct[i], int(f.tasks[i]), cd[i], dd[i], cmp.gap_max_tasks[i]] for i, u in enumerate(inst.users)],
    )
    util = Table(
        "Utilization per resource",
        ["resource", "capacity", "continuous", "discrete", "fragmented (no pending task fits)"],
        [[r, inst.capacity_exact[j], float(cmp.continuous.utilization[j]), disc.utilization[j],
          disc.fragmentation[j]] for j, r in enumerate(inst.resources)],
    )
    t7 = cmp.theorem7
    theorem = Table(
        "Theorem 7 (any two users within one max-task of the continuous allocation)",
        ["item", "value"],
        [*[[f"assumption: {k}", "yes" if v else "no"] for k, v in t7.assumptions.items()],
         ["one max-task (share)", t7.unit],
         ["spread of (discrete - continuous) shares", t7.spread],
         ["spread in max-tasks", t7.ratio],
         ["bound holds", "yes" if t7.holds else "no"]],
    )
    props = Table(
        "Properties kept",
        ["property", "continuous", "discrete"],
        [[name, "yes" if c.holds else "no", "yes" if d.holds else "no"] for name, c, d in cmp.properties],
    )
    tables = [users, util, theorem, props]
    if not f.data.pooled:
        placed = disc.placement
        tables.append(Table(
            f"Placement per machine ({f.placement}; {len(placed)} of {len(f.data.machine_names)} machines used; "
            "consecutive machines with the same tasks grouped)",
            ["machines", "count", *inst.users],
            [[label, count, *[slot.get(u, 0) for u in inst.users]] for label, count, slot in group_machines(disc)],
        ))
    return tables, comparison_notes(cmp)


def comparison_notes(cmp: Any) -> list[str]:
    """The notes under the tables of ``fairalloc discrete``: settings,
    picks, failures, the Theorem 7 caveat, stranded machines and the
    witnesses of the properties that fail."""
    inst = cmp.instance
    disc = cmp.discrete
    f = disc.fill
    t7 = cmp.theorem7
    notes = [f"tie-break {f.tie_break}, on full: {f.on_full}, placement {f.placement}, "
             f"{f.decisions} heap decisions"]
    if f.runs is not None:
        runs = list(zip(*f.runs, strict=True))
        shown = ", ".join(inst.users[int(i)] + (f" x{int(c)}" if c > 1 else "") for i, c in runs[:MAX_PICK_RUNS_SHOWN])
        more = f", ... ({len(runs) - MAX_PICK_RUNS_SHOWN} more runs)" if len(runs) > MAX_PICK_RUNS_SHOWN else ""
        notes.append(f"picks: {shown}{more}")
    if disc.failures:
        verb = "stopped at" if disc.stopped else "skipped"
        notes.append(f"{verb}: " + ", ".join(disc.failures[:MAX_PICK_RUNS_SHOWN]) + " (task fit nowhere)")
    if not t7.applies:
        notes.append("Theorem 7's assumptions do not all hold: the bound is reported, not guaranteed")
    if disc.stranded_machines:
        notes.append(f"{disc.stranded_machines} machine(s) have free space no pending task fits")
    for name, c, d in cmp.properties:
        for side, o in (("continuous", c), ("discrete", d)):
            if not o.holds:
                notes.append(f"{name} fails ({side}): {o.witness}")
    if cmp.continuous.message:
        notes.append(f"continuous: {cmp.continuous.message}")
    return notes


def group_machines(disc: Any) -> list[tuple[str, int, dict[str, int]]]:
    """Consecutive machines holding the same tasks, as ``(label, count,
    tasks)``; empty machines included, so the groups cover the cluster."""
    names = disc.fill.data.machine_names
    placed = disc.placement
    groups: list[tuple[str, int, dict[str, int]]] = []
    first = 0
    for k in range(1, len(names) + 1):
        if k == len(names) or placed.get(names[k], {}) != placed.get(names[first], {}):
            label = names[first] if k - first == 1 else f"{names[first]} .. {names[k - 1]}"
            groups.append((label, k - first, placed.get(names[first], {})))
            first = k
    return groups
