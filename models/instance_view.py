"""How an :class:`~models.Instance` shows itself: the paper's notation in
one line (:func:`describe`, Ghodsi et al., NSDI 2011, Section 4 writes
``R = <9 CPUs, 18 GB>``, ``D_A = <1 CPU, 4 GB>``), a bounded repr that
names the demands (:func:`instance_repr`), and an HTML table for
notebooks (:func:`instance_html`: capacities, demands, weights, caps,
machines).

The repr and the HTML read only the users they show, so an instance of
10^6 users (:meth:`Instance.from_arrays`) shows in constant time: no
per-user Fractions are built for users left out.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .display import HTML_MAX_ROWS, html_table
from .numbers import fraction_to_plain

if TYPE_CHECKING:  # pragma: no cover
    from .instance import Instance

#: The longest repr of an instance (characters); users beyond it are counted.
REPR_MAX_CHARS: int = 300
#: Entries of a vector a repr shows before it says how many more there are.
REPR_MAX_ENTRIES: int = 8


def _exact(value: Any) -> Fraction:
    """A number as the Fraction the instance reads it as (a float as the decimal written)."""
    if isinstance(value, Fraction | int):
        return Fraction(value)
    v = float(value)
    return Fraction(int(v)) if v.is_integer() else Fraction(repr(v))


def _row(inst: Instance, key: str, i: int) -> list[Fraction]:
    """Row ``i`` of the exact ``demands`` (or the exact ``capacity`` for
    ``key="capacity"``) without converting the other rows."""
    src = inst._exact_source.get(key)
    if key == "capacity":
        return list(src) if src is not None else [_exact(v) for v in inst.capacity]
    return list(src[i]) if src is not None else [_exact(v) for v in inst.demands[i]]


def plain(value: Any) -> str:
    """A number as text, exactly (``3``, ``0.5``, ``1/3``); ``inf`` as ``∞``."""
    if value is None or (isinstance(value, float) and math.isinf(value)):
        return "∞"
    return str(fraction_to_plain(_exact(value)))


def vector(values: list[Fraction], limit: int | None = None) -> str:
    """``<1, 4>``; beyond ``limit`` entries, ``<1, 4, … +3>``."""
    shown = values if limit is None or len(values) <= limit else values[:limit]
    more = "" if len(shown) == len(values) else f", … +{len(values) - len(shown)}"
    return "<" + ", ".join(plain(v) for v in shown) + more + ">"


def _weight(inst: Instance, i: int) -> Any:
    src = inst._exact_source.get("weights")
    return src[i] if src is not None else inst.weights[i]


def _cap(inst: Instance, i: int) -> Any:
    src = inst._exact_source.get("max_tasks")
    if src is not None:
        return src[i]
    k = float(inst.max_tasks[i])
    return None if math.isinf(k) else k


def user_name(inst: Instance, i: int) -> str:
    """User ``i``'s name (without building every generated name of an array instance)."""
    return inst._user_names[i] if inst._user_names is not None else f"u{i}"


def user_text(inst: Instance, i: int, limit: int | None = None) -> str:
    """``A: <1, 4>``, with `` w=2`` and `` cap=10`` when they apply."""
    s = f"{user_name(inst, i)}: {vector(_row(inst, 'demands', i), limit)}"
    if (w := _weight(inst, i)) != 1:
        s += f" w={plain(w)}"
    if (cap := _cap(inst, i)) is not None:
        s += f" cap={plain(cap)}"
    return s


def describe(inst: Instance) -> str:
    """Every user in the paper's notation: ``R=<9, 18>; A: <1, 4>, B: <3, 1>``."""
    return f"R={vector(_row(inst, 'capacity', 0))}; " + ", ".join(user_text(inst, i) for i in range(inst.n))


def instance_repr(inst: Instance) -> str:
    """``Instance(n=2, m=2, resources=('cpu', 'mem'), R=<9, 18>, users={A: <1, 4>, B: <3, 1>})``:
    the first users' demands (weights, caps) while the line stays within
    :data:`REPR_MAX_CHARS`, then how many more."""
    res = inst.resources if inst.m <= REPR_MAX_ENTRIES else (*inst.resources[:REPR_MAX_ENTRIES], "…")
    head = ("Instance(" + (f"name={inst.name!r}, " if inst.name else "")
            + f"n={inst.n}, m={inst.m}, resources={res!r}, R={vector(_row(inst, 'capacity', 0), REPR_MAX_ENTRIES)}")
    if inst.machines:
        head += f", machines={sum(mt.count for mt in inst.machines)}"
    users: list[str] = []
    for i in range(inst.n):
        text = user_text(inst, i, REPR_MAX_ENTRIES)
        if users and len(head) + sum(len(u) + 2 for u in users) + len(text) > REPR_MAX_CHARS:
            break
        users.append(text)
    more = inst.n - len(users)
    return head + ", users={" + ", ".join(users) + (f", … {more:,} more" if more else "") + "})"


def instance_html(inst: Instance) -> str:
    """Two HTML tables: capacity and one row per user (demand per resource,
    weight, task cap; the first :data:`~models.display.HTML_MAX_ROWS`), and
    the machine types when there are machines."""
    n = min(inst.n, HTML_MAX_ROWS - 1)
    head = ["", *inst.resources, "weight", "max tasks"]
    rows: list[list[Any]] = [["capacity R", *(plain(v) for v in _row(inst, "capacity", 0)), "", ""]]
    rows += [[user_name(inst, i), *(plain(v) for v in _row(inst, "demands", i)), plain(_weight(inst, i)),
              plain(_cap(inst, i))] for i in range(n)]
    caption = (f"{inst.name + ': ' if inst.name else ''}{inst.n} users, {inst.m} resources; "
               "capacity, then each user's demand per task")
    out = html_table(head, rows, caption, total=inst.n + 1)
    if inst.machines:
        out += "\n" + html_table(["machine type", "count", *inst.resources],
                                 [[mt.name or f"type {t}", mt.count, *(plain(v) for v in mt.capacity_exact)]
                                  for t, mt in enumerate(inst.machines)], "machines (discrete setting)")
    return out


__all__ = ["REPR_MAX_CHARS", "REPR_MAX_ENTRIES", "describe", "instance_html", "instance_repr", "plain", "user_name",
           "user_text", "vector"]
