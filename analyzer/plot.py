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

matplotlib is imported inside :func:`plot_allocations`, with the ``Agg``
backend (no display needed), so that importing this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models import Allocation, Instance

#: Output formats, by file extension (lower case, without the dot).
PLOT_FORMATS: tuple[str, ...] = ("png", "svg", "pdf")
#: Users beyond this number are drawn but not listed in the legend.
LEGEND_MAX_USERS: int = 20
#: Above this many bar segments in a panel, stacked step areas (shares)
#: and markers (dominant shares) are drawn instead of bars (speed).
BAR_MAX_CELLS: int = 400
#: Resources beyond this number are drawn without tick labels.
TICK_MAX_RESOURCES: int = 30


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


def plot_format(path: str | Path) -> str:
    """The output format named by ``path``'s extension.

    Raises
    ------
    ValueError
        When the extension is not one of :data:`PLOT_FORMATS`.

    Examples
    --------
    >>> plot_format("out/fig.PNG")
    'png'
    """
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in PLOT_FORMATS:
        shown = f"'.{ext}'" if ext else "no extension"
        raise ValueError(f"{path}: unsupported image format ({shown}); use one of "
                         + ", ".join("." + f for f in PLOT_FORMATS))
    return ext


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


def plot_allocations(instance: Instance, data: Sequence[PlotSeries], path: str | Path, title: str | None = None) -> Path:
    """Draw the figure and write it to ``path`` (format from the extension).

    Parameters
    ----------
    instance : Instance
        The scenario (resource and user names).
    data : sequence of PlotSeries
        One entry per policy, in panel order.
    path : str or Path
        Output file, ``.png``, ``.svg`` or ``.pdf``.
    title : str, optional
        Figure title (default: the scenario's name, if any).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ValueError
        For an unsupported extension or an empty ``data``.
    OSError
        When the file cannot be written.
    """
    fmt = plot_format(path)
    if not data:
        raise ValueError("nothing to plot: no policy given")
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    n, m = instance.n, instance.m
    colors = _user_colors(n)
    k = len(data)
    panel_w = min(2.0 + 0.45 * m * (2 if _has_discrete(data) else 1), 8.0)
    fig = Figure(figsize=(min(panel_w * k + 1.5, 24.0), 6.6), layout="constrained")
    mosaic = [[f"p{j}" for j in range(k)], ["dom"] * k]
    named = fig.subplot_mosaic(mosaic, height_ratios=[1.3, 1.0])
    axes = [named[f"p{j}"] for j in range(k)] + [named["dom"]]
    pos = np.arange(m, dtype=float)
    for ax, s in zip(axes, data, strict=False):
        if s.discrete_shares is None:
            _stacked(ax, pos, s.shares, colors, 0.6, hatch=None)
        else:
            _stacked(ax, pos - 0.2, s.shares, colors, 0.38, hatch=None)
            _stacked(ax, pos + 0.2, s.discrete_shares, colors, 0.38, hatch="//")
        ax.set_title(f"{s.policy}: shares per resource", fontsize=10)
        if ax is axes[0]:
            ax.set_ylabel("share of capacity")
        ax.set_ylim(0, 1.05)
        ax.axhline(1.0, color="0.4", lw=0.8, ls=":")
        _resource_ticks(ax, pos, instance.resources)
    _dominant_panel(axes[-1], data, colors)
    handles = [Patch(facecolor=colors[i], label=u) for i, u in enumerate(instance.users[:LEGEND_MAX_USERS])]
    if n > LEGEND_MAX_USERS:
        handles.append(Patch(facecolor="white", label=f"... {n - LEGEND_MAX_USERS} more users"))
    if _has_discrete(data):
        handles.append(Patch(facecolor="white", edgecolor="black", hatch="//", label="discrete"))
    fig.legend(handles=handles, loc="outside right upper", fontsize=8, title="user")
    heading = title if title is not None else instance.name
    if heading:
        fig.suptitle(heading)
    out = Path(path)
    fig.savefig(out, format=fmt, dpi=100)
    return out


def _has_discrete(data: Sequence[PlotSeries]) -> bool:
    return any(s.discrete_shares is not None for s in data)


def _user_colors(n: int) -> list[Any]:
    import matplotlib

    cmap = matplotlib.colormaps["tab10" if n <= 10 else "tab20" if n <= 20 else "viridis"]
    if n <= 20:
        return [cmap(i) for i in range(n)]
    return [cmap(v) for v in np.linspace(0.0, 1.0, n)]


def _stacked(ax: Any, pos: np.ndarray, shares: np.ndarray, colors: list[Any], width: float, hatch: str | None) -> None:
    """One stacked bar per resource, one segment per user; above
    :data:`BAR_MAX_CELLS` segments, one stacked step area per user instead
    (the same picture, drawn in ``n`` polygons rather than ``n * m`` bars)."""
    edge = "white" if hatch is None else "black"
    bottom = np.zeros(shares.shape[1])
    if shares.size <= BAR_MAX_CELLS:
        for i in range(shares.shape[0]):
            ax.bar(pos, shares[i], width, bottom=bottom, color=colors[i], edgecolor=edge, linewidth=0.5, hatch=hatch)
            bottom = bottom + shares[i]
        return
    xs = np.column_stack([pos - width / 2, pos + width / 2]).ravel()
    for i in range(shares.shape[0]):
        top = bottom + shares[i]
        ax.fill_between(xs, np.repeat(bottom, 2), np.repeat(top, 2), color=colors[i], edgecolor=edge if hatch else "none",
                        linewidth=0.0, hatch=hatch)
        bottom = top


def _resource_ticks(ax: Any, pos: np.ndarray, names: Sequence[str]) -> None:
    if len(names) <= TICK_MAX_RESOURCES:
        ax.set_xticks(pos, list(names), rotation=0 if len(names) <= 8 else 60, fontsize=8)
    else:
        ax.set_xlabel(f"{len(names)} resources (in column order)")


def _dominant_panel(ax: Any, data: Sequence[PlotSeries], colors: list[Any]) -> None:
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
            ax.bar(groups + offsets[i], [s.dominant[i] for s in data], slot, color=colors[i], edgecolor="white",
                   linewidth=0.3)
            if per == 2:
                vals = [np.nan if s.discrete_dominant is None else s.discrete_dominant[i] for s in data]
                ax.bar(groups + offsets[i] + slot, vals, slot, color=colors[i], edgecolor="black", linewidth=0.3,
                       hatch="//")
    ax.set_xticks(groups, [s.policy for s in data], fontsize=9)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("dominant share")
    legend = ("(o: continuous, x: discrete)" if markers else "(plain: continuous, hatched: discrete)") if per == 2 else ""
    ax.set_title(f"dominant share per user {legend}".strip(), fontsize=10)


__all__ = ["PLOT_FORMATS", "PlotSeries", "discrete_shares", "plot_allocations", "plot_format", "series"]
