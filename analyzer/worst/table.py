"""Policies x metrics: one worst-case search per cell, cells spread over
the cores (processes) or a Dask cluster (``scheduler``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..render import Table, fmt_number
from .result import WorstCase

#: A cell's arguments: policy, metric, users, resources, seed, budget, domain, timeout.
CellArgs = tuple[str, str, int, int, int, "int | None", str, "float | None"]


def run_cell(args: CellArgs) -> WorstCase:
    """One cell (runs in a worker; no bound: the table is about the search)."""
    from .core import worst_case

    policy, metric, users, resources, seed, budget, domain, timeout = args
    return worst_case(policy, metric, users, resources, seed=seed, budget=budget, domain=domain, timeout=timeout,
                      bound=False)


@dataclass
class WorstTable:
    """Worst values by (policy, metric)."""

    policies: list[str]
    metrics: list[str]
    users: int
    resources: int
    cells: dict[tuple[str, str], WorstCase] = field(default_factory=dict)
    interrupted: bool = False

    def __getitem__(self, key: tuple[str, str]) -> WorstCase:
        return self.cells[key]

    def table(self) -> Table:
        rows = []
        for p in self.policies:
            for m in self.metrics:
                r = self.cells.get((p, m))
                if r is None:
                    rows.append([p, m, "", "", "not run (interrupted)", ""])
                else:
                    rows.append([p, m, r.direction, fmt_number(r.value), r.instance.describe(), str(r.evaluations)])
        return Table(f"Worst cases at {self.users} users x {self.resources} resources",
                     ["policy", "metric", "worst", "value", "instance", "evaluations"], rows)

    def to_dict(self) -> dict[str, Any]:
        return {"users": self.users, "resources": self.resources, "interrupted": self.interrupted,
                "cells": [self.cells[k].to_dict() for k in sorted(self.cells)]}

    def to_pandas(self) -> Any:
        import pandas as pd

        t = self.table()
        return pd.DataFrame(t.rows, columns=t.headers)


def worst_table(policies: Sequence[str], metrics: Sequence[str], users: int = 2, resources: int = 2, *,
                seed: int = 0, budget: int | None = None, domain: str = "positive", timeout: float | None = None,
                workers: int | None = None, scheduler: Any = None,
                progress: Callable[[int], None] | None = None) -> WorstTable:
    """Run every (policy, metric) cell; Ctrl-C keeps the cells finished."""
    from models import get_policy

    from ..searching.pool import worker_pool
    from .core import check_size
    from .metrics import get_metric

    check_size(users, resources, domain)
    labels = [get_policy(p).label for p in policies]
    names = [get_metric(m).name for m in metrics]
    out = WorstTable(labels, names, users, resources)
    jobs: list[CellArgs] = [(p, m, users, resources, seed, budget, domain, timeout) for p in labels for m in names]
    try:
        with worker_pool(workers, scheduler) as (pool, _):
            results = map(run_cell, jobs) if pool is None else pool.imap_unordered(run_cell, jobs)
            for r in results:
                out.cells[(r.policy, r.metric)] = r
                if progress is not None:
                    progress(1)
    except KeyboardInterrupt:
        out.interrupted = True
    return out
