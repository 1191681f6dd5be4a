"""Shares over time: the layout of Ghodsi et al., NSDI 2011, Figure 8
(Section 7.1): (a) and (b) each job's share of one resource over time, one
panel per resource, (c) the jobs' dominant shares over time.

Any sampled series works (times, and the share of each user and resource
at each time). The simulator's own figure
(:func:`analyzer.plotting.simulation.plot_simulations`) does not use this
module yet: it draws the same panels itself, resources stacked.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .style import axis_top, plot_format, render_figure, user_colors, users_key


def plot_shares_over_time(times: Sequence[float] | np.ndarray, shares: np.ndarray, users: Sequence[str],
                          resources: Sequence[str], path: str | Path | None = None, *, ax: Any = None,
                          dominant: bool = True, title: str | None = None, figsize: tuple[float, float] | None = None,
                          dpi: float | None = None, style: str | None = None, arrivals: bool = False) -> Any:
    """Draw each user's share of each resource over time (one panel per
    resource) and its dominant share (a last panel), as step lines, like the
    paper's Figure 8; return the matplotlib ``Figure``.

    Parameters
    ----------
    times : sequence of float, length T
        Sample times (increasing); each share holds until the next time.
    shares : ndarray, shape (T, n, m)
        ``shares[t, i, j]``: user i's share of resource j at ``times[t]``.
    users, resources : sequence of str
        Names (n and m of them).
    path : str or Path, optional
        Also write the figure there (png, svg, pdf, jpg); nothing is
        written without it.
    ax : matplotlib Axes, optional
        Draw only the dominant shares, into this axes.
    dominant : bool
        Add the dominant-share panel (new figures only).
    title, figsize, dpi, style
        As for :func:`analyzer.plotting.allocations.plot_allocations`.
    arrivals : bool
        The horizontal axis counts arrivals (the dynamic setting's steps,
        :meth:`analyzer.DynamicRun.plot`): whole-number ticks, labelled so.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        For shapes that do not fit, an unsupported extension or an unknown
        style.
    """
    t = np.asarray(times, dtype=float)
    s = np.asarray(shares, dtype=float)
    if s.ndim != 3 or s.shape != (t.shape[0], len(users), len(resources)):
        raise ValueError(f"shares must have shape (times, users, resources) = "
                         f"({t.shape[0]}, {len(users)}, {len(resources)}), got {s.shape}")
    fmt = plot_format(path) if path is not None else None
    return render_figure(lambda: _draw(t, s, list(users), list(resources), ax, dominant, title, figsize, arrivals),
                         path, fmt, dpi, style)


def _draw(t: np.ndarray, s: np.ndarray, users: list[str], resources: list[str], ax: Any, dominant: bool,
          title: str | None, figsize: tuple[float, float] | None, arrivals: bool) -> Any:
    colors = user_colors(len(users))
    dom = s.max(axis=2) if s.size else np.zeros(s.shape[:2])
    if ax is not None:
        _lines(ax, t, dom, colors, "dominant share")
        users_key(ax.figure, users, colors, ax)
        return ax.figure
    from .figure import new_figure

    panels = [(f"share of {r}", s[:, :, j]) for j, r in enumerate(resources)]
    if dominant:
        panels.append(("dominant share", dom))
    fig = new_figure(figsize=figsize or (7.0, 1.9 * len(panels) + 0.6), layout="constrained")
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for a, (label, values) in zip(axes, panels, strict=True):
        _lines(a, t, values, colors, label)
    axes[-1].set_xlabel("arrival" if arrivals else "time")
    if arrivals:
        from matplotlib.ticker import MaxNLocator

        axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True))
    users_key(fig, users, colors)
    if title:
        fig.suptitle(title)
    return fig


def _lines(ax: Any, t: np.ndarray, values: np.ndarray, colors: list[Any], label: str) -> None:
    """One step line per user (a share holds until the next sample)."""
    for i in range(values.shape[1]):
        ax.step(t, values[:, i], where="post", color=colors[i], lw=1.2)
    ax.set_ylim(0, axis_top(float(np.max(values, initial=0.0))))
    ax.set_ylabel(label)


__all__ = ["plot_shares_over_time"]
