"""The ``text`` output format: aligned columns for a terminal (the layout of
tabulate's "simple" format), then ``note:`` lines."""

from __future__ import annotations

from . import OUTPUT_FORMATS, Document, OutputFormat
from ._grid import cells, column_widths, pad


@OUTPUT_FORMATS.register("text")
class Text(OutputFormat):
    """Left-aligned columns two spaces apart under a dashed rule."""

    description = "aligned columns for a terminal (the default)"

    def render(self, doc: Document) -> str:
        out: list[str] = []
        for t in doc.tables:
            out += [t.title, plain_grid(cells(t), t.headers), ""]
        out += [f"note: {note}" for note in doc.notes]
        return "\n".join(out).rstrip() + "\n"


def plain_grid(rows: list[list[str]], headers: list[str]) -> str:
    """Rows under headers and a dashed rule, columns two spaces apart.

    >>> print(plain_grid([["A", "3"]], ["user", "drf"]))
    user    drf
    ------  -----
    A       3
    """
    widths = column_widths(rows, headers)
    lines = [headers, ["-" * w for w in widths], *rows]
    return "\n".join("  ".join(pad(c, w) for c, w in zip(line, widths, strict=False)).rstrip() for line in lines)
