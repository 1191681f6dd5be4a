"""The plot of a worst-case result (kept in one module so it can move to the
shared plotting package); matplotlib is imported inside, without pyplot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def trace_plot(result: Any, ax: Any = None) -> Any:
    """Best metric value against metric evaluations, with the exact value
    of the certified instance, the proved bound and, when the prover built
    a worse instance, its value as horizontal lines; returns the Figure."""
    if ax is None:
        from ..plotting.figure import new_figure

        fig = new_figure(figsize=(6, 3.5), layout="constrained")  # shows itself in a notebook; no pyplot
        ax = fig.subplots()
    else:
        fig = ax.figure
    xs = [p.evaluations for p in result.trace] + [result.evaluations]
    ys = [p.value for p in result.trace] + ([result.trace[-1].value] if result.trace else [])
    ax.step(xs, ys, where="post", label="best found")
    ax.axhline(float(result.value), color="C1", linestyle="--", label=f"certified {result.value_text}")
    b = result.bound
    if b is not None:
        ax.axhline(float(b.value), color="C2", linestyle=":", label=f"proved bound {b.value}")
        if b.instance is not None:
            ax.axhline(float(b.attained), color="C3", linestyle="-.", label="prover's instance")
    ax.ticklabel_format(axis="y", useOffset=False)
    ax.set_xlabel("metric evaluations")
    ax.set_ylabel(result.metric)
    ax.set_title(f"{result.policy}: worst {result.metric}, {result.users}x{result.resources}")
    ax.legend(loc="best", fontsize=8)
    return fig


def save_figure(draw: Callable[[], Any], path: str | Path) -> Path:
    """The Figure ``draw()`` returns, written to ``path`` in the format its
    suffix names (:data:`~analyzer.plotting.style.PLOT_FORMATS`), checked
    before anything is drawn.

    Raises
    ------
    ValueError
        For an unsupported suffix.
    """
    from ..plotting.style import DEFAULT_DPI, plot_format

    fmt = plot_format(path)
    out = Path(path)
    draw().savefig(out, format=fmt, dpi=DEFAULT_DPI)
    return out


def save_plot(result: Any, path: str | Path) -> Path:
    """:func:`trace_plot` written to ``path`` (PNG, SVG, PDF... by suffix)."""
    return save_figure(lambda: trace_plot(result), path)
