"""Array checks of :meth:`models.instance.Instance.from_arrays`: the path
for very large instances (10^6 users), validated with vectorised checks and
no per-user dict or name. Errors name the array and the entry
(``demands[3].mem: must be >= 0, got -1.0``).

The model is Ghodsi et al., NSDI 2011, Section 4: capacities ``R_j > 0``,
demands ``d_i >= 0`` (not all zero), weights ``w_i > 0`` (Section 4.3),
task caps ``k_i`` (``inf`` when unbounded).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import InstanceError
from .validation import check_array_at, float_array_at


def array_demands(demands: Any, m: int) -> np.ndarray:
    """``demands`` as a float array of shape (n, m), ``n >= 1`` (values are
    checked by :func:`check_demands`)."""
    dem = float_array_at("demands", demands, ndim=2)
    if dem.shape[0] == 0:
        raise InstanceError("demands: no users given")
    if dem.shape[1] != m:
        raise InstanceError(f"demands: has {dem.shape[1]} columns for {m} resources")
    return dem


def array_resources(resources: Sequence[str] | None, m: int) -> tuple[str, ...]:
    """Resource names: ``r0, r1, ...`` when not given, else ``m`` unique names."""
    if resources is None:
        return tuple(f"r{j}" for j in range(m))
    return _unique_names("resources", resources, m, "capacities")


def _unique_names(path: str, given: Sequence[str], count: int, of: str) -> tuple[str, ...]:
    """``count`` unique names (as strings), one per entry ``of``."""
    names = tuple(str(v) for v in given)
    if len(names) != count:
        raise InstanceError(f"{path}: {len(names)} names for {count} {of}")
    if len(set(names)) != count:
        raise InstanceError(f"{path}: names are not unique")
    return names


def check_demands(dem: np.ndarray, res: tuple[str, ...]) -> None:
    """Every demand finite and ``>= 0``, and every row with a positive entry."""
    bad = ~np.isfinite(dem) | (dem < 0)
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        v = dem[i, j]
        rule = "must be a number, got NaN" if np.isnan(v) else (f"must be finite, got {v!r}" if np.isinf(v)
                                                               else f"must be >= 0, got {v!r}")
        raise InstanceError(f"demands[{i}].{res[j]}: {rule}")
    zero = ~np.any(dem > 0, axis=1)
    if zero.any():
        raise InstanceError(f"demands[{int(np.argmax(zero))}]: all entries are zero (a task must need something)")


def array_weights(weights: Sequence[float] | np.ndarray | None, n: int) -> np.ndarray:
    """Weights (1 when not given), each finite and ``> 0``."""
    if weights is None:
        return np.ones(n)
    w = float_array_at("weights", weights, ndim=1)
    if w.shape[0] != n:
        raise InstanceError(f"weights: {w.shape[0]} weights for {n} users")
    check_array_at("weights", w, None, positive=True)
    return w


def array_caps(max_tasks: Sequence[Any] | np.ndarray | None, n: int) -> np.ndarray:
    """Task caps, ``inf`` for unbounded users (``None`` or ``inf`` given)."""
    if max_tasks is None:
        return np.full(n, math.inf)
    try:
        k = np.array([math.inf if v is None else v for v in np.asarray(max_tasks, dtype=object).reshape(-1)],
                     dtype=float).reshape(np.shape(max_tasks))
    except (TypeError, ValueError):
        raise InstanceError("max_tasks: must be an array of numbers (None or inf for unbounded)") from None
    if k.shape != (n,):
        raise InstanceError(f"max_tasks: {len(k) if k.ndim else 0} caps for {n} users")
    badk = np.isnan(k) | (k < 0)
    if badk.any():
        i = int(np.argmax(badk))
        rule = "must be a number, got NaN" if np.isnan(k[i]) else f"must be >= 0, got {k[i]!r}"
        raise InstanceError(f"max_tasks[{i}]: {rule}")
    return k


def array_users(users: Sequence[str] | None, n: int) -> tuple[str, ...] | None:
    """User names (``None``: generated on demand), ``n`` unique ones."""
    return None if users is None else _unique_names("users", users, n, "users")


__all__ = ["array_caps", "array_demands", "array_resources", "array_users", "array_weights", "check_demands"]
