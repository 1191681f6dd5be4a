"""Sharing incentive and envy-freeness up to one task, at one event time.

Ghodsi et al., NSDI 2011, Section 3 define both properties for a policy on
a static instance; :mod:`analyzer.properties` checks them by re-solving a
policy on instances. In a running cluster there is no instance to
re-solve: the question is about the allocation *held now* against the
*current* demands, so this module checks a given allocation, a different
computation from the static checkers (it shares no logic with them).

Users are compared in whole tasks of their current demand (the oldest job
with tasks waiting), in the engine's exact integer units; only users with
tasks waiting take part (a user with nothing to run cannot be short of
anything):

* sharing incentive, up to one task: user ``i`` holds at least
  ``floor(min_j (w_i / W) R_j / d_ij) - 1`` whole tasks' worth (``W`` the
  weights of the users seen so far, ``1/n`` when they are equal; ``R`` the
  cluster's capacity, pooled);
* envy-freeness, up to one task: for every other waiting user ``k``,
  ``k``'s bundle minus one of ``k``'s tasks, scaled by ``w_i / w_k``, is
  worth no more whole tasks of ``d_i`` than ``i``'s own bundle.

Weights are Section 4.3's (the static checks scale the same way); unequal
weights are compared exactly, as integers over their common denominator
(int64 when the products fit, else Python ints). The pairwise check is O(a^2 m) per event for
``a`` waiting users.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from models.discrete import integer_steps


def _whole_tasks(bundle: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """Whole tasks of ``demand`` (last axis) that ``bundle`` holds
    (broadcast; resources a demand does not use are ignored)."""
    pos = demand > 0
    q = np.where(pos, np.maximum(bundle, 0) // np.where(pos, demand, 1), np.iinfo(np.int64).max)
    return q.min(axis=-1)


def check_round(usage: np.ndarray, heads: np.ndarray, capacity: np.ndarray, n: int,
                weights: np.ndarray | None = None, rows: np.ndarray | None = None) -> list[dict[str, Any]]:
    """Violations among the waiting users (rows of ``usage`` and ``heads``).

    Parameters
    ----------
    usage, heads : ndarray of int64, shape (a, m)
        Scaled use and current task demand of each waiting user.
    capacity : ndarray of int64, shape (m,)
    n : int
        Users seen so far (the ``1/n`` of sharing incentive).
    weights : ndarray, shape (n,), optional
        Weights of the users seen so far (Section 4.3); ``None`` or all
        equal: unweighted.
    rows : ndarray of int, shape (a,), optional
        Index into ``weights`` of each waiting user (required with
        ``weights``).

    Returns
    -------
    list of dict
        ``{"property", "user", "other"?, "holds", "bound"}`` with row
        indices for ``user`` and ``other``.
    """
    out: list[dict[str, Any]] = []
    weighted = weights is not None and bool(np.any(weights != weights[0]))
    own = _whole_tasks(usage, heads)
    if weighted:
        assert weights is not None and rows is not None
        p = integer_steps([Fraction(float(w)) for w in weights])  # exactly as given, same ratios
        # int64 when every product below fits, else Python ints (weights such as 0.1 have 2^55 denominators)
        big = max(p) * max(int(capacity.max(initial=0)), int(usage.max(initial=0))) >= 2 ** 62
        kind: Any = object if big else np.int64
        pw = np.array([p[r] for r in rows.tolist()], dtype=kind)  # waiting users' integer weights
        slices = capacity.astype(kind)[None, :] * pw[:, None] // sum(p)
        fair = _whole_tasks(slices, heads.astype(kind))
    else:
        fair = _whole_tasks(capacity[None, :] // n, heads)
    for i in np.flatnonzero(own + 1 < fair):
        out.append({"property": "sharing-incentive", "user": int(i), "holds": int(own[i]), "bound": int(fair[i])})
    if usage.shape[0] > 1:
        minus = usage - heads  # each user's bundle without one of its tasks
        if weighted:  # k's bundle scaled by w_i / w_k: floor per resource, then whole tasks (same floor)
            scaled = np.maximum(minus.astype(kind), 0)[None, :, :] * pw[:, None, None] // pw[None, :, None]
            worth = _whole_tasks(scaled, heads.astype(kind)[:, None, :])
        else:
            worth = _whole_tasks(minus[None, :, :], heads[:, None, :])  # worth[i, k]: k's bundle in i's tasks
        np.fill_diagonal(worth, np.iinfo(np.int64).min)
        bad = worth > own[:, None]
        for i, k in zip(*np.nonzero(bad), strict=True):
            out.append({"property": "envy-freeness", "user": int(i), "other": int(k), "holds": int(own[i]),
                        "bound": int(worth[i, k])})
    return out


def named_violations(t: float, usage: np.ndarray, heads: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
                     rows: np.ndarray, names: list[str]) -> list[dict[str, Any]]:
    """:func:`check_round` at time ``t`` for the waiting users ``names``
    (rows ``rows`` of ``weights``, the weights of every user seen so far;
    rows of ``usage`` and ``heads``), reported by name."""
    return [{"time": t, **v, "user": names[v["user"]], **({"other": names[v["other"]]} if "other" in v else {})}
            for v in check_round(usage, heads, capacity, len(weights), weights, rows)]
