"""The optimisation phase of a search (analyzer/searching/optimise.py):
batched line searches, candidates counted and checked in their order in a
batch, the budget, one ``margin_many`` call per batch, resume from a
checkpoint between starts."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from analyzer import search
from analyzer.properties import Property, Violation, register_property
from analyzer.properties.base import PROPERTIES
from analyzer.searching import optimise as opt
from analyzer.searching import stream
from analyzer.searching.checkpoint import SearchState
from analyzer.searching.instance_stream import make_cell
from analyzer.searching.stream import read_records
from models import Instance


class Spy(Property):
    """Test-only: never violated (margin >= 1: no exact check); records the
    sizes of the optimisation phase's ``margin_many`` calls and raises KeyboardInterrupt (like
    Ctrl-C) at the ``STOP_AT``-th call while armed."""

    name = "test-opt-spy"
    calls: list[int] = []
    STOP_AT: int | None = None

    def applies(self, instance):
        return None if instance.m >= 2 else "needs two resources"

    def margin(self, policy, instance, mode="continuous"):
        return 1.0 + math.log(instance.capacity[0] / instance.capacity[1]) ** 2

    def margin_many(self, policy, instances, mode="continuous"):
        if sys._getframe(1).f_globals.get("__name__") != opt.__name__:  # the stream's near misses: not recorded
            return super().margin_many(policy, instances, mode)
        Spy.calls.append(len(instances))
        if Spy.STOP_AT is not None and len(Spy.calls) >= Spy.STOP_AT:
            raise KeyboardInterrupt
        return super().margin_many(policy, instances, mode)

    def check(self, policy, instance, mode="continuous"):
        return None


class Marked(Property):
    """Test-only: margin -1 where R_1 > 2 R_2 (0 elsewhere); the exact check
    agrees only where R_1 > 4 R_2, and counts its calls."""

    name = "test-opt-marked"
    checks = 0

    def margin(self, policy, instance, mode="continuous"):
        return -1.0 if instance.capacity[0] > 2 * instance.capacity[1] else 0.0

    def check(self, policy, instance, mode="continuous"):
        Marked.checks += 1
        r = instance.capacity_exact[0] / instance.capacity_exact[1]
        if r > 4:
            return Violation(self.name, policy.label, instance, instance.users[0], f"ratio {r}", exact=True)
        return None


@pytest.fixture(autouse=True)
def _registered(monkeypatch):
    for p in (Spy, Marked):
        register_property(p)
    monkeypatch.setattr(stream, "CHECKPOINT_SECONDS", 0.0)
    Spy.calls, Spy.STOP_AT, Marked.checks = [], None, 0
    yield
    for p in (Spy, Marked):
        PROPERTIES.unregister(p.name)


def _candidates(prop: str, stop_at: int = 10**6) -> opt.Candidates:
    cell = make_cell("drf", prop, 1000, 0, None, "continuous")
    base = Instance.from_arrays([2.0, 1.0], [[1.0, 1.0], [1.0, 3.0]])
    ticks: list[int] = []
    return opt.Candidates(cell, SearchState(checked=100), base, stop_at, ticks.append)


def _ratios(c: opt.Candidates, ratios: list[float]) -> np.ndarray:
    """Points whose capacity ratio R_1 / R_2 is each of ``ratios``."""
    x0 = c.theta0()
    theta = np.tile(x0, (len(ratios), 1))
    theta[:, 0] = theta[:, 1] + np.log(ratios)
    return theta


# ------------------------------------------------------------ the candidates
def test_a_batch_is_counted_in_order_up_to_its_first_violation():
    c = _candidates("test-opt-marked")
    # margins -1 from the second point on; the exact check agrees from the fourth
    with pytest.raises(opt._Found) as found:
        c(_ratios(c, [1.5, 3.0, 3.5, 5.0, 6.0, 1.0]))
    ratio = found.value.violation.instance.capacity_exact
    assert ratio[0] / ratio[1] == 5
    assert c.st.checked == 100 + 4  # the candidates up to the violation, not after it
    assert Marked.checks >= 2  # ratios 3 and 3.5 were checked exactly (and refuted)


def test_the_margin_steers_the_exact_check_decides():
    c = _candidates("test-opt-marked")
    out = c(_ratios(c, [3.0, 1.0, 3.5]))  # margin -1, but no violation exactly
    assert out.tolist() == [-1.0, 0.0, -1.0] and c.st.checked == 103
    assert Marked.checks > 0


def test_a_batch_is_cut_at_the_budget():
    c = _candidates("test-opt-spy", stop_at=105)
    with pytest.raises(opt._Stop):
        c(_ratios(c, [1.0 + k / 10 for k in range(16)]))
    assert Spy.calls == [5] and c.st.checked == 105
    with pytest.raises(opt._Stop):  # nothing left: nothing evaluated
        c(_ratios(c, [1.0]))
    assert Spy.calls == [5]


def test_entries_outside_the_floats_are_not_candidates():
    c = _candidates("test-opt-spy")
    theta = _ratios(c, [1.0, 1.0, 1.0])
    theta[1, 2] = -800.0  # a demand underflows to 0
    theta[2, 0] = 800.0  # a capacity overflows to inf
    out = c(theta)
    assert np.isfinite(out[0]) and np.isinf(out[1:]).all()
    assert Spy.calls == [1] and c.st.checked == 101


def test_candidates_are_the_base_with_new_numbers():
    c = _candidates("test-opt-spy")
    theta = c.theta0()[None, :] + 0.5
    (inst,) = c.instances(theta)
    assert inst is not None
    rebuilt = Instance.from_arrays(np.exp(0.5) * c.base.capacity, np.exp(0.5) * c.base.demands)
    assert np.array_equal(inst.capacity, rebuilt.capacity) and np.array_equal(inst.demands, rebuilt.demands)
    assert not inst.capacity.flags.writeable and not inst.demands.flags.writeable
    assert inst.users == c.base.users and inst.resources == c.base.resources
    assert np.array_equal(inst.weights, c.base.weights) and np.array_equal(inst.max_tasks, c.base.max_tasks)


def test_zero_demands_stay_zero():
    cell = make_cell("drf", "test-opt-spy", 1000, 0, None, "continuous")
    base = Instance.from_arrays([2.0, 1.0], [[1.0, 0.0], [1.0, 3.0]])
    c = opt.Candidates(cell, SearchState(), base, 10, lambda k: None)
    assert c.theta0().size == 5
    (inst,) = c.instances(c.theta0()[None, :] - 1.0)
    assert inst is not None and inst.demands[0, 1] == 0 and inst.demands[1, 1] == pytest.approx(3 / math.e)


# ---------------------------------------------------------- the line search
class Counted:
    """``f`` of a batch of points, counting batches and points."""

    def __init__(self, f):
        self.f, self.batches, self.points = f, 0, []

    def __call__(self, theta):
        self.batches += 1
        self.points.extend(theta.tolist())
        return np.array([self.f(p) for p in theta])


def test_a_line_search_finds_a_narrow_v_close_to_the_start():
    # a V of slope 1 and a minimum 1e-9 below 0 at 0.0123: a window of
    # 2e-9 around the minimum, found in a few batches
    target = 0.0123
    f = Counted(lambda p: abs(p[0] - target) - 1e-9)
    x, fx = opt.line_search(f, np.zeros(2), f(np.zeros((1, 2)))[0], np.array([1.0, 0.0]),
                            np.full(2, -5.0), np.full(2, 5.0))
    assert fx < 0 and abs(x[0] - target) < 1e-9 and x[1] == 0
    assert f.batches <= 6 and len(f.points) <= 6 * opt.LINE_POINTS + 1


def test_a_line_search_stays_in_the_box_and_finds_its_edge():
    f = Counted(lambda p: -p[0])
    x, fx = opt.line_search(f, np.zeros(2), 0.0, np.array([1.0, 0.0]), np.array([-1.0, -1.0]),
                            np.array([2.0, 1.0]))
    assert x[0] == 2.0 and fx == -2.0
    assert all(-1.0 <= p[0] <= 2.0 for p in f.points)


def test_a_flat_line_costs_one_batch():
    f = Counted(lambda p: 1.0)
    x, fx = opt.line_search(f, np.zeros(3), 1.0, np.array([0.0, 1.0, 0.0]), -np.ones(3), np.ones(3))
    assert f.batches == 1 and len(f.points) == opt.LINE_POINTS and fx == 1.0 and not x.any()


def test_descend_follows_a_diagonal_valley():
    # the minimum needs both coordinates moved together (a narrow valley
    # along x0 = x1): the sweeps' extrapolated directions follow it
    f = Counted(lambda p: 50 * (p[0] - p[1]) ** 2 + (p[0] + p[1] - 1.5) ** 2)
    x, fx = opt.descend(f, np.zeros(2), float(f(np.zeros((1, 2)))[0]), -np.full(2, 3.0), np.full(2, 3.0))
    assert fx < 1e-6 and np.allclose(x, [0.75, 0.75], atol=1e-3)
    sweeps_only = Counted(f.f)
    eye = np.eye(2)
    y, fy = np.zeros(2), float(f.f(np.zeros(2)))
    while sweeps_only.batches < f.batches:
        for u in eye:
            y, fy = opt.line_search(sweeps_only, y, fy, u, -np.full(2, 3.0), np.full(2, 3.0))
    assert fy > 100 * fx  # coordinate sweeps alone, as many batches or more, stay far behind


def test_kinks_meet_the_two_lines_of_a_v():
    ts = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    fs = np.abs(ts - 0.3) * np.where(ts < 0.3, 1.0, 5.0)  # slopes -1 and 5, kink at 0.3
    assert any(abs(t - 0.3) < 1e-12 for t in opt.kinks(ts, fs, 2))


# ---------------------------------------------------------- in a search
def test_each_batch_is_one_margin_many_call_of_at_most_a_line():
    r = search("drf", "test-opt-spy", budget=1000, seed=0, workers=1)
    assert r.holds is True and r.instances == 1000
    assert Spy.calls and max(Spy.calls) <= opt.LINE_POINTS
    # every candidate evaluated was counted (the evaluations left over went back to the stream)
    assert sum(Spy.calls) <= int(1000 * opt.OPT_FRACTION)


def test_a_search_resumes_between_starts_to_the_same_result(tmp_path):
    full = search("drf", "test-opt-spy", budget=1500, seed=1, workers=1)
    calls = len(Spy.calls)
    assert calls > 4
    out = tmp_path / "run.jsonl"
    Spy.calls, Spy.STOP_AT = [], calls - 2  # Ctrl-C in the last start's line searches
    with pytest.raises(KeyboardInterrupt):
        search("drf", "test-opt-spy", budget=1500, seed=1, out=str(out), workers=1)
    state = read_records(out)
    saved = state.progress["drf|test-opt-spy"]
    assert saved["phase"] == "optimise" and saved["opt_start"] >= 1
    Spy.calls, Spy.STOP_AT = [], None
    resumed = search("drf", "test-opt-spy", budget=1500, seed=1, out=str(out), resume=True, workers=1)
    assert resumed.to_dict() | {"seconds": 0} == full.to_dict() | {"seconds": 0}


def test_same_seed_same_optimisation():
    a = search("drf", "test-opt-spy", budget=1200, seed=3, workers=1)
    first = list(Spy.calls)
    Spy.calls = []
    b = search("drf", "test-opt-spy", budget=1200, seed=3, workers=2)
    assert Spy.calls == first and a.to_dict() | {"seconds": 0} == b.to_dict() | {"seconds": 0}

