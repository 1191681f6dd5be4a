"""The allocation problem: resources, users with Leontief demands, machines.

Model of Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of
Multiple Resource Types", NSDI 2011, Section 4: a cluster has ``m`` resources
with capacities ``R_j > 0``; user ``i`` runs tasks with demand vector
``d_i >= 0`` (not all zero), weight ``w_i > 0`` (Section 4.3) and an optional
cap ``k_i`` on its number of tasks. Machines (Section 6.2) matter only in the
discrete setting.

An :class:`Instance` is immutable and validated once, here: every bad value
raises :class:`~models.errors.InstanceError` whose message starts with the
dotted path of the field (``users.B.demand.mem: must be >= 0, got -1``).
"""

from __future__ import annotations

import functools
import json
import math
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InstanceError
from .numbers import NotANumber, fraction_to_plain, parse_number, to_fraction

#: Per-user keys read by the production-allocator variants (:mod:`models.variants`).
VARIANT_USER_KEYS: frozenset[str] = frozenset({"min_share", "quota", "group"})
#: Top-level keys read by the production-allocator variants.
VARIANT_TOP_KEYS: frozenset[str] = frozenset({"groups", "excluded_resources", "zero_capacity"})
#: Keys a user table may hold. Later features extend this set in one place.
USER_KEYS: frozenset[str] = frozenset({"demand", "weight", "max_tasks"}) | VARIANT_USER_KEYS
#: Top-level keys of a scenario.
TOP_KEYS: frozenset[str] = frozenset({"resources", "users", "machines", "name", "description"}) | VARIANT_TOP_KEYS
#: Keys a ``[groups."a/b"]`` table may hold.
GROUP_KEYS: frozenset[str] = frozenset({"weight"})


@dataclass(frozen=True)
class Extensions:
    """Scenario fields read by production allocators' DRF variants.

    All are optional; the paper's policies ignore them (except
    ``zero_capacity``, which they reject: a share ``d/0`` is undefined).
    Values are keyed by user and resource *names*, so that
    :meth:`Instance.replace` can keep what still applies.

    Attributes
    ----------
    min_share : dict
        ``user -> {resource: amount}``: a guaranteed minimum (Hadoop YARN
        fair scheduler ``minResources``); missing resources are 0.
    quota : dict
        ``user -> {resource: amount}``: nominal quota (Kubernetes Kueue
        ``nominalQuota``); missing resources are 0.
    group : dict
        ``user -> "a/b"``: the user's place in a group tree (Mesos roles,
        Volcano queue hierarchy); users without one hang from the root.
    group_weights : dict
        ``"a/b" -> weight`` of a group (default 1).
    excluded_resources : tuple of str
        Resources left out of every fairness share (Mesos
        ``--fair_sharing_excluded_resource_names``).
    zero_capacity : tuple of str
        Resources allowed to have capacity 0 (no machine offers them).
    """

    min_share: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    quota: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    group: dict[str, str] = field(default_factory=dict)
    group_weights: dict[str, Fraction] = field(default_factory=dict)
    excluded_resources: tuple[str, ...] = ()
    zero_capacity: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.min_share or self.quota or self.group or self.group_weights
                    or self.excluded_resources or self.zero_capacity)

    def restrict(self, users: Sequence[str], resources: Sequence[str], capacity: Sequence[Fraction]) -> Extensions:
        """What still applies to an instance with these users, resources
        and capacities (used by :meth:`Instance.replace`)."""
        us, rs = set(users), set(resources)
        zero = {r for r, c in zip(resources, capacity, strict=True) if c == 0}

        def per_user(d: dict[str, dict[str, Fraction]]) -> dict[str, dict[str, Fraction]]:
            return {u: {r: v for r, v in row.items() if r in rs} for u, row in d.items() if u in us}

        group = {u: g for u, g in self.group.items() if u in us}
        used = {p for g in group.values() for p in _prefixes(g)}
        return Extensions(
            min_share=per_user(self.min_share), quota=per_user(self.quota), group=group,
            group_weights={g: w for g, w in self.group_weights.items() if g in used},
            excluded_resources=tuple(r for r in self.excluded_resources if r in rs),
            zero_capacity=tuple(r for r in self.zero_capacity if r in zero),
        )

    def to_dict_parts(self, resources: Sequence[str]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """(top-level entries, ``user -> entries``) for :meth:`Instance.to_dict`."""
        top: dict[str, Any] = {}
        if self.excluded_resources:
            top["excluded_resources"] = list(self.excluded_resources)
        if self.zero_capacity:
            top["zero_capacity"] = list(self.zero_capacity)
        if self.group_weights:
            top["groups"] = {g: {"weight": fraction_to_plain(w)} for g, w in self.group_weights.items()}
        users: dict[str, dict[str, Any]] = {}
        for key, table in (("min_share", self.min_share), ("quota", self.quota)):
            for u, row in table.items():
                users.setdefault(u, {})[key] = {r: fraction_to_plain(row[r]) for r in resources if r in row}
        for u, g in self.group.items():
            users.setdefault(u, {})["group"] = g
        return top, users


def _prefixes(path: str) -> list[str]:
    """``"a/b/c" -> ["a", "a/b", "a/b/c"]``."""
    parts = path.split("/")
    return ["/".join(parts[: k + 1]) for k in range(len(parts))]


def _group_path(path: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InstanceError(f"{path}: must be a string like \"a/b\", got {type(value).__name__}")
    parts = value.split("/")
    if any(not p.strip() for p in parts):
        raise InstanceError(f"{path}: empty group name in {value!r} (write \"a/b\")")
    return value


def _parse_extensions(data: Mapping[str, Any], users_table: Mapping[str, Any], resources: tuple[str, ...],
                      cap: list[Fraction | float]) -> Extensions:
    """Read and validate the variant keys of a scenario (errors name the field)."""
    res = set(resources)

    def names(key: str) -> tuple[str, ...]:
        raw = data.get(key, [])
        if not isinstance(raw, Sequence) or isinstance(raw, str | bytes):
            raise InstanceError(f"{key}: must be a list of resource names, got {type(raw).__name__}")
        out = []
        for k, r in enumerate(raw):
            if not isinstance(r, str) or r not in res:
                raise InstanceError(f"{key}[{k}]: unknown resource {r!r} (resources are {', '.join(resources)})")
            if r in out:
                raise InstanceError(f"{key}[{k}]: {r!r} listed twice")
            out.append(r)
        return tuple(out)

    excluded = names("excluded_resources")
    zero = names("zero_capacity")
    for r, c in zip(resources, cap, strict=True):
        if r in zero and c != 0:
            raise InstanceError(f"zero_capacity: resources.{r} is {_show(c)}; list only resources with capacity 0")
    per: dict[str, dict[str, dict[str, Fraction]]] = {"min_share": {}, "quota": {}}
    group: dict[str, str] = {}
    for uname, spec in users_table.items():
        path = f"users.{uname}"
        for key in ("min_share", "quota"):
            if key in spec:
                row = _table(f"{path}.{key}", spec[key])
                vals = {}
                for r, v in row.items():
                    if r not in res:
                        known = ", ".join(resources)
                        raise InstanceError(f"{path}.{key}.{r}: unknown resource (resources are {known})")
                    vals[str(r)] = _exact(_number(f"{path}.{key}.{r}", v))
                per[key][str(uname)] = vals
        if "group" in spec:
            group[str(uname)] = _group_path(f"{path}.group", spec["group"])
    weights: dict[str, Fraction] = {}
    if "groups" in data:
        used = {p for g in group.values() for p in _prefixes(g)}
        for gname, gspec in _table("groups", data["groups"]).items():
            gpath = f"groups.{gname}"
            _group_path(gpath, gname)
            if gname not in used:
                raise InstanceError(f"{gpath}: no user is in this group (give users group = \"{gname}\")")
            gspec = _table(gpath, gspec)
            unknown = sorted(set(gspec) - GROUP_KEYS)
            if unknown:
                raise InstanceError(f"{gpath}.{unknown[0]}: unknown key (allowed: {', '.join(sorted(GROUP_KEYS))})")
            if "weight" in gspec:
                weights[str(gname)] = _exact(_number(f"{gpath}.weight", gspec["weight"], positive=True))
    names_u = set(group)
    clash = names_u & {p for g in group.values() for p in _prefixes(g)}
    if clash:
        u = sorted(clash)[0]
        raise InstanceError(f"users.{u}.group: {u!r} is both a user and a group name")
    return Extensions(min_share=per["min_share"], quota=per["quota"], group=group, group_weights=weights,
                      excluded_resources=excluded, zero_capacity=zero)


@dataclass(frozen=True)
class MachineType:
    """``count`` identical machines, each with ``capacity[j]`` of resource j."""

    count: int
    capacity: np.ndarray
    capacity_exact: tuple[Fraction, ...]
    name: str | None = None


class _DuplicateKey(ValueError):
    """A JSON object with the same key twice (TOML rejects it; so do we)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads`` hook: a dict, or :class:`_DuplicateKey` for a repeated key."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def _freeze(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _number(path: str, value: Any, *, positive: bool = False, allow_inf: bool = False) -> Fraction | float:
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
        raise InstanceError(f"{path}: must be > 0, got {_show(v)}")
    if not positive and v < 0:
        raise InstanceError(f"{path}: must be >= 0, got {_show(v)}")
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


def _printable(text: str) -> str:
    """``text`` with control characters (newlines in a key, say) escaped, so
    that an error message is always one line.

    >>> _printable("users.a\\nb: unknown key")
    'users.a\\\\nb: unknown key'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _one_line_errors(build: Callable[..., Instance]) -> Callable[..., Instance]:
    """Builders raise :class:`InstanceError` messages on one line, whatever
    the names in the scenario contain."""

    @functools.wraps(build)
    def wrapper(*args: Any, **kwargs: Any) -> Instance:
        try:
            return build(*args, **kwargs)
        except InstanceError as exc:
            msg = str(exc)
            if msg.isprintable():
                raise
            raise InstanceError(_printable(msg)) from None

    return wrapper


def _show(v: Fraction | float) -> str:
    if isinstance(v, Fraction):
        return str(fraction_to_plain(v))
    return repr(v)


def _exact(v: Fraction | float) -> Fraction:
    return v if isinstance(v, Fraction) else Fraction(repr(v))


def _table(path: str, value: Any) -> Mapping[str, Any]:
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
    @_one_line_errors
    def from_dict(cls, data: Mapping[str, Any]) -> Instance:
        """Build and validate an instance from a scenario dict (the TOML/JSON
        layout of DESIGN.md).

        Raises
        ------
        InstanceError
            Naming the first offending field.
        """
        data = _table("scenario", data)
        unknown = sorted(set(data) - TOP_KEYS)
        if unknown:
            raise InstanceError(f"{unknown[0]}: unknown top-level key (allowed: {', '.join(sorted(TOP_KEYS))})")
        machines_raw = data.get("machines")
        if "resources" not in data:
            raise InstanceError("resources: missing (a table of resource = capacity)")
        res_table = _table("resources", data["resources"])
        if not res_table:
            raise InstanceError("resources: no resources given")
        resources = tuple(str(k) for k in res_table)
        for r in resources:
            if not r.strip():
                raise InstanceError("resources: a resource name is empty")
        zero_ok = data.get("zero_capacity", [])
        zero_ok = set(zero_ok) if isinstance(zero_ok, Sequence) and not isinstance(zero_ok, str | bytes) else set()
        cap = [_number(f"resources.{r}", res_table[r], positive=r not in zero_ok) for r in resources]

        if "users" not in data:
            raise InstanceError("users: missing (a table of users with demand vectors)")
        users_table = _table("users", data["users"])
        if not users_table:
            raise InstanceError("users: no users given")
        names: list[str] = []
        dem: list[list[Fraction | float]] = []
        wts: list[Fraction | float] = []
        caps: list[Fraction | float | None] = []
        for uname, spec in users_table.items():
            uname = str(uname)
            if not uname.strip():
                raise InstanceError("users: a user name is empty")
            path = f"users.{uname}"
            spec = _table(path, spec)
            unknown = sorted(set(spec) - USER_KEYS)
            if unknown:
                raise InstanceError(f"{path}.{unknown[0]}: unknown key (allowed: {', '.join(sorted(USER_KEYS))})")
            if "demand" not in spec:
                raise InstanceError(f"{path}.demand: missing")
            dspec = spec["demand"]
            if isinstance(dspec, Sequence) and not isinstance(dspec, str | bytes):
                if len(dspec) != len(resources):
                    raise InstanceError(f"{path}.demand: has {len(dspec)} entries for {len(resources)} resources")
                dspec = dict(zip(resources, dspec, strict=True))
            dspec = _table(f"{path}.demand", dspec)
            for r in dspec:
                if r not in res_table:
                    raise InstanceError(f"{path}.demand.{r}: unknown resource (resources are {', '.join(resources)})")
            row = [_number(f"{path}.demand.{r}", dspec.get(r, 0)) for r in resources]
            if all(v == 0 for v in row):
                raise InstanceError(f"{path}.demand: all entries are zero (a task must need something)")
            names.append(uname)
            dem.append(row)
            wts.append(_number(f"{path}.weight", spec["weight"], positive=True) if "weight" in spec else Fraction(1))
            if "max_tasks" in spec and spec["max_tasks"] is not None:
                k = _number(f"{path}.max_tasks", spec["max_tasks"], allow_inf=True)
                caps.append(None if isinstance(k, float) and math.isinf(k) else k)
            else:
                caps.append(None)

        machines: tuple[MachineType, ...] = ()
        if machines_raw is not None:
            machines = _parse_machines(machines_raw, resources)
            totals = [
                sum((mt.capacity_exact[j] * mt.count for mt in machines), Fraction(0)) for j in range(len(resources))
            ]
            for j, r in enumerate(resources):
                if totals[j] != _exact(cap[j]):
                    raise InstanceError(
                        f"machines: total {r} is {fraction_to_plain(totals[j])} but resources.{r} is {_show(cap[j])}"
                    )
        for key in ("name", "description"):
            text = data.get(key)
            if text is not None and not isinstance(text, str):
                raise InstanceError(f"{key}: must be a string, got {type(text).__name__}")
        name = data.get("name")
        ext = _parse_extensions(data, users_table, resources, cap)
        exact = {
            "capacity": [_exact(v) for v in cap],
            "demands": [[_exact(v) for v in row] for row in dem],
            "weights": [_exact(v) for v in wts],
            "max_tasks": [None if k is None else _exact(k) for k in caps],
        }
        return cls(
            resources=resources,
            capacity=_freeze(np.array([float(v) for v in cap], dtype=float)),
            demands=_freeze(
                np.array([[float(v) for v in row] for row in dem], dtype=float).reshape(len(names), len(resources))
            ),
            weights=_freeze(np.array([float(v) for v in wts], dtype=float)),
            max_tasks=_freeze(np.array([math.inf if k is None else float(k) for k in caps], dtype=float)),
            machines=machines,
            name=name,
            _user_names=tuple(names),
            _exact_source=exact,
            extensions=ext,
        )

    @classmethod
    @_one_line_errors
    def load(cls, path: str | Path) -> Instance:
        """Read a scenario from a ``.toml`` or ``.json`` file.

        Raises
        ------
        InstanceError
            For a missing, empty, binary or malformed file, or a bad field;
            the message starts with the file name.
        """
        p = Path(path)
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            raise InstanceError(f"{p}: no such file") from None
        except IsADirectoryError:
            raise InstanceError(f"{p}: is a directory, not a scenario file") from None
        except OSError as exc:
            raise InstanceError(f"{p}: cannot read ({exc.strerror})") from None
        return cls.parse(raw, str(p), fmt="json" if p.suffix.lower() == ".json" else
                         "toml" if p.suffix.lower() == ".toml" else None)

    @classmethod
    @_one_line_errors
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
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        if not raw.strip():
            raise InstanceError(f"{source}: file is empty")
        if b"\x00" in raw:
            raise InstanceError(f"{source}: binary file, expected TOML or JSON text")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InstanceError(f"{source}: not UTF-8 text, expected TOML or JSON") from None
        is_json = fmt == "json" or (fmt is None and text.lstrip().startswith("{"))
        try:
            if is_json:
                data = json.loads(text, parse_constant=lambda c: float(c), object_pairs_hook=_unique_keys)
            else:
                data = tomllib.loads(text)
        except json.JSONDecodeError as exc:
            raise InstanceError(
                f"{source}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
            ) from None
        except _DuplicateKey as exc:
            raise InstanceError(f"{source}: malformed JSON: key {exc.args[0]!r} given twice") from None
        except tomllib.TOMLDecodeError as exc:
            raise InstanceError(f"{source}: malformed TOML: {exc}") from None
        except RecursionError:
            raise InstanceError(f"{source}: nested too deeply to be a scenario") from None
        try:
            return cls.from_dict(data)
        except InstanceError as exc:
            raise InstanceError(f"{source}: {exc}") from None

    @classmethod
    @_one_line_errors
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
        cap = _as_float_array("capacity", capacity, ndim=1)
        m = cap.shape[0]
        if m == 0:
            raise InstanceError("capacity: no resources given")
        dem = _as_float_array("demands", demands, ndim=2)
        if dem.shape[0] == 0:
            raise InstanceError("demands: no users given")
        if dem.shape[1] != m:
            raise InstanceError(f"demands: has {dem.shape[1]} columns for {m} resources")
        if resources is None:
            res = tuple(f"r{j}" for j in range(m))
        else:
            res = tuple(str(r) for r in resources)
            if len(res) != m:
                raise InstanceError(f"resources: {len(res)} names for {m} capacities")
            if len(set(res)) != m:
                raise InstanceError("resources: names are not unique")
        _check_array("capacity", cap, res, positive=True)
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
        n = dem.shape[0]
        if weights is None:
            w = np.ones(n)
        else:
            w = _as_float_array("weights", weights, ndim=1)
            if w.shape[0] != n:
                raise InstanceError(f"weights: {w.shape[0]} weights for {n} users")
            _check_array("weights", w, None, positive=True)
        k: np.ndarray
        if max_tasks is None:
            k = np.full(n, math.inf)
        else:
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
        names = None
        if users is not None:
            names = tuple(str(u) for u in users)
            if len(names) != n:
                raise InstanceError(f"users: {len(names)} names for {n} users")
            if len(set(names)) != n:
                raise InstanceError("users: names are not unique")
        return cls(
            resources=res,
            capacity=_freeze(cap),
            demands=_freeze(dem),
            weights=_freeze(w),
            max_tasks=_freeze(k),
            _user_names=names,
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
        d = self.to_dict()

        def val(v: Any) -> str:
            return json.dumps(v) if isinstance(v, str) else repr(v)

        def key(k: str) -> str:
            return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)

        lines = []
        if "name" in d:
            lines.append(f"name = {json.dumps(d['name'])}\n")
        for k in ("excluded_resources", "zero_capacity"):
            if k in d:
                lines.append(f"{k} = [" + ", ".join(val(r) for r in d[k]) + "]")

        def inline(table: dict[str, Any]) -> str:
            return "{ " + ", ".join(f"{key(r)} = {val(v)}" for r, v in table.items()) + " }"

        lines.append("[resources]")
        lines += [f"{key(r)} = {val(c)}" for r, c in d["resources"].items()]
        for u, spec in d["users"].items():
            lines.append(f"\n[users.{key(u)}]")
            lines.append("demand = " + inline(spec["demand"]))
            for k in ("weight", "max_tasks", "group"):
                if k in spec:
                    lines.append(f"{k} = {val(spec[k])}")
            for k in ("min_share", "quota"):
                if k in spec:
                    lines.append(f"{k} = " + inline(spec[k]))
        for g, gspec in d.get("groups", {}).items():
            lines.append(f"\n[groups.{json.dumps(g)}]")
            lines += [f"{k} = {val(v)}" for k, v in gspec.items()]
        for mt in d.get("machines", []):
            lines.append("\n[[machines]]")
            lines += [f"{key(k)} = {val(v)}" for k, v in mt.items()]
        return "\n".join(lines) + "\n"

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
        m = len(capacity)
        n = len(demands)
        resources = list(resources) if resources is not None else [f"r{j}" for j in range(m)]
        users = list(users) if users is not None else [f"u{i}" for i in range(n)]
        spec: dict[str, Any] = {
            "resources": {r: c for r, c in zip(resources, capacity, strict=True)},
            "users": {},
        }
        if name is not None:
            spec["name"] = name
        if zero_capacity:
            spec["zero_capacity"] = list(zero_capacity)
        for i, u in enumerate(users):
            entry: dict[str, Any] = {"demand": dict(zip(resources, demands[i], strict=True))}
            if weights is not None:
                entry["weight"] = weights[i]
            if max_tasks is not None and max_tasks[i] is not None:
                entry["max_tasks"] = max_tasks[i]
            spec["users"][u] = entry
        if len(spec["users"]) != n:
            raise InstanceError("users: names are not unique")
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
        return f"Instance(n={self.n}, m={self.m}, resources={self.resources!r})"

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
        def vec(vals: Sequence[Fraction]) -> str:
            return "<" + ", ".join(str(fraction_to_plain(v)) for v in vals) + ">"

        parts = []
        for i, u in enumerate(self.users):
            s = f"{u}: {vec(self.demands_exact[i])}"
            if self.weights_exact[i] != 1:
                s += f" w={fraction_to_plain(self.weights_exact[i])}"
            if (cap := self.max_tasks_exact[i]) is not None:
                s += f" cap={fraction_to_plain(cap)}"
            parts.append(s)
        return f"R={vec(self.capacity_exact)}; " + ", ".join(parts)


def _exact_array(a: np.ndarray) -> list[Fraction]:
    return [Fraction(repr(float(v))) if not float(v).is_integer() else Fraction(int(v)) for v in a]


def _as_float_array(path: str, value: Any, ndim: int) -> np.ndarray:
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise InstanceError(f"{path}: must be an array of numbers") from None
    if arr.ndim != ndim:
        raise InstanceError(f"{path}: must be {ndim}-dimensional, got shape {arr.shape}")
    return arr


def _check_array(path: str, arr: np.ndarray, names: Sequence[str] | None, positive: bool) -> None:
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


def _parse_machines(raw: Any, resources: tuple[str, ...]) -> tuple[MachineType, ...]:
    if not isinstance(raw, Sequence) or isinstance(raw, str | bytes):
        raise InstanceError("machines: must be an array of tables ([[machines]])")
    out = []
    for k, entry in enumerate(raw):
        path = f"machines[{k}]"
        entry = _table(path, entry)
        for key in entry:
            if key not in ("count", "name") and key not in resources:
                raise InstanceError(f"{path}.{key}: unknown resource (resources are {', '.join(resources)})")
        count_raw = entry.get("count", 1)
        count = _number(f"{path}.count", count_raw, positive=True)
        if not isinstance(count, Fraction) or count.denominator != 1:
            raise InstanceError(f"{path}.count: must be a whole number, got {_show(count)}")
        caps = [_number(f"{path}.{r}", entry.get(r, 0)) for r in resources]
        if all(c == 0 for c in caps):
            raise InstanceError(f"{path}: has no capacity for any resource")
        name = entry.get("name")
        if name is not None and not isinstance(name, str):
            raise InstanceError(f"{path}.name: must be a string")
        out.append(
            MachineType(
                count=int(count),
                capacity=_freeze(np.array([float(c) for c in caps])),
                capacity_exact=tuple(_exact(c) for c in caps),
                name=name,
            )
        )
    if not out:
        raise InstanceError("machines: empty list (omit the key for one pool)")
    return tuple(out)


def to_fraction_or_none(v: Any) -> Fraction | None:
    """Exact value of an optional cap (``None`` stays ``None``)."""
    return None if v is None else to_fraction(v)
