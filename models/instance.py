"""The allocation problem: resources, users with Leontief demands, machines.

Model of Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of
Multiple Resource Types", NSDI 2011, Section 4: a cluster has ``m`` resources
with capacities ``R_j > 0``; user ``i`` runs tasks with demand vector
``d_i >= 0`` (not all zero), weight ``w_i > 0`` (Section 4.3) and an optional
cap ``k_i`` on its number of tasks. Machines (Section 6.2) matter only in the
discrete setting.

An :class:`Instance` is immutable and validated once, when built: every bad
value raises :class:`~models.errors.InstanceError` whose message starts with
the dotted path of the field (``users.B.demand.mem: must be >= 0, got -1``).
The scenario-file parser is :mod:`models.scenario`, the production variants'
fields :mod:`models.extensions`, the field checks :mod:`models.validation`
and the array checks of :meth:`Instance.from_arrays` :mod:`models.arrays`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from . import instance_view
from .arrays import array_caps, array_demands, array_resources, array_users, array_weights, check_demands
from .errors import InstanceError
from .extensions import Extensions
from .numbers import fraction_to_plain, to_fraction
from .scenario import MachineType, exact_spec, read_file, read_text, scenario_fields, toml_text
from .validation import check_array_at, float_array_at, frozen, one_line_errors


@dataclass(frozen=True, eq=False)
class Instance:
    """A validated multi-resource allocation problem.

    Build one with :meth:`from_dict`, :meth:`load` or :meth:`from_arrays`;
    the constructor itself trusts its arguments.

    Attributes
    ----------
    resources : tuple of str
        Resource names, in column order.
    capacity : ndarray, shape (m,)
        Capacities ``R_j > 0`` (float, read-only).
    demands : ndarray, shape (n, m)
        Per-task demand vectors (float, read-only).
    weights : ndarray, shape (n,)
        Weights ``w_i > 0`` (1 when not given).
    max_tasks : ndarray, shape (n,)
        Task caps ``k_i``; ``inf`` when a user is unbounded.
    machines : tuple of MachineType
        Machine types for the discrete setting (may be empty).

    Examples
    --------
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> inst.n, inst.m, inst.resources
    (2, 2, ('cpu', 'mem'))
    """

    resources: tuple[str, ...]
    capacity: np.ndarray
    demands: np.ndarray
    weights: np.ndarray
    max_tasks: np.ndarray
    machines: tuple[MachineType, ...] = ()
    name: str | None = None
    _user_names: tuple[str, ...] | None = None
    _exact_source: dict[str, Any] = field(default_factory=dict, repr=False)
    #: Fields of the production-allocator variants (see :class:`Extensions`).
    extensions: Extensions = field(default_factory=Extensions)

    # ------------------------------------------------------------------ views
    @property
    def n(self) -> int:
        """Number of users."""
        return int(self.demands.shape[0])

    @property
    def m(self) -> int:
        """Number of resources."""
        return int(self.demands.shape[1])

    @cached_property
    def users(self) -> tuple[str, ...]:
        """User names (generated as ``u0, u1, ...`` when built from arrays)."""
        if self._user_names is not None:
            return self._user_names
        return tuple(f"u{i}" for i in range(self.n))

    @cached_property
    def user_index(self) -> dict[str, int]:
        """Map from user name to row index."""
        return {u: i for i, u in enumerate(self.users)}

    @property
    def weighted(self) -> bool:
        """True when some weight differs from 1."""
        return bool(np.any(self.weights != 1.0))

    @property
    def capped(self) -> bool:
        """True when some user has a finite task cap."""
        return bool(np.any(np.isfinite(self.max_tasks)))

    @property
    def strictly_positive(self) -> bool:
        """True when every demand entry is > 0 (the paper's main class)."""
        return bool(np.all(self.demands > 0))

    # ---------------------------------------------------------- exact values
    @cached_property
    def capacity_exact(self) -> tuple[Fraction, ...]:
        """Capacities as Fractions (floats read as the decimal written)."""
        src = self._exact_source.get("capacity")
        if src is not None:
            return tuple(src)
        return tuple(_exact_array(self.capacity))

    @cached_property
    def demands_exact(self) -> tuple[tuple[Fraction, ...], ...]:
        """Demand vectors as Fractions, one tuple per user."""
        src = self._exact_source.get("demands")
        if src is not None:
            return tuple(tuple(row) for row in src)
        return tuple(tuple(_exact_array(row)) for row in self.demands)

    @cached_property
    def weights_exact(self) -> tuple[Fraction, ...]:
        """Weights as Fractions."""
        src = self._exact_source.get("weights")
        if src is not None:
            return tuple(src)
        return tuple(_exact_array(self.weights))

    @cached_property
    def max_tasks_exact(self) -> tuple[Fraction | None, ...]:
        """Task caps as Fractions, ``None`` for unbounded users."""
        src = self._exact_source.get("max_tasks")
        if src is not None:
            return tuple(src)
        return tuple(None if math.isinf(k) else Fraction(repr(float(k))) for k in self.max_tasks)

    # ------------------------------------------------------------ builders
    @classmethod
    @one_line_errors
    def from_dict(cls, data: Mapping[str, Any]) -> Instance:
        """Build and validate an instance from a scenario dict (the TOML/JSON
        layout of DESIGN.md).

        Raises
        ------
        InstanceError
            Naming the first offending field.
        """
        return cls(**scenario_fields(data))

    @classmethod
    @one_line_errors
    def load(cls, path: str | Path) -> Instance:
        """Read a scenario from a ``.toml`` or ``.json`` file.

        Raises
        ------
        InstanceError
            For a missing, empty, binary or malformed file, or a bad field;
            the message starts with the file name.
        """
        raw, source, fmt = read_file(path)
        return cls.parse(raw, source, fmt=fmt)

    @classmethod
    @one_line_errors
    def parse(cls, raw: bytes | str, source: str = "<scenario>", fmt: str | None = None) -> Instance:
        """Read a scenario from the text of a TOML or JSON file (``fmt``
        ``"toml"`` or ``"json"``; ``None`` guesses JSON when the text starts
        with ``{``). :meth:`load` reads files with it, the command line
        reads standard input (``fairalloc solve -``) with it.

        Raises
        ------
        InstanceError
            For empty, binary or malformed text (a user name given twice in
            JSON, like in TOML, included), or a bad field; the message starts
            with ``source``.
        """
        data = read_text(raw, source, fmt)
        try:
            return cls.from_dict(data)
        except InstanceError as exc:
            raise InstanceError(f"{source}: {exc}") from None

    @classmethod
    @one_line_errors
    def from_arrays(
        cls,
        capacity: Sequence[float] | np.ndarray,
        demands: Sequence[Sequence[float]] | np.ndarray,
        resources: Sequence[str] | None = None,
        weights: Sequence[float] | np.ndarray | None = None,
        max_tasks: Sequence[float] | np.ndarray | None = None,
        users: Sequence[str] | None = None,
    ) -> Instance:
        """Build an instance from arrays, validated with vectorised checks.

        This is the path for very large instances (10^6 users): no per-user
        dict or name is created unless asked for. ``max_tasks`` uses ``inf``
        (or NaN-free ``None``) for unbounded users.

        Examples
        --------
        >>> import numpy as np
        >>> inst = Instance.from_arrays([9, 18], np.array([[1, 4], [3, 1]]),
        ...                             resources=["cpu", "mem"])
        >>> inst.users
        ('u0', 'u1')
        """
        cap = float_array_at("capacity", capacity, ndim=1)
        if cap.shape[0] == 0:
            raise InstanceError("capacity: no resources given")
        dem = array_demands(demands, cap.shape[0])
        res = array_resources(resources, cap.shape[0])
        check_array_at("capacity", cap, res, positive=True)
        check_demands(dem, res)
        n = dem.shape[0]
        return cls(
            resources=res,
            capacity=frozen(cap),
            demands=frozen(dem),
            weights=frozen(array_weights(weights, n)),
            max_tasks=frozen(array_caps(max_tasks, n)),
            _user_names=array_users(users, n),
        )

    # ------------------------------------------------------------- writers
    def to_dict(self) -> dict[str, Any]:
        """Scenario dict that :meth:`from_dict` reads back to an equal instance.

        Exact values that a float cannot hold are written as ``"p/q"``.
        """
        out: dict[str, Any] = {}
        if self.name is not None:
            out["name"] = self.name
        out["resources"] = {r: fraction_to_plain(c) for r, c in zip(self.resources, self.capacity_exact, strict=True)}
        users: dict[str, Any] = {}
        for i, u in enumerate(self.users):
            spec: dict[str, Any] = {
                "demand": {
                    r: fraction_to_plain(d)
                    for r, d in zip(self.resources, self.demands_exact[i], strict=True)
                    if d != 0
                }
            }
            if self.weights_exact[i] != 1:
                spec["weight"] = fraction_to_plain(self.weights_exact[i])
            if (cap := self.max_tasks_exact[i]) is not None:
                spec["max_tasks"] = fraction_to_plain(cap)
            users[u] = spec
        top, per_user = self.extensions.to_dict_parts(self.resources)
        for u, entries in per_user.items():
            users[u].update(entries)
        out["users"] = users
        out.update(top)
        if self.machines:
            ms = []
            for mt in self.machines:
                entry: dict[str, Any] = {"count": mt.count}
                if mt.name is not None:
                    entry["name"] = mt.name
                entry.update({r: fraction_to_plain(c) for r, c in zip(self.resources, mt.capacity_exact, strict=True)})
                ms.append(entry)
            out["machines"] = ms
        return out

    def to_toml(self) -> str:
        """The scenario as TOML text (round-trips through :meth:`load`)."""
        return toml_text(self.to_dict())

    # ---------------------------------------------------------- derivations
    def replace(self, **changes: Any) -> Instance:
        """A new validated instance with some scenario fields changed.

        Keys are array-level: ``capacity``, ``demands``, ``weights``,
        ``max_tasks``, ``users``, ``resources``. Exact values are kept where
        the arrays given are exact (Fraction object arrays or lists).
        """
        machines = changes.pop("machines", self.machines if "capacity" not in changes else ())
        fields: dict[str, Any] = {
            "capacity": list(self.capacity_exact),
            "demands": [list(r) for r in self.demands_exact],
            "weights": list(self.weights_exact),
            "max_tasks": list(self.max_tasks_exact),
            "users": list(self.users),
            "resources": list(self.resources),
        }
        fields.update(changes)
        zero = [r for r, c in zip(fields["resources"], fields["capacity"], strict=True)
                if r in self.extensions.zero_capacity and to_fraction(c) == 0]
        inst = Instance.from_exact(**fields, machines=machines, name=self.name, zero_capacity=zero)
        if self.extensions:
            ext = self.extensions.restrict(inst.users, inst.resources, inst.capacity_exact)
            object.__setattr__(inst, "extensions", ext)
        return inst

    @classmethod
    def from_exact(
        cls,
        capacity: Sequence[Any],
        demands: Sequence[Sequence[Any]],
        weights: Sequence[Any] | None = None,
        max_tasks: Sequence[Any] | None = None,
        users: Sequence[str] | None = None,
        resources: Sequence[str] | None = None,
        machines: tuple[MachineType, ...] = (),
        name: str | None = None,
        zero_capacity: Sequence[str] = (),
    ) -> Instance:
        """Build a small instance from exact numbers (ints, Fractions, "p/q").

        Used by the search and the proofs, which need inputs that are exact
        by construction. Validated like :meth:`from_dict`; resources named
        in ``zero_capacity`` may have capacity 0.
        """
        spec = exact_spec(capacity, demands, weights=weights, max_tasks=max_tasks, users=users, resources=resources,
                          name=name, zero_capacity=zero_capacity)
        inst = cls.from_dict(spec)
        if machines:
            object.__setattr__(inst, "machines", machines)
        return inst

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Instance):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_dict(), sort_keys=True, default=str))

    def __repr__(self) -> str:
        """One line with the first users' demands (:func:`models.instance_view.instance_repr`)."""
        return instance_view.instance_repr(self)

    def _repr_html_(self) -> str:
        """Capacities, demands, weights, caps and machines as HTML tables (notebooks)."""
        return instance_view.instance_html(self)

    def oversized_users(self) -> np.ndarray:
        """Indices of users one of whose tasks fits on no machine (on the
        pooled capacity when there are no ``[[machines]]``).

        Such a user is valid input: the continuous setting gives it a
        fraction of a task, the discrete one none at all (Ghodsi et al.,
        NSDI 2011, Section 6.2: a task must fit on one machine), which is
        why the command line warns about it.

        Examples
        --------
        >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
        ...     "users": {"A": {"demand": [1, 4]}, "B": {"demand": [10, 1]}}})
        >>> inst.oversized_users().tolist()
        [1]
        """
        boxes = [mt.capacity for mt in self.machines] or [self.capacity]
        fits = np.zeros(self.n, dtype=bool)
        for box in boxes:  # few machine types; vectorised over users
            fits |= np.all(self.demands <= box, axis=1)
        return np.flatnonzero(~fits)

    def describe(self) -> str:
        """One line: capacities and demand vectors, like the paper writes them.

        >>> Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
        ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}}}}).describe()
        'R=<9, 18>; A: <1, 4>'
        """
        return instance_view.describe(self)


def _exact_array(a: np.ndarray) -> list[Fraction]:
    return [Fraction(repr(float(v))) if not float(v).is_integer() else Fraction(int(v)) for v in a]


__all__ = ["Instance", "MachineType"]
