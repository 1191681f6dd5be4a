"""The outcome of a simulation: shares and utilisation over time, jobs.

What Ghodsi et al., NSDI 2011, Section 7 plot: each user's share of each
resource and its dominant share over time (Figure 8), utilisation over
time (Figure 13), jobs completed and response times (Figures 9-12), and
completion times per job size (Figure 14).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from models.display import HTML_MAX_ROWS, html_table, require_pandas, short_repr

#: The longest repr of a simulation result (characters).
REPR_MAX_CHARS: int = 400
#: Columns of :meth:`SimulationResult.to_pandas` (one row per time x user x resource).
TIDY_COLUMNS: tuple[str, ...] = ("policy", "time", "user", "resource", "share", "dominant_share", "utilization",
                                 "cumulative_share", "entitlement")


@dataclass(eq=False)
class JobRecord:
    """One job: ``arrival`` (seconds), ``start`` (first task launched),
    ``finish`` (last task finished), ``tasks`` (tasks that ran to the end),
    ``truncated`` (tasks were cancelled by ``until``); ``open`` counts its
    task groups not finished yet."""

    job: str
    user: str
    arrival: float
    start: float | None = None
    finish: float | None = None
    tasks: int = 0
    open: int = 0
    truncated: bool = False

    @property
    def completed(self) -> bool:
        """Every task of the job ran to the end."""
        return self.open == 0 and not self.truncated and self.finish is not None

    @property
    def response_time(self) -> float | None:
        """Arrival to finish (seconds), ``None`` unless completed."""
        return self.finish - self.arrival if self.completed and self.finish is not None else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"job": self.job, "user": self.user, "arrival": self.arrival, "start": self.start,
                "finish": self.finish, "tasks": self.tasks, "completed": self.completed, "truncated": self.truncated}


@dataclass(eq=False)
class SimulationResult:
    """What :func:`analyzer.simulate` returns.

    The utilisation timeline is a step function: ``used[k]`` (scaled, per
    resource) holds from ``times[k]`` to ``times[k + 1]`` (to ``end`` for
    the last row). Per-user use is rebuilt from the log of launches and
    completions (``log``: times, user index, signed task count, demand row
    in ``demands``), recorded unless ``record_users=False``. The kernel
    engine writes one entry per job spec and time, the net count of its
    launches and completions then (the reference engine one per decision
    and completion event): the use at any time is the same.
    """

    policy: str
    workload: str
    resources: tuple[str, ...]
    scale: np.ndarray
    capacity: np.ndarray
    start: float
    end: float
    times: np.ndarray
    used: np.ndarray
    users: tuple[str, ...]
    weights: np.ndarray
    log: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None
    demands: np.ndarray
    job_records: tuple[JobRecord, ...]
    violations: tuple[dict[str, Any], ...]
    work: np.ndarray
    stats: dict[str, Any]
    rounds: tuple[int, float] | None = None

    # ------------------------------------------------------------ at a time
    def user_log(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The log of launches and completions (:attr:`log`).

        Raises
        ------
        ValueError
            When per-user use was not recorded.
        """
        if self.log is None:
            raise ValueError("per-user use was not recorded (record_users=False)")
        return self.log

    def usage_at(self, t: float) -> np.ndarray:
        """Scaled use per user and resource at time ``t``, shape (n, m); see
        :meth:`user_log` for the error when it was not recorded."""
        lt, lu, lk, ld = self.user_log()
        sel = lt <= t
        out = np.zeros((len(self.users), len(self.resources)), dtype=np.int64)
        np.add.at(out, lu[sel], lk[sel, None] * self.demands[ld[sel]])
        return out

    def share_at(self, t: float) -> dict[str, dict[str, float]]:
        """``[user][resource]``: fraction of the cluster's capacity held at ``t``."""
        sh = self.usage_at(t) / self.capacity
        return {u: dict(zip(self.resources, map(float, row), strict=True))
                for u, row in zip(self.users, sh, strict=True)}

    def dominant_share_at(self, t: float) -> dict[str, float]:
        """``[user]``: largest share over resources at ``t`` (Section 4)."""
        sh = self.usage_at(t) / self.capacity
        return {u: float(v) for u, v in zip(self.users, sh.max(axis=1, initial=0.0), strict=True)}

    def utilization_at(self, t: float) -> dict[str, float]:
        """``[resource]``: used over capacity at ``t`` (above 1 when over-committed)."""
        k = int(np.searchsorted(self.times, t, side="right")) - 1
        row = self.used[k] if k >= 0 else np.zeros(len(self.resources))
        return dict(zip(self.resources, map(float, row / self.capacity), strict=True))

    # ------------------------------------------------------------ over the run
    @property
    def utilization_mean(self) -> dict[str, float]:
        """``[resource]``: time-averaged utilisation over ``[start, end]``."""
        span = self.end - self.start
        if span <= 0 or not self.times.size:
            return dict.fromkeys(self.resources, 0.0)
        dt = np.diff(np.append(np.clip(self.times, self.start, self.end), self.end))
        area = dt @ self.used.astype(float)
        return dict(zip(self.resources, map(float, area / (span * self.capacity)), strict=True))

    def busy(self) -> np.ndarray:
        """Integral of use over ``[start, end]`` per resource, in resource
        units times seconds (equals the work done when every task finished)."""
        dt = np.diff(np.append(np.clip(self.times, self.start, self.end), self.end))
        return (dt @ self.used.astype(float)) / self.scale

    def cumulative_fairness(self) -> Any:
        """Each user's cumulative dominant share against its entitlement,
        and their disparity (:class:`.fairness.CumulativeFairness`); see
        :meth:`user_log` for the error when per-user use was not recorded."""
        from .fairness import cumulative_fairness

        return cumulative_fairness(self)

    def tasks_per_round(self) -> dict[str, list[int]]:
        """``[user]``: the tasks it ran in each round of a workload of
        repeated rounds (:mod:`.rounds`).

        Raises
        ------
        ValueError
            When the workload was not one of rounds.
        """
        if self.rounds is None:
            raise ValueError("not a workload of repeated rounds (a [rounds] file)")
        count, length = self.rounds
        out = {u: [0] * count for u in self.users}
        for rec in self.job_records:
            out[rec.user][int(round(rec.arrival / length))] += rec.tasks
        return out

    @property
    def jobs(self) -> list[JobRecord]:
        """Job records, in arrival order."""
        return list(self.job_records)

    @property
    def jobs_completed(self) -> dict[str, int]:
        """``[user]``: jobs whose every task ran to the end."""
        out = dict.fromkeys(self.users, 0)
        for r in self.job_records:
            out[r.user] += r.completed
        return out

    @property
    def mean_response_time(self) -> dict[str, float | None]:
        """``[user]``: mean arrival-to-finish time of its completed jobs
        (``None`` when none completed)."""
        acc: dict[str, list[float]] = {u: [] for u in self.users}
        for r in self.job_records:
            if r.response_time is not None:
                acc[r.user].append(r.response_time)
        return {u: (float(np.mean(v)) if v else None) for u, v in acc.items()}

    def timeline(self, users: list[str] | None = None) -> dict[str, Any]:
        """Arrays for plotting: ``times`` (T,), ``utilization`` (T, m) and,
        when per-user use was recorded, ``shares`` (T, len(users), m) for
        ``users`` (default: all)."""
        out: dict[str, Any] = {"times": self.times, "utilization": self.used / self.capacity,
                               "resources": self.resources}
        if self.log is None:
            return out
        names = list(self.users) if users is None else users
        lt, lu, lk, ld = self.log
        # every user at once (no loop over users): each log entry counts from
        # the first time at or after it, then a running sum over the times
        first = np.searchsorted(self.times, lt, side="left")
        use = np.zeros((self.times.size + 1, len(self.users), len(self.resources)), dtype=np.int64)
        np.add.at(use, (first, lu), lk[:, None] * self.demands[ld])
        cols = [self.users.index(name) for name in names]
        out["users"] = names
        out["shares"] = np.cumsum(use[:-1, cols], axis=0) / self.capacity
        return out

    # ------------------------------------------------------------ notebooks
    def __repr__(self) -> str:
        fields: dict[str, Any] = {"policy": self.policy, "workload": self.workload, "users": len(self.users),
                                  "resources": len(self.resources), "start": self.start, "end": self.end,
                                  "jobs": len(self.job_records)}
        done = self.jobs_completed
        if len(done) <= 6:
            fields["jobs_completed"] = done
        fields["utilization_mean"] = {r: round(v, 4) for r, v in self.utilization_mean.items()}
        text = short_repr("SimulationResult", **fields)
        if len(text) > REPR_MAX_CHARS:
            fields.pop("utilization_mean")
            fields.pop("jobs_completed", None)
            text = short_repr("SimulationResult", **fields)
        return text

    def _repr_html_(self) -> str:
        done, resp = self.jobs_completed, self.mean_response_time
        users = self.users[:HTML_MAX_ROWS]
        rows = [[u, done[u], resp[u]] for u in users]
        head = ["user", "jobs completed", "mean response time (s)"]
        caption = (f"{self.policy} on {self.workload or 'the workload'}: {len(self.job_records)} jobs, "
                   f"{self.start:g} to {self.end:g} s; mean utilisation "
                   + ", ".join(f"{r} {v:.3g}" for r, v in self.utilization_mean.items()))
        if self.log is not None:
            fair = self.cumulative_fairness()
            head.append("cumulative share / entitlement")
            rows = [[*row, ratio] for row, ratio in zip(rows, fair.ratio.tolist(), strict=False)]
            caption += f"; disparity (max / min) {fair.disparity:.4g}"
        return html_table(head, rows, caption, total=len(self.users))

    def tidy(self) -> dict[str, np.ndarray]:
        """The columns of :meth:`to_pandas` as arrays: one row per time x
        user x resource, at every event time of the run (the shares are
        step functions: a row's values hold until the next time); see
        :meth:`user_log` for the error when per-user use was not recorded."""
        from .fairness import entitlement_at, present_from

        self.user_log()
        tl = self.timeline()
        shares, util = tl["shares"], tl["utilization"]
        t_n, n, m = shares.shape
        dom_tn = shares.max(axis=2, initial=0.0)
        dom = np.broadcast_to(dom_tn[:, :, None], shares.shape)
        t = self.times.astype(float)
        held = np.cumsum(np.vstack([np.zeros((1, n)), dom_tn[:-1] * np.diff(t)[:, None]]), axis=0) if t_n else dom_tn
        owed = entitlement_at(t, present_from(self), np.asarray(self.weights, dtype=float))

        def per_row(a: np.ndarray) -> np.ndarray:
            return np.broadcast_to(a[:, :, None], shares.shape).reshape(-1)

        columns = (np.full(shares.size, self.policy, dtype=object), np.repeat(t, n * m),
                   np.tile(np.repeat(np.array(self.users, dtype=object), m), t_n),
                   np.tile(np.array(self.resources, dtype=object), t_n * n), shares.reshape(-1),
                   dom.reshape(-1), np.broadcast_to(util[:, None, :], shares.shape).reshape(-1), per_row(held),
                   per_row(owed))
        return dict(zip(TIDY_COLUMNS, columns, strict=True))

    def to_pandas(self) -> Any:
        """A tidy ``pandas.DataFrame``: one row per time x user x resource
        with the user's share of the resource, its dominant share and the
        resource's utilisation from that time on (Ghodsi et al., NSDI 2011,
        Figures 8 and 13 are plots of these columns), and the user's
        cumulative dominant share and entitlement up to that time
        (share-seconds, :mod:`.fairness`)."""
        return require_pandas("SimulationResult.to_pandas()").DataFrame(self.tidy())

    def plot(self, ax: Any = None) -> Any:
        """The paper's Figure 8 layout for this run (each user's share of
        every resource over time, the dominant shares, the utilisation)
        or, into ``ax``, the dominant shares over time; returns the
        matplotlib ``Figure``."""
        from ..plotting.simulation import dominant_shares_panel, simulation_figure

        if ax is not None:
            return dominant_shares_panel(ax, self)
        return simulation_figure([self])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (no per-event arrays); ``cumulative_fairness``
        is ``None`` when per-user use was not recorded."""
        fair = self.cumulative_fairness().to_dict() if self.log is not None else None
        return {"policy": self.policy, "workload": self.workload, "resources": list(self.resources),
                "capacity": dict(zip(self.resources, map(float, self.capacity / self.scale), strict=True)),
                "start": self.start, "end": self.end, "utilization_mean": self.utilization_mean,
                "jobs_completed": self.jobs_completed, "mean_response_time": self.mean_response_time,
                "jobs": [r.to_dict() for r in self.job_records], "violations": list(self.violations),
                "cumulative_fairness": fair, "stats": dict(self.stats)}
