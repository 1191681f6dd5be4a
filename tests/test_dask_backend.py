"""``--scheduler``: searches and tables on a Dask cluster give the
single-process results (a local cluster on loopback; skipped without dask)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("distributed")

from analyzer.cli import main as cli  # noqa: E402
from analyzer.searching import dask_backend  # noqa: E402
from analyzer.searching.engine import search  # noqa: E402
from analyzer.tables.table import property_table  # noqa: E402


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    from distributed import LocalCluster

    # threads in this process: two worker threads, so the engine splits the
    # stream into two chunks per round and really sends them to the cluster
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def scheduler(cluster: Any) -> str:
    return cluster.scheduler_address


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
    import threading

    monkeypatch.setattr(dask_backend, "CONNECT_TIMEOUT_SECONDS", 1)
    threads = threading.active_count()
    for command in (["search", "--policy", "drf", "--property", "sharing-incentive"],
                    ["table", "--policy", "drf", "--property", "sharing-incentive"]):
        code = cli.main([*command, "--budget", "10", "--quiet", "--scheduler", "tcp://127.0.0.1:9"])
        err = capsys.readouterr().err
        assert code == 2
        assert err.count("\n") == 1 and "--scheduler: cannot reach tcp://127.0.0.1:9" in err
    # no event-loop thread of a failed Client is left behind (a later fork of a process pool could deadlock on it)
    assert threading.active_count() == threads


def test_client_and_cluster_objects_are_accepted(cluster: Any) -> None:
    from distributed import Client

    one = property_table(["asset"], ["sharing-incentive"], budget=60, seed=1, workers=1)
    with Client(cluster, set_as_default=False) as client:
        via_client = property_table(["asset"], ["sharing-incentive"], budget=60, seed=1, scheduler=client)
        assert client.status == "running"  # a caller's client is left open
    via_cluster = property_table(["asset"], ["sharing-incentive"], budget=60, seed=1, scheduler=cluster)
    assert _cells(via_client) == _cells(one) == _cells(via_cluster)
    assert search("drf", "envy-freeness", budget=60, seed=1, scheduler=cluster).outcome() == \
        search("drf", "envy-freeness", budget=60, seed=1, workers=1).outcome()
    with pytest.raises(dask_backend.SchedulerError, match="expected an address"):
        search("drf", "envy-freeness", budget=10, scheduler=42)


def test_search_default_workers_match_table() -> None:
    import inspect

    from analyzer.searching.engine import search as engine_search

    assert inspect.signature(engine_search).parameters["workers"].default is None
    assert inspect.signature(property_table).parameters["workers"].default is None


BOOM = """from models import FillingPolicy, register


@register
class Boom(FillingPolicy):
    name = "boom-on-workers"
    description = "DRF that fails on a Dask worker"

    def share_per_task(self, demands, capacity):
        from distributed import get_worker

        try:
            get_worker()
        except ValueError:  # not on a worker: behave
            return (demands / capacity).max(axis=1)
        raise RuntimeError("boom")
"""


def test_a_worker_failure_is_one_line_and_exit_2(tmp_path: Any, capsys: pytest.CaptureFixture[str],
                                                 scheduler: str) -> None:
    from analyzer.policy_file import forget_policy_file

    f = tmp_path / "boom.py"
    f.write_text(BOOM)
    try:
        for command in (["search", "--policy", "boom-on-workers", "--property", "envy-freeness"],
                        ["table", "--policy", "boom-on-workers", "--property", "envy-freeness"]):
            # budget 100: positions for more than one chunk (engine.POOL_CHUNK), so chunks go to the workers
            code = cli.main(["--policy-file", str(f), *command, "--budget", "100", "--quiet", "--scheduler", scheduler])
            err = capsys.readouterr().err
            assert code == 2, err
            assert err.count("\n") == 1 and "--scheduler: a worker failed: RuntimeError: boom" in err
    finally:
        forget_policy_file(f)


def test_policy_file_is_shipped_to_worker_processes(tmp_path: Any) -> None:
    # a worker in another process, which cannot read the file (deleted before
    # the search): the plugin gives it the source, the search runs there
    import os
    from pathlib import Path

    from distributed import LocalCluster

    from analyzer import load_policy_file
    from analyzer.policy_file import forget_policy_file

    root = Path(__file__).resolve().parents[1]
    f = tmp_path / "mix.py"
    f.write_text((root / "examples" / "new_policy.py").read_text().replace("drf-asset-mix", "shipped-mix"))
    load_policy_file(f)
    try:
        one = search("shipped-mix", "sharing-incentive", budget=40, seed=0, workers=1)
        f.unlink()
        env = {"PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
        with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, protocol="tcp", host="127.0.0.1",
                          dashboard_address=None, env=env) as procs:
            dist = search("shipped-mix", "sharing-incentive", budget=40, seed=0, scheduler=procs)
        assert dist.outcome() == one.outcome() and dist.counterexample is not None
    finally:
        forget_policy_file(f)


@pytest.mark.slow
def test_cli_policy_file_on_a_separate_scheduler_and_worker(tmp_path: Any) -> None:
    # `dask scheduler` and `dask worker` as their own processes: the scheduler
    # deserialises the tasks too, so the policy file must reach it as well
    import json
    import os
    import shutil
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    dask = shutil.which("dask") or pytest.skip("no dask command line")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    info = tmp_path / "scheduler.json"
    flags = ["--scheduler-file", str(info), "--no-dashboard"]
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", *flags], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for _ in range(300):
            if info.exists() and info.read_text().strip():
                break
            time.sleep(0.1)
        procs.append(subprocess.Popen([dask, "worker", "--nthreads", "2", *flags], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        address = json.loads(info.read_text())["address"]
        policy = tmp_path / "mine.py"
        policy.write_text((root / "examples" / "new_policy.py").read_text())
        argv = [sys.executable, "-m", "analyzer", "--policy-file", str(policy), "table", "--policy", "drf-asset-mix",
                "--property", "sharing-incentive,envy-freeness", "--budget", "60", "--quiet", "--format", "json"]
        dist = subprocess.run([*argv, "--scheduler", address], env=env, capture_output=True, text=True, timeout=300,
                              check=False)
        local = subprocess.run([*argv, "--workers", "1"], env=env, capture_output=True, text=True, timeout=300,
                               check=False)
        assert dist.returncode == 0, dist.stderr
        cells = [{k: v for k, v in c.items() if k != "seconds"} for c in json.loads(dist.stdout)["cells"]]
        assert cells == [{k: v for k, v in c.items() if k != "seconds"} for c in json.loads(local.stdout)["cells"]]
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
