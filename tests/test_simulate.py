"""Dynamic simulation (issue 14; Ghodsi et al., NSDI 2011, Section 7):
hand-worked timelines, invariants on random workloads, steady state equal
to static progressive filling, over-commit, trace readers, bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analyzer import InstanceError, PolicyError, load_trace, progressive_filling, simulate

ROOT = Path(__file__).resolve().parent.parent
TRACE = next((p for p in (ROOT.parent / "shared", Path("/work/shared"))
              if (p / "traces" / "alibaba_v2017_batch_task.csv").is_file()), ROOT.parent / "shared") \
    / "traces" / "alibaba_v2017_batch_task.csv"


def wl(jobs: list[dict], machines: list[dict] | None = None, **extra: object) -> dict:
    return {"machines": machines or [{"count": 1, "cpu": 4, "mem": 4}], "jobs": jobs, **extra}


def times(r) -> list[tuple[str, float, float, float]]:
    return [(j.job, j.arrival, j.start, j.finish) for j in r.jobs]


# ---------------------------------------------------------------- by hand
def test_one_user_waves() -> None:
    # 2 cpu: 4 tasks of 1 cpu, 10 s -> two waves: 0-10, 10-20
    r = simulate(wl([{"user": "a", "tasks": 4, "demand": {"cpu": 1, "mem": 1}, "duration": 10}],
                    [{"count": 1, "cpu": 2, "mem": 2}]))
    assert times(r) == [("a#0", 0.0, 0.0, 20.0)]
    assert r.utilization_at(5) == {"cpu": 1.0, "mem": 1.0}
    assert r.utilization_mean == {"cpu": 1.0, "mem": 1.0}
    assert r.jobs_completed == {"a": 1} and r.mean_response_time == {"a": 20.0}


def test_two_users_drf_order_and_cycled_durations() -> None:
    # cluster <4 cpu, 4 mem>; A <1,2> (dominant mem), B <1,1>. At 0: A (tie at 0, A first) -> 1/2;
    # B -> 1/4, B -> 1/2; tie 1/2: A first, but mem is full (2 + 2): A skipped, B's third does not fit either.
    r = simulate(wl([{"user": "A", "tasks": 2, "demand": {"cpu": 1, "mem": 2}, "duration": [5, 7]},
                     {"user": "B", "tasks": 3, "demand": {"cpu": 1, "mem": 1}, "duration": 4}]))
    assert r.share_at(0) == {"A": {"cpu": 0.25, "mem": 0.5}, "B": {"cpu": 0.5, "mem": 0.5}}
    # 4: B's two end; B (share 0) starts its third (4-8); A's second needs mem 2, only 1 free.
    # 5: A's first (5 s) ends; A's second (7 s, durations cycle) runs 5-12.
    assert times(r) == [("A#0", 0.0, 0.0, 12.0), ("B#1", 0.0, 0.0, 8.0)]
    assert r.share_at(4.5) == {"A": {"cpu": 0.25, "mem": 0.5}, "B": {"cpu": 0.25, "mem": 0.25}}
    assert r.dominant_share_at(6) == {"A": 0.5, "B": 0.25}
    assert r.utilization_at(9) == {"cpu": 0.25, "mem": 0.5}


def test_arrival_until_and_repeat() -> None:
    w = wl([{"user": "a", "tasks": 100, "demand": {"cpu": 2, "mem": 1}, "duration": 10, "until": 15},
            {"user": "b", "arrival": 5, "tasks": 2, "demand": {"cpu": 2, "mem": 1}, "duration": 3, "repeat": True}])
    r = simulate(w, until=30)
    recs = {j.job: j for j in r.jobs}
    # 0: a fills both cpu halves (0-10). 5: b waits. 10: a and b tie at 0, a (seen first) takes one (10-20),
    # b one (10-13). 13: b (0 < a's 1/2) runs its second (13-16). 15: a launches nothing more (until).
    # 16: b's job is done and resubmitted: 16-19, 19-22; then both halves: 22-25, 25-28, 28-31 (past 30).
    a = recs["a#0"]
    assert (a.start, a.finish, a.tasks, a.truncated, a.completed) == (0.0, 20.0, 3, True, False)
    assert (recs["b#1"].arrival, recs["b#1"].start, recs["b#1"].finish) == (5.0, 10.0, 16.0)
    assert [(recs[f"b#1@{k}"].arrival, recs[f"b#1@{k}"].finish) for k in (1, 2, 3)] == \
        [(16.0, 22.0), (22.0, 25.0), (25.0, 28.0)]
    assert recs["b#1@4"].finish is None and r.end == 30.0
    assert r.jobs_completed == {"a": 0, "b": 4}
    assert r.mean_response_time["b"] == pytest.approx((11 + 6 + 3 + 3) / 4)


def test_tie_break_random_is_seeded() -> None:
    w = wl([{"user": u, "tasks": 3, "demand": {"cpu": 1, "mem": 1}, "duration": 1} for u in "abcd"])
    a = simulate(w, tie_break="random", seed=3).share_at(0)
    assert a == simulate(w, tie_break="random", seed=3).share_at(0)
    assert {u: v["cpu"] for u, v in simulate(w).share_at(0).items()} == dict.fromkeys("abcd", 0.25)


# ---------------------------------------------------------------- steady state
@pytest.mark.parametrize("policy", ["drf", "asset", "single-resource:resource=cpu"])
def test_steady_state_equals_progressive_filling(policy: str) -> None:
    machines = [{"count": 3, "cpu": 4, "mem": 6}, {"count": 2, "cpu": 8, "mem": 3}]
    demands = {"u0": (1, 2), "u1": (2, 1), "u2": (1, 1), "u3": (3, 1)}
    jobs = [{"user": u, "tasks": 1000, "demand": {"cpu": c, "mem": m}, "duration": 100}
            for u, (c, m) in demands.items()]
    r = simulate(wl(jobs, machines), policy, aware="all")
    inst = {"resources": {"cpu": 28, "mem": 24}, "machines": machines,
            "users": {u: {"demand": {"cpu": c, "mem": m}} for u, (c, m) in demands.items()}}
    static = progressive_filling(inst, policy, tie_break="index", on_full="skip")
    held = r.usage_at(50)
    tasks = [int(held[i, 0] // demands[u][0]) for i, u in enumerate(r.users)]
    assert tasks == static.tasks.tolist() if hasattr(static.tasks, "tolist") else list(static.tasks.values())


# ---------------------------------------------------------------- invariants
def random_workload(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    jobs = [{"user": f"u{rng.integers(4)}", "arrival": int(rng.integers(0, 30)), "tasks": int(rng.integers(1, 40)),
             "demand": {"cpu": int(rng.integers(1, 4)), "mem": int(rng.integers(0, 5))},
             "duration": [int(v) for v in rng.integers(1, 9, size=int(rng.integers(1, 3)))]} for _ in range(8)]
    return wl(jobs, [{"count": 3, "cpu": 6, "mem": 8}])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("policy", ["drf", "slots:slots=3", "single-resource:resource=cpu"])
def test_invariants(seed: int, policy: str) -> None:
    w = random_workload(seed)
    r = simulate(w, policy, overcommit_penalty={"mem": 2.0})
    total = sum(j["tasks"] for j in w["jobs"])
    assert r.stats["tasks_launched"] == total and r.stats["tasks_running"] == 0  # every task ran once
    assert sum(j.tasks for j in r.jobs) == total and all(j.completed for j in r.jobs)
    np.testing.assert_allclose(r.busy(), r.work)  # busy time = work
    util = r.timeline()["utilization"]
    if policy == "drf":  # DRF never over-commits
        assert util.max() <= 1.0
    else:
        assert util[:, 0].max() <= 1.0 or policy.startswith("slots")
    shares = r.timeline()["shares"]
    assert shares.min() >= 0


@pytest.mark.parametrize("seed", range(6))
def test_timeline_shares_are_the_use_at_each_time(seed: int) -> None:
    """timeline()'s shares (all users at once) equal usage_at at every event
    time, for all users and for a reordered subset."""
    r = simulate(random_workload(seed), "slots:slots=3")
    reference = np.array([r.usage_at(t) / r.capacity for t in r.times])
    np.testing.assert_array_equal(r.timeline()["shares"], reference)
    subset = [r.users[-1], r.users[0]]
    np.testing.assert_array_equal(r.timeline(subset)["shares"], reference[:, [len(r.users) - 1, 0]])


def test_drf_never_overcommits_slots_do() -> None:
    # paper Section 7.2: 4 slots on <8 cpu, 6 GB>, tasks <2, 2>: 4 tasks on a node need 8 GB
    jobs = [{"user": "big", "tasks": 8, "demand": {"cpu": 2, "mem": 2}, "duration": 10}]
    machines = [{"count": 2, "cpu": 8, "mem": 6}]
    drf = simulate(wl(jobs, machines), "drf")
    slots = simulate(wl(jobs, machines), "slots:slots=4", overcommit_penalty={"mem": 3.0, "cpu": 0.0})
    assert max(drf.timeline()["utilization"][:, 1]) <= 1.0
    assert drf.jobs[0].finish == 20.0  # 3 per node: 6 at 0-10, 2 at 10-20
    assert slots.utilization_at(1)["mem"] == pytest.approx(16 / 12)
    # each node holds 8 GB of 6: over-commit 1/3, duration 10 * (1 + 3 * 1/3) = 20
    assert slots.jobs[0].finish == pytest.approx(20.0)
    fit = simulate(wl(jobs, machines), "slots:slots=4", slot_tasks="fit")  # 2 slots per task: never over-commits
    assert max(fit.timeline()["utilization"][:, 1]) <= 1.0


def test_properties_over_time() -> None:
    # CPU-only fairness on <1,3> vs <3,1>: the memory-heavy user is starved of memory
    jobs = [{"user": "A", "tasks": 50, "demand": {"cpu": 1, "mem": 4}, "duration": 10},
            {"user": "B", "tasks": 50, "demand": {"cpu": 3, "mem": 1}, "duration": 10}]
    machines = [{"count": 1, "cpu": 9, "mem": 18}]
    drf = simulate(wl(jobs, machines), "drf", check_properties=True)
    assert drf.violations == ()
    bad = simulate(wl([{"user": "A", "tasks": 50, "demand": {"cpu": 1, "mem": 1}, "duration": 10},
                       {"user": "B", "arrival": 1, "tasks": 50, "demand": {"cpu": 1, "mem": 1}, "duration": 10}],
                      [{"count": 1, "cpu": 8, "mem": 8}]), "drf", check_properties=True)
    # B arrives at 1 to a full cluster: sharing incentive and envy fail until A's tasks end at 10
    kinds = {(v["property"], v["user"], v["time"]) for v in bad.violations}
    assert ("sharing-incentive", "B", 1.0) in kinds and ("envy-freeness", "B", 1.0) in kinds
    assert all(v["time"] < 10 for v in bad.violations)


def test_interrupt_keeps_what_was_simulated() -> None:
    calls = []

    def progress(n: int) -> None:
        calls.append(n)
        if len(calls) == 3:
            raise KeyboardInterrupt

    r = simulate(wl([{"user": "a", "tasks": 40, "demand": {"cpu": 1, "mem": 1}, "duration": 1}]), progress=progress)
    assert r.stats["interrupted"] and r.stats["tasks_launched"] == 12 and r.end == 2.0


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(("data", "field"), [
    ({"jobs": []}, "machines"),
    (wl([]), "jobs"),
    (wl([{"user": "a", "tasks": 1, "demand": {"cpu": -1}, "duration": 1}]), "jobs[0].demand.cpu"),
    (wl([{"user": "a", "tasks": 1.5, "demand": {"cpu": 1}, "duration": 1}]), "jobs[0].tasks"),
    (wl([{"user": "a", "tasks": 1, "demand": {"gpu": 1}, "duration": 1}]), "jobs[0].demand.gpu"),
    (wl([{"user": "a", "tasks": 1, "demand": {"cpu": 1}, "duration": []}]), "jobs[0].duration"),
    (wl([{"user": "a", "tasks": 1, "demand": {"cpu": 1}, "duration": 1, "colour": 1}]), "jobs[0].colour"),
    (wl([{"user": "a", "tasks": 1, "demand": {"cpu": 1}, "duration": 1}], [{"count": 0, "cpu": 1}]),
     "machines[0].count"),
])
def test_bad_workload(data: dict, field: str) -> None:
    with pytest.raises(InstanceError, match=field.replace("[", r"\[").replace("]", r"\]")):
        simulate(data)


def test_bad_options() -> None:
    w = wl([{"user": "a", "tasks": 1, "demand": {"cpu": 1}, "duration": 1, "repeat": True}])
    with pytest.raises(PolicyError, match="until"):
        simulate(w)
    with pytest.raises(PolicyError, match="colour"):
        simulate(w, until=5, colour=1)
    with pytest.raises(PolicyError, match="overcommit_penalty.gpu"):
        simulate(w, until=5, overcommit_penalty={"gpu": 1})
    with pytest.raises(PolicyError, match="per-user share"):
        simulate(w, "ceei", until=5)


# ---------------------------------------------------------------- traces
def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_alibaba_2017_reader(tmp_path: Path) -> None:
    p = write(tmp_path, "t.csv", "task_create_time, task_end_time, job_id, task_id,number_of_instances, status, "
              "cpus,mem\n20,30,7,2,3,Terminated,100,0.25\n10,30,7,1,2,Terminated,50,0.5\n"
              "5,9,8,3,4,Waiting,,\n12,12,9,4,1,Terminated,200,0.125\n")
    w = load_trace(p, machines={"count": 2, "cpu": 2, "mem": 1.0})
    specs = list(w.specs())
    assert [(s.job, s.arrival, s.tasks, s.durations) for s in specs] == \
        [("7", 10.0, 2, (20.0,)), ("9", 12.0, 1, (1.0,)), ("7", 20.0, 3, (10.0,))]
    assert specs[0].demand.tolist() == [50, 500_000_000]
    r = simulate(w)
    assert r.stats["tasks_launched"] == 6 and r.users == ("7", "9")
    assert {j.job: (j.arrival, j.finish) for j in r.jobs}["7"] == (10.0, 40.0)  # 3rd of task 4 waits to 30


def test_alibaba_2018_reader(tmp_path: Path) -> None:
    p = write(tmp_path, "batch_task.csv", "M1,2,j_1,1,Terminated,100,110,50,0.39\n"
              "R2_1,1,j_1,1,Terminated,110,130,100,0.5\nM1,5,j_2,1,Failed,100,101,50,0.1\n")
    w = load_trace(p, "alibaba-2018", machines={"count": 1, "cpu": 96, "mem": 100})
    specs = list(w.specs())
    assert [(s.job, s.arrival, s.tasks, s.demand.tolist()) for s in specs] == \
        [("j_1", 100.0, 2, [50, 39]), ("j_1", 110.0, 1, [100, 50])]
    assert simulate(w).jobs[0].finish == 130.0


def test_own_csv_reader(tmp_path: Path) -> None:
    p = write(tmp_path, "w.csv", "job,user,arrival,tasks,duration,cpu,mem\nj1,alice,0,2,5,1,0.5\nj2,bob,1,1,3,2,1\n")
    w = load_trace(p, "csv", machines={"count": 1, "cpu": 4, "mem": 2})
    r = simulate(w)
    assert r.users == ("alice", "bob") and [(j.job, j.finish) for j in r.jobs] == [("j1", 5.0), ("j2", 4.0)]


@pytest.mark.parametrize(("text", "fmt", "field"), [
    ("job,arrival,tasks\nj,0,1\n", "csv", "duration"),
    ("job,arrival,tasks,duration,cpu\nj,0,-1,1,1\n", "csv", "tasks"),
    ("job,arrival,tasks,duration,cpu\nj,0,1,1,x\n", "csv", "csv format"),
])
def test_bad_traces(tmp_path: Path, text: str, fmt: str, field: str) -> None:
    p = write(tmp_path, "bad.csv", text)
    with pytest.raises(InstanceError, match=field):
        simulate(load_trace(p, fmt, machines={"count": 1, "cpu": 1}))


def test_bad_trace_arguments(tmp_path: Path) -> None:
    with pytest.raises(InstanceError, match="no such trace"):
        load_trace(tmp_path / "none.csv", machines={"count": 1, "cpu": 1})
    p = write(tmp_path, "t.csv", "a\n")
    with pytest.raises(InstanceError, match="format"):
        load_trace(p, "google", machines={"count": 1, "cpu": 1})
    with pytest.raises(InstanceError, match="machines"):
        load_trace(p)


@pytest.mark.skipif(not TRACE.is_file(), reason="the Alibaba trace is not in ../shared/traces")
def test_real_alibaba_prefix() -> None:
    w = load_trace(TRACE, machines={"count": 1300, "cpu": 64, "mem": 1.0})
    r = simulate(w, until=1000, record_users=False)
    assert r.stats["tasks_launched"] > 0 and r.stats["late_arrivals"] == 0
    assert max(r.utilization_mean.values()) <= 1.0


# ---------------------------------------------------------------- CLI
def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from analyzer.cli.main import main

    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_side_by_side_json_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    code, out, _ = run_cli(["simulate", str(ROOT / "examples" / "sim_section_7_2.toml"), "--until", "120",
                            "--policy", "drf,slots:slots=4,single-resource:resource=cpu", "--format", "json",
                            "--plot", str(tmp_path / "f.png")], capsys)
    assert code == 0 and (tmp_path / "f.png").stat().st_size > 0
    runs = json.loads(out)["simulations"]
    assert [r["policy"] for r in runs] == ["drf", "slots:slots=4", "single-resource:resource=cpu"]
    assert runs[0]["utilization_mean"]["mem"] <= 1.0 < runs[1]["stats"]["tasks_launched"]


def test_cli_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = write(tmp_path, "w.csv", "job,arrival,tasks,duration,cpu,mem\nj1,0,20,5,1,0.5\nj2,1,3,3,2,1\n")
    code, out, _ = run_cli(["simulate", str(p), "--trace", "csv", "--machines", "count=2,cpu=4,mem=2",
                            "--policy", "drf,slots:slots=4", "--check-properties"], capsys)
    assert code == 0 and "Reduction of mean completion time" in out and "Mean utilisation" in out


@pytest.mark.parametrize(("args", "field"), [
    (["--machines", "count=2"], "--machines"),
    (["--trace", "csv"], "--machines"),
    (["--trace", "csv", "--machines", "count=x"], "--machines"),
    (["--policy", "ceei"], "per-user share"),
    (["--policy", "drf,"], "--policy"),
    (["--overcommit-penalty", "mem"], "--overcommit-penalty"),
    (["--plot", "x.gif"], "-o"),
])
def test_cli_bad_input(args: list[str], field: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["simulate", str(ROOT / "examples" / "sim_section_7_1.toml"), *args], capsys)
    assert code == 2 and field in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("seed", range(4))
def test_batching_matches_one_task_per_decision(seed: int) -> None:
    # on one machine placement cannot differ: batched runs equal the per-task loop exactly
    w = random_workload(seed)
    w["machines"] = [{"count": 1, "cpu": 18, "mem": 24}]
    a, b = simulate(w, "drf"), simulate(w, "drf", batch=False)
    assert [(j.job, j.start, j.finish) for j in a.jobs] == [(j.job, j.start, j.finish) for j in b.jobs]
    assert a.stats["decisions"] <= b.stats["decisions"]


def test_trace_lookahead_counts_late_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from analyzer.simulation import traces

    p = write(tmp_path, "w.csv", "job,arrival,tasks,duration,cpu\na,5,1,1,1\nb,9,1,1,1\nc,1,1,1,1\nd,7,1,1,1\n")
    monkeypatch.setattr(traces, "CHUNK_ROWS", 1)
    monkeypatch.setattr(traces, "LOOKAHEAD_ROWS", 1)
    r = simulate(load_trace(p, "csv", machines={"count": 1, "cpu": 1}))
    # sorted within a window of one row: 5 is handed over before 1 is read; 1 is late and runs at once
    assert r.stats["late_arrivals"] == 1 and r.stats["tasks_launched"] == 4
    assert [j.job for j in r.jobs] == ["a", "c", "d", "b"]
