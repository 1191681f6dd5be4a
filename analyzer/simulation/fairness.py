"""Cumulative fairness of a simulation: what each user held over the run
against what it was entitled to.

At one moment DRF equalises dominant shares (Ghodsi et al., NSDI 2011,
Section 4); over time a user can still get less than its slice, e.g. when
another user filled the cluster before it came, or when demands change
from round to round (Vuppalapati et al., "Karma", OSDI 2023; Freeman et
al., SIGMETRICS 2018). With ``s_i(t) = max_j a_ij(t) / R_j`` user ``i``'s
dominant share at time ``t`` (for every policy, so that policies compare)
and ``[t0, t1]`` the run:

* **cumulative share** ``S_i = integral over [t0, t1] of s_i(t) dt``
  (share-seconds);
* **entitlement** ``E_i = integral over [a_i, t1] of w_i / W(t) dt``: the
  user's weighted slice of the cluster from its first arrival ``a_i``
  (not before ``t0``; ``t0`` for every user of repeated rounds, who all
  take part in every round), ``W(t)`` the weights of the users arrived by ``t``
  (the sharing-incentive slice, Section 3, of the users present);
* **ratio** ``S_i / E_i`` (1: on average it held its slice; a user that
  asks for less than its slice has a ratio below 1 without any unfairness);
* **disparity** ``max_i ratio_i / min_i ratio_i`` over users with an
  entitlement (1: every user got the same part of its slice; infinite
  when a user got nothing).

Use is rebuilt exactly from the run's per-user records (integer amounts;
one pass over the log, no loop over users), so it needs
``record_users=True`` (the default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from models.display import HTML_MAX_ROWS, html_table, require_pandas


@dataclass(frozen=True, eq=False)
class CumulativeFairness:
    """Per user (in the result's order): ``share_seconds`` (``S_i``),
    ``entitlement_seconds`` (``E_i``), ``ratio``; and ``disparity`` (see
    the module docstring)."""

    users: tuple[str, ...]
    weights: np.ndarray
    arrival: np.ndarray
    share_seconds: np.ndarray
    entitlement_seconds: np.ndarray

    @property
    def ratio(self) -> np.ndarray:
        """``S_i / E_i`` (NaN without an entitlement)."""
        e = self.entitlement_seconds
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(e > 0, self.share_seconds / np.where(e > 0, e, 1.0), np.nan)

    @property
    def disparity(self) -> float:
        """``max ratio / min ratio`` over users with an entitlement (NaN
        when there is none, infinite when one got nothing)."""
        r = self.ratio[self.entitlement_seconds > 0]
        if not r.size:
            return float("nan")
        lo = float(r.min())
        return float("inf") if lo <= 0 else float(r.max()) / lo

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: per user, then the disparity (``None`` when not finite)."""
        d = self.disparity
        return {"users": {u: {"share_seconds": float(s), "entitlement_seconds": float(e),
                              "ratio": None if np.isnan(r) else float(r)}
                          for u, s, e, r in zip(self.users, self.share_seconds, self.entitlement_seconds,
                                                self.ratio, strict=True)},
                "disparity": d if np.isfinite(d) else None}

    def to_pandas(self) -> Any:
        """One row per user: ``user, weight, arrival, share_seconds,
        entitlement_seconds, ratio``; ``attrs["disparity"]``."""
        pd = require_pandas("CumulativeFairness.to_pandas()")
        frame = pd.DataFrame({"user": list(self.users), "weight": self.weights, "arrival": self.arrival,
                              "share_seconds": self.share_seconds, "entitlement_seconds": self.entitlement_seconds,
                              "ratio": self.ratio})
        frame.attrs["disparity"] = self.disparity
        return frame

    def _repr_html_(self) -> str:
        rows = [[u, s, e, r] for u, s, e, r in zip(self.users[:HTML_MAX_ROWS], self.share_seconds.tolist(),
                                                   self.entitlement_seconds.tolist(), self.ratio.tolist(),
                                                   strict=False)]
        return html_table(["user", "cumulative dominant share (s)", "entitlement (s)", "ratio"], rows,
                          f"cumulative fairness: disparity (max / min ratio) {self.disparity:.4g}",
                          total=len(self.users))


def arrivals(users: tuple[str, ...], job_users: list[str], job_arrivals: list[float], start: float) -> np.ndarray:
    """Each user's first arrival (not before ``start``)."""
    index = {u: k for k, u in enumerate(users)}
    out = np.full(len(users), np.inf)
    np.minimum.at(out, np.fromiter((index[u] for u in job_users), dtype=np.int64, count=len(job_users)),
                  np.asarray(job_arrivals, dtype=float))
    return np.maximum(out, start)


def present_from(result: Any) -> np.ndarray:
    """Each user's arrival: its first job's, or the start for every user
    of a workload of repeated rounds (all take part in every round, asking
    for nothing in some)."""
    if result.rounds is not None:
        return np.full(len(result.users), float(result.start))
    recs = result.job_records
    return arrivals(result.users, [r.user for r in recs], [r.arrival for r in recs], result.start)


def entitlement_at(times: np.ndarray, arrival: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``E_i`` up to each of ``times``, shape ``(len(times), n)``: the
    integral of ``w_i / W`` from ``a_i`` (the module docstring)."""
    order = np.argsort(arrival, kind="stable")
    a, W = arrival[order], np.cumsum(weights[order])
    # F(t) = integral of 1 / W from a[0] to t: piecewise linear, slope 1 / W[k] on [a[k], a[k + 1])
    F_at_a = np.concatenate([[0.0], np.cumsum(np.diff(a) / W[:-1])]) if a.size else a
    t = np.asarray(times, dtype=float)
    k = np.searchsorted(a, t, side="right") - 1
    kk = np.maximum(k, 0)
    F_t = np.where(k >= 0, F_at_a[kk] + (t - a[kk]) / W[kk], 0.0) if a.size else np.zeros_like(t)
    F_i = np.empty_like(arrival)
    F_i[order] = F_at_a
    return np.maximum(0.0, F_t[:, None] - F_i[None, :]) * weights[None, :]


def share_seconds(log: tuple[np.ndarray, ...], demands: np.ndarray, capacity: np.ndarray, n: int, start: float,
                  end: float) -> np.ndarray:
    """``S_i`` from the per-user records: per user, the use after each
    entry (a running sum within the user's entries, in time order), its
    dominant share, held until the user's next entry (or ``end``)."""
    lt, lu, lk, ld = log
    if not lt.size:
        return np.zeros(n)
    order = np.argsort(lu, kind="stable")  # each user's entries together, still in time order
    users, t = lu[order], np.clip(lt[order], start, end)
    total = np.cumsum(lk[order, None] * demands[ld[order]], axis=0)
    starts = np.r_[True, users[1:] != users[:-1]]
    group = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    base = np.vstack([np.zeros((1, total.shape[1]), dtype=total.dtype), total[first[1:] - 1]])
    use = total - base[group]  # the running sum within each user's entries
    dom = (use / capacity).max(axis=1, initial=0.0)
    last = np.r_[starts[1:], True]
    dt = np.where(last, end, np.r_[t[1:], end]) - t
    return np.bincount(users, weights=dom * dt, minlength=n)


def cumulative_fairness(result: Any) -> CumulativeFairness:
    """The :class:`CumulativeFairness` of a :class:`~.result.SimulationResult`
    (see :meth:`~.result.SimulationResult.user_log` for the error when
    per-user use was not recorded)."""
    log = result.user_log()
    n = len(result.users)
    arrival = present_from(result)
    weights = np.asarray(result.weights, dtype=float)
    S = share_seconds(log, result.demands, result.capacity, n, result.start, result.end)
    E = entitlement_at(np.array([result.end]), arrival, weights)[0]
    return CumulativeFairness(users=tuple(result.users), weights=weights, arrival=arrival, share_seconds=S,
                              entitlement_seconds=E)


__all__ = ["CumulativeFairness", "arrivals", "cumulative_fairness", "entitlement_at", "present_from", "share_seconds"]
