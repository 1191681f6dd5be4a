"""The ``md`` output format: GitHub-flavoured Markdown tables (tabulate's
"github" layout) under ``###`` titles, notes as quotes."""

from __future__ import annotations

from . import OUTPUT_FORMATS, Document, OutputFormat
from ._grid import cells, column_widths, pad


@OUTPUT_FORMATS.register("md")
class Markdown(OutputFormat):
    """One ``### title`` and pipe table per table, then ``> note:`` lines."""

    description = "GitHub-flavoured Markdown tables"

    def render(self, doc: Document) -> str:
        out: list[str] = []
        for t in doc.tables:
            out += [f"### {t.title}\n", github_grid(cells(t), t.headers), ""]
        out += [f"> note: {note}" for note in doc.notes]
        return "\n".join(out).rstrip() + "\n"


def github_grid(rows: list[list[str]], headers: list[str]) -> str:
    """A GitHub-flavoured Markdown table.

    >>> print(github_grid([["A", "3"]], ["user", "drf"]))
    | user   | drf   |
    |--------|-------|
    | A      | 3     |
    """
    widths = column_widths(rows, headers)
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = ["| " + " | ".join(pad(c, w) for c, w in zip(line, widths, strict=False)) + " |"
            for line in [headers, *rows]]
    return "\n".join([body[0], rule, *body[1:]])
