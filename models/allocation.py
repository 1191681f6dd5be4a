"""The result of a policy: tasks per user and the views derived from them.

Shares and dominant shares follow Ghodsi et al., NSDI 2011, Section 4: user
``i``'s share of resource ``j`` is ``x_i d_ij / R_j``; its dominant share is
the largest of these.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from .display import HTML_MAX_ROWS, LabelledArray, html_table, short_repr, to_frame
from .errors import SolverError
from .instance import Instance
from .numbers import fraction_to_plain
from .tolerances import FEASIBILITY_RTOL

#: Columns of :meth:`Allocation.tidy` (and of ``to_pandas()``).
TIDY_COLUMNS: tuple[str, ...] = ("policy", "user", "resource", "tasks", "tasks_exact", "dominant_share",
                                 "dominant_share_exact", "bundle", "share", "demand", "capacity")

#: Status of an allocation whose solver reached a proven optimum.
OPTIMAL = "optimal"
#: Status of an allocation within the named tolerances but not proven.
OPTIMAL_INACCURATE = "optimal_inaccurate"


class UserMap(Mapping[str, Any]):
    """Read-only ``name -> value`` view over a per-user array (no per-user
    dict is built until a name is looked up)."""

    def __init__(self, instance: Instance, values: Any) -> None:
        self._inst = instance
        self._values = values

    def __getitem__(self, name: str) -> Any:
        try:
            i = self._inst.user_index[name]
        except KeyError:
            raise KeyError(f"no user named {name!r}") from None
        v = self._values[i]
        return v.item() if isinstance(v, np.generic) else v

    def __iter__(self) -> Iterator[str]:
        return iter(self._inst.users)

    def __len__(self) -> int:
        return self._inst.n

    def __repr__(self) -> str:
        if self._inst.n > 20:
            return f"UserMap({self._inst.n} users)"
        return repr(dict(self.items()))


@dataclass(frozen=True, eq=False)
class Allocation:
    """Tasks per user chosen by a policy on an instance.

    Attributes
    ----------
    instance : Instance
        The problem solved.
    x : ndarray, shape (n,)
        Tasks per user as floats (always present).
    policy : str
        Name of the policy that produced it.
    exact : bool
        True when :attr:`x_exact` holds exact numbers (Fractions, or sympy
        numbers where the optimum is irrational).
    x_exact : tuple or None
        Exact task counts when ``exact``.
    status : str
        :data:`OPTIMAL` or another solver status.
    message : str
        A human sentence about how it was computed (e.g. "not exact").
    stats : dict
        Solver statistics (solver name, stages, time, iterations...).
    certificate : object or None
        An optimality certificate attached by ``proofs`` (exact mode).
    """

    instance: Instance
    x: np.ndarray
    policy: str
    exact: bool = False
    x_exact: tuple[Any, ...] | None = None
    status: str = OPTIMAL
    message: str = ""
    stats: dict[str, Any] = field(default_factory=dict)
    certificate: Any = None

    @property
    def tasks(self) -> UserMap:
        """``name -> tasks``: exact numbers when :attr:`exact`, else floats."""
        return UserMap(self.instance, self.x_exact if self.exact and self.x_exact is not None else self.x)

    def _labelled(self, values: np.ndarray, *dims: str) -> LabelledArray:
        return LabelledArray.wrap(values, self.instance, dims)

    @cached_property
    def bundles(self) -> LabelledArray:
        """Resources held, shape (n, m) labelled (user, resource): ``x_i * d_i``."""
        return self._labelled(self.x[:, None] * self.instance.demands, "user", "resource")

    @cached_property
    def usage(self) -> LabelledArray:
        """Total use of each resource, shape (m,) labelled by resource."""
        # einsum, not @: see the note in models.filling_numeric
        return self._labelled(np.einsum("i,ij->j", self.x, self.instance.demands), "resource")

    @cached_property
    def shares(self) -> LabelledArray:
        """Share of each resource per user, shape (n, m) labelled (user,
        resource): ``a.shares["A", "cpu"]``, ``a.shares.to_pandas()``."""
        return self._labelled(np.asarray(self.bundles) / self.instance.capacity, "user", "resource")

    @cached_property
    def dominant_shares(self) -> LabelledArray:
        """Largest share per user, shape (n,) labelled by user."""
        return self._labelled(np.asarray(self.shares).max(axis=1), "user")

    @cached_property
    def utilization(self) -> LabelledArray:
        """Fraction of each resource in use, shape (m,) labelled by resource."""
        return self._labelled(np.asarray(self.usage) / self.instance.capacity, "resource")

    @property
    def leftover(self) -> LabelledArray:
        """Unused amount of each resource, shape (m,) labelled by resource."""
        return self._labelled(self.instance.capacity - np.asarray(self.usage), "resource")

    def max_violation(self) -> float:
        """Largest relative capacity or cap excess (0 when feasible)."""
        over = float(np.max(self.utilization - 1.0, initial=0.0))
        k = self.instance.max_tasks
        fin = np.isfinite(k)
        if fin.any():
            over = max(over, float(np.max((self.x[fin] - k[fin]) / np.maximum(k[fin], 1.0), initial=0.0)))
        return max(over, float(np.max(-self.x, initial=0.0)))

    def is_feasible(self, rtol: float = FEASIBILITY_RTOL) -> bool:
        """Capacities, caps and non-negativity hold within ``rtol``."""
        return self.max_violation() <= rtol

    def require_feasible(self, what: str = "the LP answer") -> Allocation:
        """Record :meth:`max_violation` in ``stats["max_violation"]`` and
        return ``self`` when it is within
        :data:`~models.tolerances.FEASIBILITY_RTOL`: solver output is
        reported as it is, never clipped, and its excess bounded here.

        Raises
        ------
        SolverError
            When a capacity, cap or ``x >= 0`` is exceeded by more.
        """
        viol = self.max_violation()
        self.stats["max_violation"] = viol
        if not viol <= FEASIBILITY_RTOL:
            raise SolverError(self.policy, f"infeasible by {viol:.2e}",
                              f"{what} exceeds a capacity or cap by more than {FEASIBILITY_RTOL:g}")
        return self

    # -------------------------------------------------------------- exact
    @cached_property
    def usage_exact(self) -> tuple[Any, ...]:
        """Exact use of each resource (needs :attr:`exact`)."""
        self._need_exact()
        inst = self.instance
        assert self.x_exact is not None
        return tuple(
            sum((self.x_exact[i] * inst.demands_exact[i][j] for i in range(inst.n)), Fraction(0))
            for j in range(inst.m)
        )

    @cached_property
    def bundles_exact(self) -> tuple[tuple[Any, ...], ...]:
        """Exact bundle ``x_i d_ij`` of each user (rows) and resource (needs :attr:`exact`)."""
        self._need_exact()
        assert self.x_exact is not None
        return tuple(tuple(self.x_exact[i] * d for d in row) for i, row in enumerate(self.instance.demands_exact))

    @cached_property
    def utilization_exact(self) -> tuple[Any, ...]:
        """Exact fraction of each resource in use (needs :attr:`exact`)."""
        return tuple(u / c for u, c in zip(self.usage_exact, self.instance.capacity_exact, strict=True))

    @cached_property
    def dominant_shares_exact(self) -> tuple[Any, ...]:
        """Exact dominant shares (needs :attr:`exact`)."""
        self._need_exact()
        inst = self.instance
        assert self.x_exact is not None
        out = []
        for i in range(inst.n):
            best = max(Fraction(d) / c for d, c in zip(inst.demands_exact[i], inst.capacity_exact, strict=True))
            out.append(self.x_exact[i] * best)
        return tuple(out)

    def _need_exact(self) -> None:
        if not self.exact or self.x_exact is None:
            raise ValueError(f"allocation of {self.policy!r} is not exact")

    # -------------------------------------------------------------- output
    def __repr__(self) -> str:
        inst = self.instance
        fields: dict[str, Any] = {"policy": self.policy, "users": inst.n, "resources": inst.m, "exact": self.exact}
        if inst.n <= 8:
            fields["tasks"] = {u: _plain(v) for u, v in self.tasks.items()}
        if self.status != OPTIMAL:
            fields["status"] = self.status
        return short_repr("Allocation", **fields)

    def tidy(self) -> tuple[list[str], list[list[Any]]]:
        """Columns and rows of the tidy table (one row per user x resource):
        floats, and beside the task count and the dominant share their exact
        form as ``"p/q"`` text (None when not exact). :meth:`to_pandas` and
        ``fairalloc solve --format csv`` are this table."""
        inst = self.instance
        exact = self.exact and self.x_exact is not None
        tasks = [exact_str(v) for v in self.x_exact] if exact else [None] * inst.n  # type: ignore[union-attr]
        doms = [exact_str(v) for v in self.dominant_shares_exact] if exact else [None] * inst.n
        x, b, sh, dom = self.x, np.asarray(self.bundles), np.asarray(self.shares), np.asarray(self.dominant_shares)
        rows = [[self.policy, u, r, float(x[i]), tasks[i], float(dom[i]), doms[i], float(b[i, j]), float(sh[i, j]),
                 float(inst.demands[i, j]), float(inst.capacity[j])]
                for i, u in enumerate(inst.users) for j, r in enumerate(inst.resources)]
        return list(TIDY_COLUMNS), rows

    def to_pandas(self) -> Any:
        """A tidy ``pandas.DataFrame``: one row per user x resource with the
        policy, tasks (float; ``tasks_exact`` as ``"p/q"`` text when exact),
        the dominant share (and ``dominant_share_exact``), the bundle, the
        share of the resource, the demand and the capacity. pandas is imported here (ImportError with
        the install command when it is missing)."""
        return to_frame(*self.tidy(), owner="Allocation.to_pandas()")

    def _repr_html_(self) -> str:
        inst = self.instance
        head = ["user", "tasks", "dominant share", *[f"share of {r}" for r in inst.resources]]
        n = min(inst.n, HTML_MAX_ROWS)  # never build rows for 10^6 users just to show 40
        rows = [[u, _plain(self.x_exact[i]) if self.exact and self.x_exact is not None else float(self.x[i]),
                 float(self.dominant_shares[i]), *[float(v) for v in np.asarray(self.shares[i])]]
                for i, u in zip(range(n), inst.users, strict=False)]
        caption = f"{self.policy}: {inst.n} users, {inst.m} resources" + (" (exact)" if self.exact else "")
        return html_table(head, rows, caption, total=inst.n)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict. Exact numbers are strings (``"45/11"``) with a
        float beside them under the same key plus ``_float``."""
        inst = self.instance
        out: dict[str, Any] = {
            "policy": self.policy,
            "exact": self.exact,
            "status": self.status,
        }
        if self.message:
            out["message"] = self.message
        users: dict[str, Any] = {}
        for i, u in enumerate(inst.users):
            entry: dict[str, Any] = {}
            if self.exact and self.x_exact is not None:
                put_exact(entry, "tasks", self.x_exact[i])
                put_exact(entry, "dominant_share", self.dominant_shares_exact[i])
            else:
                entry["tasks"] = float(self.x[i])
                entry["dominant_share"] = float(self.dominant_shares[i])
            entry["bundle"] = {r: float(self.bundles[i, j]) for j, r in enumerate(inst.resources)}
            if self.exact and self.x_exact is not None:
                entry["bundle_exact"] = {r: exact_str(v) for r, v in zip(inst.resources, self.bundles_exact[i],
                                                                         strict=True)}
            users[u] = entry
        out["users"] = users
        out["resources"] = {
            r: {
                "capacity": float(inst.capacity[j]),
                "used": float(self.usage[j]),
                "utilization": float(self.utilization[j]),
                **({"used_exact": exact_str(self.usage_exact[j]),
                    "utilization_exact": exact_str(self.utilization_exact[j])}
                   if self.exact and self.x_exact is not None else {}),
            }
            for j, r in enumerate(inst.resources)
        }
        if self.stats:
            out["stats"] = {k: v for k, v in self.stats.items() if isinstance(v, str | int | float | bool)}
        return out


def _plain(value: Any) -> Any:
    """A task count for a repr: ``3`` for ``Fraction(3)``, ``'45/11'`` for
    other exact numbers, a float as is."""
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else exact_str(value)
    if isinstance(value, float | int):
        return value
    return str(value)


def exact_str(value: Any) -> str:
    """Exact number as text: ``"45/11"``, ``"3"``, or sympy's form."""
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    return str(value)


def put_exact(entry: dict[str, Any], key: str, value: Any) -> None:
    """Store an exact number as a string under ``key`` and its float under
    ``key + "_float"``."""
    entry[key] = exact_str(value)
    entry[key + "_float"] = float(value)


__all__ = ["Allocation", "UserMap", "OPTIMAL", "OPTIMAL_INACCURATE", "exact_str", "put_exact", "fraction_to_plain"]
