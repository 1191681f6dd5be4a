"""The figure every fairalloc ``plot()`` returns: a matplotlib ``Figure``
that a notebook shows.

IPython shows an object that is a cell's value by asking it for rich
representations (its display protocol: ``_repr_png_``, ``_repr_html_``,
...). A plain ``matplotlib.figure.Figure`` has none; it is shown as an
image only when the inline backend has registered a PNG formatter for
the ``Figure`` class (``%matplotlib inline``, or pyplot imported in the
kernel), else as ``<Figure size ... with 6 Axes>``. fairalloc draws
without pyplot, so its figures are :class:`NotebookFigure`: a ``Figure``
subclass (save it, add axes, pass it anywhere a ``Figure`` goes) with
``_repr_png_``, the image ``savefig`` writes at
:data:`~analyzer.plotting.style.DEFAULT_DPI`. Nothing global changes: no
formatter is registered, no backend selected. When the inline backend is
active its formatter takes precedence (IPython looks up registered
printers first), and the figure still shows once.

This module imports matplotlib: import it inside the plotting functions.
"""

from __future__ import annotations

import io
from typing import Any

from matplotlib.figure import Figure

from .style import DEFAULT_DPI


class NotebookFigure(Figure):
    """A matplotlib ``Figure`` that shows itself as a PNG image in Jupyter
    (see the module docstring)."""

    def _repr_png_(self) -> bytes | None:
        """The figure as PNG bytes (``None`` when nothing is drawn, as IPython's own formatter does)."""
        if not self.axes:
            return None
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=DEFAULT_DPI)
        return buf.getvalue()


def new_figure(**kwargs: Any) -> NotebookFigure:
    """A :class:`NotebookFigure`; ``kwargs`` as for ``matplotlib.figure.Figure``
    (``figsize``, ``layout``, ...)."""
    return NotebookFigure(**kwargs)


__all__ = ["NotebookFigure", "new_figure"]
