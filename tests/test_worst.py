"""Worst-case search (issue 22): metrics against hand-computed values, the
search's determinism and certification, bounds, the command line."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from analyzer import Instance, solve, worst_case
from analyzer.cli import main
from analyzer.worst import METRICS, get_metric

ROOT = Path(__file__).resolve().parents[1]
F = Fraction


def family(k: int, m: int, eps: Fraction) -> Instance:
    """``k`` users on resource 0 and one on each other resource, every other
    entry ``eps`` (Parkes, Procaccia, Shah, EC 2012, Section 5)."""
    rows = [[F(1) if j == 0 else eps for j in range(m)] for _ in range(k)]
    rows += [[F(1) if j == r else eps for j in range(m)] for r in range(1, m)]
    return Instance.from_exact([1] * m, rows)


def test_drf_efficiency_on_the_bound_family_is_exact() -> None:
    eps = F(1, 1000)
    # DRF: equal dominant shares s with (k + eps) s = 1; optimum 2 / (1 + eps) (both constraints tight)
    expected = F(3) / (2 + eps) / (F(2) / (1 + eps))
    got = get_metric("efficiency").measure(solve_policy("drf"), family(2, 2, eps))
    assert got.exact and got.value == expected
    assert abs(float(got.value) - 3 / 4) < 1e-3  # (k + m - 1) / (k m) at k = m = 2


def solve_policy(name: str):
    from models import get_policy

    return get_policy(name)


def test_metrics_on_the_paper_example() -> None:
    inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    drf = solve_policy("drf")
    assert get_metric("envy").measure(drf, inst).value == 1
    # A: 3 tasks against 9/4 from half of everything, B: 2 against 3/2
    assert get_metric("sharing-incentive").measure(drf, inst).value == F(4, 3)
    util = get_metric("utilization").measure(drf, inst)
    assert util.value == 1 and util.detail["resource"] == "r0"  # cpu 9 of 9, memory 14 of 18
    assert get_metric("manipulation-gain").measure(drf, inst).value == 1
    eff = get_metric("efficiency")
    assert abs(eff.evaluate(drf, inst) - float(eff.measure(drf, inst).value)) < 1e-9


def test_asset_breaks_sharing_incentive_exactly() -> None:
    inst = Instance.from_exact([30, 30], [[1, 3], [1, 1]])  # the paper's Section 5.1 example
    v = get_metric("sharing-incentive").measure(solve_policy("asset"), inst)
    assert v.exact and v.value < 1


def test_every_metric_is_registered_with_a_direction() -> None:
    assert set(METRICS.names()) >= {"efficiency", "manipulation-gain", "envy", "sharing-incentive", "utilization"}
    assert {get_metric(n).direction for n in METRICS.names()} <= {"min", "max"}


def test_search_is_seeded_and_certified() -> None:
    a = worst_case("drf", "efficiency", 3, 2, seed=3, budget=150, bound=False)
    b = worst_case("drf", "efficiency", 3, 2, seed=3, budget=150, bound=False)
    assert a.value == b.value and a.instance == b.instance and a.evaluations == 150
    assert a.exact and isinstance(a.value, Fraction)
    assert F(1, 2) <= a.value <= 1
    # the printed instance reproduces the value when solved again
    again = get_metric("efficiency").measure(solve_policy("drf"), Instance.from_dict(a.instance.to_dict()))
    assert again.value == a.value
    assert solve(a.instance, "drf", exact=True).tasks == a.allocation.tasks
    assert [p.evaluations for p in a.trace] == sorted(p.evaluations for p in a.trace)
    assert len(repr(a)) <= 400 and "<table>" in a._repr_html_()
    assert list(a.to_pandas().columns) == ["evaluations", "seconds", "value", "phase"]


def test_a_proved_bound_brackets_the_worst_value() -> None:
    r = worst_case("drf", "efficiency", 2, 2, budget=200, bound=True, timeout=60)
    assert r.bound is not None and r.bound.complete
    assert r.bound.value <= r.value and r.bound.value <= r.bound.attained
    assert float(r.bound.attained) - float(r.bound.value) <= 1e-3
    assert F(88, 100) < r.bound.value  # DRF on 2 users x 2 resources: efficiency > 0.88 (8/9 approached)


def test_ctrl_c_keeps_the_best_so_far() -> None:
    def stop(done: int, best: float) -> None:
        if done == 30:
            raise KeyboardInterrupt

    r = worst_case("drf", "efficiency", 2, 2, budget=1000, progress=stop)
    assert r.interrupted and r.evaluations == 30 and r.exact and r.bound is None


def test_a_user_policy_works_with_every_metric() -> None:
    from analyzer import load_policy_file

    load_policy_file(ROOT / "examples" / "new_policy.py")
    for metric in METRICS.names():
        r = worst_case("drf-asset-mix", metric, 2, 2, budget=12, bound=False)
        assert r.instance.n == 2 and float(r.value) == float(r.value)


def test_bad_sizes_raise() -> None:
    with pytest.raises(ValueError, match="users"):
        worst_case("drf", "efficiency", 0, 2)
    with pytest.raises(ValueError, match="domain"):
        worst_case("drf", "efficiency", 2, 2, domain="negative")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["worst", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, word", [
    (["drf", "effciency"], "efficiency"), (["drf", "envy", "--users", "0"], "--users"),
    (["drf", "envy", "--resources", "-1"], "--resources"), (["drf"], "POLICY METRIC"), (["nope", "envy"], "policy"),
    (["--policies", "drf", "--metrics", "envy", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler")])
def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], word: str) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and word in err


def test_cli_single_and_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    save = tmp_path / "worst.toml"
    code, out, _ = run_cli(capsys, "drf", "utilization", "--budget", "20", "--save", str(save), "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["value"] == "1" and data["exact"]
    assert Instance.load(save) == Instance.from_dict(data["instance"])
    for fmt in ("text", "md", "latex", "csv", "json"):
        code, out, _ = run_cli(capsys, "--policies", "drf,asset", "--metrics", "envy,utilization", "--budget", "8",
                               "--workers", "1", "--format", fmt)
        assert code == 0 and "asset" in out and "utilization" in out


def test_the_bound_queries_decide_both_ways() -> None:
    from proofs.bounds import PROVED, WORSE, worse_than

    assert worse_than("drf", "efficiency", 2, 2, "positive", F(1, 2), 60).status == PROVED
    ans = worse_than("drf", "efficiency", 2, 2, "positive", F(95, 100), 60)
    assert ans.status == WORSE and ans.demands is not None
    inst = Instance.from_exact([1, 1], ans.demands)
    assert get_metric("efficiency").measure(solve_policy("drf"), inst).value < F(95, 100)


def test_drf_manipulation_gain_is_exactly_one() -> None:
    r = worst_case("drf", "manipulation-gain", 3, 2, budget=6)
    assert r.value == 1 and isinstance(r.value, Fraction) and r.exact


def test_plot_returns_the_figure() -> None:
    import matplotlib

    matplotlib.use("Agg")
    r = worst_case("drf", "efficiency", 2, 2, budget=30, bound=False)
    fig = r.plot()
    assert fig.axes[0].get_ylabel() == "efficiency"


@pytest.mark.parametrize("suffix, magic", [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_cli_plot_writes_the_figure_by_suffix(capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str,
                                              magic: bytes) -> None:
    out = tmp_path / f"worst.{suffix}"
    code, text, _ = run_cli(capsys, "drf", "efficiency", "--budget", "20", "--bound", "no", "--plot", str(out))
    assert code == 0 and "worst value" in text and out.read_bytes().startswith(magic)


@pytest.mark.parametrize("argv, word", [
    (["drf", "efficiency", "--plot", "out.gif"], "--plot out.gif: unsupported image format"),
    (["drf", "efficiency", "--plot", "no/such/dir/out.png"], "does not exist"),
    (["--policies", "drf", "--metrics", "envy", "--plot", "out.png"], "--plot: draws one worst case")])
def test_cli_plot_bad_destination_exits_2(capsys: pytest.CaptureFixture[str], argv: list[str], word: str) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and word in err


def test_the_table_on_processes_equals_one_process() -> None:
    from analyzer.worst.table import worst_table

    args = {"users": 2, "resources": 2, "budget": 15, "seed": 2}
    one = worst_table(["drf", "asset"], ["efficiency", "sharing-incentive"], workers=1, **args)
    two = worst_table(["drf", "asset"], ["efficiency", "sharing-incentive"], workers=2, **args)
    assert {k: (c.value, c.instance) for k, c in one.cells.items()} == {k: (c.value, c.instance)
                                                                        for k, c in two.cells.items()}
    assert one["asset", "sharing-incentive"].value < 1  # asset fairness breaks sharing incentive


@pytest.mark.slow
@pytest.mark.parametrize("m, most", [(2, 0.62), (3, 0.52)])
def test_drf_efficiency_with_six_users_reaches_the_family(m: int, most: float) -> None:
    r = worst_case("drf", "efficiency", 6, m, seed=0)
    assert F(1, m) <= r.value <= most and r.exact
    assert get_metric("efficiency").measure(solve_policy("drf"), Instance.from_dict(r.instance.to_dict())).value \
        == r.value


@pytest.mark.slow
def test_ceei_manipulation_gain_is_confirmed_by_check(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    save = tmp_path / "ceei.toml"
    code, out, _ = run_cli(capsys, "ceei", "manipulation-gain", "--budget", "40", "--save", str(save),
                           "--format", "json")
    assert code == 0 and F(json.loads(out)["value"]) > 1
    assert main(["check", str(save), "--policy", "ceei", "--property", "strategy-proofness"]) == 1


def test_simpler_entries_come_with_fewer_digits_first() -> None:
    from analyzer.worst.certify import _simpler

    assert _simpler(4334, 10000, 1) == [1, 4000, 10000, 4300, 4330]
    assert _simpler(1, 500, 1) == []  # nothing is simpler than 1
    assert _simpler(7, 500, 0)[0] == 0  # zeros allowed in the zeros domain


def test_bounds_for_sharing_incentive_and_utilization() -> None:
    from proofs.bounds import PROVED, WORSE, worse_than

    # asset fairness: no 2x2 instance gives a user less than 2/3 of its slice's tasks, and 0.67 is beaten
    assert worse_than("asset", "sharing-incentive", 2, 2, "positive", F(2, 3), 60).status == PROVED
    assert worse_than("asset", "sharing-incentive", 2, 2, "positive", F(67, 100), 60).status == WORSE
    r = worst_case("drf", "utilization", 2, 2, budget=20)
    assert r.value == 1 and r.bound is not None and r.bound.value == 1 and r.bound.steps == [("1", "proved")]


def test_zero_demands_attain_the_max_min_price_of_fairness() -> None:
    # Bertsimas, Farias, Trichakis (2011): max-min fairness keeps >= 4n/(n+1)^2 = 3/4 of the welfare at n = 3;
    # with zero entries allowed the bound is attained exactly: <0,1>, <1,0>, <1,1>
    r = worst_case("drf", "efficiency", 3, 2, budget=200, domain="zeros")
    assert r.value == F(3, 4) and r.exact
    assert any(0 in row for row in r.instance.demands_exact)


def test_envy_bounds_prove_envy_freeness_and_refuse_what_is_beaten() -> None:
    r = worst_case("drf", "envy", 2, 2, budget=20)
    assert r.value == 1 and r.bound is not None and r.bound.value == 1 and r.bound.complete
    # leximin on task counts lets a user with small tasks be envied without bound: nothing is proved
    lex = worst_case("leximin-tasks", "envy", 2, 2, budget=30)
    assert lex.value > 1 and lex.bound is None


def test_manipulation_gain_lie_keeps_machines_and_rescales_cap() -> None:
    # the lied instance is the strategy-proofness screen's (one builder):
    # machines and name survive, the liar's cap is in reported tasks
    from analyzer.properties._lie_reports import lie_instance

    inst = Instance.load("examples/paper_section_7_1.toml")
    lie, cap = lie_instance(inst, 0, [Fraction(2), Fraction(10)])
    assert cap is None and lie.machines == inst.machines and lie.name == inst.name
    assert lie.demands_exact[0] == (Fraction(2), Fraction(10))
    capped = inst.replace(max_tasks=[Fraction(3), None])
    lie, cap = lie_instance(capped, 0, [Fraction(2), Fraction(5)])
    assert cap == Fraction(6) and lie.max_tasks_exact == (Fraction(6), None)  # 3 * max(1/2, 10/5)


def test_manipulation_gain_is_exact_only_when_every_lied_solve_is(monkeypatch) -> None:
    """A float allocation of a lied instance makes the gain inexact, even when
    the truthful allocation was exact."""
    from analyzer.worst.metrics import manipulation_gain as mg
    from models import get_policy

    inst = Instance.from_dict({"resources": {"a": 50, "b": 50},
                               "users": {"u0": {"demand": {"a": 10, "b": 1}}, "u1": {"demand": {"a": 9, "b": 17}}}})
    policy, metric = get_policy("ceei"), get_metric("manipulation-gain")
    assert metric.measure(policy, inst).exact
    exact_solve = mg.exact_solve
    monkeypatch.setattr(mg, "exact_solve",
                        lambda p, i: exact_solve(p, i) if i is inst else solve(i, p))  # lies solved in floats
    assert not metric.measure(policy, inst).exact
