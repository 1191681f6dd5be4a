"""What every fairalloc figure shares: the output file formats, the
matplotlib style, the users' colours and their key, the axis head room.
Used by :mod:`analyzer.plotting.allocations` (allocations, Ghodsi et al., NSDI 2011,
Figures 3 and 4), :mod:`analyzer.plotting.timeline` and the simulation's plots;
matplotlib is imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: Output formats, by file extension (lower case, without the dot); JPEG
#: needs Pillow, which matplotlib normally brings along.
PLOT_FORMATS: tuple[str, ...] = ("png", "svg", "pdf", "jpg", "jpeg")
#: Up to this many users, a legend lists every user; beyond it a colour bar
#: maps the users (in order) to their colours.
LEGEND_MAX_USERS: int = 20
#: Head room above the tallest bar, as a fraction of its height.
HEADROOM: float = 0.12
#: Resolution of raster output (png, jpg) unless ``dpi`` is given.
DEFAULT_DPI: int = 100


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


def render_figure(draw: Any, path: str | Path | None, fmt: str | None, dpi: float | None, style: str | None) -> Any:
    """``draw()`` under matplotlib ``style``, the figure written to ``path``
    (format ``fmt``) when given; returns the figure. Shared by every plot
    function of fairalloc."""
    import matplotlib.style

    check_style(style)
    with matplotlib.style.context(style or {}):
        fig = draw()
        if path is not None:
            fig.savefig(Path(path), format=fmt, dpi=dpi or DEFAULT_DPI)
    return fig


def check_style(style: str | None) -> None:
    """Raise ValueError (with a hint) for a style matplotlib does not have."""
    if style is None:
        return
    import matplotlib.style

    if style not in matplotlib.style.available:
        from models.errors import did_you_mean

        raise ValueError(f"unknown matplotlib style {style!r}{did_you_mean(style, matplotlib.style.available)} "
                         f"(available: {', '.join(sorted(matplotlib.style.available))})")


def axis_top(tallest: float) -> float:
    """The upper y limit: the data plus head room, never above 1.05 (the
    whole resource) nor so low that nothing shows."""
    return min(1.05, max(tallest * (1 + HEADROOM), 1e-12)) if tallest > 0 else 1.05


def users_key(fig: Any, users: Sequence[str], colors: list[Any], ax: Any = None, hatched: bool = False) -> None:
    """Which colour is which user: a legend up to :data:`LEGEND_MAX_USERS`
    users, a colour bar over the users in order beyond (beside ``ax``, or
    the whole figure); ``hatched`` adds the key of discrete (hatched) bars."""
    from matplotlib.patches import Patch

    n = len(users)
    extra = [Patch(facecolor="white", edgecolor="black", hatch="//", label="discrete")] if hatched else []
    if n <= LEGEND_MAX_USERS:
        handles = [Patch(facecolor=colors[i], label=u) for i, u in enumerate(users)] + extra
        if ax is not None:
            ax.legend(handles=handles, fontsize=8, title="user", loc="upper left", bbox_to_anchor=(1.0, 1.0))
        else:
            fig.legend(handles=handles, loc="outside right upper", fontsize=8, title="user")
        return
    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm

    cmap = matplotlib.colors.ListedColormap(colors)
    norm = BoundaryNorm(np.arange(n + 1) - 0.5, n)
    where = {"ax": ax} if ax is not None else {"ax": fig.axes, "location": "right"}
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), **where, fraction=0.04, pad=0.02)
    shown = np.unique(np.linspace(0, n - 1, min(n, 12)).round().astype(int))
    bar.set_ticks(shown, labels=[users[i] for i in shown], fontsize=7)
    bar.set_label(f"user ({n}, in order)" + ("; hatched: discrete" if extra else ""))


def user_colors(n: int) -> list[Any]:
    """One colour per user (a qualitative palette up to 20 users, viridis beyond)."""
    import matplotlib

    cmap = matplotlib.colormaps["tab10" if n <= 10 else "tab20" if n <= 20 else "viridis"]
    if n <= 20:
        return [cmap(i) for i in range(n)]
    return [cmap(v) for v in np.linspace(0.0, 1.0, n)]


__all__ = ["DEFAULT_DPI", "LEGEND_MAX_USERS", "PLOT_FORMATS", "axis_top", "check_style", "plot_format", "render_figure",
           "user_colors", "users_key"]
