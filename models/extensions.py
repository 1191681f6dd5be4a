"""The scenario fields of the production allocators' DRF variants.

Hadoop YARN's ``minResources``, Kubernetes Kueue's ``nominalQuota``, Mesos
roles and Volcano queues (group trees), Mesos's excluded resources, and
resources of capacity 0 (:mod:`models.variants`). The paper's policies
(Ghodsi et al., NSDI 2011) ignore them, except ``zero_capacity``, which
they reject. :func:`parse_extensions` reads them from a scenario dict into
:class:`Extensions`, held by :attr:`models.instance.Instance.extensions`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .errors import InstanceError
from .numbers import fraction_to_plain
from .validation import as_exact, number_at, shown, table_at

#: Per-user keys read by the production-allocator variants (:mod:`models.variants`).
VARIANT_USER_KEYS: frozenset[str] = frozenset({"min_share", "quota", "group"})
#: Top-level keys read by the production-allocator variants.
VARIANT_TOP_KEYS: frozenset[str] = frozenset({"groups", "excluded_resources", "zero_capacity"})
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
    """``value`` as a group path ``"a/b"`` (no empty part)."""
    if not isinstance(value, str):
        raise InstanceError(f"{path}: must be a string like \"a/b\", got {type(value).__name__}")
    parts = value.split("/")
    if any(not p.strip() for p in parts):
        raise InstanceError(f"{path}: empty group name in {value!r} (write \"a/b\")")
    return value


def parse_extensions(data: Mapping[str, Any], users_table: Mapping[str, Any], resources: tuple[str, ...],
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
            raise InstanceError(f"zero_capacity: resources.{r} is {shown(c)}; list only resources with capacity 0")
    per: dict[str, dict[str, dict[str, Fraction]]] = {"min_share": {}, "quota": {}}
    group: dict[str, str] = {}
    for uname, spec in users_table.items():
        path = f"users.{uname}"
        for key in ("min_share", "quota"):
            if key in spec:
                row = table_at(f"{path}.{key}", spec[key])
                vals = {}
                for r, v in row.items():
                    if r not in res:
                        known = ", ".join(resources)
                        raise InstanceError(f"{path}.{key}.{r}: unknown resource (resources are {known})")
                    vals[str(r)] = as_exact(number_at(f"{path}.{key}.{r}", v))
                per[key][str(uname)] = vals
        if "group" in spec:
            group[str(uname)] = _group_path(f"{path}.group", spec["group"])
    weights: dict[str, Fraction] = {}
    if "groups" in data:
        used = {p for g in group.values() for p in _prefixes(g)}
        for gname, gspec in table_at("groups", data["groups"]).items():
            gpath = f"groups.{gname}"
            _group_path(gpath, gname)
            if gname not in used:
                raise InstanceError(f"{gpath}: no user is in this group (give users group = \"{gname}\")")
            gspec = table_at(gpath, gspec)
            unknown = sorted(set(gspec) - GROUP_KEYS)
            if unknown:
                raise InstanceError(f"{gpath}.{unknown[0]}: unknown key (allowed: {', '.join(sorted(GROUP_KEYS))})")
            if "weight" in gspec:
                weights[str(gname)] = as_exact(number_at(f"{gpath}.weight", gspec["weight"], positive=True))
    names_u = set(group)
    clash = names_u & {p for g in group.values() for p in _prefixes(g)}
    if clash:
        u = sorted(clash)[0]
        raise InstanceError(f"users.{u}.group: {u!r} is both a user and a group name")
    return Extensions(min_share=per["min_share"], quota=per["quota"], group=group, group_weights=weights,
                      excluded_resources=excluded, zero_capacity=zero)


__all__ = ["GROUP_KEYS", "VARIANT_TOP_KEYS", "VARIANT_USER_KEYS", "Extensions", "parse_extensions"]
