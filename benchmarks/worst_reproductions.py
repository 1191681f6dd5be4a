"""Published worst cases, found again by ``analyzer.worst_case`` (issue 22;
the numbers in docs/worst_case.md come from this script).

    python benchmarks/worst_reproductions.py drf        # DRF efficiency vs 1/m and (k+m-1)/(km)
    python benchmarks/worst_reproductions.py pof        # Bertsimas-Farias-Trichakis price of fairness
    python benchmarks/worst_reproductions.py tradeoff [--plot OUT.png]   # FDS / GFJ over beta

Every cell is one seeded search (``--seed``, ``--budget``); cells run on
all cores (``--workers``). Tables are printed as Markdown.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

from _common import ROOT  # noqa: F401  (puts the repository on sys.path)

from analyzer.searching.pool import worker_pool
from analyzer.worst.table import CellArgs, run_cell

DRF_SIZES = ((2, 2), (3, 2), (4, 2), (6, 2), (3, 3), (4, 3), (6, 3), (4, 4))
POF_USERS = (2, 3, 4, 6)
BETAS = ("0.25", "0.5", "1", "2", "4", "8", "inf")


def run(jobs: Sequence[CellArgs], workers: int | None) -> list[Any]:
    """The cells' results, in the order of ``jobs``."""
    with worker_pool(workers) as (pool, _):
        return list(map(run_cell, jobs)) if pool is None else pool.map(run_cell, jobs)


def row(cells: Sequence[Any]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    return "\n".join([row(headers), row(["---"] * len(headers)), *map(row, rows)])


def drf(args: argparse.Namespace) -> None:
    """DRF's efficiency: the search's worst value, the family
    ``(k + m - 1) / (k m)`` with ``k = n - m + 1`` users on one resource
    (Parkes, Procaccia, Shah, EC 2012, Section 5), the infimum ``1/m``, and
    the max-min bound ``4n / (n + 1)^2`` of Bertsimas, Farias, Trichakis."""
    jobs = [("drf", "efficiency", n, m, args.seed, args.budget, "positive", None) for n, m in DRF_SIZES]
    rows = []
    for (n, m), r in zip(DRF_SIZES, run(jobs, args.workers), strict=True):
        k = n - m + 1
        rows.append([f"{n}x{m}", f"{r.found:.4f}", f"{float(r.value):.4f}", f"{(k + m - 1) / (k * m):.4f}",
                     f"{4 * n / (n + 1) ** 2:.4f}", f"{1 / m:.4f}", r.instance.describe()])
    print(table(["size", "search", "certified", "(k+m-1)/(km)", "4n/(n+1)^2", "1/m", "instance"], rows))


def pof(args: argparse.Namespace) -> None:
    """Efficiency of the fair policies against the price-of-fairness bounds
    (Bertsimas, Farias, Trichakis, Operations Research 2011, Theorem 2):
    utilities are dominant shares, each user's largest achievable one is 1,
    so max-min fairness (DRF) keeps at least ``4n / (n + 1)^2`` of the
    optimum and proportional fairness (CEEI: the Nash product on dominant
    shares) at least ``(2 sqrt(n) - 1) / n``. Asset fairness maximises the
    minimum aggregate share, whose per-user maxima differ: the theorem does
    not apply to it."""
    policies = ("drf", "ceei", "asset")
    jobs = [(p, "efficiency", n, 2, args.seed, args.budget, "positive", None) for n in POF_USERS for p in policies]
    results = iter(run(jobs, args.workers))
    rows = []
    for n in POF_USERS:
        got = {p: next(results) for p in policies}
        rows.append([f"{n}x2", f"{float(got['drf'].value):.4f}", f"{4 * n / (n + 1) ** 2:.4f}",
                     f"{float(got['ceei'].value):.4f}", f"{(2 * math.sqrt(n) - 1) / n:.4f}",
                     f"{float(got['asset'].value):.4f}"])
    print(table(["size", "DRF", "BFT max-min bound", "CEEI", "BFT proportional bound", "asset"], rows))


def tradeoff(args: argparse.Namespace) -> None:
    """FDS (alpha-fair on dominant shares) and GFJ (on task counts) over
    beta (Joe-Wong, Sen, Lan, Chiang, INFOCOM 2012, Section III): worst
    efficiency against worst sharing incentive and envy, at ``--users`` x 2."""
    metrics = ("efficiency", "sharing-incentive", "envy")
    jobs = [(f"{p}:beta={b}", m, args.users, 2, args.seed, args.budget, "positive", None)
            for p in ("fds", "gfj") for b in BETAS for m in metrics]
    results = iter(run(jobs, args.workers))
    rows, points = [], []
    for p in ("fds", "gfj"):
        for b in BETAS:
            got = {m: float(next(results).value) for m in metrics}
            rows.append([p, b, *(f"{got[m]:.4f}" for m in metrics)])
            points.append((p, b, got))
    print(table(["policy", "beta", "worst efficiency", "worst sharing incentive", "worst envy"], rows))
    if args.plot:
        plot_tradeoff(points, args.plot)


def plot_tradeoff(points: list[tuple[str, str, dict[str, float]]], out: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for p, marker in (("fds", "o"), ("gfj", "s")):
        pts = [(g["sharing-incentive"], g["efficiency"], b) for q, b, g in points if q == p]
        ax.plot([x for x, _, _ in pts], [y for _, y, _ in pts], marker=marker, label=p)
        for x, y, b in pts:
            ax.annotate(f"β={b}", (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("worst sharing incentive (fairness)")
    ax.set_ylabel("worst efficiency")
    ax.set_title("Efficiency-fairness trade-off over beta")
    ax.legend()
    fig.savefig(out, dpi=120, bbox_inches="tight")
    print(f"wrote {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("drf", "pof", "tradeoff"))
    ap.add_argument("--budget", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--users", type=int, default=3, help="users for the trade-off (default: 3)")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--plot", default=None, help="trade-off: write the plot to this PNG")
    args = ap.parse_args()
    {"drf": drf, "pof": pof, "tradeoff": tradeoff}[args.what](args)


if __name__ == "__main__":
    main()
