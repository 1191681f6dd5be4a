"""The one plot of a worst-case result (kept in one function so it can move
to a shared plotting package)."""

from __future__ import annotations

from typing import Any


def trace_plot(result: Any, ax: Any = None) -> Any:
    """Best metric value against metric evaluations, with the exact value
    of the certified instance and the proved bound as horizontal lines;
    returns the Figure."""
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
    if result.bound is not None:
        ax.axhline(float(result.bound.value), color="C2", linestyle=":", label="proved bound")
    ax.set_xlabel("metric evaluations")
    ax.set_ylabel(result.metric)
    ax.set_title(f"{result.policy}: worst {result.metric}, {result.users}x{result.resources}")
    ax.legend(loc="best")
    return fig
