"""The scenario-file parser: TOML/JSON text to the validated fields of an
:class:`~models.instance.Instance`.

A scenario (the layout of DESIGN.md) gives resources with capacities
``R_j``, users with Leontief demand vectors ``d_i``, weights ``w_i`` and
task caps ``k_i`` (Ghodsi et al., NSDI 2011, Sections 4 and 4.3), optional
``[[machines]]`` (Section 6.2) and the production variants' fields
(:mod:`models.extensions`). Every bad value raises
:class:`~models.errors.InstanceError` whose message starts with the dotted
path of the field.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InstanceError
from .extensions import VARIANT_TOP_KEYS, VARIANT_USER_KEYS, parse_extensions
from .numbers import fraction_to_plain
from .validation import as_exact, frozen, number_at, shown, table_at

#: Keys a user table may hold. Later features extend this set in one place.
USER_KEYS: frozenset[str] = frozenset({"demand", "weight", "max_tasks"}) | VARIANT_USER_KEYS
#: Top-level keys of a scenario.
TOP_KEYS: frozenset[str] = frozenset({"resources", "users", "machines", "name", "description"}) | VARIANT_TOP_KEYS
#: A parsed scenario number: exact, or a float (``inf``, or a value that
#: needs floating point).
Number = Fraction | float


@dataclass(frozen=True)
class MachineType:
    """``count`` identical machines, each with ``capacity[j]`` of resource j."""

    count: int
    capacity: np.ndarray
    capacity_exact: tuple[Fraction, ...]
    name: str | None = None


# --------------------------------------------------------------------- text
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


def read_file(path: str | Path) -> tuple[bytes, str, str | None]:
    """The bytes of a scenario file, its name for messages and its format
    by suffix (``"json"``, ``"toml"`` or ``None``).

    Raises
    ------
    InstanceError
        For a missing file, a directory or an unreadable file.
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
    suffix = p.suffix.lower()
    return raw, str(p), "json" if suffix == ".json" else "toml" if suffix == ".toml" else None


def read_text(raw: bytes | str, source: str = "<scenario>", fmt: str | None = None) -> Any:
    """The data of a TOML or JSON scenario text (``fmt`` ``"toml"`` or
    ``"json"``; ``None`` guesses JSON when the text starts with ``{``).

    Raises
    ------
    InstanceError
        For empty, binary or malformed text (a key given twice in JSON, like
        in TOML, included); the message starts with ``source``.
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
    try:
        if fmt == "json" or (fmt is None and text.lstrip().startswith("{")):
            return json.loads(text, parse_constant=lambda c: float(c), object_pairs_hook=_unique_keys)
        return tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise InstanceError(f"{source}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except _DuplicateKey as exc:
        raise InstanceError(f"{source}: malformed JSON: key {exc.args[0]!r} given twice") from None
    except tomllib.TOMLDecodeError as exc:
        raise InstanceError(f"{source}: malformed TOML: {exc}") from None
    except RecursionError:
        raise InstanceError(f"{source}: nested too deeply to be a scenario") from None


# ------------------------------------------------------------------- fields
def scenario_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of :class:`~models.instance.Instance` for a
    scenario dict, validated.

    Raises
    ------
    InstanceError
        Naming the first offending field.
    """
    data = table_at("scenario", data)
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise InstanceError(f"{unknown[0]}: unknown top-level key (allowed: {', '.join(sorted(TOP_KEYS))})")
    resources, cap = _resources(data)
    users_table, names, dem, wts, caps = _users(data, resources)
    machines: tuple[MachineType, ...] = ()
    if data.get("machines") is not None:
        machines = parse_machines(data["machines"], resources)
        _check_machine_totals(machines, resources, cap)
    for key in ("name", "description"):
        text = data.get(key)
        if text is not None and not isinstance(text, str):
            raise InstanceError(f"{key}: must be a string, got {type(text).__name__}")
    ext = parse_extensions(data, users_table, resources, cap)
    return dict(
        resources=resources,
        capacity=frozen(np.array([float(v) for v in cap], dtype=float)),
        demands=frozen(np.array([[float(v) for v in row] for row in dem], dtype=float).reshape(len(names),
                                                                                             len(resources))),
        weights=frozen(np.array([float(v) for v in wts], dtype=float)),
        max_tasks=frozen(np.array([math.inf if k is None else float(k) for k in caps], dtype=float)),
        machines=machines,
        name=data.get("name"),
        _user_names=tuple(names),
        _exact_source={
            "capacity": [as_exact(v) for v in cap],
            "demands": [[as_exact(v) for v in row] for row in dem],
            "weights": [as_exact(v) for v in wts],
            "max_tasks": [None if k is None else as_exact(k) for k in caps],
        },
        extensions=ext,
    )


def _resources(data: Mapping[str, Any]) -> tuple[tuple[str, ...], list[Fraction | float]]:
    """Resource names and capacities (capacity 0 only for resources listed
    in ``zero_capacity``)."""
    if "resources" not in data:
        raise InstanceError("resources: missing (a table of resource = capacity)")
    res_table = table_at("resources", data["resources"])
    if not res_table:
        raise InstanceError("resources: no resources given")
    resources = tuple(str(k) for k in res_table)
    for r in resources:
        if not r.strip():
            raise InstanceError("resources: a resource name is empty")
    zero_ok = data.get("zero_capacity", [])
    zero_ok = set(zero_ok) if isinstance(zero_ok, Sequence) and not isinstance(zero_ok, str | bytes) else set()
    return resources, [number_at(f"resources.{r}", res_table[r], positive=r not in zero_ok) for r in resources]


def _users(data: Mapping[str, Any], resources: tuple[str, ...]) -> tuple[
        Mapping[str, Any], list[str], list[list[Number]], list[Number], list[Number | None]]:
    """The users table and, per user, name, demand row, weight and cap."""
    if "users" not in data:
        raise InstanceError("users: missing (a table of users with demand vectors)")
    users_table = table_at("users", data["users"])
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
        row, weight, cap = _user(f"users.{uname}", spec, resources)
        names.append(uname)
        dem.append(row)
        wts.append(weight)
        caps.append(cap)
    return users_table, names, dem, wts, caps


def _user(path: str, spec: Any, resources: tuple[str, ...]) -> tuple[list[Number], Number, Number | None]:
    """Demand row, weight and cap (``None``: unbounded) of one user table."""
    spec = table_at(path, spec)
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
    dspec = table_at(f"{path}.demand", dspec)
    for r in dspec:
        if r not in resources:
            raise InstanceError(f"{path}.demand.{r}: unknown resource (resources are {', '.join(resources)})")
    row = [number_at(f"{path}.demand.{r}", dspec.get(r, 0)) for r in resources]
    if all(v == 0 for v in row):
        raise InstanceError(f"{path}.demand: all entries are zero (a task must need something)")
    weight = number_at(f"{path}.weight", spec["weight"], positive=True) if "weight" in spec else Fraction(1)
    cap: Fraction | float | None = None
    if "max_tasks" in spec and spec["max_tasks"] is not None:
        k = number_at(f"{path}.max_tasks", spec["max_tasks"], allow_inf=True)
        cap = None if isinstance(k, float) and math.isinf(k) else k
    return row, weight, cap


def _check_machine_totals(machines: tuple[MachineType, ...], resources: tuple[str, ...],
                          cap: list[Fraction | float]) -> None:
    """The machines add up to the capacities given under ``resources``."""
    for j, r in enumerate(resources):
        total = sum((mt.capacity_exact[j] * mt.count for mt in machines), Fraction(0))
        if total != as_exact(cap[j]):
            raise InstanceError(
                f"machines: total {r} is {fraction_to_plain(total)} but resources.{r} is {shown(cap[j])}"
            )


def parse_machines(raw: Any, resources: tuple[str, ...]) -> tuple[MachineType, ...]:
    """The ``[[machines]]`` array of tables (Section 6.2): machine types
    with a whole ``count``, an optional ``name`` and a capacity per resource."""
    if not isinstance(raw, Sequence) or isinstance(raw, str | bytes):
        raise InstanceError("machines: must be an array of tables ([[machines]])")
    out = []
    for k, entry in enumerate(raw):
        path = f"machines[{k}]"
        entry = table_at(path, entry)
        for key in entry:
            if key not in ("count", "name") and key not in resources:
                raise InstanceError(f"{path}.{key}: unknown resource (resources are {', '.join(resources)})")
        count_raw = entry.get("count", 1)
        count = number_at(f"{path}.count", count_raw, positive=True)
        if not isinstance(count, Fraction) or count.denominator != 1:
            raise InstanceError(f"{path}.count: must be a whole number, got {shown(count)}")
        caps = [number_at(f"{path}.{r}", entry.get(r, 0)) for r in resources]
        if all(c == 0 for c in caps):
            raise InstanceError(f"{path}: has no capacity for any resource")
        name = entry.get("name")
        if name is not None and not isinstance(name, str):
            raise InstanceError(f"{path}.name: must be a string")
        out.append(
            MachineType(
                count=int(count),
                capacity=frozen(np.array([float(c) for c in caps])),
                capacity_exact=tuple(as_exact(c) for c in caps),
                name=name,
            )
        )
    if not out:
        raise InstanceError("machines: empty list (omit the key for one pool)")
    return tuple(out)


# ------------------------------------------------------------------ writers
def toml_text(d: Mapping[str, Any]) -> str:
    """A scenario dict (:meth:`Instance.to_dict <models.instance.Instance.to_dict>`)
    as TOML text that :func:`read_text` reads back."""
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


def exact_spec(capacity: Sequence[Any], demands: Sequence[Sequence[Any]], *, weights: Sequence[Any] | None = None,
               max_tasks: Sequence[Any] | None = None, users: Sequence[str] | None = None,
               resources: Sequence[str] | None = None, name: str | None = None,
               zero_capacity: Sequence[str] = ()) -> dict[str, Any]:
    """The scenario dict of :meth:`Instance.from_exact
    <models.instance.Instance.from_exact>` (exact numbers kept as given)."""
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
    return spec


__all__ = ["TOP_KEYS", "USER_KEYS", "MachineType", "exact_spec", "parse_machines", "read_file", "read_text",
           "scenario_fields", "toml_text"]
