"""Rendering of tables in the output formats every command shares:
``text`` (terminal), ``md`` (Markdown), ``latex``, ``csv`` and ``json``.

A :class:`Table` is a title, headers and rows of cells; a cell is a string or
a number. Exact numbers (Fractions, sympy) are shown exactly with their float
beside them.
"""

from __future__ import annotations

import csv
import io
import json
import math
import unicodedata
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

FORMATS: tuple[str, ...] = ("text", "md", "latex", "csv", "json")

#: An exact number longer than this many characters is shown abbreviated in
#: text, Markdown and LaTeX (its float and the length of the exact form);
#: CSV and JSON keep the full value.
MAX_EXACT_CHARS: int = 40


@dataclass
class Table:
    """A titled table of cells."""

    title: str
    headers: list[str]
    rows: list[list[Any]] = field(default_factory=list)


def fmt_number(value: Any, exact: bool = False) -> str:
    """A number for people: exact values as ``45/11 (4.09091)``, floats with
    six significant digits, ints plainly."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Fraction):
        if value.denominator == 1 and len(str(value.numerator)) <= MAX_EXACT_CHARS:
            return str(value.numerator)
        text = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
        return _long_exact(text, value) if len(text) > MAX_EXACT_CHARS else f"{text} ({float(value):.6g})"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    # sympy numbers
    try:
        is_rational = bool(getattr(value, "is_Rational", False))
        text = str(value)
        if len(text) > MAX_EXACT_CHARS:
            return _long_exact(text, value)
        return text if is_rational and "/" not in text else f"{text} ({float(value):.6g})"
    except (TypeError, ValueError):
        return str(value)


def _long_exact(text: str, value: Any) -> str:
    """An exact number too long to read: its float and how long it is.

    >>> from fractions import Fraction
    >>> _long_exact("1" * 50 + "/3", Fraction(int("1" * 50), 3))
    '3.7037e+48 (exact: 52 characters; full value in --format json)'
    """
    try:
        approx = f"{float(value):.6g}"
    except OverflowError:
        approx = "too large for a float"
    return f"{approx} (exact: {len(text)} characters; full value in --format json)"


#: Characters LaTeX treats specially, and how to write them in text.
_LATEX_SPECIAL: dict[int, str] = str.maketrans({
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}"})


def _latex_escape(text: str) -> str:
    r"""``text`` safe in LaTeX text mode (one pass, so an inserted
    ``\textbackslash{}`` is not escaped again; ``<``/``>`` would print as
    ``¡``/``¿`` in the default font encoding).

    >>> print(_latex_escape("R=<1, 1> & 50% a_b \\x{}"))
    R=\textless{}1, 1\textgreater{} \& 50\% a\_b \textbackslash{}x\{\}
    """
    return text.translate(_LATEX_SPECIAL)


def latex_table(title: str, headers: list[str], rows: list[list[str]], notes: list[str] | None = None,
                raw: bool = False) -> str:
    r"""A LaTeX ``table`` with booktabs rules (``\usepackage{booktabs}``)
    and the notes set in small type under the tabular, where a reader of
    the paper sees them (not as ``%`` comments). ``raw`` cells are LaTeX
    already (not escaped).

    Examples
    --------
    >>> print(latex_table("T", ["a", "b_c"], [["1", "50%"]], ["a note"]))
    % needs \usepackage{booktabs}
    \begin{table}[ht]
    \centering
    \caption{T}
    \begin{tabular}{ll}
    \toprule
    a & b\_c \\
    \midrule
    1 & 50\% \\
    \bottomrule
    \end{tabular}
    \par\smallskip{\footnotesize a note\par}
    \end{table}
    """
    cell = (lambda c: c) if raw else _latex_escape
    body = [
        r"% needs \usepackage{booktabs}",
        r"\begin{table}[ht]",
        r"\centering",
        f"\\caption{{{_latex_escape(title)}}}",
        f"\\begin{{tabular}}{{{'l' * len(headers)}}}",
        r"\toprule",
        " & ".join(_latex_escape(h) for h in headers) + r" \\",
        r"\midrule",
    ]
    body += [" & ".join(cell(c) for c in row) + r" \\" for row in rows]
    body += [r"\bottomrule", r"\end{tabular}"]
    if notes:
        body.append(r"\par\smallskip{\footnotesize " + r"\par ".join(cell(n) for n in notes) + r"\par}")
    body.append(r"\end{table}")
    return "\n".join(body)


def render_tables(tables: list[Table], fmt: str, notes: list[str] | None = None) -> str:
    """Render tables (and trailing notes) as text, md, latex or csv."""
    notes = notes or []
    out: list[str] = []
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        for k, t in enumerate(tables):
            if k:
                buf.write("\n")
            writer.writerow(["table", *t.headers])
            for row in t.rows:
                writer.writerow([t.title, *[_csv_cell(c) for c in row]])
        return buf.getvalue()
    for t in tables:
        rows = [[fmt_number(c) for c in row] for row in t.rows]
        if fmt == "text":
            out.append(t.title)
            out.append(_plain_grid(rows, t.headers))
        elif fmt == "md":
            out.append(f"### {t.title}\n")
            out.append(_github_grid(rows, t.headers))
        elif fmt == "latex":
            out.append(latex_table(t.title, t.headers, rows, notes if t is tables[-1] else []))
        else:
            raise ValueError(f"unknown format {fmt!r}")
        out.append("")
    for note in notes if fmt != "latex" else []:  # LaTeX: notes under the last table
        if fmt == "md":
            out.append(f"> note: {note}")
        else:
            out.append(f"note: {note}")
    return "\n".join(out).rstrip() + "\n"


def _width(text: str) -> int:
    """Terminal columns of ``text``: wide East Asian characters count 2,
    combining marks 0."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _column_widths(rows: list[list[str]], headers: list[str]) -> list[int]:
    # a column is as wide as its widest cell, and its header plus 2
    return [max([_width(h) + 2] + [_width(r[j]) for r in rows if j < len(r)]) for j, h in enumerate(headers)]


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _plain_grid(rows: list[list[str]], headers: list[str]) -> str:
    """Left-aligned columns two spaces apart under a dashed rule (the layout
    of tabulate's "simple" format, without importing tabulate: it costs a
    third of the command line's start-up)."""
    rows = [[c.strip() for c in r] for r in rows]
    widths = _column_widths(rows, headers)
    lines = [headers, ["-" * w for w in widths], *rows]
    return "\n".join("  ".join(_pad(c, w) for c, w in zip(line, widths, strict=False)).rstrip() for line in lines)


def _github_grid(rows: list[list[str]], headers: list[str]) -> str:
    """A GitHub-flavoured Markdown table (tabulate's "github" layout)."""
    rows = [[c.strip() for c in r] for r in rows]
    widths = _column_widths(rows, headers)
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = [
        "| " + " | ".join(_pad(c, w) for c, w in zip(line, widths, strict=False)) + " |" for line in [headers, *rows]
    ]
    return "\n".join([body[0], rule, *body[1:]])


def csv_table(columns: list[str], rows: list[list[Any]]) -> str:
    """One CSV table with a header row (``pandas.read_csv`` reads it);
    floats in full precision, ``None`` as an empty field."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([[_csv_cell(c) for c in row] for row in rows])
    return buf.getvalue()


def _csv_cell(c: Any) -> Any:
    if isinstance(c, Fraction):
        return str(c) if c.denominator != 1 else c.numerator
    if isinstance(c, float):
        return repr(c)
    return c if isinstance(c, int | str) or c is None else str(c)


def to_json(data: Any) -> str:
    """JSON text with a stable key order for the structures commands emit.

    The output is strict JSON: a non-finite float (an unbounded cap, an
    infinite ratio) is written as the string ``"inf"``, ``"-inf"`` or
    ``"nan"``, never as the bare ``Infinity``/``NaN`` that JSON parsers
    reject.

    Examples
    --------
    >>> print(to_json({"cap": float("inf"), "x": [1.5, float("nan")]}), end="")
    {
      "cap": "inf",
      "x": [
        1.5,
        "nan"
      ]
    }
    """
    return json.dumps(_strict(data), indent=2, default=_json_default, allow_nan=False) + "\n"


def _strict(o: Any) -> Any:
    """``o`` with non-finite floats (also inside dicts, lists, tuples and
    numpy arrays) replaced by their names."""
    if isinstance(o, float):
        return o if math.isfinite(o) else repr(float(o))
    if isinstance(o, dict):
        return {k: _strict(v) for k, v in o.items()}
    if isinstance(o, list | tuple):
        return [_strict(v) for v in o]
    if type(o).__module__ == "numpy":
        item = _json_default(o)
        return _strict(item) if isinstance(item, float | list) else item
    return o


def _json_default(o: Any) -> Any:
    if isinstance(o, Fraction):
        return str(o)
    try:
        import numpy as np

        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
    except ImportError:  # pragma: no cover
        pass
    return str(o)
