"""Symbolic arrays for tracing a user's share function into z3 terms.

A :class:`~models.filling.FillingPolicy` defines ``share_per_task(demands,
capacity)`` with numpy operations (its contract: the same code runs on
object arrays of Fractions). :class:`SymArray` offers the subset of numpy
such code uses -- elementwise ``+ - * /``, integer powers, negation,
indexing and slicing, ``shape``/``ndim``, ``.max/.min/.sum/.mean`` with or
without ``axis``, ``np.maximum/np.minimum/np.max/np.min/np.sum/np.mean``
-- on arrays of z3 real terms, so that calling the share function on
symbolic demands gives the share of one task as an exact term (``max`` and
``min`` become ``If``). Anything else (comparisons, ``np.where``, Python
``if`` on a value, other numpy functions) raises :class:`Untraceable` (or
the error numpy raises), which the prover reports as the reason the policy
cannot be encoded.
"""

from __future__ import annotations

import functools
import numbers
import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import z3


class Untraceable(TypeError):
    """The share function did something symbolic arrays cannot follow."""


def constant(value: Any) -> Any:
    """A number as an exact z3 real (floats by their exact binary value)."""
    if isinstance(value, z3.ArithRef):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real | np.number):
        raise Untraceable(f"cannot use {type(value).__name__} value {value!r} in a share")
    if not np.isfinite(float(value)):
        raise Untraceable(f"non-finite constant {value!r}")
    f = Fraction(int(value.numerator), int(value.denominator)) if isinstance(value, numbers.Rational) \
        else Fraction(float(value))
    return z3.RealVal(f"{f.numerator}/{f.denominator}")


def smax(a: Any, b: Any) -> Any:
    return z3.If(a >= b, a, b)


def smin(a: Any, b: Any) -> Any:
    return z3.If(a <= b, a, b)


def _terms(value: Any) -> np.ndarray:
    """``value`` as an object array of z3 terms."""
    if isinstance(value, SymArray):
        return value.data
    arr = np.asarray(value, dtype=object)
    return np.vectorize(constant, otypes=[object])(arr) if arr.size else arr


def _elementwise(op: Callable[[Any, Any], Any], a: Any, b: Any) -> SymArray:
    return SymArray(np.frompyfunc(op, 2, 1)(_terms(a), _terms(b)))


def _reduce(op: Callable[[Any, Any], Any], a: Any, axis: Any) -> SymArray:
    data = _terms(a)
    if axis is None:
        flat = list(data.reshape(-1))
        if not flat:
            raise Untraceable("reduction of an empty array")
        return SymArray(np.array(functools.reduce(op, flat), dtype=object))
    if not isinstance(axis, int | np.integer):
        raise Untraceable(f"axis must be one integer, got {axis!r}")
    moved = np.moveaxis(data, int(axis), -1)
    out = np.empty(moved.shape[:-1], dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = functools.reduce(op, list(moved[idx]))
    return SymArray(out)


def _binary(op: Callable[[Any, Any], Any]) -> tuple[Callable[[SymArray, Any], SymArray],
                                                     Callable[[SymArray, Any], SymArray]]:
    """The forward and reflected methods of ``op`` (``__add__``, ``__radd__``)."""

    def forward(self: SymArray, o: Any) -> SymArray:
        return _elementwise(op, self, o)

    def reflected(self: SymArray, o: Any) -> SymArray:
        return _elementwise(op, o, self)

    return forward, reflected


def _mean(a: Any, axis: Any = None) -> SymArray:
    data = _terms(a)
    count = data.size if axis is None else data.shape[int(axis)]
    return _reduce(operator.add, data, axis) / count


#: numpy ufuncs a share function may call: elementwise op, and the
#: reduction when ``ufunc.reduce`` is meaningful.
_UFUNCS: dict[Any, Callable[[Any, Any], Any]] = {
    np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul, np.true_divide: operator.truediv,
    np.maximum: smax, np.minimum: smin,
}
#: numpy functions a share function may call.
_FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.max: lambda a, axis=None: _reduce(smax, a, axis), np.min: lambda a, axis=None: _reduce(smin, a, axis),
    np.sum: lambda a, axis=None: _reduce(operator.add, a, axis), np.mean: _mean,
    np.shape: lambda a: _terms(a).shape, np.ndim: lambda a: _terms(a).ndim,
}
for _alias in ("amax", "amin"):
    if hasattr(np, _alias):
        _FUNCTIONS[getattr(np, _alias)] = _FUNCTIONS[np.max if _alias == "amax" else np.min]


class SymArray:
    """An n-dimensional array of z3 real terms with numpy's arithmetic.

    Examples
    --------
    >>> d = SymArray([[z3.Real("a"), z3.Real("b")]])
    >>> (d / 2).max(axis=1).data[0]
    If(a/2 >= b/2, a/2, b/2)
    """

    __array_priority__ = 1000

    def __init__(self, data: Any) -> None:
        self.data = np.array(data, dtype=object)

    # ------------------------------------------------------------ shape
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        return int(self.data.ndim)

    @property
    def size(self) -> int:
        return int(self.data.size)

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, key: Any) -> SymArray:
        if isinstance(key, SymArray):
            raise Untraceable("indexing by a symbolic array")
        return SymArray(self.data[key])

    def reshape(self, *shape: Any) -> SymArray:
        return SymArray(self.data.reshape(*shape))

    @property
    def T(self) -> SymArray:  # noqa: N802 (numpy's name)
        return SymArray(self.data.T)

    # ------------------------------------------------------- arithmetic
    __add__, __radd__ = _binary(operator.add)
    __sub__, __rsub__ = _binary(operator.sub)
    __mul__, __rmul__ = _binary(operator.mul)
    __truediv__, __rtruediv__ = _binary(operator.truediv)

    def __neg__(self) -> SymArray:
        return SymArray(np.frompyfunc(operator.neg, 1, 1)(self.data))

    def __pos__(self) -> SymArray:
        return self

    def __pow__(self, k: Any) -> SymArray:
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 0:
            raise Untraceable(f"only whole non-negative powers are traced, got {k!r}")
        power = np.frompyfunc(lambda a: functools.reduce(operator.mul, [a] * int(k), z3.RealVal(1)), 1, 1)
        return SymArray(power(self.data))

    # ------------------------------------------------------- reductions
    def max(self, axis: Any = None) -> SymArray:
        return _reduce(smax, self, axis)

    def min(self, axis: Any = None) -> SymArray:
        return _reduce(smin, self, axis)

    def sum(self, axis: Any = None) -> SymArray:
        return _reduce(operator.add, self, axis)

    def mean(self, axis: Any = None) -> SymArray:
        return _mean(self, axis)

    # ---------------------------------------------------- what we refuse
    def _refuse(self, *_: Any, **__: Any) -> Any:
        raise Untraceable("comparisons and truth values of symbolic shares cannot be traced")

    __lt__ = __le__ = __gt__ = __ge__ = __bool__ = _refuse

    def __eq__(self, o: object) -> bool:
        return self._refuse()

    __ne__ = __eq__
    __hash__ = None  # type: ignore[assignment]

    def __float__(self) -> float:
        raise Untraceable("a symbolic share has no float value")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise Untraceable("the share function converts a symbolic array to a numpy array")

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        op = _UFUNCS.get(ufunc)
        if op is None or kwargs.get("out") is not None or method not in ("__call__", "reduce"):
            raise Untraceable(f"numpy {ufunc.__name__}.{method} is not traced")
        if method == "reduce":
            return _reduce(op, inputs[0], kwargs.get("axis", 0))
        return _elementwise(op, *inputs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        impl = _FUNCTIONS.get(func)
        if impl is None:
            raise Untraceable(f"numpy.{func.__name__} is not traced")
        return impl(*args, **kwargs)

    def __repr__(self) -> str:
        return f"SymArray({self.data!r})"


def trace(share: Callable[[Any, Any], Any], d: list[list[Any]], R: list[Any]) -> list[Any]:
    """``share(demands, capacity)`` on symbolic arrays: one z3 term per
    user (the share of one task).

    Raises
    ------
    Untraceable
        When the function leaves the traced subset of numpy, or returns
        something other than ``n`` terms.
    """
    n = len(d)
    try:
        out = share(SymArray(d), SymArray(R))
    except Untraceable:
        raise
    except (TypeError, AttributeError, ValueError, IndexError, NotImplementedError, z3.Z3Exception) as e:
        raise Untraceable(f"{type(e).__name__}: {e}") from None
    terms = list(_terms(out).reshape(-1))
    if len(terms) != n or not all(isinstance(t, z3.ArithRef) for t in terms):
        raise Untraceable(f"share_per_task must return {n} shares, got {out!r}")
    return [z3.simplify(t) for t in terms]
