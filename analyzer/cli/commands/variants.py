"""``fairalloc variants``: production allocators' DRF variants next to the
paper's DRF, on a scenario file or on an instance found by a seeded sweep."""

from __future__ import annotations

import argparse
from typing import Any

from ...formats import Document, render
from ...render import Table
from ..common import (
    UsageError,
    add_format_option,
    check_destination,
    load_instance,
    seed_value,
    split_list,
    write_out,
)


def register(sub: Any) -> None:
    from ...comparing.variants import DEFAULT_POLICIES, KINDS

    p = sub.add_parser("variants", help="Mesos/YARN/Volcano/Kueue DRF variants side by side with the paper's DRF")
    p.add_argument("file", nargs="?", help="scenario file (.toml or .json; - reads standard input); omit with --find")
    p.add_argument("--policy", default=",".join(DEFAULT_POLICIES),
                   help=f"comma-separated policies (default: {','.join(DEFAULT_POLICIES)})")
    p.add_argument("--find", choices=list(KINDS), default=None,
                   help="sweep random instances of a kind until the variants disagree: "
                        + "; ".join(f"{k}: {v.help}" for k, v in KINDS.items()))
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the sweep (default: 0)")
    p.add_argument("--budget", type=int, default=1000, help="instances the sweep may draw (default: 1000)")
    p.add_argument("--on-full", default="skip", choices=("stop", "skip"),
                   help="when a chosen task fits nowhere: skip that user (default) or stop (the paper's pseudo-code)")
    p.add_argument("--out", default=None, help="with --find: write the instance found to this TOML file")
    add_format_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from models.discrete import get_discrete_policy

    from ...comparing.variants import find_difference, side_by_side

    if (args.file is None) == (args.find is None):
        raise UsageError("give a scenario FILE or --find KIND (not both)")
    if args.budget < 1:
        raise UsageError(f"--budget: must be >= 1, got {args.budget}")
    if args.out is not None:
        if args.find is None:
            raise UsageError("--out: only with --find (it writes the instance found)")
        check_destination(args.out, "--out")
    notes: list[str] = []
    if args.find is not None:
        found = find_difference(args.find, seed=args.seed, budget=args.budget, on_full=args.on_full)
        if found.instance is None:
            write_out(f"no disagreement in {found.examined} instances of kind {args.find} (seed {args.seed})\n")
            return 0
        inst, outs = found.instance, found.outcomes
        notes.append(f"found after {found.examined} instance(s) of kind {args.find}, seed {args.seed}")
        if args.out:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(inst.to_toml())
            notes.append(f"written to {args.out}; rerun with: fairalloc variants {args.out}")
    else:
        inst = load_instance(args.file)
        names = split_list(args.policy, "policy")
        for name in names:
            get_discrete_policy(name)  # an unknown name is an error, not an "n/a" row
        outs = side_by_side(inst, names, on_full=args.on_full)
    write_out(render(outcome_document(inst, outs, args.on_full, notes), args.format))
    return 0


def outcome_document(inst: Any, outs: list[Any], on_full: str, notes: list[str]) -> Document:
    """The variants' whole tasks per user: a table (a row per policy) and
    the JSON data."""
    table = Table(f"Whole tasks per user (on full: {on_full}) -- {inst.describe()}",
                  ["policy", *inst.users],
                  [[o.policy, *(o.tasks if o.tasks is not None else ["n/a"] * inst.n)] for o in outs])
    notes = notes + [f"{o.policy}: {o.reason}" for o in outs if o.tasks is None]
    top, per_user = inst.extensions.to_dict_parts(inst.resources)
    extras = [f"{k} = {v}" for k, v in top.items()] + [f"{u}: {e}" for u, e in per_user.items()]
    if extras:
        notes.append("scenario extras: " + "; ".join(extras))
    return Document([table], notes, lambda: {
        "instance": inst.to_dict(), "on_full": on_full,
        "tasks": {o.policy: (dict(zip(inst.users, o.tasks, strict=True)) if o.tasks else None) for o in outs},
        "not_applicable": {o.policy: o.reason for o in outs if o.tasks is None}})
