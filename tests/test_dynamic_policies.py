"""The mechanisms of the dynamic setting (issue 32): Dynamic DRF, Cautious
DRF and the naive lift ``recompute:policy=P`` (Kash, Procaccia and Shah,
JAIR 51, 2014), and ``dynamic_run``.

Dynamic DRF is checked against the paper's definition written independently
as an LP per step (scipy), and against the characterisation of water-filling
from floors in exact arithmetic; the float and exact solvers against each
other; Cautious DRF against the conditions it is built on."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from analyzer import DynamicRun, Instance, PolicyError, dynamic_run, get_policy, solve
from models.dynamic import present_fractions
from models.policies.recompute import prefix
from tests.strategies import random_instance

PAPER = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
MECHANISMS = ("dynamic-drf", "cautious-drf")


def _instances(seed: int, count: int, **kw: object) -> list[Instance]:
    rng = np.random.default_rng(seed)
    return [random_instance(rng, **kw) for _ in range(count)]  # type: ignore[arg-type]


def _levels(inst: Instance, x: tuple[Fraction, ...]) -> list[Fraction]:
    """Weighted dominant shares ``x_i max_j d_ij / R_j / w_i``."""
    return [xi * max(d / c for d, c in zip(row, inst.capacity_exact, strict=True)) / w
            for xi, row, w in zip(x, inst.demands_exact, inst.weights_exact, strict=True)]


# ------------------------------------------------------------- acceptance
def test_paper_example_step_by_step() -> None:
    """Issue 32's acceptance: A alone gets 9/4 tasks (mem share k/n = 1/2),
    then A 3 and B 2."""
    run = dynamic_run(PAPER, "dynamic-drf", exact=True)
    assert run.exact and run.tasks_at(1) == {"A": Fraction(9, 4)}
    assert run.tasks_at(2) == {"A": Fraction(3), "B": Fraction(2)}
    assert run.allocation_at(1).dominant_shares_exact == (Fraction(1, 2),)
    floats = dynamic_run(PAPER, "dynamic-drf")
    assert not floats.exact and floats.tasks_at(1) == pytest.approx({"A": 2.25})
    assert solve(PAPER, "dynamic-drf", exact=True).x_exact == (3, 2)


def test_lifted_drf_takes_back() -> None:
    run = dynamic_run(PAPER, "drf", exact=True)
    assert run.tasks_at(1) == {"A": Fraction(9, 2)} and run.tasks_at(2) == {"A": 3, "B": 2}
    assert dynamic_run(PAPER, "recompute:policy=drf", exact=True).steps.values() == run.steps.values()


# --------------------------------------------------- dynamic DRF, defined
def test_dynamic_drf_is_the_papers_lp_at_every_step() -> None:
    """Kash et al.'s Dynamic DRF, positive demands: at step k maximise M
    subject to s_i >= M, s_i >= s_i^{k-1} and sum_i s_i delta_ir <= k/n
    (dominant shares s, demands normalised per user); the smallest
    dominant share is that M and everybody holds max(M, s_i^{k-1})."""
    from scipy.optimize import linprog

    for inst in _instances(3, 40, zeros=False, weights=False, caps=False):
        n = inst.n
        delta = inst.demands / inst.capacity
        delta = delta / delta.max(axis=1, keepdims=True)
        s = dynamic_run(inst, "dynamic-drf").dominant_shares
        prev = np.zeros(n)
        for k in range(1, n + 1):
            # variables (s_1..s_k, M): maximise M
            c = np.r_[np.zeros(k), -1.0]
            A = [np.r_[-np.eye(k)[i], 1.0] for i in range(k)] + [np.r_[delta[:k, r], 0.0] for r in range(inst.m)]
            b = [0.0] * k + [k / n] * inst.m
            lp = linprog(c, A_ub=np.array(A), b_ub=b, bounds=[(p, None) for p in prev[:k]] + [(0, None)])
            assert lp.status == 0
            M = -lp.fun
            np.testing.assert_allclose(s[k - 1, :k], np.maximum(M, prev[:k]), rtol=1e-7, atol=1e-9)
            prev = s[k - 1]


def test_dynamic_drf_steps_are_water_filling_from_floors_exactly() -> None:
    """Every step, exactly: within the budget W_k/W of every resource,
    nothing taken back, and every present user at its cap or blocked by a
    full resource it uses on which no user that rose this step is above
    it (the bottleneck characterisation of max-min with lower bounds)."""
    for inst in _instances(5, 60):
        steps = get_policy("dynamic-drf").steps_exact(inst)
        fracs = present_fractions(list(inst.weights_exact))
        floors = [Fraction(0)] * inst.n
        for k, x in enumerate(steps, start=1):
            budget = [fracs[k - 1] * c for c in inst.capacity_exact]
            use = [sum(x[i] * inst.demands_exact[i][j] for i in range(k)) for j in range(inst.m)]
            assert all(u <= b for u, b in zip(use, budget, strict=True))
            assert all(a >= f for a, f in zip(x, floors, strict=True)) and all(v == 0 for v in x[k:])
            lv, rose = _levels(inst, x), [x[i] > floors[i] for i in range(inst.n)]
            for i in range(k):
                if (cap := inst.max_tasks_exact[i]) is not None and x[i] == cap:
                    continue
                assert any(use[j] == budget[j] and inst.demands_exact[i][j] > 0
                           and all(lv[o] <= lv[i] for o in range(k) if rose[o] and inst.demands_exact[o][j] > 0)
                           for j in range(inst.m)), (inst.describe(), k, i)
            floors = list(x)


@pytest.mark.parametrize("name", MECHANISMS)
def test_float_and_exact_steps_agree(name: str) -> None:
    pol = get_policy(name)
    for inst in _instances(7, 80):
        exact = np.array([[float(v) for v in row] for row in pol.steps_exact(inst)])
        np.testing.assert_allclose(pol.steps(inst), exact, rtol=1e-9, atol=1e-9, err_msg=inst.describe())


@pytest.mark.parametrize("name", [*MECHANISMS, "recompute:policy=drf"])
def test_a_batch_is_its_members(name: str) -> None:
    pol = get_policy(name)
    rng = np.random.default_rng(11)
    D = rng.integers(0, 6, size=(9, 4, 3)).astype(float)
    D[D.sum(axis=2) == 0, 0] = 1.0
    R = np.array([7.0, 9.0, 11.0])
    w = np.array([1.0, 2.0, 1.0, 3.0])
    caps = np.where(rng.random((9, 4)) < 0.3, 2.0, np.inf)
    batch = pol.steps_batch(D, R, w, caps)
    for b in range(9):
        inst = Instance.from_arrays(R, D[b], weights=w, max_tasks=caps[b])
        np.testing.assert_allclose(batch[b], pol.steps(inst), rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------- cautious DRF
def test_cautious_drf_keeps_one_level_and_room_for_everyone_still_to_come() -> None:
    """Every present user below its cap is at one common level M_k that
    never falls, and the reserve holds: present use plus M_k of every
    resource per unit of weight still to arrive fits; the last step fills
    a resource (or caps everybody)."""
    pol = get_policy("cautious-drf")
    for inst in _instances(13, 60):
        W = sum(inst.weights_exact)
        last = Fraction(0)
        for k, x in enumerate(pol.steps_exact(inst), start=1):
            lv = _levels(inst, x)
            free = [lv[i] for i in range(k) if (c := inst.max_tasks_exact[i]) is None or x[i] < c]
            assert len(set(free)) <= 1
            M = free[0] if free else last
            assert M >= last
            later = W - sum(inst.weights_exact[:k])
            for j, c in enumerate(inst.capacity_exact):
                use = sum(x[i] * inst.demands_exact[i][j] for i in range(k))
                assert use + M * later * c <= c
            last = M


def test_cautious_drf_is_envy_free_at_every_step() -> None:
    from analyzer import check

    for inst in _instances(17, 25):
        run = dynamic_run(inst, "cautious-drf", exact=True)
        for k in range(1, inst.n + 1):
            sub = prefix(inst, k)
            fixed = _Fixed(run.tasks_at(k))
            assert check(fixed, sub, "envy-freeness") is None, (inst.describe(), k)


class _Fixed:
    """A policy answering a given allocation (to run a static check on one step)."""

    def __new__(cls, tasks: dict[str, Fraction]) -> object:
        from models import Allocation, Policy

        class Given(Policy):
            name = "given"

            def solve(self, instance: Instance) -> Allocation:
                return self.solve_exact(instance)

            def solve_exact(self, instance: Instance) -> Allocation:
                x = tuple(Fraction(tasks[u]) for u in instance.users)
                return Allocation(instance=instance, x=np.array([float(v) for v in x]), policy="given", exact=True,
                                  x_exact=x)

        return Given()


# -------------------------------------------------------------- recompute
def test_recompute_is_the_static_policy_on_every_prefix() -> None:
    pol = get_policy("recompute:policy=asset")
    assert pol.label == "recompute:policy=asset" and get_policy("recompute").label == "recompute:policy=drf"
    for inst in _instances(19, 15):
        steps = pol.steps_exact(inst)
        for k in range(1, inst.n + 1):
            assert steps[k - 1][:k] == solve(prefix(inst, k), "asset", exact=True).x_exact
    assert solve(PAPER, "recompute:policy=ceei", exact=False).tasks == pytest.approx({"A": 45 / 11, "B": 18 / 11})


@pytest.mark.parametrize(("spec", "says"), [("recompute:policy=dynamic-drf", "already a dynamic mechanism"),
                                            ("recompute:policy=yarn", "whole tasks only"),
                                            ("recompute:policy=nope", "unknown policy"),
                                            ("recompute:policy=1", "must name a static policy")])
def test_recompute_bad_parameters_are_one_line(spec: str, says: str) -> None:
    with pytest.raises(PolicyError, match=says) as e:
        get_policy(spec)
    assert "\n" not in str(e.value)


# ------------------------------------------------------------- DynamicRun
def test_dynamic_run_views() -> None:
    run = dynamic_run(PAPER, "dynamic-drf", exact=True)
    assert repr(run) == "DynamicRun(policy='dynamic-drf', users=2, exact=True, final={'A': 3, 'B': 2})"
    df = run.to_pandas()
    assert list(df.columns) == ["policy", "step", "arrived", "user", "tasks", "tasks_exact", "dominant_share",
                                "dominant_share_exact"]
    assert df[["step", "user", "tasks_exact"]].values.tolist() == [[1, "A", "9/4"], [2, "A", "3"], [2, "B", "2"]]
    html = run._repr_html_()
    assert "<td>9/4</td>" in html and "tasks after each arrival (exact)" in html
    data = json.loads(json.dumps(run.to_dict()))
    assert data["steps"][0]["users"] == {"A": {"tasks": "9/4", "tasks_float": 2.25}}
    fig = run.plot()
    assert fig.axes[-1].get_xlabel() == "arrival" and len(fig.axes) == 3
    with pytest.raises(ValueError, match="k: must be a step 1..2"):
        run.tasks_at(3)


def test_dynamic_run_repr_is_short_for_many_users() -> None:
    rng = np.random.default_rng(0)
    inst = Instance.from_arrays(np.ones(3) * 100, rng.integers(1, 9, size=(60, 3)).astype(float))
    run = dynamic_run(inst, "dynamic-drf")
    assert isinstance(run, DynamicRun) and len(repr(run)) <= 400
    assert run.steps.x.shape == (60, 60)


def test_dynamic_run_rejects_whole_task_policies() -> None:
    with pytest.raises(PolicyError, match="whole tasks only"):
        dynamic_run(PAPER, "yarn")


def test_cli_dynamic(capsys: pytest.CaptureFixture[str]) -> None:
    from analyzer.cli import main

    assert main(["dynamic", "examples/paper_two_users.toml", "--exact"]) == 0
    out = capsys.readouterr().out
    assert "dynamic-drf: tasks after each arrival (exact)" in out and "9/4 (2.25)" in out and "1/2 (0.5)" in out
    assert main(["dynamic", "examples/paper_two_users.toml", "--policy", "drf", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["steps"][0]["users"]["A"]["tasks"] == 4.5
    assert main(["dynamic", "examples/paper_two_users.toml", "--policy", "yarn"]) == 2
    assert capsys.readouterr().err.strip() == ("fairalloc: error: policy 'yarn' is defined for whole tasks only: "
                                               "it has no dynamic run")


def test_dynamic_run_html_is_bounded_for_many_users() -> None:
    from models.display import HTML_MAX_ROWS

    rng = np.random.default_rng(1)
    inst = Instance.from_arrays(np.ones(2) * 50, rng.integers(1, 9, size=(90, 2)).astype(float))
    html = dynamic_run(inst, "dynamic-drf")._repr_html_()
    assert f"the first {HTML_MAX_ROWS} of 90 users" in html and "50 more rows" in html
    assert html.count("<tr>") == HTML_MAX_ROWS + 2  # header, rows shown, the row saying how many more
