"""The ``csv`` output format: every table's rows under one header row, the
first column naming the table (``pandas.read_csv`` reads it); numbers in
full precision, notes left out.

(The module is not called ``csv``: it imports the standard library's.)
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from typing import Any

from . import OUTPUT_FORMATS, Document, OutputFormat


@OUTPUT_FORMATS.register("csv")
class Csv(OutputFormat):
    """One block per table (a blank line between blocks), each with a
    ``table`` column first."""

    description = "comma-separated values, full precision"

    def render(self, doc: Document) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        for k, t in enumerate(doc.tables):
            if k:
                buf.write("\n")
            writer.writerow(["table", *t.headers])
            for row in t.rows:
                writer.writerow([t.title, *[csv_cell(c) for c in row]])
        return buf.getvalue()


def csv_table(columns: list[str], rows: list[list[Any]]) -> str:
    """One CSV table with a header row; floats in full precision, ``None``
    as an empty field.

    >>> print(csv_table(["user", "x"], [["A", Fraction(45, 11)], ["B", None]]), end="")
    user,x
    A,45/11
    B,
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([[csv_cell(c) for c in row] for row in rows])
    return buf.getvalue()


def csv_cell(c: Any) -> Any:
    """A cell for :mod:`csv`: exact fractions as ``p/q``, floats by ``repr``."""
    if isinstance(c, Fraction):
        return str(c) if c.denominator != 1 else c.numerator
    if isinstance(c, float):
        return repr(c)
    return c if isinstance(c, int | str) or c is None else str(c)
