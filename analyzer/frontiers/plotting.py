"""The frontier's figure: the worst metric against the parameter and, below
the curve, one row of markers per property (its prover status at each
value, the row named on the y axis). matplotlib is imported inside,
without pyplot."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

#: Marker style of each prover status (any other status: a grey square).
STATUS_STYLE: dict[str, dict[str, Any]] = {
    "proved": {"marker": "o", "color": "tab:green"},
    "counterexample": {"marker": "X", "color": "tab:red"},
    "unknown": {"marker": "$?$", "color": "tab:gray"},
    "vacuous": {"marker": "o", "color": "tab:blue", "facecolors": "none"},
}
OTHER_STYLE: dict[str, Any] = {"marker": "s", "color": "tab:gray"}
#: Height of one property row, as a fraction of the metric's range.
ROW = 0.12
#: A parameter range spanning at least this factor is drawn on a log axis.
LOG_SPAN = 8.0


def positions(values: list[float]) -> tuple[list[float], bool]:
    """x positions of the values (``inf`` placed beyond the largest finite
    one) and whether the axis is logarithmic."""
    finite = [v for v in values if math.isfinite(v)]
    log = bool(finite) and min(finite) > 0 and max(finite) / min(finite) >= LOG_SPAN
    if not finite:
        return [1.0] * len(values), False
    top, span = max(finite), max(finite) - min(finite)
    beyond = top * 4 if log else top + max(span * 0.25, 1.0)
    return [v if math.isfinite(v) else beyond for v in values], log


def frontier_plot(f: Any, ax: Any = None) -> Any:
    """Draw ``f`` (a :class:`~analyzer.frontiers.result.Frontier`) on ``ax``
    (a new Figure when ``None``); returns the Figure."""
    if ax is None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6.5, 3.2 + 0.25 * len(f.properties)), layout="constrained")
        ax = fig.subplots()
    else:
        fig = ax.figure
    from .result import value_text

    points = sorted(f.points, key=lambda p: p.value)
    xs, log = positions([p.value for p in points])
    ys = [float(p.worst.value) for p in points]
    ax.plot(xs, ys, marker="o", color="C0", label=f"worst {f.metric}")
    low, high = (min(ys), max(ys)) if ys else (0.0, 1.0)
    height = (high - low) or max(abs(high), 1.0) * 0.1
    seen: set[str] = set()
    rows = [low - (k + 1) * ROW * height * 1.5 for k in range(len(f.properties))]
    for prop, y in zip(f.properties, rows, strict=True):
        for x, p in zip(xs, points, strict=True):
            status = p.status(prop)
            style = STATUS_STYLE.get(status, OTHER_STYLE)
            ax.scatter([x], [y], s=40, label=None if status in seen else status, **style)
            seen.add(status)
    ax.set_ylim(low - (len(rows) + 0.7) * ROW * height * 1.5, high + ROW * height)
    ticks = [t for t in ax.get_yticks() if low - ROW * height * 0.5 <= t <= high + ROW * height]
    ax.set_yticks([*ticks, *rows], [f"{t:g}" for t in ticks] + list(f.properties))
    if rows:
        ax.axhline(low - 0.75 * ROW * height * 1.5, color="0.8", linewidth=0.8)
    if log:
        ax.set_xscale("log")
    ax.set_xticks(xs, [value_text(p.value) for p in points])
    ax.minorticks_off()
    ax.set_xlabel(f.param)
    ax.set_ylabel(f"worst {f.metric}")
    ax.set_title(f"{f.policy} along {f.param}, {f.users}x{f.resources}")
    ax.legend(loc="best", fontsize=7)
    return fig


def save_plot(f: Any, path: str | Path) -> Path:
    """:func:`frontier_plot` written to ``path`` (PNG, SVG, PDF... by suffix)."""
    from ..worst.plotting import save_figure

    return save_figure(lambda: frontier_plot(f), path)
