"""The simulator's kernel engine (analyzer/simulation/fast.py, kernel.py):
the same decisions as the one-task-per-decision reference loop, and the
same results compiled with numba or run as Python, or switching from
Python to compiled in the middle of a run (analyzer/simulation/dispatch.py)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from analyzer import simulate
from analyzer.simulation.fast import kernel_keys
from analyzer.simulation.keys import share_model
from analyzer.simulation.workload import as_workload
from models import kernels
from models.compiled import numba_available


def random_workload(seed: int) -> dict:
    """Several machine shapes, arrivals, cycled durations, ``until`` and resubmitted jobs."""
    rng = np.random.default_rng(seed)
    jobs = [{"user": f"u{rng.integers(5)}", "arrival": int(rng.integers(0, 30)), "tasks": int(rng.integers(1, 60)),
             "demand": {"cpu": int(rng.integers(1, 4)), "mem": int(rng.integers(0, 5))},
             "duration": [int(v) for v in rng.integers(1, 9, size=int(rng.integers(1, 3)))],
             **({"until": int(rng.integers(5, 40))} if rng.random() < 0.3 else {}),
             **({"repeat": True} if rng.random() < 0.2 else {})} for _ in range(10)]
    return {"machines": [{"count": 3, "cpu": 6, "mem": 8}, {"count": 2, "cpu": 3, "mem": 12}], "jobs": jobs}


def outcome(r) -> tuple:
    jobs = [(j.job, j.arrival, j.start, j.finish, j.tasks, j.truncated, j.open) for j in r.jobs]
    return jobs, r.times.tolist(), r.used.tolist(), r.timeline()["shares"].tolist(), r.users


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("policy", ["drf", "asset", "slots:slots=3", "single-resource:resource=cpu"])
def test_kernel_equals_one_task_per_decision(seed: int, policy: str) -> None:
    # batched launches, first fit through the machine tree and per-machine events change no decision
    # (over-committed machines included: each task gets the slow-down just after it, as one at a time)
    w = random_workload(seed)
    opts = {"until": 80, "overcommit_penalty": {"mem": 2.5}}
    fast, ref = simulate(w, policy, **opts), simulate(w, policy, batch=False, **opts)
    assert fast.stats["engine"] in ("compiled", "python") and "engine" not in ref.stats
    assert outcome(fast) == outcome(ref)
    np.testing.assert_allclose(fast.work, ref.work)
    assert fast.stats["decisions"] <= ref.stats["decisions"]


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("policy", ["drf", "slots:slots=3", "single-resource:resource=cpu"])
def test_compiled_and_python_kernels_identical(seed: int, policy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    w = random_workload(seed)
    opts = {"until": 80, "overcommit_penalty": {"mem": 2.5}, "tie_break": "random" if seed % 2 else "index",
            "seed": seed}
    switch = (0, 25, 120)[seed % 3]  # compiled from the start, or Python until this many events and decisions
    monkeypatch.setitem(kernels.COMPILE_MIN_WORK, "events", switch)
    monkeypatch.setattr(kernels, "_FORMS", {})  # not loaded yet: a run loads it when its work reaches the threshold
    compiled = simulate(w, policy, **opts)
    monkeypatch.setenv("FAIRALLOC_NO_NUMBA", "1")
    python = simulate(w, policy, **opts)
    assert (compiled.stats["engine"], python.stats["engine"]) == ("compiled", "python")
    assert python.stats["compiled_after"] is None and compiled.stats["compiled_after"] >= switch
    if switch:  # the switch happened in the middle of the run
        assert compiled.stats["compiled_after"] < compiled.stats["events"] + compiled.stats["decisions"]
    assert outcome(compiled) == outcome(python)
    assert compiled.work.tobytes() == python.work.tobytes()  # bit for bit
    assert compiled.log is not None and python.log is not None
    assert all(np.array_equal(a, b) for a, b in zip(compiled.log, python.log, strict=True))
    for key in ("decisions", "events", "tasks_launched", "tasks_running"):
        assert compiled.stats[key] == python.stats[key]


@pytest.mark.parametrize("policy", ["drf", "asset", "single-resource:resource=cpu", "slots:slots=4"])
def test_kernel_keys_are_the_policy_share(policy: str) -> None:
    # the kernel's max/sum of U_j / den_j equals the policy's own share bit for bit (else the reference engine runs)
    model = share_model(policy, as_workload(random_workload(0)))
    form, den = kernel_keys(model)
    U = np.random.default_rng(3).integers(0, 50, size=(100, model.columns))
    terms = U[:, den > 0] / den[den > 0]
    mine = terms.max(axis=1) if form == 0 else terms.sum(axis=1)
    assert np.array_equal(mine, model.shares(U))


def test_a_kernel_run_pauses_the_cyclic_collector_and_restores_it() -> None:
    # issue 31: the run's specs and records are acyclic, and the collector's full scans of the heap were ~5 % of
    # the Alibaba table; the decisions do not depend on it (the outcomes above are compared with it paused)
    seen: list[bool] = []
    w = random_workload(0)
    fast = simulate(w, "drf", until=80, progress=lambda n: seen.append(gc.isenabled()))
    assert fast.stats["engine"] in ("compiled", "python")
    assert seen and not any(seen) and gc.isenabled()
    ref_seen: list[bool] = []
    simulate(w, "drf", until=80, batch=False, progress=lambda n: ref_seen.append(gc.isenabled()))
    assert ref_seen and all(ref_seen)  # the reference engine is left as it was
    gc.disable()
    try:
        simulate(w, "drf", until=80)
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()
