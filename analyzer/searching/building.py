"""Building the search's instances from exact integer data, fast.

A search builds one :class:`~models.instance.Instance` per stream position
(:mod:`~analyzer.searching.instance_stream`), and the constructor's checks
and per-field work cost more than many a check of the instance. Integer data
(every value below 2^53, exact as a float) that passes the checks of
:meth:`~models.instance.Instance.from_arrays` is built here from integer
arrays directly: the same fields, bit for bit, as ``from_arrays`` gives
(``tests/test_search_strategies.py`` compares them); other data goes through
``from_arrays`` or ``from_exact`` and their error messages.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import cast

import numpy as np

from models import Instance


def build(capacity: Sequence[int | Fraction], demands: Sequence[Sequence[int | Fraction]],
          weights: Sequence[int | Fraction] | None = None,
          caps: Sequence[int | Fraction | None] | None = None) -> Instance:
    """An exact instance from integer (or Fraction) data; users ``A, B, ...``
    and resources ``r1, r2, ...`` as the paper names them.

    Integer data (the common case) takes the vectorised
    :meth:`~models.instance.Instance.from_arrays` path (valid data
    without its per-call checks: :func:`int_instance`): integers are
    exact as floats, so the instance's exact values are the integers
    themselves.
    """
    flat = [
        *capacity,
        *(v for row in demands for v in row),
        *(weights or ()),
        *(k for k in (caps or ()) if k is not None),
    ]
    plain = all(type(v) is int and -_EXACT_INT_LIMIT < v < _EXACT_INT_LIMIT for v in flat)  # the common case, fast
    if plain:
        # ``plain``: every value is an int
        inst = _valid_integers(cast(Sequence[int], capacity), cast(Sequence[Sequence[int]], demands),
                               cast("Sequence[int] | None", weights), cast("Sequence[int | None] | None", caps))
        if inst is not None:
            return inst
    users, resources = _names(len(demands), len(capacity))
    if plain or all(_small_int(v) for v in flat):
        return Instance.from_arrays([int(c) for c in capacity], [[int(v) for v in row] for row in demands],
                                    resources=resources, users=users,
                                    weights=None if weights is None else [int(w) for w in weights],
                                    max_tasks=None if caps is None else [None if k is None else int(k) for k in caps])
    return Instance.from_exact(list(capacity), [list(r) for r in demands], weights=weights, max_tasks=caps,
                               users=users, resources=resources)


def _valid_integers(capacity: Sequence[int], demands: Sequence[Sequence[int]], weights: Sequence[int] | None,
                    caps: Sequence[int | None] | None) -> Instance | None:
    """:func:`int_instance` of lists of ints (``None``: no cap)."""
    n, m = len(demands), len(capacity)
    dem = np.array(demands, dtype=np.int64)
    if dem.shape != (n, m):
        return None
    return int_instance(np.array(capacity, dtype=np.int64), dem,
                        None if weights is None else np.array(weights, dtype=np.int64),
                        None if caps is None else np.array([np.inf if v is None else v for v in caps], dtype=float))


@functools.lru_cache(maxsize=64)
def _names(n: int, m: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """User names ``A, B, ...`` and resource names ``r1, r2, ...``."""
    return tuple(_user_name(i) for i in range(n)), tuple(f"r{j + 1}" for j in range(m))


#: Integers below this are exact as floats (2^53).
_EXACT_INT_LIMIT: int = 2**53
_INF = float("inf")


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@functools.lru_cache(maxsize=64)
def _plain(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Read-only weights 1 and caps ``inf`` of ``n`` users (as
    :meth:`~models.instance.Instance.from_arrays` gives them), shared by the
    instances a search draws."""
    return _frozen(np.ones(n)), _frozen(np.full(n, np.inf))


def _frozen_dataclass(t: object) -> bool:
    params = getattr(t, "__dataclass_params__", None)
    return isinstance(t, type) and params is not None and bool(params.frozen)


#: The fields of :class:`~models.instance.Instance` its constructor fills
#: with defaults (:func:`int_instance` sets the others).
_INSTANCE_DEFAULTS: dict[str, object] = {f.name: f.default for f in dataclasses.fields(Instance)
                                         if f.default is not dataclasses.MISSING}
#: Fields filled by a factory: a frozen dataclass's value (the empty
#: :class:`~models.extensions.Extensions`) is shared, others made per instance.
_INSTANCE_FACTORIES: tuple[tuple[str, Callable[[], object]], ...] = tuple(
    (f.name, f.default_factory) for f in dataclasses.fields(Instance)
    if f.default_factory is not dataclasses.MISSING and not _frozen_dataclass(f.default_factory))
_INSTANCE_DEFAULTS.update({f.name: f.default_factory() for f in dataclasses.fields(Instance)
                           if f.default_factory is not dataclasses.MISSING and _frozen_dataclass(f.default_factory)})
#: The fields without a default, which :func:`int_instance` sets itself.
_SET_HERE = frozenset({"resources", "capacity", "demands", "weights", "max_tasks"})
if ({f.name for f in dataclasses.fields(Instance)} - _INSTANCE_DEFAULTS.keys() - {n for n, _ in _INSTANCE_FACTORIES}
        != _SET_HERE or hasattr(Instance, "__post_init__")):  # a constructor step int_instance would skip
    raise ImportError("analyzer.searching.building: models.Instance changed its fields or gained a __post_init__; "
                      "int_instance must build what its constructor builds")


def _small_int(v: object) -> bool:
    if isinstance(v, Fraction):
        return v.denominator == 1 and abs(v.numerator) < _EXACT_INT_LIMIT
    return isinstance(v, int | np.integer) and abs(int(v)) < _EXACT_INT_LIMIT


def _user_name(i: int) -> str:
    letters = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        letters = chr(ord("A") + r) + letters
    return letters


def int_instance(cap: np.ndarray, dem: np.ndarray, weights: np.ndarray | None,
                 caps: np.ndarray | None) -> Instance | None:
    """The instance :meth:`~models.instance.Instance.from_arrays` builds
    of integer arrays (``caps``: floats, ``inf`` for no cap) with users
    ``A, B, ...`` and resources ``r1, r2, ...``, the same fields bit for
    bit, without its per-call validation; ``None`` for data it would refuse
    (a capacity or weight not positive, a demand or cap negative, a user
    demanding nothing, shapes that disagree) or not exact as floats (2^53
    and above)."""
    if dem.ndim != 2:
        return None
    n, m = dem.shape
    if not n or not m or cap.shape != (m,):
        return None
    if (weights is not None and weights.shape != (n,)) or (caps is not None and caps.shape != (n,)):
        return None
    rows, cl = dem.tolist(), cap.tolist()
    row_max = list(map(max, rows))
    wl = [1] if weights is None else weights.tolist()
    kl = [0.0] if caps is None else [v for v in caps.tolist() if v != _INF] or [0.0]
    if not (0 < min(cl) and 0 <= min(map(min, rows)) and 0 < min(row_max) and 0 < min(wl) and 0 <= min(kl)
            and max(max(cl), max(row_max), max(wl), max(kl)) < _EXACT_INT_LIMIT):
        return None
    ones, unbounded = _plain(n)
    fields = _INSTANCE_DEFAULTS.copy()
    fields["_user_names"], fields["resources"] = _names(n, m)
    fields["capacity"], fields["demands"] = _frozen(cap.astype(float)), _frozen(dem.astype(float))
    fields["weights"] = ones if weights is None else _frozen(weights.astype(float))
    fields["max_tasks"] = unbounded if caps is None else _frozen(caps.astype(float))
    for name, make in _INSTANCE_FACTORIES:
        fields[name] = make()
    inst = object.__new__(Instance)
    object.__setattr__(inst, "__dict__", fields)  # the frozen dataclass's fields, as its constructor sets them
    return inst
