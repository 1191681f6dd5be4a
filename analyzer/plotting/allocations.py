"""Figures of allocations: each user's share of each resource, and the
dominant shares, per policy.

The layout follows Ghodsi et al., NSDI 2011, Figures 3 and 4 (Section 5):
for each policy one panel of stacked bars, one bar per resource, one colour
per user, the height of a user's segment being its share
``x_i d_ij / R_j`` of resource ``j``; a last panel groups the users'
dominant shares ``max_j x_i d_ij / R_j`` (Section 4.1) by policy. With a
discrete run (``analyzer.discrete.progressive_filling``, the paper's
Algorithm 1, Section 6.2) each resource gets two bars side by side, the
continuous allocation (plain) and the discrete one (hatched).

:func:`plot_allocations` returns the matplotlib ``Figure`` (a notebook
shows it; ``ax=`` draws into a subplot of a paper's figure) and writes a
file only when given a path. matplotlib is imported inside it, and no
backend is switched: the figure is built without pyplot, so it needs no
display and leaves a notebook's backend alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from models import Allocation, Instance

if TYPE_CHECKING:
    from matplotlib.typing import HashableList

from .style import LEGEND_MAX_USERS, axis_top, plot_format, render_figure, user_colors, users_key

#: Above this many bar segments in a panel, stacked step areas (shares)
#: and markers (dominant shares) are drawn instead of bars (speed).
BAR_MAX_CELLS: int = 400
#: Resources beyond this number are drawn without tick labels.
TICK_MAX_RESOURCES: int = 30
#: A value label is written only on a segment at least this fraction of the
#: axis high (smaller ones would be unreadable).
LABEL_MIN_FRACTION: float = 0.04


@dataclass(frozen=True)
class PlotSeries:
    """The shares one policy gives, ready to draw.

    Attributes
    ----------
    policy : str
        The policy label.
    shares : ndarray, shape (n, m)
        Continuous share of each resource per user.
    dominant : ndarray, shape (n,)
        Continuous dominant share per user.
    discrete_shares : ndarray or None
        Shares of the discrete allocation (same shape), when there is one.
    discrete_dominant : ndarray or None
        Dominant shares of the discrete allocation.
    """

    policy: str
    shares: np.ndarray
    dominant: np.ndarray
    discrete_shares: np.ndarray | None = None
    discrete_dominant: np.ndarray | None = None


def discrete_shares(instance: Instance, tasks: Sequence[Any]) -> np.ndarray:
    """Shares ``x_i d_ij / R_j`` of integer task counts, shape (n, m).

    Examples
    --------
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> discrete_shares(inst, [3, 2]).round(4).tolist()
    [[0.3333, 0.6667], [0.6667, 0.1111]]
    """
    x = np.array([float(v) for v in tasks], dtype=float)
    return x[:, None] * instance.demands / instance.capacity


def series(alloc: Allocation, discrete_tasks: Sequence[Any] | None = None) -> PlotSeries:
    """A :class:`PlotSeries` from a continuous allocation and, optionally,
    the task counts of the discrete run of the same policy."""
    if discrete_tasks is None:
        return PlotSeries(alloc.policy, np.asarray(alloc.shares), np.asarray(alloc.dominant_shares))
    ds = discrete_shares(alloc.instance, discrete_tasks)
    return PlotSeries(alloc.policy, np.asarray(alloc.shares), np.asarray(alloc.dominant_shares),
                      ds, ds.max(axis=1))


def plot_allocations(instance: Instance, data: Sequence[PlotSeries | Allocation], path: str | Path | None = None,
                     *, ax: Any = None, title: str | None = None, dominant: bool = True, value_labels: bool = False,
                     figsize: tuple[float, float] | None = None, dpi: float | None = None,
                     style: str | None = None) -> Any:
    """Draw each policy's shares per resource (Ghodsi et al., NSDI 2011,
    Figures 3 and 4: one stacked bar per resource, one segment per user)
    and, below, the dominant shares; return the matplotlib ``Figure``.

    Parameters
    ----------
    instance : Instance
        The scenario (resource and user names).
    data : sequence of PlotSeries or Allocation
        One entry per policy, in panel order.
    path : str or Path, optional
        When given, the figure is also written there (format from the
        extension: png, svg, pdf, jpg). Nothing is written otherwise.
    ax : matplotlib Axes, optional
        Draw into this axes (e.g. a subplot of a paper's figure) instead of
        a new figure: the policies side by side, each a group of stacked
        bars, without the dominant-share panel.
    title : str, optional
        Figure title (default: the scenario's name, if any).
    dominant : bool
        Draw the dominant-share panel (new figures only).
    value_labels : bool
        Write each share on its bar segment (where the segment is tall
        enough to hold it).
    figsize : (float, float), optional
        Width and height in inches (default: from the number of policies
        and resources).
    dpi : float, optional
        Resolution of raster output (default :data:`analyzer.plotting.style.DEFAULT_DPI`).
    style : str, optional
        A matplotlib style (``"seaborn-v0_8-paper"``, ``"grayscale"``, ...).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        For an unsupported extension, an unknown style or an empty ``data``.
    OSError
        When the file cannot be written.
    """
    fmt = plot_format(path) if path is not None else None
    if not data:
        raise ValueError("nothing to plot: no policy given")
    panels = [series(d) if isinstance(d, Allocation) else d for d in data]
    return render_figure(lambda: _draw(instance, panels, ax, title, dominant, value_labels, figsize), path, fmt, dpi,
                         style)


def _draw(instance: Instance, data: list[PlotSeries], ax: Any, title: str | None, dominant: bool,
          value_labels: bool, figsize: tuple[float, float] | None) -> Any:
    """The figure (or ``ax``'s figure) with everything drawn."""
    n, m = instance.n, instance.m
    colors = user_colors(n)
    top = axis_top(max(float(np.max(s.shares.sum(axis=0), initial=0.0)) for s in data))
    if ax is not None:
        fig = ax.figure
        _one_axes(ax, instance, data, colors, top, value_labels)
        users_key(fig, instance.users, colors, ax, _has_discrete(data))
        return fig
    from .figure import new_figure

    k = len(data)
    panel_w = min(2.0 + 0.45 * m * (2 if _has_discrete(data) else 1), 8.0)
    fig = new_figure(figsize=figsize or (min(panel_w * k + 1.5, 24.0), 6.6 if dominant else 4.0),
                     layout="constrained")
    mosaic: list[HashableList[str]] = [[f"p{j}" for j in range(k)]]
    if dominant:
        mosaic.append(["dom" for _ in range(k)])
    named = fig.subplot_mosaic(mosaic, height_ratios=[1.3, 1.0] if dominant else [1.0])
    axes = [named[f"p{j}"] for j in range(k)]
    pos = np.arange(m, dtype=float)
    for a, s in zip(axes, data, strict=True):
        if s.discrete_shares is None:
            _stacked(a, pos, s.shares, colors, 0.6, None, value_labels)
        else:
            _stacked(a, pos - 0.2, s.shares, colors, 0.38, None, value_labels)
            _stacked(a, pos + 0.2, s.discrete_shares, colors, 0.38, "//", value_labels)
        a.set_title(f"{s.policy}: shares per resource", fontsize=10)
        if a is axes[0]:
            a.set_ylabel("share of capacity")
        _share_axis(a, top)
        _resource_ticks(a, pos, instance.resources)
    if dominant:
        _dominant_panel(named["dom"], data, colors, value_labels)
    users_key(fig, instance.users, colors, None, _has_discrete(data))
    heading = title if title is not None else instance.name
    if heading:
        fig.suptitle(heading)
    return fig


def _share_axis(ax: Any, top: float) -> None:
    ax.set_ylim(0, top)
    if top >= 1.0:
        ax.axhline(1.0, color="0.4", lw=0.8, ls=":")


def _one_axes(ax: Any, instance: Instance, data: list[PlotSeries], colors: list[Any], top: float,
              value_labels: bool) -> None:
    """All policies in one axes: per policy, a group of stacked bars, one
    per resource (the panels of Figure 4 side by side)."""
    m = instance.m
    step = m + 1.0
    ticks, labels = [], []
    for g, s in enumerate(data):
        pos = g * step + np.arange(m, dtype=float)
        shares = s.shares if s.discrete_shares is None else s.discrete_shares
        _stacked(ax, pos, shares, colors, 0.8, None if s.discrete_shares is None else "//", value_labels)
        ticks += list(pos)
        labels += list(instance.resources)
        ax.annotate(s.policy, xy=(float(pos.mean()), 0), xycoords=("data", "axes fraction"), xytext=(0, -24),
                    textcoords="offset points", ha="center", va="top", fontsize=9)
    if m * len(data) <= TICK_MAX_RESOURCES:
        ax.set_xticks(ticks, labels, fontsize=8)
    else:
        ax.set_xticks([])
    ax.set_ylabel("share of capacity")
    _share_axis(ax, top)


def _has_discrete(data: Sequence[PlotSeries]) -> bool:
    return any(s.discrete_shares is not None for s in data)


def _stacked(ax: Any, pos: np.ndarray, shares: np.ndarray, colors: list[Any], width: float, hatch: str | None,
             value_labels: bool = False) -> None:
    """One stacked bar per resource, one segment per user (labelled with its
    share when asked and tall enough); above :data:`BAR_MAX_CELLS` segments,
    one stacked step area per user instead (the same picture, drawn in ``n``
    polygons rather than ``n * m`` bars)."""
    edge = "white" if hatch is None else "black"
    bottom = np.zeros(shares.shape[1])
    if shares.size <= BAR_MAX_CELLS:
        tall = LABEL_MIN_FRACTION * max(float(np.max(shares.sum(axis=0), initial=0.0)), 1e-12)
        for i in range(shares.shape[0]):
            bars = ax.bar(pos, shares[i], width, bottom=bottom, color=colors[i], edgecolor=edge, linewidth=0.5,
                          hatch=hatch)
            if value_labels:
                ax.bar_label(bars, labels=[f"{v:.3g}" if v >= tall else "" for v in shares[i]], label_type="center",
                             fontsize=7)
            bottom = bottom + shares[i]
        return
    xs = np.column_stack([pos - width / 2, pos + width / 2]).ravel()
    for i in range(shares.shape[0]):
        top = bottom + shares[i]
        ax.fill_between(
            xs,
            np.repeat(bottom, 2),
            np.repeat(top, 2),
            color=colors[i],
            edgecolor=edge if hatch else "none",
            linewidth=0.0,
            hatch=hatch,
        )
        bottom = top


def _resource_ticks(ax: Any, pos: np.ndarray, names: Sequence[str]) -> None:
    if len(names) <= TICK_MAX_RESOURCES:
        ax.set_xticks(pos, list(names), rotation=0 if len(names) <= 8 else 60, fontsize=8)
    else:
        ax.set_xlabel(f"{len(names)} resources (in column order)")


def _dominant_panel(ax: Any, data: Sequence[PlotSeries], colors: list[Any], value_labels: bool = False) -> None:
    """Grouped bars: one group per policy, one bar per user (and, for a
    discrete run, the discrete dominant share hatched beside it)."""
    n = len(colors)
    groups = np.arange(len(data), dtype=float)
    per = 2 if _has_discrete(data) else 1
    slot = 0.8 / (n * per)
    offsets = -0.4 + slot * (np.arange(n) * per + 0.5)
    markers = n * len(data) * per > BAR_MAX_CELLS
    if markers:  # many users: one marker per user
        for g, s in zip(groups, data, strict=True):
            ax.scatter(g + offsets, s.dominant, c=colors, s=8, marker="o")
            if s.discrete_dominant is not None:
                ax.scatter(g + offsets + slot, s.discrete_dominant, c=colors, s=8, marker="x")
    else:
        for i in range(n):
            bars = ax.bar(groups + offsets[i], [s.dominant[i] for s in data], slot, color=colors[i],
                          edgecolor="white", linewidth=0.3)
            if value_labels and n * len(data) <= 3 * LEGEND_MAX_USERS:
                ax.bar_label(bars, fmt="%.3g", fontsize=7)
            if per == 2:
                vals = [np.nan if s.discrete_dominant is None else s.discrete_dominant[i] for s in data]
                ax.bar(groups + offsets[i] + slot, vals, slot, color=colors[i], edgecolor="black", linewidth=0.3,
                       hatch="//")
    ax.set_xticks(groups, [s.policy for s in data], fontsize=9)
    tallest = max(float(np.nanmax(np.concatenate([s.dominant, s.discrete_dominant if s.discrete_dominant is not None
                                                   else s.dominant]), initial=0.0)) for s in data)
    _share_axis(ax, axis_top(tallest))
    ax.set_ylabel("dominant share")
    legend = (
        ("(o: continuous, x: discrete)" if markers else "(plain: continuous, hatched: discrete)") if per == 2 else ""
    )
    ax.set_title(f"dominant share per user {legend}".strip(), fontsize=10)


__all__ = [ "PlotSeries", "discrete_shares", "plot_allocations", "series"]
