"""The worst-case table on a Dask cluster equals the one-process table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("distributed")

from analyzer.worst.table import worst_table  # noqa: E402


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_worst_table_on_dask_equals_one_process(scheduler: str) -> None:
    args: dict[str, Any] = {"users": 2, "resources": 2, "budget": 12, "seed": 1}
    one = worst_table(["drf", "asset"], ["envy", "utilization"], workers=1, **args)
    dist = worst_table(["drf", "asset"], ["envy", "utilization"], scheduler=scheduler, **args)
    assert {k: (c.value, c.instance) for k, c in dist.cells.items()} == {k: (c.value, c.instance)
                                                                         for k, c in one.cells.items()}


def test_frontier_on_dask_equals_one_process(scheduler: str) -> None:
    from analyzer import frontier

    args: dict[str, Any] = {"metric": "utilization", "properties": ["envy-freeness"], "budget": 10, "seed": 3}
    one = frontier("gfj", "beta", [1, "inf"], workers=1, **args)
    dist = frontier("gfj", "beta", [1, "inf"], scheduler=scheduler, **args)
    assert one.to_pandas().equals(dist.to_pandas())
    assert [p.worst.instance for p in one.points] == [p.worst.instance for p in dist.points]
