"""``fairalloc simulate FILE``: a running cluster under several policies,
side by side (Ghodsi et al., NSDI 2011, Section 7)."""

from __future__ import annotations

import argparse
import math
import warnings
from typing import Any

from ...formats import Document, render
from ...render import Table
from ..common import UsageError, add_format_option, add_warning, seed_value, write_out

#: Violations listed in full (the rest are counted).
MAX_VIOLATIONS_SHOWN = 10
#: Rounds shown one column each in the text tables of a rounds workload (more: totals only).
MAX_ROUNDS_SHOWN = 24


def until_value(text: str) -> float:
    """The ``type`` of ``--until``: a finite number of seconds (``inf`` or
    ``nan`` left the last interval without an end: NaN utilisations and a
    numpy RuntimeWarning)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds, got {text!r}")
    return value


def register(sub: Any) -> None:
    p = sub.add_parser("simulate", help="simulate a running cluster (jobs arrive, tasks finish) under policies")
    p.add_argument("file", help="workload (.toml or .json), or a trace with --trace")
    p.add_argument("--policy", default="drf",
                   help="comma-separated policies (default: drf), e.g. drf,slots:slots=4,single-resource:resource=cpu; "
                        "drf:half_life=600 remembers past use (half-life in seconds)")
    p.add_argument("--until", type=until_value, default=None, help="stop at this time in seconds")
    p.add_argument("--trace", default=None, metavar="FORMAT", help="FILE is a trace: alibaba-2017, alibaba-2018 or csv")
    p.add_argument("--machines", default=None, metavar="SPEC",
                   help="cluster for a trace: count=400,cpu=64,mem=1.0 (in the trace's units)")
    p.add_argument("--overcommit-penalty", default=None, metavar="SPEC",
                   help="slow-down per unit of over-commit, e.g. mem=4,cpu=1 (default 1 each)")
    p.add_argument("--slot-tasks", choices=("one", "fit"), default=None,
                   help="slots: a task takes one slot (Hadoop, default) or the slots its size needs")
    p.add_argument("--check-properties", action="store_true",
                   help="check sharing incentive and envy-freeness up to one task at every event")
    p.add_argument("--plot", default=None, metavar="OUT", help="draw shares and utilisation over time (png, svg, pdf)")
    p.add_argument("--seed", type=seed_value, default=0, help="seed (random tie-break); same seed, same result")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_format_option(p)
    p.set_defaults(run=run)


def split_policies(value: str) -> list[str]:
    """Split ``drf,fds:beta=2,gamma=1`` into policy specs (a ``k=v`` item
    without ``:`` continues the previous policy's parameters)."""
    out: list[str] = []
    for item in (v.strip() for v in value.split(",")):
        if not item:
            raise UsageError(f"--policy: empty name in {value!r}")
        if "=" in item and ":" not in item and out:
            out[-1] += "," + item
        else:
            out.append(item)
    return out


def parse_pairs(value: str, flag: str) -> dict[str, float]:
    """``a=1,b=2.5`` as a dict of numbers."""
    out: dict[str, float] = {}
    for item in value.split(","):
        key, sep, raw = item.partition("=")
        try:
            out[key.strip()] = float(raw)
        except ValueError:
            raise UsageError(f"{flag}: expected name=number, got {item!r}") from None
        if not sep or not key.strip():
            raise UsageError(f"{flag}: expected name=number, got {item!r}")
    return out


def _workload(args: argparse.Namespace) -> Any:
    from ...simulation import load_trace
    from ...simulation.workload import load_workload

    if args.trace is None:
        if args.machines is not None:
            raise UsageError("--machines: only with --trace (a workload file gives its machines)")
        return load_workload(args.file)
    if args.machines is None:
        raise UsageError("--machines: required with --trace, e.g. count=400,cpu=64,mem=1.0")
    machines: dict[str, Any] = parse_pairs(args.machines, "--machines")
    if "count" in machines:
        machines["count"] = int(machines["count"]) if float(machines["count"]).is_integer() else machines["count"]
    return load_trace(args.file, args.trace, machines=machines)


def run(args: argparse.Namespace) -> int:
    from ...simulation import MemorylessWarning, simulate
    from ._progress import progress_bar

    if args.plot is not None:
        from .plot import check_output_path

        check_output_path(args.plot)
    policies = split_policies(args.policy)
    options: dict[str, Any] = {"check_properties": args.check_properties}
    if args.overcommit_penalty is not None:
        options["overcommit_penalty"] = parse_pairs(args.overcommit_penalty, "--overcommit-penalty")
    if args.slot_tasks is not None:
        options["slot_tasks"] = args.slot_tasks
    results = []
    for pol in policies:
        w = _workload(args)
        with progress_bar(w.total_tasks or 0, "task", args.quiet, desc=pol) as bar, \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", MemorylessWarning)
            r = simulate(w, pol, until=args.until, seed=args.seed, progress=bar.update, **options)
        for item in caught:
            add_warning(str(item.message))
        results.append(r)
        if r.stats["interrupted"]:
            break
    if args.plot is not None:
        from ...plotting.simulation import plot_simulations

        plot_simulations(results, args.plot)
    tables, notes = simulation_tables(results)
    write_out(render(Document(tables, notes, lambda: {"simulations": [r.to_dict() for r in results]}), args.format))
    return 0


def simulation_tables(results: list[Any]) -> tuple[list[Table], list[str]]:
    """Utilisation, per-user jobs and response times, completion-time
    reduction per job size (first policy against each other), violations."""
    from ...plotting.simulation import completion_reduction

    labels = [r.policy for r in results]
    res = results[0].resources
    tables = [Table("Mean utilisation", ["resource", *labels],
                    [[x, *(r.utilization_mean[x] for r in results)] for x in res])]
    users = results[0].users
    if len(users) <= 50:
        tables.append(Table("Jobs completed / mean response time (s) per user", ["user", *labels],
                            [[u, *(_jobs_cell(r, u) for r in results)] for u in users]))
    if len(users) <= 50 and results[0].rounds is not None:
        tables += [_rounds_table(r) for r in results]
    if len(users) <= 50 and all(r.log is not None for r in results):
        tables.append(_fairness_table(results))
    totals = [[r.policy, sum(r.jobs_completed.values()), len(r.jobs), r.end, r.stats["tasks_launched"],
               r.stats["decisions"], r.stats["seconds"]] for r in results]
    tables.append(Table("Runs", ["policy", "jobs completed", "jobs", "end (s)", "tasks launched", "decisions",
                                 "seconds"], totals))
    if len(results) > 1:
        red = [completion_reduction(other, results[0]) for other in results[1:]]
        rows = [[k, *(r[k] for r in red)] for k in red[0] if any(r[k] is not None for r in red)]
        if rows:
            tables.append(Table(f"Reduction of mean completion time of {labels[0]} (1 - {labels[0]} / other), "
                                f"per job size in tasks", ["job size", *labels[1:]], rows))
    notes = []
    for r in results:
        if r.stats["interrupted"]:
            notes.append(f"{r.policy}: interrupted at t={r.end:g} s; results so far")
        if r.stats["late_arrivals"]:
            notes.append(
                f"{r.policy}: {r.stats['late_arrivals']} trace rows arrived out of order beyond the look-ahead"
            )
        if r.violations:
            shown = "; ".join(f"t={v['time']:g} {v['property']} {v['user']}"
                              + (f" envies {v['other']}" if "other" in v else "")
                              for v in r.violations[:MAX_VIOLATIONS_SHOWN])
            notes.append(f"{r.policy}: {len(r.violations)} violations (up to one task): {shown}")
        elif r.stats.get("checked"):
            notes.append(f"{r.policy}: no violation of sharing incentive or envy-freeness up to one task")
    numba = sum(r.stats.get("kernel_seconds", 0.0) for r in results)
    if numba > 0:
        notes.append(f"numba compiled (once per installation) or loaded the fast kernels in {numba:.2f} s, "
                     "not counted in the Runs table's seconds")
    return tables, notes


def _rounds_table(r: Any) -> Table:
    """Tasks each user ran in each round, and in all (a rounds workload)."""
    per = r.tasks_per_round()
    count = r.rounds[0]
    shown = count <= MAX_ROUNDS_SHOWN
    head = ["user", *(f"round {k + 1}" for k in range(count) if shown), "total"]
    rows = [[u, *(v if shown else []), sum(v)] for u, v in per.items()]
    return Table(f"Tasks per round: {r.policy}", head, rows)


def _fairness_table(results: list[Any]) -> Table:
    """Each user's cumulative dominant share over its entitlement, per
    policy, and the disparity (max / min) as the last row."""
    fair = [r.cumulative_fairness() for r in results]
    users = results[0].users
    rows: list[list[Any]] = [[u, *(f.ratio[f.users.index(u)] if u in f.users else None for f in fair)]
                             for u in users]
    rows.append(["disparity (max / min)", *(f.disparity for f in fair)])
    return Table("Cumulative dominant share / entitlement per user (1: its weighted slice while present)",
                 ["user", *(r.policy for r in results)], rows)


def _jobs_cell(r: Any, user: str) -> str:
    mean = r.mean_response_time.get(user)
    return f"{r.jobs_completed.get(user, 0)} / {'-' if mean is None else f'{mean:.1f}'}"
