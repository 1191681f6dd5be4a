"""Column layout shared by the ``text`` and ``md`` formats: widths in
terminal columns (wide East Asian characters count 2, combining marks 0).
Our own grids, not tabulate's: importing tabulate cost a third of the
command line's start-up."""

from __future__ import annotations

import unicodedata

from ..render import Table, fmt_number


def width(text: str) -> int:
    """Terminal columns of ``text``.

    >>> width("ab"), width("日本"), width("e\\u0301")
    (2, 4, 1)
    """
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def column_widths(rows: list[list[str]], headers: list[str]) -> list[int]:
    """A column is as wide as its widest cell, and its header plus 2."""
    return [max([width(h) + 2] + [width(r[j]) for r in rows if j < len(r)]) for j, h in enumerate(headers)]


def pad(text: str, columns: int) -> str:
    """``text`` padded with spaces to ``columns`` terminal columns."""
    return text + " " * (columns - width(text))


def cells(table: Table) -> list[list[str]]:
    """The table's cells as stripped strings (numbers by :func:`fmt_number`)."""
    return [[fmt_number(c).strip() for c in row] for row in table.rows]
