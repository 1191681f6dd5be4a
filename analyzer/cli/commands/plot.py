"""``fairalloc plot FILE -o out.png``: shares per resource and dominant
shares per user, one panel per policy (like Ghodsi et al., NSDI 2011,
Figures 3 and 4); with ``--discrete``, continuous against discrete."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..common import UsageError, add_file_argument, check_destination, load_instance, split_list

DEFAULT_POLICIES = "drf,asset,ceei"


def register(sub: Any) -> None:
    p = sub.add_parser("plot", help="draw each policy's shares per resource and dominant shares (png, svg, pdf)")
    add_file_argument(p)
    p.add_argument("--policy", default=DEFAULT_POLICIES, help=f"comma-separated policies (default: {DEFAULT_POLICIES})")
    p.add_argument("-o", "--output", required=True, help="output image: .png, .svg, .pdf or .jpg")
    p.add_argument("--discrete", action="store_true",
                   help="also run discrete progressive filling (Algorithm 1) and draw it beside the continuous one")
    p.add_argument("--title", default=None, help="figure title (default: the scenario's name)")
    p.add_argument("--dpi", type=float, default=None, help="resolution of png/jpg output (default: 100)")
    p.add_argument("--figsize", default=None, metavar="W,H", help="figure size in inches, e.g. 7,4 (default: from "
                   "the number of policies and resources)")
    p.add_argument("--style", default=None, help="matplotlib style, e.g. seaborn-v0_8-paper or grayscale")
    p.add_argument("--value-labels", action="store_true", help="write each share on its bar")
    p.add_argument("--no-dominant", action="store_true", help="leave out the dominant-share panel")
    p.set_defaults(run=run)


#: The ``--dpi`` range: below about 3 dots per inch FreeType cannot size the labels' glyphs (a RuntimeError
#: traceback); 10 keeps every label of every figure drawable.
MIN_DPI, MAX_DPI = 10, 2400


def figure_options(args: argparse.Namespace) -> dict[str, Any]:
    """``--dpi``, ``--figsize``, ``--style`` checked (exit 2 naming the flag)."""
    from ...plotting.style import check_style

    if args.dpi is not None and not MIN_DPI <= args.dpi <= MAX_DPI:
        raise UsageError(f"--dpi: must be between {MIN_DPI} and {MAX_DPI}, got {args.dpi:g}")
    size = None
    if args.figsize is not None:
        parts = args.figsize.replace("x", ",").split(",")
        try:
            size = (float(parts[0]), float(parts[1])) if len(parts) == 2 else None
        except ValueError:
            size = None
        if size is None or not all(0.5 <= v <= 100 for v in size):
            raise UsageError(f"--figsize: expected W,H in inches between 0.5 and 100, got {args.figsize!r}")
    try:
        check_style(args.style)
    except ValueError as exc:
        raise UsageError(f"--style: {exc}") from None
    return {"dpi": args.dpi, "figsize": size, "style": args.style, "value_labels": args.value_labels,
            "dominant": not args.no_dominant}


def check_output_path(path: str, flag: str = "-o") -> Path:
    """Reject an unsupported extension or an unwritable destination before
    any work is done (one line naming ``flag`` and the path)."""
    from ...plotting.style import plot_format

    try:
        plot_format(path)
    except ValueError as exc:
        raise UsageError(f"{flag} {exc}") from None
    check_destination(path, flag)
    return Path(path)


def run(args: argparse.Namespace) -> int:
    from models import get_policy

    from ...api import solve
    from ...plotting.allocations import plot_allocations, series

    out = check_output_path(args.output)
    options = figure_options(args)
    inst = load_instance(args.file)
    policies = [get_policy(name) for name in split_list(args.policy, "policy")]
    allocs = [solve(inst, pol) for pol in policies]
    if args.discrete:
        engine, has_discrete_form = _discrete_engine()
        data = []
        for a, pol in zip(allocs, policies, strict=True):
            if has_discrete_form(pol):
                r = engine(inst, pol)
                data.append(series(a, [r.tasks[u] for u in inst.users]))
            else:  # e.g. CEEI: drawn continuous only, and said so
                data.append(replace(series(a), policy=f"{a.policy} (no discrete form)"))
    else:
        data = [series(a) for a in allocs]
    try:
        plot_allocations(inst, data, out, title=args.title, **options)
    except OSError as exc:
        raise UsageError(f"-o {args.output}: cannot write ({exc.strerror or exc})") from None
    return 0


def _discrete_engine() -> tuple[Any, Any]:
    """``(progressive_filling, has_discrete_form)`` from the discrete engine."""
    from models.discrete import no_discrete_form

    from ...discrete import progressive_filling

    def has_discrete_form(policy: Any) -> bool:
        return no_discrete_form(policy) is None

    return progressive_filling, has_discrete_form
