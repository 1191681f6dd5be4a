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
  ``floor(min_j (R_j / n) / d_ij) - 1`` whole tasks' worth (``n`` users
  seen so far, ``R`` the cluster's capacity, pooled);
* envy-freeness, up to one task: for every other waiting user ``k``,
  ``k``'s bundle minus one of ``k``'s tasks is worth no more whole tasks
  of ``d_i`` than ``i``'s own bundle.

The pairwise check is O(a^2 m) per event for ``a`` waiting users.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _whole_tasks(bundle: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """Whole tasks of ``demand`` (last axis) that ``bundle`` holds
    (broadcast; resources a demand does not use are ignored)."""
    pos = demand > 0
    q = np.where(pos, np.maximum(bundle, 0) // np.where(pos, demand, 1), np.iinfo(np.int64).max)
    return q.min(axis=-1)


def check_round(usage: np.ndarray, heads: np.ndarray, capacity: np.ndarray, n: int) -> list[dict[str, Any]]:
    """Violations among the waiting users (rows of ``usage`` and ``heads``).

    Parameters
    ----------
    usage, heads : ndarray of int64, shape (a, m)
        Scaled use and current task demand of each waiting user.
    capacity : ndarray of int64, shape (m,)
    n : int
        Users seen so far (the ``1/n`` of sharing incentive).

    Returns
    -------
    list of dict
        ``{"property", "user", "other"?, "holds", "bound"}`` with row
        indices for ``user`` and ``other``.
    """
    out: list[dict[str, Any]] = []
    own = _whole_tasks(usage, heads)
    fair = _whole_tasks(capacity[None, :] // n, heads)
    for i in np.flatnonzero(own + 1 < fair):
        out.append({"property": "sharing-incentive", "user": int(i), "holds": int(own[i]), "bound": int(fair[i])})
    if usage.shape[0] > 1:
        minus = usage - heads  # each user's bundle without one of its tasks
        worth = _whole_tasks(minus[None, :, :], heads[:, None, :])  # worth[i, k]: k's bundle in i's tasks
        np.fill_diagonal(worth, np.iinfo(np.int64).min)
        bad = worth > own[:, None]
        for i, k in zip(*np.nonzero(bad), strict=True):
            out.append({"property": "envy-freeness", "user": int(i), "other": int(k), "holds": int(own[i]),
                        "bound": int(worth[i, k])})
    return out


def named_violations(t: float, usage: np.ndarray, heads: np.ndarray, capacity: np.ndarray, n: int,
                     names: list[str]) -> list[dict[str, Any]]:
    """:func:`check_round` at time ``t`` for the waiting users ``names``
    (rows of ``usage`` and ``heads``), reported by name."""
    return [{"time": t, **v, "user": names[v["user"]], **({"other": names[v["other"]]} if "other" in v else {})}
            for v in check_round(usage, heads, capacity, n)]
