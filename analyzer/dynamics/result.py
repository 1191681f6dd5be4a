"""``dynamic_run``: the allocation after every arrival, as users read it.

Kash, Procaccia and Shah, JAIR 51, 2014, Section 2: users arrive one at a
time in the instance's user order; after the ``k``-th arrival the users
``1..k`` hold the allocation ``A^k``. :class:`DynamicRun` holds ``A^1 ..
A^n`` of one policy on one instance.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models import Allocation, Instance, Policy, PolicyError, get_policy
from models.allocation import exact_str, put_exact
from models.display import HTML_MAX_ROWS, html_table, short_repr, to_frame

from .trajectory import Steps, steps

#: Columns of :meth:`DynamicRun.to_pandas`.
COLUMNS: tuple[str, ...] = ("policy", "step", "arrived", "user", "tasks", "tasks_exact", "dominant_share",
                            "dominant_share_exact")


@dataclass(frozen=True)
class DynamicRun:
    """The allocations after every arrival.

    Attributes
    ----------
    instance : Instance
        The users in arrival order.
    policy : str
        The policy's label.
    exact : bool
        True when every step is exact.
    steps : Steps
        The task counts (:class:`~analyzer.dynamics.trajectory.Steps`).
    """

    instance: Instance
    policy: str
    exact: bool
    steps: Steps

    @property
    def n(self) -> int:
        """Number of arrivals (= users)."""
        return self.instance.n

    def _step(self, k: int) -> int:
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 1 <= k <= self.n:
            raise ValueError(f"k: must be a step 1..{self.n}, got {k!r}")
        return int(k) - 1

    def tasks_at(self, k: int) -> dict[str, Any]:
        """User -> tasks after the ``k``-th arrival (``k = 1..n``), the users
        present only; exact numbers when the run is exact."""
        row = self.steps.values()[self._step(k)]
        return {u: row[i] for i, u in enumerate(self.instance.users[:k])}

    def allocation_at(self, k: int) -> Allocation:
        """The :class:`~models.Allocation` of the users present after the
        ``k``-th arrival, on the whole cluster (shares, dominant shares,
        utilization...)."""
        from models.policies.recompute import prefix

        s = self._step(k)
        x = self.steps.x[s, :k]
        exact_row = self.steps.x_exact[s][:k] if self.exact and self.steps.x_exact is not None else None
        return Allocation(instance=prefix(self.instance, k), x=np.array(x, dtype=float), policy=self.policy,
                          exact=exact_row is not None, x_exact=exact_row, stats={"step": k})

    def dominant_shares_at(self, k: int) -> dict[str, Any]:
        """User -> dominant share after the ``k``-th arrival (users present;
        exact numbers when the run is exact)."""
        alloc = self.allocation_at(k)
        values = alloc.dominant_shares_exact if alloc.exact else [float(v) for v in alloc.dominant_shares]
        return dict(zip(alloc.instance.users, values, strict=True))

    @property
    def dominant_shares(self) -> np.ndarray:
        """Dominant shares after every arrival, shape (n, n)."""
        one = (self.instance.demands / self.instance.capacity).max(axis=1)
        return self.steps.x * one[None, :]

    @property
    def shares(self) -> np.ndarray:
        """Share of every resource after every arrival, shape (n, n, m)."""
        per_task = self.instance.demands / self.instance.capacity
        return self.steps.x[:, :, None] * per_task[None, :, :]

    # ----------------------------------------------------------- output
    def __repr__(self) -> str:
        fields: dict[str, Any] = {"policy": self.policy, "users": self.n, "exact": self.exact}
        if self.n <= 6:
            fields["final"] = {u: _plain(v) for u, v in self.tasks_at(self.n).items()}
        text = short_repr("DynamicRun", **fields)
        return text if len(text) <= 400 else short_repr("DynamicRun", policy=self.policy, users=self.n,
                                                           exact=self.exact)

    def rows(self) -> list[list[Any]]:
        """One row per step x user present (:data:`COLUMNS`)."""
        dom = self.dominant_shares
        one = [max(d / c for d, c in zip(row, self.instance.capacity_exact, strict=True))
               for row in self.instance.demands_exact]
        out = []
        for k in range(1, self.n + 1):
            arrived = self.instance.users[k - 1]
            for i, u in enumerate(self.instance.users[:k]):
                ex = self.steps.x_exact[k - 1][i] if self.exact and self.steps.x_exact is not None else None
                out.append([self.policy, k, arrived, u, float(self.steps.x[k - 1, i]),
                            None if ex is None else exact_str(ex), float(dom[k - 1, i]),
                            None if ex is None else exact_str(ex * one[i])])
        return out

    def to_pandas(self) -> Any:
        """A tidy ``pandas.DataFrame``: one row per step x user present
        (policy, step, the user who arrived at it, user, tasks and dominant
        share, with their exact ``"p/q"`` text when exact)."""
        return to_frame(COLUMNS, self.rows(), "DynamicRun.to_pandas()")

    def _repr_html_(self) -> str:
        """Tasks after each arrival, a row per step (the first
        :data:`~models.display.HTML_MAX_ROWS` steps and users shown)."""
        shown = min(self.n, HTML_MAX_ROWS)  # never build 10^3 x 10^3 cells to show 40 x 40
        users = self.instance.users[:shown]
        xs = self.steps.x_exact if self.exact else None
        body = [[k, self.instance.users[k - 1],
                 *(_plain(xs[k - 1][i] if xs is not None else self.steps.x[k - 1, i]) if i < k else ""
                   for i in range(shown))] for k in range(1, shown + 1)]
        caption = f"{self.policy}: tasks after each arrival" + (" (exact)" if self.exact else "")
        if shown < self.n:
            caption += f"; the first {shown} of {self.n} users"
        return html_table(["step", "arrives", *users], body, caption, total=self.n)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the instance and, per step, the tasks of the
        users present (exact numbers as ``"p/q"`` strings with a float
        beside them)."""
        vals = self.steps.values()
        out_steps = []
        for k in range(1, self.n + 1):
            tasks: dict[str, Any] = {}
            for i, u in enumerate(self.instance.users[:k]):
                entry: dict[str, Any] = {}
                if self.exact:
                    put_exact(entry, "tasks", vals[k - 1][i])
                else:
                    entry["tasks"] = vals[k - 1][i]
                tasks[u] = entry
            out_steps.append({"step": k, "arrived": self.instance.users[k - 1], "users": tasks})
        return {"policy": self.policy, "exact": self.exact, "instance": self.instance.to_dict(), "steps": out_steps}

    def plot(self, path: str | Path | None = None, *, ax: Any = None, title: str | None = None,
             **style: Any) -> Any:
        """Each user's share of every resource and its dominant share after
        every arrival, as step lines (one panel per resource, and the
        dominant shares; only the dominant shares into ``ax``); returns the
        matplotlib ``Figure`` (also written to ``path`` when given). Style
        keywords (``figsize``, ``dpi``, ``style``) as for
        :func:`analyzer.plotting.plot_shares_over_time`."""
        from ..plotting.timeline import plot_shares_over_time

        s = self.shares
        times = np.arange(1, self.n + 2)
        series = np.concatenate([s, s[-1:]], axis=0)  # the last step holds to the right edge
        return plot_shares_over_time(times, series, self.instance.users, self.instance.resources, path, ax=ax,
                                     title=title or f"{self.policy}: after each arrival", arrivals=True,
                                     **style)


def _plain(v: Any) -> Any:
    """An exact number as an int or ``"p/q"`` text, a float as itself."""
    if isinstance(v, float | np.floating):
        return float(v)
    text = exact_str(v)
    return int(text) if text.lstrip("-").isdigit() else text


def dynamic_run(instance: Any, policy: str | Policy = "dynamic-drf", exact: bool = False) -> DynamicRun:
    """The allocation after every arrival: users arrive in the instance's
    user order (Kash, Procaccia and Shah, JAIR 51, 2014).

    Parameters
    ----------
    instance : Instance, dict or path
        The scenario; its user order is the arrival order.
    policy : str or Policy
        A dynamic mechanism (``"dynamic-drf"``, ``"cautious-drf"``) or any
        static policy, recomputed on the users present at every arrival.
    exact : bool
        Exact numbers (Fractions) where the policy solves exactly.

    Returns
    -------
    DynamicRun
        ``.tasks_at(k)`` for ``k = 1..n``, ``.allocation_at(k)``,
        ``.to_pandas()``, ``.plot()``.

    Raises
    ------
    PolicyError
        For an unknown policy, or one that does not apply to the instance.

    Examples
    --------
    >>> from analyzer import Instance, dynamic_run
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    >>> run = dynamic_run(inst, "dynamic-drf", exact=True)
    >>> run.tasks_at(1), run.tasks_at(2)
    ({'A': Fraction(9, 4)}, {'A': Fraction(3, 1), 'B': Fraction(2, 1)})
    """
    from ..api import as_instance

    inst = as_instance(instance)
    pol = get_policy(policy)
    if pol.discrete_only:
        raise PolicyError(f"policy {pol.label!r} is defined for whole tasks only: it has no dynamic run")
    reason = pol.supports(inst)
    if reason is not None:
        raise PolicyError(f"policy {pol.label!r} does not apply: {reason}")
    got = steps(pol, inst, exact=exact)
    return DynamicRun(inst, pol.label, got.exact, got)
