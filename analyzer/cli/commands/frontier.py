"""``fairalloc frontier POLICY --param NAME --values v1,v2,... --metric METRIC
--properties P1,P2 --users N --resources M``: a policy family along one
numeric parameter, per value the certified worst value of the metric, its
instance and each property's prover status (:func:`analyzer.frontier`).

Exit 0 done, 2 bad input, 130 interrupted (the values finished are printed).
"""

from __future__ import annotations

import argparse
from typing import Any

from ...formats import Document, render
from ..common import EXIT_INTERRUPTED, EXIT_OK, UsageError, add_format_option, fail, split_list, write_out
from .worst import add_search_options, check_search_options


def register(sub: Any) -> None:
    p = sub.add_parser("frontier", help="a policy family along a parameter: worst metric and proved properties")
    p.add_argument("policy", help="a parameterised policy (fds, gfj, slots, a --policy-file one)")
    p.add_argument("--param", required=True, help="the parameter that varies (e.g. beta)")
    p.add_argument("--values", required=True, help="comma-separated values (numbers or inf), e.g. 0.25,1,inf")
    p.add_argument("--metric", default="efficiency",
                   help="worst-case metric (default: efficiency; see fairalloc worst)")
    p.add_argument("--properties", default="", help="comma-separated properties to prove at each value")
    add_search_options(p)
    p.add_argument("--prove-timeout", type=float, default=60.0, help="seconds per proof (default: 60)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the searches on the Dask cluster at ADDRESS")
    p.add_argument("--plot", default=None, metavar="OUT",
                   help="draw the worst metric against the parameter with the properties marked "
                        "(.png, .svg, .pdf by suffix)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_format_option(p)
    p.set_defaults(run=run)


def _check(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The values and properties; UsageError for a bad flag."""
    values = split_list(args.values, "values")
    props = split_list(args.properties, "properties") if args.properties.strip() else []
    from ...proving.arguments import validate_timeout

    validate_timeout(args.prove_timeout, "--prove-timeout")
    if args.workers is not None and args.workers < 0:
        raise UsageError(f"--workers: must be >= 0, got {args.workers}")
    if args.plot is not None:
        from .plot import check_output_path

        check_output_path(args.plot, "--plot")
    check_search_options(args, [args.metric])
    return values, props


def run(args: argparse.Namespace) -> int:
    values, props = _check(args)
    from ...frontiers import frontier
    from ._progress import behind_bar, progress_bar

    bar = progress_bar(len(values) * (1 + len(props)), "step", args.quiet, f"{args.policy} along {args.param}")
    with behind_bar(bar):
        f = frontier(args.policy, args.param, values, metric=args.metric, properties=props, users=args.users,
                     resources=args.resources, seed=args.seed, budget=args.budget, domain=args.domain,
                     timeout=args.timeout, prove_timeout=args.prove_timeout, workers=args.workers,
                     scheduler=args.scheduler, progress=bar.update)
    write_out(render(Document([f.table()], data=f.to_dict), args.format))
    if args.plot is not None and f.points:
        from ...frontiers.plotting import save_plot

        save_plot(f, args.plot)
    if f.interrupted:
        return fail(f"interrupted: {len(f.points)} of {len(values)} values finished (above)", EXIT_INTERRUPTED)
    return EXIT_OK
