"""``--scheduler``: searches and tables on a Dask cluster give the
single-process results (a local cluster on loopback; skipped without dask)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("distributed")

from analyzer import cli  # noqa: E402
from analyzer.search import dask_backend  # noqa: E402
from analyzer.search.engine import search  # noqa: E402
from analyzer.table import property_table  # noqa: E402


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    from distributed import LocalCluster

    # threads in this process: two worker threads, so the engine splits the
    # stream into two chunks per round and really sends them to the cluster
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_pool_facade(scheduler: str) -> None:
    with dask_backend.dask_pool(scheduler) as pool:
        assert pool.workers == 2
        assert pool.starmap(pow, [(2, 3), (3, 2), (5, 0)]) == [8, 9, 1]
        assert sorted(pool.imap_unordered(abs, [-3, 1, -2])) == [1, 2, 3]


@pytest.mark.parametrize(("policy", "prop"), [("asset", "sharing-incentive"), ("drf", "envy-freeness")])
def test_search_on_dask_equals_single_process(scheduler: str, policy: str, prop: str) -> None:
    one = search(policy, prop, budget=300, seed=4, workers=1)
    dist = search(policy, prop, budget=300, seed=4, scheduler=scheduler)
    assert dist.outcome() == one.outcome()
    assert (one.counterexample is not None) == (policy == "asset")  # one search that finds, one that does not


def _cells(table: Any) -> list[dict[str, Any]]:
    cells = table.to_dict()["cells"]
    for c in cells:
        c.pop("seconds", None)
    return cells


def test_table_on_dask_equals_single_process(scheduler: str) -> None:
    args: dict[str, Any] = {"budget": 120, "seed": 3}
    one = property_table(["asset", "drf"], ["sharing-incentive", "envy-freeness"], workers=1, **args)
    dist = property_table(["asset", "drf"], ["sharing-incentive", "envy-freeness"], scheduler=scheduler, **args)
    assert _cells(dist) == _cells(one)


def test_unreachable_scheduler_is_one_line_exit_2(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dask_backend, "CONNECT_TIMEOUT_SECONDS", 1)
    for command in (["search", "--policy", "drf", "--property", "sharing-incentive"],
                    ["table", "--policy", "drf", "--property", "sharing-incentive"]):
        code = cli.main([*command, "--budget", "10", "--quiet", "--scheduler", "tcp://127.0.0.1:9"])
        err = capsys.readouterr().err
        assert code == 2
        assert err.count("\n") == 1 and "--scheduler: cannot reach tcp://127.0.0.1:9" in err
