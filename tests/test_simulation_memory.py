"""Usage memory in the simulator (issue 32, deliverable 3;
analyzer/simulation/memory.py): the starvation case, the kernel against
the one-task-per-decision reference, Python against compiled, bad values
and the memoryless warning; cumulative fairness (analyzer/simulation/fairness.py)."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from test_simulation_kernel import outcome, random_workload

from analyzer import PolicyError, simulate
from analyzer.simulation import MemorylessWarning
from models import kernels
from models.compiled import numba_available

ROOT = Path(__file__).resolve().parent.parent
STARVATION = ROOT / "examples" / "sim_memory_starvation.toml"


def b_share(r, t: float) -> float:
    return r.dominant_share_at(t)["B"]


def test_starvation_drf_splits_memory_favours_the_newcomer() -> None:
    # A fills 32 one-core slots alone for an hour (tasks of 10 s); B arrives at 3600.
    drf = simulate(STARVATION, "drf", until=5400)
    assert all(b_share(drf, t) == 0.5 for t in np.arange(3610, 5400, 10))  # even within one task's duration
    mem = simulate(STARVATION, "drf:half_life=600", until=5400)
    assert all(b_share(mem, t) > 0.5 for t in np.arange(3600, 3600 + 15 * 60, 10))  # more than half for minutes
    assert b_share(mem, 3700) > 0.8 and b_share(mem, 5400) <= 0.5 + 1 / 32  # until the memory decays


def test_starvation_follows_the_memory_formula() -> None:
    # two users on a full cluster: B's share is (1 + d) / 2, d = M_A - M_B halving every h / 2 seconds
    # (memory.py); at B's arrival M_A = 1 - 2^-6 (A held everything for 6 half-lives), M_B = 0.
    r = simulate(STARVATION, "drf:half_life=600", until=5400)
    d0 = 1 - 2.0 ** -6
    for t in (3900, 4200, 4500, 4800):
        want = (1 + d0 * 2.0 ** (-(t - 3600) / 300)) / 2
        assert abs(b_share(r, t) - want) <= 1 / 32 + 0.01, t  # one task, and the 10 s steps


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("policy", ["drf:half_life=7", "asset:half_life=20", "slots:slots=3,half_life=15",
                                    "single-resource:resource=cpu,half_life=3"])
def test_memory_kernel_equals_one_task_per_decision(seed: int, policy: str) -> None:
    w = random_workload(seed)
    opts = {"until": 80, "overcommit_penalty": {"mem": 2.5}}
    fast, ref = simulate(w, policy, **opts), simulate(w, policy, batch=False, **opts)
    assert outcome(fast) == outcome(ref)


def test_memory_changes_decisions() -> None:
    w, opts = random_workload(1), {"until": 80}
    changed = [outcome(simulate(w, f"drf:half_life={h}", **opts)) != outcome(simulate(w, "drf", **opts))
               for h in (2, 7, 30)]
    assert any(changed)


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
@pytest.mark.parametrize("seed", range(4))
def test_memory_python_and_compiled_identical(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    w = random_workload(seed)
    opts = {"until": 80, "tie_break": "random" if seed % 2 else "index", "seed": seed}
    monkeypatch.setitem(kernels.COMPILE_MIN_WORK, "events", (0, 30)[seed % 2])  # compiled at once, or mid-run
    monkeypatch.setattr(kernels, "_FORMS", {})
    compiled = simulate(w, "drf:half_life=9", **opts)
    monkeypatch.setenv("FAIRALLOC_NO_NUMBA", "1")
    python = simulate(w, "drf:half_life=9", **opts)
    assert (compiled.stats["engine"], python.stats["engine"]) == ("compiled", "python")
    assert outcome(compiled) == outcome(python)
    assert all(np.array_equal(a, b) for a, b in zip(compiled.log, python.log, strict=True))
    fa, fb = compiled.cumulative_fairness(), python.cumulative_fairness()
    assert fa.share_seconds.tobytes() == fb.share_seconds.tobytes()


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_starvation_identical_python_and_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(kernels.COMPILE_MIN_WORK, "events", 0)
    monkeypatch.setattr(kernels, "_FORMS", {})
    compiled = simulate(STARVATION, "drf:half_life=600", until=4800)
    monkeypatch.setenv("FAIRALLOC_NO_NUMBA", "1")
    python = simulate(STARVATION, "drf:half_life=600", until=4800)
    assert (compiled.stats["engine"], python.stats["engine"]) == ("compiled", "python")
    assert outcome(compiled) == outcome(python)


def test_zero_half_life_is_memoryless_and_warns() -> None:
    w = random_workload(2)
    with pytest.warns(MemorylessWarning, match="half_life=0 is memoryless"):
        zero = simulate(w, "drf:half_life=0", until=80)
    assert outcome(zero)[:4] == outcome(simulate(w, "drf", until=80))[:4]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simulate(w, "drf:half_life=5", until=80)  # no warning with a half-life


@pytest.mark.parametrize(("policy", "field"), [
    ("drf:half_life=-1", "half_life"), ("drf:half_life=abc", "half_life"), ("drf:half_life=inf", "half_life"),
    ("yarn:half_life=60", "no usage memory"), ("mesos:half_life=60", "no usage memory"),
    ("kueue:usageHalfLifeTime=600", "LocalQueues inside one ClusterQueue"),
    ("kueue:half_life=600", "no usage memory"), ("volcano:halfLifeMinutes=10", "another plugin"),
    ("volcano:halfLifeMinutes=0", "no usage memory"), ("drf:usageHalfLifeTime=600", "its usage memory is half_life="),
])
def test_bad_half_life(policy: str, field: str) -> None:
    with pytest.raises(PolicyError, match=field):
        simulate(random_workload(0), policy, until=10)


def test_cli_zero_half_life_one_warning_line_bad_value_exit_2() -> None:
    base = [sys.executable, "-m", "analyzer", "simulate", str(STARVATION), "--until", "3700", "--quiet"]
    ok = subprocess.run([*base, "--policy", "drf,drf:half_life=0"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stderr.strip().splitlines() == [
        "fairalloc: warning: drf: half_life=0 is memoryless: the order is drf's own, as without half_life"]
    bad = subprocess.run([*base, "--policy", "drf:half_life=x"], capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "half_life" in bad.stderr


# ---------------------------------------------------------------- cumulative fairness
def test_cumulative_fairness_by_hand() -> None:
    # one machine of 4 cpu; A alone 0-10 with 4 tasks (share 1), then B arrives at 10: both 2 tasks 10-20.
    w = {"machines": [{"count": 1, "cpu": 4}],
         "jobs": [{"user": "A", "tasks": 8, "demand": {"cpu": 1}, "duration": 10},
                  {"user": "B", "arrival": 10, "tasks": 2, "demand": {"cpu": 1}, "duration": 10}]}
    r = simulate(w, "drf", until=20)
    f = r.cumulative_fairness()
    # A: share 1 for 10 s, 1/2 for 10 s = 15; B: 1/2 for 10 s = 5. Entitled: A 10 + 5, B 5.
    assert f.share_seconds.tolist() == [15.0, 5.0] and f.entitlement_seconds.tolist() == [15.0, 5.0]
    assert f.ratio.tolist() == [1.0, 1.0] and f.disparity == 1.0
    frame = r.to_pandas()
    last = frame[frame.time == 10.0].groupby("user")[["cumulative_share", "entitlement"]].first()
    assert last.loc["A"].tolist() == [10.0, 10.0] and last.loc["B"].tolist() == [0.0, 0.0]
    assert r.to_dict()["cumulative_fairness"]["disparity"] == 1.0
    assert "disparity" in r._repr_html_()


def test_cumulative_fairness_weighted_and_starved() -> None:
    w = {"machines": [{"count": 1, "cpu": 3}], "users": {"A": {"weight": 2}},
         "jobs": [{"user": "A", "tasks": 30, "demand": {"cpu": 1}, "duration": 1},
                  {"user": "B", "tasks": 30, "demand": {"cpu": 1}, "duration": 1}]}
    f = simulate(w, "drf", until=10).cumulative_fairness()
    assert f.entitlement_seconds == pytest.approx([20 / 3, 10 / 3])  # weighted slices: 2/3, 1/3
    assert f.share_seconds == pytest.approx([20 / 3, 10 / 3]) and f.disparity == pytest.approx(1.0)
    alone = {"machines": [{"count": 1, "cpu": 1}],
             "jobs": [{"user": "A", "tasks": 10, "demand": {"cpu": 1}, "duration": 1},
                      {"user": "B", "tasks": 1, "demand": {"cpu": 2}, "duration": 1}]}  # B never fits
    g = simulate(alone, "drf", until=10).cumulative_fairness()
    assert g.share_seconds[1] == 0.0 and math.isinf(g.disparity) and g.to_dict()["disparity"] is None


def test_cumulative_fairness_needs_records() -> None:
    r = simulate(random_workload(0), "drf", until=30, record_users=False)
    with pytest.raises(ValueError, match="not recorded"):
        r.cumulative_fairness()
    assert r.to_dict()["cumulative_fairness"] is None


@pytest.mark.parametrize("seed", range(3))
def test_cumulative_share_equals_the_timeline(seed: int) -> None:
    r = simulate(random_workload(seed), "drf:half_life=5", until=60)
    tl = r.timeline()
    dom = tl["shares"].max(axis=2)
    want = (dom * np.diff(np.append(r.times, r.end))[:, None]).sum(axis=0)
    np.testing.assert_allclose(r.cumulative_fairness().share_seconds, want, rtol=1e-12, atol=1e-9)
    ref = simulate(random_workload(seed), "drf:half_life=5", until=60, batch=False)
    np.testing.assert_allclose(ref.cumulative_fairness().share_seconds, want, rtol=1e-12, atol=1e-9)
