"""Figures of simulations, after Ghodsi et al., NSDI 2011, Section 7.

* Figure 8 layout: per policy, one panel per resource with each user's
  share over time (stacked steps), and a panel of the users' dominant
  shares over time;
* Figure 13: utilisation of every resource over time, all policies on the
  same axes;
* Figure 14 (:func:`plot_completion_bins`): the reduction of mean job
  completion time of one policy against another, per job-size bin.

matplotlib is imported inside the functions (``Agg`` backend).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..simulation.result import SimulationResult
from .style import DEFAULT_DPI, LEGEND_MAX_USERS, plot_format, user_colors

#: Job-size bins (tasks per job) of the completion-time comparison, after
#: the paper's Figure 14.
SIZE_BINS: tuple[int, ...] = (1, 11, 51, 101, 501, 1001)


def _figure(rows: int, cols: int, height: float) -> Any:
    from .figure import new_figure

    return new_figure(figsize=(min(4.2 * cols + 1.5, 24.0), height * rows), layout="constrained")


def plot_simulations(results: Sequence[SimulationResult], path: str | Path, title: str | None = None) -> Path:
    """Shares over time per policy (Figure 8 layout) and utilisation over
    time (Figure 13), in one file (:data:`~analyzer.plotting.style.DEFAULT_DPI`).

    Raises
    ------
    ValueError
        For an unsupported extension or no results.
    """
    fmt = plot_format(path)
    out = Path(path)
    simulation_figure(results, title).savefig(out, format=fmt, dpi=DEFAULT_DPI)
    return out


def simulation_figure(results: Sequence[SimulationResult], title: str | None = None) -> Any:
    """The figure :func:`plot_simulations` writes, as a matplotlib ``Figure``.

    Raises
    ------
    ValueError
        When ``results`` is empty.
    """
    if not results:
        raise ValueError("nothing to plot: no simulation given")
    m = len(results[0].resources)
    # per-user panels only when every user can be told apart (traces: utilisation only)
    with_users = results[0].log is not None and len(results[0].users) <= LEGEND_MAX_USERS
    cols = m + 1 if with_users else 1
    fig = _figure(len(results) + 1 if with_users else 1, cols, 2.6)
    grid = fig.subplots(len(results) + 1 if with_users else 1, cols, squeeze=False)
    if with_users:
        users = list(results[0].users)
        colors = user_colors(len(users))
        for row, r in zip(grid, results, strict=False):
            _user_panels(row, r, users, colors)
        util_row = grid[-1]
        for ax in util_row[1:]:
            ax.set_visible(False)
    else:
        util_row = grid[0]
    _utilization(util_row[0], results)
    heading = title if title is not None else results[0].workload
    if heading:
        fig.suptitle(heading)
    return fig


def dominant_shares_panel(ax: Any, result: SimulationResult) -> Any:
    """Each user's dominant share over time on ``ax`` (the paper's Figure
    8c); returns ``ax``'s figure (ValueError when per-user use was not
    recorded: :meth:`SimulationResult.user_log`)."""
    result.user_log()
    users = list(result.users)
    _dominant_lines(ax, result, *_steps(result, users), users, user_colors(len(users)))
    if len(users) <= LEGEND_MAX_USERS:
        ax.legend(fontsize=7, loc="upper right")
    return ax.figure


def _steps(r: SimulationResult, users: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Times (the end appended) and shares (the last row repeated) for step plots."""
    tl = r.timeline(users)
    t, sh = np.append(tl["times"], r.end), tl["shares"]
    return t, np.concatenate([sh, sh[-1:]], axis=0)


def _dominant_lines(ax: Any, r: SimulationResult, t: np.ndarray, sh: np.ndarray, users: list[str],
                    colors: list[Any]) -> None:
    for c, u in enumerate(users):
        ax.step(t, sh[:, c, :].max(axis=1), where="post", color=colors[c], label=u)
    ax.set_title(f"{r.policy}: dominant shares", fontsize=9)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("time (s)", fontsize=8)


def _user_panels(row: Any, r: SimulationResult, users: list[str], colors: list[Any]) -> None:
    t, sh = _steps(r, users)
    for j, res in enumerate(r.resources):
        ax = row[j]
        ax.stackplot(t, sh[:, :, j].T, colors=colors, step="post", labels=users)
        ax.set_title(f"{r.policy}: {res} share", fontsize=9)
        ax.set_ylim(0, max(1.05, float(sh[:, :, j].sum(axis=1).max()) * 1.02))
        ax.set_xlabel("time (s)", fontsize=8)
    ax = row[len(r.resources)]
    _dominant_lines(ax, r, t, sh, users, colors)
    ax.legend(fontsize=7, loc="upper right")


def _utilization(ax: Any, results: Sequence[SimulationResult]) -> None:
    styles = ["-", "--", ":", "-."]
    for k, r in enumerate(results):
        t = np.append(r.times, r.end)
        u = r.used / r.capacity
        u = np.concatenate([u, u[-1:]], axis=0)
        for j, res in enumerate(r.resources):
            ax.step(t, u[:, j], where="post", ls=styles[j % len(styles)], color=f"C{k}", label=f"{r.policy} {res}")
    ax.axhline(1.0, color="0.4", lw=0.8, ls=":")
    ax.set_title("utilisation over time", fontsize=9)
    ax.set_xlabel("time (s)", fontsize=8)
    ax.set_ylabel("used / capacity", fontsize=8)
    ax.legend(fontsize=7)


def _bins(sizes: np.ndarray, bins: Sequence[int] = SIZE_BINS) -> list[tuple[str, np.ndarray]]:
    """``(label, mask)`` per job-size bin."""
    edges = [*bins, np.inf]
    out = []
    for lo, hi in itertools.pairwise(edges):
        label = f"{lo}-{int(hi) - 1}" if np.isfinite(hi) else f">={lo}"
        out.append((label, (sizes >= lo) & (sizes < hi)))
    return out


def completion_by_size(result: SimulationResult, bins: Sequence[int] = SIZE_BINS) -> dict[str, float | None]:
    """Mean completion time (arrival to finish) of completed jobs per
    job-size bin (tasks per job), ``"1-10"``: seconds (``None`` if empty)."""
    done = [j for j in result.jobs if j.completed]
    sizes = np.array([j.tasks for j in done], dtype=np.int64)
    resp = np.array([j.response_time for j in done], dtype=float)
    return {label: (float(resp[sel].mean()) if sel.any() else None) for label, sel in _bins(sizes, bins)}


def completion_reduction(base: SimulationResult, other: SimulationResult) -> dict[str, float | None]:
    """Per size bin, ``1 - mean(other) / mean(base)`` over the jobs both
    completed (the paper's Figure 14: DRF's reduction against slots)."""
    a = {j.job: j for j in base.jobs if j.completed}
    b = {j.job: j for j in other.jobs if j.completed}
    both = sorted(set(a) & set(b))
    sizes = np.array([a[k].tasks for k in both], dtype=np.int64)
    ra = np.array([a[k].response_time for k in both], dtype=float)
    rb = np.array([b[k].response_time for k in both], dtype=float)
    return {label: (float(1 - rb[sel].mean() / ra[sel].mean()) if sel.any() and ra[sel].mean() > 0 else None)
            for label, sel in _bins(sizes)}
