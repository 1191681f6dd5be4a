"""Which form of a kernel runs (models/kernels.py): the installation
declares every kernel, their sample arguments are typed as their callers
pass them (one compilation each, ahead of the first call), and a run's
``seconds`` leave out numba's time (the simulate command says it apart)."""

from __future__ import annotations

import io
import time
from contextlib import redirect_stdout
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest

from analyzer import simulate
from analyzer.simulation import dispatch
from models import Instance, kernels
from models.compiled import numba_available
from models.discrete import fill

ROOT = Path(__file__).resolve().parents[1]


def test_the_installation_declares_every_kernel() -> None:
    declared = {ep.name: ep.value for ep in entry_points(group=kernels.ENTRY_POINTS)}
    assert declared == {"first-fit": "models._fill_kernel", "mesos-offers": "models.variants._mesos_offers",
                        "simulation": "analyzer.simulation.dispatch"}, \
        "the fairalloc.kernels entry points of pyproject.toml are not installed: run pip install -e ."
    kernels.load_kernel_modules()
    assert kernels.KERNELS.names() == ["first-fit", "mesos-offers", "simulation-admit", "simulation-run"]
    assert all(k.work in kernels.COMPILE_MIN_WORK for _, k in kernels.KERNELS.items())


def test_small_work_runs_as_python_without_asking_for_numba(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernels, "_FORMS", {})
    monkeypatch.setattr(kernels, "_PYTHON_WORK", {})
    monkeypatch.setattr(kernels, "numba_available", lambda: pytest.fail("numba looked for"))
    assert kernels.choose("mesos-offers", 10) is kernels.KERNELS.get("mesos-offers").function
    assert not kernels.runs_compiled("first-fit", kernels.COMPILE_MIN_WORK["placements"] - 11)
    monkeypatch.setattr(kernels, "numba_available", lambda: False)  # above the threshold, numba missing
    assert not kernels.runs_compiled("first-fit", kernels.COMPILE_MIN_WORK["placements"])
    with pytest.raises(ValueError, match="unknown kind of work 'tasks'"):
        kernels.register_kernel("x", len, (), tuple, "tasks")


def test_many_small_calls_add_up(monkeypatch: pytest.MonkeyPatch) -> None:
    # the Python work of a process counts: the fourth call of 30 crosses 100 (a simulation under a
    # production variant calls the offer round once per scheduling round); a run measuring its own
    # work (tally=False) does not add up
    monkeypatch.setattr(kernels, "_FORMS", {})
    monkeypatch.setattr(kernels, "_PYTHON_WORK", {})
    monkeypatch.setitem(kernels.COMPILE_MIN_WORK, "placements", 100)
    monkeypatch.setattr(kernels, "numba_available", lambda: True)
    assert [kernels.runs_compiled("mesos-offers", 30, tally=False) for _ in range(5)] == [False] * 5
    assert [kernels.runs_compiled("mesos-offers", 30) for _ in range(4)] == [False, False, False, True]
    assert kernels._PYTHON_WORK == {"placements": 90}  # what ran as Python
    monkeypatch.setitem(kernels.COMPILE_MIN_WORK, "events", 100)
    assert not kernels.runs_compiled("simulation-run", 99)


def _machines(n: int, k: int, seed: int = 0) -> Instance:
    rng = np.random.default_rng(seed)
    users = {f"u{i}": {"demand": {"cpu": int(rng.integers(1, 4)), "mem": int(rng.integers(1, 6))}} for i in range(n)}
    return Instance.from_dict({"resources": {"cpu": 8 * k, "mem": 16 * k}, "users": users,
                               "machines": [{"count": k, "cpu": 8, "mem": 16}]})


def test_the_work_estimate_follows_the_placements() -> None:
    from models._fill_kernel import fill_work

    for n, k in ((3, 4), (20, 50), (5, 300)):
        inst = _machines(n, k)
        placed = int(fill(inst, "drf", placement="first-fit").tasks.sum())
        free = np.repeat([[8, 16]], k, axis=0)
        estimate = fill_work(inst.demands.astype(np.int64), free, np.full(n, 1 << 62))
        assert placed / 2 <= estimate <= 2 * placed + n, (n, k)  # DRF's continuous task count, whole tasks aside
        assert fill_work(inst.demands.astype(np.int64), free, np.full(n, 1)) == n  # one more task each


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_each_kernel_is_compiled_once_for_its_callers_types(monkeypatch: pytest.MonkeyPatch) -> None:
    # the samples type every argument as the callers pass them: a call compiles nothing more
    for kind in kernels.COMPILE_MIN_WORK:
        monkeypatch.setitem(kernels.COMPILE_MIN_WORK, kind, 0)
    inst = _machines(6, 9)
    assert fill(inst, "drf", placement="first-fit").tasks.sum() > 0
    assert fill(inst, "mesos").tasks.sum() > 0
    w = {"machines": [{"count": 3, "cpu": 4, "mem": 8}],
         "jobs": [{"user": "a", "tasks": 20, "demand": {"cpu": 1, "mem": 2}, "duration": 3}]}
    assert simulate(w, "drf", until=30).stats["engine"] == "compiled"
    for name in kernels.KERNELS.names():
        form, spec = kernels.compiled_form(name), kernels.KERNELS.get(name)
        import numba

        assert form.signatures == [tuple(numba.typeof(a) for a in spec.sample())], name


def _fake_compilation(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Runs 'switch' to the kernels' Python functions at 10 events, and the switch counts ``seconds``
    of numba time that never passed (no numba needed)."""
    monkeypatch.setitem(kernels.COMPILE_MIN_WORK, "events", 10)
    monkeypatch.setattr(dispatch, "runs_compiled", lambda name, work, **_: work >= 10)

    def compiled_form(name: str) -> object:
        kernels._SECONDS[0] += seconds / 2
        return kernels.KERNELS.get(name).function

    monkeypatch.setattr(dispatch, "compiled_form", compiled_form)


WORKLOAD = {"machines": [{"count": 2, "cpu": 4, "mem": 8}],
            "jobs": [{"user": "a", "tasks": 40, "demand": {"cpu": 1, "mem": 2}, "duration": 2},
                     {"user": "b", "tasks": 40, "demand": {"cpu": 2, "mem": 1}, "duration": 3}]}


def test_a_runs_seconds_leave_out_the_kernel_time(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_compilation(monkeypatch, 1e6)
    t0 = time.perf_counter()
    r = simulate(WORKLOAD, "drf")
    wall = time.perf_counter() - t0
    assert r.stats["engine"] == "compiled" and r.stats["compiled_after"] >= 10
    # (sums of the process's earlier numba seconds and 5e5 round: compare to 1e-6 s)
    assert r.stats["kernel_seconds"] == pytest.approx(1e6, abs=1e-6)
    elapsed = r.stats["seconds"] + r.stats["kernel_seconds"]  # seconds = the run's time minus numba's
    assert -1e-6 <= elapsed <= wall + 1e-6


def test_simulate_says_the_kernel_time_apart(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from analyzer.cli import main

    _fake_compilation(monkeypatch, 31.5)
    path = tmp_path / "w.json"
    import json

    path.write_text(json.dumps(WORKLOAD))
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["simulate", str(path), "--quiet"]) == 0
    text = out.getvalue()
    assert "numba compiled (once per installation) or loaded the fast kernels in 31.50 s, not counted in the " \
           "Runs table's seconds" in text
    monkeypatch.undo()
    out = io.StringIO()
    with redirect_stdout(out):  # a small run: Python, nothing to say
        assert main(["simulate", str(path), "--quiet"]) == 0
    assert "numba" not in out.getvalue()
