"""Composable hypothesis strategies for fuzzing instances, files and policies.

Building blocks, from small to large:

* :func:`magnitudes` -- positive floats spread log-uniformly over
  ``[1e-9, 1e9]``, with the end points and round numbers drawn often;
* :func:`demand_matrices` -- demand rows with many zeros and duplicated
  rows (identical users), every row with some positive entry;
* :func:`instances` -- validated :class:`~models.Instance` objects (one user,
  one resource, weights, caps including 0 and caps below one task, tasks
  bigger than a whole capacity), built through :meth:`Instance.from_arrays`;
* :func:`exact_instances` -- small instances with integer and fractional
  data for the exact solvers;
* :func:`scenario_dicts` and :func:`junk` -- valid scenario dicts, and the
  same with one field replaced by junk, for the parsers;
* :func:`toml_texts` -- TOML text of a valid scenario, optionally mangled.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st

from models import Instance

#: The range the issue asks for: values from 1e-9 to 1e9.
LOW_EXP, HIGH_EXP = -9, 9


def magnitudes(low: int = LOW_EXP, high: int = HIGH_EXP) -> st.SearchStrategy[float]:
    """Positive floats between ``10**low`` and ``10**high`` (log-uniform,
    plus the end points, 1 and small integers)."""
    return st.one_of(
        st.floats(min_value=low, max_value=high, allow_nan=False).map(lambda e: float(10.0**e)),
        st.sampled_from([10.0**low, 10.0**high, 1.0, 3.0, 0.1]),
        st.integers(min_value=1, max_value=1000).map(float),
    )


@st.composite
def demand_matrices(draw: st.DrawFn, n: int, m: int, zero_prob: float | None = None,
                    low: int = LOW_EXP, high: int = HIGH_EXP) -> np.ndarray:
    """An ``(n, m)`` demand matrix: many zeros (each row keeps one positive
    entry) and, sometimes, users that duplicate an earlier user's vector."""
    if zero_prob is None:
        zero_prob = draw(st.sampled_from([0.0, 0.3, 0.7, 0.95]))
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    rng = np.random.default_rng(seed)
    exps = rng.uniform(low, high, size=(n, m))
    base = draw(magnitudes(low, high))
    D = np.where(rng.random((n, m)) < 0.15, base, 10.0**exps)  # repeated values too
    D[rng.random((n, m)) < zero_prob] = 0.0
    empty = ~(D > 0).any(axis=1)
    D[empty, rng.integers(0, m, size=int(empty.sum()))] = base
    if n > 1 and draw(st.booleans()):
        dup = rng.integers(0, n, size=n)  # row i copies row dup[i] (duplicate users)
        keep = rng.random(n) < 0.5
        D = np.where(keep[:, None], D, D[dup])
    return D


@st.composite
def instances(draw: st.DrawFn, n: st.SearchStrategy[int] | None = None, m: st.SearchStrategy[int] | None = None,
              weights: bool = True, caps: bool = True) -> Instance:
    """A validated instance over the whole ``1e-9..1e9`` range.

    Parameters
    ----------
    n, m : strategies of int, optional
        Numbers of users and resources (default 1..6 and 1..5, with 1 often).
    weights, caps : bool
        Allow random weights and task caps (caps may be 0, below one task,
        or huge).
    """
    nn = draw(n if n is not None else st.one_of(st.just(1), st.integers(1, 6)))
    mm = draw(m if m is not None else st.one_of(st.just(1), st.integers(1, 5)))
    head = draw(st.lists(magnitudes(), min_size=min(mm, 4), max_size=min(mm, 4)))
    rng = np.random.default_rng(draw(st.integers(min_value=0, max_value=2**32 - 1)))
    cap = np.concatenate([head, 10.0 ** rng.uniform(LOW_EXP, HIGH_EXP, size=mm - len(head))])
    D = draw(demand_matrices(nn, mm))
    if draw(st.booleans()):
        # some user's single task needs more than the whole capacity
        i, j = draw(st.integers(0, nn - 1)), draw(st.integers(0, mm - 1))
        D[i, j] = cap[j] * draw(st.sampled_from([1.5, 10.0, 1e6]))
    w = None
    if weights and draw(st.booleans()):
        w = draw(st.lists(magnitudes(-3, 3), min_size=nn, max_size=nn))
    k = None
    if caps and draw(st.booleans()):
        k = draw(st.lists(st.one_of(st.none(), st.just(0.0), magnitudes()), min_size=nn, max_size=nn))
    return Instance.from_arrays(cap, D, weights=w, max_tasks=k)


@st.composite
def exact_instances(draw: st.DrawFn, n_max: int = 5, m_max: int = 4) -> Instance:
    """A small instance with exact data (integers up to 1e9 and fractions
    down to 1e-9) for the exact solvers."""
    n = draw(st.integers(1, n_max))
    m = draw(st.integers(1, m_max))
    num = st.one_of(
        st.integers(1, 10**9),
        st.integers(1, 1000).map(lambda v: Fraction(v, 10**9)),
        st.fractions(min_value=Fraction(1, 1000), max_value=1000, max_denominator=1000),
    )
    cap = draw(st.lists(num, min_size=m, max_size=m))
    rows = []
    for _ in range(n):
        row = draw(st.lists(st.one_of(st.just(0), num), min_size=m, max_size=m))
        if all(v == 0 for v in row):
            row[draw(st.integers(0, m - 1))] = draw(num)
        rows.append(row)
    if n > 1 and draw(st.booleans()):
        rows[-1] = list(rows[0])  # duplicate users
    w = draw(st.one_of(st.none(), st.lists(st.fractions(min_value=Fraction(1, 100), max_value=100,
                                                         max_denominator=100),
                                            min_size=n, max_size=n)))
    k = draw(st.one_of(st.none(), st.lists(st.one_of(st.none(), st.just(0), num), min_size=n, max_size=n)))
    return Instance.from_exact(cap, rows, weights=w, max_tasks=k)


def junk() -> st.SearchStrategy[Any]:
    """Values no scenario field accepts, or accepts only in some places."""
    leaf = st.one_of(
        st.none(), st.booleans(), st.text(max_size=8), st.integers(-(10**30), 10**30),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(["nan", "inf", "-1", "1/0", "0", "1e999", "1e-999", "", " ", "3/4", "x", 10**400,
                         -0.0, 5e-324, 1.7976931348623157e308]),
        st.fractions(max_denominator=10**6),
    )
    return st.recursive(
        leaf,
        lambda kids: st.one_of(
            st.lists(kids, max_size=3),
            st.dictionaries(st.one_of(st.text(max_size=5), st.integers(-3, 3)), kids, max_size=3),
        ),
        max_leaves=6,
    )


@st.composite
def scenario_dicts(draw: st.DrawFn) -> dict[str, Any]:
    """A valid scenario dict (names random, values in range)."""
    name = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-0123456789", min_size=1, max_size=6)
    resources = draw(st.lists(name, min_size=1, max_size=4, unique=True))
    users = draw(st.lists(name, min_size=1, max_size=4, unique=True))
    res = {r: draw(magnitudes()) for r in resources}
    out: dict[str, Any] = {"resources": res, "users": {}}
    for u in users:
        demand = {r: draw(st.one_of(st.just(0), magnitudes())) for r in resources}
        if all(v == 0 for v in demand.values()):
            demand[resources[0]] = 1
        spec: dict[str, Any] = {"demand": demand}
        if draw(st.booleans()):
            spec["weight"] = draw(magnitudes(-3, 3))
        if draw(st.booleans()):
            spec["max_tasks"] = draw(st.one_of(st.integers(0, 100), magnitudes()))
        out["users"][u] = spec
    return out


def paths(d: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path in a nested dict (leaves and inner tables)."""
    out = [prefix] if prefix else []
    if isinstance(d, dict):
        for k, v in d.items():
            out += paths(v, (*prefix, k))
    return out


def set_path(d: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A deep copy of ``d`` with ``path`` set to ``value`` (``...`` deletes)."""
    import copy

    new = copy.deepcopy(d)
    cur = new
    for k in path[:-1]:
        cur = cur[k]
    if value is Ellipsis:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value
    return new


@st.composite
def mangled_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """A valid scenario with one field replaced by junk, deleted, or given
    an unknown sibling key."""
    d = draw(scenario_dicts())
    path = draw(st.sampled_from(paths(d)))
    action = draw(st.sampled_from(["junk", "delete", "extra"]))
    if action == "junk":
        return set_path(d, path, draw(junk()))
    if action == "delete":
        return set_path(d, path, ...)
    return set_path(d, (*path[:-1], draw(st.text(max_size=6))), draw(junk()))


@st.composite
def toml_texts(draw: st.DrawFn) -> str:
    """TOML text of a valid scenario (:meth:`Instance.to_toml`), then
    mangled: characters deleted, inserted or swapped, or lines shuffled."""
    text = Instance.from_dict(draw(scenario_dicts())).to_toml()
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["delete", "insert", "swap-lines"]))
        if op == "delete" and text:
            i = draw(st.integers(0, len(text) - 1))
            text = text[:i] + text[i + draw(st.integers(1, 5)):]
        elif op == "insert":
            i = draw(st.integers(0, len(text)))
            text = text[:i] + draw(st.text(alphabet='[]{}="-.,#\n \t0123456789abcxyz\\\'', max_size=5)) + text[i:]
        else:
            ls = text.split("\n")
            a, b = draw(st.integers(0, len(ls) - 1)), draw(st.integers(0, len(ls) - 1))
            ls[a], ls[b] = ls[b], ls[a]
            text = "\n".join(ls)
    return text
