"""``fairalloc worst POLICY METRIC --users N --resources M``: the worst
instance for a metric, found by optimisation over instances, certified
exactly (and, at small sizes, a proved bound); ``fairalloc worst --policies
... --metrics ...``: a table of worst values.

Exit 0 done, 2 bad input, 130 interrupted (what was found is printed).
"""

from __future__ import annotations

import argparse
from typing import Any

from ...formats import Document, render
from ...render import Table, fmt_number
from ..common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageError,
    add_format_option,
    check_destination,
    fail,
    seed_value,
    write_out,
)


def register(sub: Any) -> None:
    p = sub.add_parser("worst", help="search for the worst instance of a metric (efficiency, envy, ...)")
    p.add_argument("policy", nargs="?", help="policy name (see `fairalloc policies`)")
    p.add_argument("metric", nargs="?",
                   help="efficiency, manipulation-gain, envy, sharing-incentive, utilization or dynamic-maxmin")
    p.add_argument("--policies", default=None, help="comma-separated policies: a table of worst values")
    p.add_argument("--metrics", default=None, help="comma-separated metrics for the table")
    add_search_options(p)
    p.add_argument("--mode", choices=("continuous", "dynamic"), default=None,
                   help="setting of the metric (default: the metric's; dynamic: users arrive in row order)")
    p.add_argument("--bound", choices=("auto", "yes", "no"), default="auto",
                   help="prove a bound with the SMT prover (auto: at users x resources <= 4)")
    p.add_argument("--save", default=None, metavar="FILE.toml", help="write the worst instance as a scenario file")
    p.add_argument("--plot", default=None, metavar="OUT",
                   help="draw the best value against evaluations, with the certified value and the bound "
                        "(.png, .svg, .pdf by suffix)")
    p.add_argument("--workers", type=int, default=None, help="processes for the table (default: all cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="run the table on the Dask cluster at ADDRESS")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_format_option(p)
    p.set_defaults(run=run)


def add_search_options(p: Any) -> None:
    """The size and search flags ``worst`` and ``frontier`` share."""
    p.add_argument("--users", type=int, default=2, help="number of users n (default: 2)")
    p.add_argument("--resources", type=int, default=2, help="number of resources m (default: 2)")
    p.add_argument("--seed", type=seed_value, default=0, help="seed (default: 0); same seed, same result")
    p.add_argument("--budget", type=int, default=None, help="metric evaluations per search (default: the metric's)")
    p.add_argument("--domain", choices=("positive", "zeros"), default="positive",
                   help="demand entries all > 0 (default) or zeros allowed")
    p.add_argument("--timeout", type=float, default=None, help="wall-clock seconds per search")


def check_search_options(args: argparse.Namespace, metrics: list[str]) -> None:
    """UsageError for a bad size, budget or timeout, an unknown metric, or
    a size beyond what the search solves for one of ``metrics``."""
    from models.limits import MAX_TIMEOUT_SECONDS
    from models.registry import UnknownNameError

    from ...worst.core import check_size
    from ...worst.metrics import get_metric

    for flag in ("users", "resources"):
        if getattr(args, flag) < 1:
            raise UsageError(f"--{flag}: must be >= 1, got {getattr(args, flag)}")
    if args.budget is not None and args.budget < 1:
        raise UsageError(f"--budget: must be >= 1, got {args.budget}")
    if args.timeout is not None and not 0 < args.timeout <= MAX_TIMEOUT_SECONDS:
        raise UsageError(f"--timeout: must be > 0 and at most {MAX_TIMEOUT_SECONDS:.3g} seconds, got {args.timeout:g}")
    try:
        for m in metrics:
            check_size(args.users, args.resources, args.domain, get_metric(m))
    except (UnknownNameError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def _split(text: str | None) -> list[str]:
    return [w.strip() for w in (text or "").split(",") if w.strip()]


def _check(args: argparse.Namespace) -> None:
    from models import get_policy

    from ...worst.metrics import get_metric

    table = args.policies is not None or args.metrics is not None
    if table and (args.policy or args.metric):
        raise UsageError("give POLICY METRIC or --policies/--metrics, not both")
    if not table and not (args.policy and args.metric):
        raise UsageError("expected POLICY METRIC (or --policies ... --metrics ...)")
    if not table and args.scheduler:
        raise UsageError("--scheduler: runs a table's cells; give --policies and --metrics")
    if args.plot is not None:
        if table:
            raise UsageError("--plot: draws one worst case; give POLICY METRIC, not --policies/--metrics")
        from .plot import check_output_path

        check_output_path(args.plot, "--plot")
    if args.save is not None:
        if table:
            raise UsageError("--save: writes one worst instance; give POLICY METRIC, not --policies/--metrics")
        check_destination(args.save, "--save")
    check_search_options(args, _split(args.metrics) if table else [args.metric])
    for m in _split(args.metrics) if table else [args.metric]:
        modes = get_metric(m).modes
        if args.mode is not None and args.mode not in modes:
            raise UsageError(f"--mode: metric {m!r} is defined in the {' and '.join(modes)} setting, "
                             f"got {args.mode!r}")
    for p in _split(args.policies) if table else [args.policy]:
        get_policy(p)


def run(args: argparse.Namespace) -> int:
    _check(args)
    if args.policies is not None or args.metrics is not None:
        return _run_table(args)
    from ...worst import get_metric, worst_case
    from ._progress import behind_bar, progress_bar

    budget = args.budget or get_metric(args.metric).default_budget
    bar = progress_bar(budget, "eval", args.quiet, f"{args.policy} / {args.metric}")

    def tick(done: int, best: float) -> None:
        bar.update(done - bar.n)
        bar.set_postfix_str(f"worst {best:.6g}", refresh=False)

    bound = {"auto": None, "yes": True, "no": False}[args.bound]
    with behind_bar(bar):
        r = worst_case(args.policy, args.metric, args.users, args.resources, seed=args.seed, budget=budget,
                       domain=args.domain, timeout=args.timeout, bound=bound, progress=tick, mode=args.mode)
    if args.save:
        with open(args.save, "w", encoding="utf-8") as fh:
            fh.write(r.instance.to_toml())
    write_out(render(worst_document(r), args.format))
    if args.plot is not None:
        from ...worst.plotting import save_plot

        save_plot(r, args.plot)
    if r.interrupted:
        return fail(f"interrupted after {r.evaluations} evaluations: the worst instance so far is above",
                    EXIT_INTERRUPTED)
    return EXIT_OK


def _run_table(args: argparse.Namespace) -> int:
    from ...worst.table import worst_table
    from ._progress import behind_bar, progress_bar

    policies = _split(args.policies) or ["drf"]
    metrics = _split(args.metrics) or ["efficiency"]
    bar = progress_bar(len(policies) * len(metrics), "cell", args.quiet, "worst cases")
    with behind_bar(bar):
        t = worst_table(policies, metrics, args.users, args.resources, seed=args.seed, budget=args.budget,
                        domain=args.domain, timeout=args.timeout, workers=args.workers,
                        scheduler=args.scheduler, progress=bar.update)
    write_out(render(Document([t.table()], data=t.to_dict), args.format))
    if t.interrupted:
        return fail(f"interrupted: {len(t.cells)} cells finished (above)", EXIT_INTERRUPTED)
    return EXIT_OK


def worst_document(r: Any) -> Document:
    """The result as a field/value table (text: the same, plus the scenario)."""
    rows = [["policy", r.policy], ["metric", f"{r.metric} (worst = {r.direction})"],
            ["size", f"{r.users} users x {r.resources} resources ({r.domain} demands)"],
            ["worst value", fmt_number(r.value) + (" exact" if r.exact else " (floating point)")],
            ["instance", r.instance.describe()],
            ["tasks", ", ".join(f"{u}: {fmt_number(t)}" for u, t in r.allocation.tasks.items())]]
    rows += [[k, v if isinstance(v, str) else ", ".join(map(str, v))] for k, v in r.detail.items()]
    rows += [["search", f"{r.evaluations} evaluations, seed {r.seed}, best float {r.found:.6g}"]]
    rows += bound_rows(r)
    return Document([Table("Worst case", ["field", "value"], rows)], data=r.to_dict)


def bound_rows(r: Any) -> list[list[str]]:
    """The proved bound's rows (and the prover's instance when it beats the
    search's), or why there is none when one was tried."""
    b = r.bound
    if b is None:
        return [["proved bound", f"none: {r.bound_note}"]] if r.bound_note else []
    state = "tight" if b.value == b.attained else ("within tolerance" if b.complete else "incomplete")
    side = "below" if r.direction == "min" else "above"
    by = f"; {' and '.join(b.solvers)}" if b.solvers else ""
    rows = [["proved bound", f"no instance has {r.metric} {side} {fmt_number(b.value)} ({state}; {len(b.steps)} SMT "
                             f"queries, {b.seconds:.1f} s{by})"]]
    if b.instance is not None:
        rows.append(["prover's instance", f"{fmt_number(b.attained)}: {b.instance.describe()}"])
    return rows
