"""Conversions between the numbers a scenario is written in and the exact
rationals fairalloc computes with.

A scenario number may be an ``int``, a ``float``, a :class:`fractions.Fraction`
or a string such as ``"45/11"`` or ``"0.25"``. Exact arithmetic takes a float
as the shortest decimal that round-trips it (``0.1`` is ``1/10``): that is the
number the user wrote.
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Rational
from typing import Any

import numpy as np

Number = int | float | Fraction


class NotANumber(ValueError):
    """Raised by :func:`parse_number` with a message meant to follow a field
    path (``"must be a number, got 'abc'"``)."""


def parse_number(value: Any) -> Fraction | float:
    """Read one scenario number.

    Parameters
    ----------
    value : int, float, Fraction, numpy scalar or str
        The value as found in a TOML/JSON file, a dict or an array.

    Returns
    -------
    Fraction or float
        A Fraction when the value is exact (ints, Fractions, rational
        strings), otherwise the float itself. NaN and infinities are returned
        as floats so that the caller can say which rule they break.

    Raises
    ------
    NotANumber
        For booleans, None, containers and strings that are not numbers.
    """
    if isinstance(value, bool) or value is None:
        raise NotANumber(f"must be a number, got {value!r}")
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Rational):  # e.g. sympy.Rational
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, float):
        return value
    if isinstance(value, str):
        text = value.strip()
        low = text.lower()
        if low in {"nan", "+nan", "-nan"}:
            return math.nan
        if low in {"inf", "+inf", "infinity", "+infinity"}:
            return math.inf
        if low in {"-inf", "-infinity"}:
            return -math.inf
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise NotANumber(f"must be a number, got {value!r}") from None
    # sympy Float and friends
    try:
        return float(value)
    except (TypeError, ValueError):
        raise NotANumber(f"must be a number, got {value!r}") from None


def to_fraction(value: Any) -> Fraction:
    """Exact rational value of a finite scenario number (floats as written)."""
    parsed = parse_number(value)
    if isinstance(parsed, Fraction):
        return parsed
    if not math.isfinite(parsed):
        raise NotANumber(f"must be finite, got {parsed!r}")
    return Fraction(repr(parsed))


def fraction_to_plain(value: Fraction) -> int | float | str:
    """Write an exact value the simplest way that reads back to the same
    Fraction: an int, a float whose shortest repr is the value, or ``"p/q"``."""
    if value.denominator == 1:
        return int(value.numerator)
    as_float = float(value)
    if Fraction(repr(as_float)) == value:
        return as_float
    return f"{value.numerator}/{value.denominator}"
