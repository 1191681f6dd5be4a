"""Field validation of scenarios: numbers, tables and arrays, each error
naming the dotted path of the offending field on one line
(``users.B.demand.mem: must be >= 0, got -1``).

Used by the scenario parser (:mod:`models.scenario`), the variants' fields
(:mod:`models.extensions`) and :meth:`models.instance.Instance.from_arrays`.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

from .errors import InstanceError
from .numbers import NotANumber, fraction_to_plain, parse_number

B = TypeVar("B")


def frozen(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only."""
    a.setflags(write=False)
    return a


def number_at(path: str, value: Any, *, positive: bool = False, allow_inf: bool = False) -> Fraction | float:
    """Parse and range-check one number; errors name ``path``."""
    try:
        v = parse_number(value)
    except NotANumber as exc:
        raise InstanceError(f"{path}: {exc}") from None
    if isinstance(v, float):
        if math.isnan(v):
            raise InstanceError(f"{path}: must be a number, got NaN")
        if math.isinf(v) and not (allow_inf and v > 0):
            raise InstanceError(f"{path}: must be finite, got {v}")
    if positive and not v > 0:
        raise InstanceError(f"{path}: must be > 0, got {shown(v)}")
    if not positive and v < 0:
        raise InstanceError(f"{path}: must be >= 0, got {shown(v)}")
    if isinstance(v, Fraction):
        try:
            as_float = float(v)
        except OverflowError:
            as_float = math.inf
        if math.isinf(as_float):
            raise InstanceError(f"{path}: too large to compute with (above {sys.float_info.max:.3g})")
        if v != 0 and as_float == 0:
            raise InstanceError(f"{path}: too small to compute with (a nonzero value below {_TINY:.3g})")
    return v


#: Smallest positive float (subnormal); nonzero exact values below it would become 0.
_TINY: float = math.ulp(0.0)


def printable(text: str) -> str:
    """``text`` with control characters (newlines in a key, say) escaped, so
    that an error message is always one line.

    >>> printable("users.a\\nb: unknown key")
    'users.a\\\\nb: unknown key'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def one_line_errors(build: Callable[..., B]) -> Callable[..., B]:
    """Builders raise :class:`InstanceError` messages on one line, whatever
    the names in the scenario contain."""

    @functools.wraps(build)
    def wrapper(*args: Any, **kwargs: Any) -> B:
        try:
            return build(*args, **kwargs)
        except InstanceError as exc:
            msg = str(exc)
            if msg.isprintable():
                raise
            raise InstanceError(printable(msg)) from None

    return wrapper


def shown(v: Fraction | float) -> str:
    """A parsed number as written in an error message."""
    if isinstance(v, Fraction):
        return str(fraction_to_plain(v))
    return repr(v)


def as_exact(v: Fraction | float) -> Fraction:
    """A parsed number as a Fraction (floats read as the decimal written)."""
    return v if isinstance(v, Fraction) else Fraction(repr(v))


def table_at(path: str, value: Any) -> Mapping[str, Any]:
    """``value`` as a table with string keys (a dict built in Python may use
    other keys; two keys that print the same are an error)."""
    if not isinstance(value, Mapping):
        raise InstanceError(f"{path}: must be a table, got {type(value).__name__}")
    if all(isinstance(k, str) for k in value):
        return value
    out: dict[str, Any] = {}
    for k, v in value.items():
        if not isinstance(k, str | int) or isinstance(k, bool):
            raise InstanceError(f"{path}: keys must be names, got {type(k).__name__} {k!r}")
        key = str(k)
        if key in out:
            raise InstanceError(f"{path}.{key}: given twice")
        out[key] = v
    return out


def float_array_at(path: str, value: Any, ndim: int) -> np.ndarray:
    """``value`` as a float array of ``ndim`` dimensions."""
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise InstanceError(f"{path}: must be an array of numbers") from None
    if arr.ndim != ndim:
        raise InstanceError(f"{path}: must be {ndim}-dimensional, got shape {arr.shape}")
    return arr


def check_array_at(path: str, arr: np.ndarray, names: Sequence[str] | None, positive: bool) -> None:
    """Every entry finite and ``> 0`` (``positive``) or ``>= 0``; the
    first bad one is named (``path.name`` or ``path[j]``)."""
    bad = ~np.isfinite(arr) | ((arr <= 0) if positive else (arr < 0))
    if bad.any():
        j = int(np.argmax(bad))
        label = f"{path}.{names[j]}" if names is not None else f"{path}[{j}]"
        v = arr[j]
        if np.isnan(v):
            raise InstanceError(f"{label}: must be a number, got NaN")
        if np.isinf(v):
            raise InstanceError(f"{label}: must be finite, got {v!r}")
        raise InstanceError(f"{label}: must be {'> 0' if positive else '>= 0'}, got {v!r}")


__all__ = ["as_exact", "check_array_at", "float_array_at", "frozen", "number_at", "one_line_errors", "printable",
           "shown", "table_at"]
