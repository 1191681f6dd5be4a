"""What every output format shares: the :class:`Table` commands fill, how a
number is shown to people (:func:`fmt_number`) and strict JSON
(:func:`to_json`, also used by the search's JSON-lines streams).

A :class:`Table` is a title, headers and rows of cells; a cell is a string or
a number. Exact numbers (Fractions, sympy) are shown exactly with their float
beside them. The formats themselves (text, md, latex, csv, json) are one
module each in :mod:`analyzer.formats`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

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
    import numpy as np

    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def value_text(v: float) -> str:
    """A parameter value as typed: ``0.25``, ``1``, ``inf``."""
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def package_version() -> str:
    """fairalloc's version from the installed package's metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fairalloc")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree that was never installed
        return "unknown (not installed)"
