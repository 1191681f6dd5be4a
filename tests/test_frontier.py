"""The fairness-efficiency frontier of a policy family (issue 29,
deliverable 3): per parameter value, the certified worst metric, its
instance and each property's prover status; the API, every output format,
the plot, processes, a user's policy file and bad input."""

from __future__ import annotations

import json
import math
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from analyzer import frontier, worst_case
from analyzer.cli import main

ROOT = Path(__file__).resolve().parents[1]
STATUSES = {"proved", "counterexample", "unknown", "vacuous"}


@pytest.fixture(scope="module")
def fds() -> object:
    return frontier("fds", "beta", ["inf", 1], metric="efficiency", properties=["envy-freeness", "sharing-incentive"],
                    users=2, resources=2, budget=30, workers=1)


def test_one_point_per_value_in_the_order_given(fds) -> None:  # noqa: ANN001
    assert [p.value for p in fds.points] == [math.inf, 1.0]
    assert [p.label for p in fds.points] == ["fds:beta=inf", "fds:beta=1"]
    assert fds[1].proofs["envy-freeness"].status == "proved" and fds["inf"].status("sharing-incentive") == "proved"
    # beta = inf is DRF: at 2 x 2 its worst efficiency approaches 8/9 (the price of fairness, 4n/(n+1)^2)
    assert fds["inf"].worst.exact and Fraction(8, 9) <= fds["inf"].worst.value <= Fraction(8, 9) * Fraction(1001, 1000)


def test_each_value_is_the_worst_case_of_its_member(fds) -> None:  # noqa: ANN001
    for p in fds.points:
        alone = worst_case(p.label, "efficiency", 2, 2, budget=30, bound=False)
        assert (alone.value, alone.instance) == (p.worst.value, p.worst.instance)


def test_to_pandas_has_one_row_per_value(fds) -> None:  # noqa: ANN001
    df = fds.to_pandas()
    assert list(df.columns) == ["beta", "efficiency", "envy-freeness", "sharing-incentive"]
    assert len(df) == 2 and df["beta"].tolist() == [math.inf, 1.0]
    assert set(df["envy-freeness"]) <= STATUSES and df["efficiency"].dtype == float


def test_notebook_views_and_plot(fds) -> None:  # noqa: ANN001
    text = repr(fds)
    assert text.startswith("Frontier(") and "beta" in text and len(text) < 400
    html = fds._repr_html_()
    assert "<table>" in html and "envy-freeness" in html and "fds:beta" not in html
    fig = fds.plot()
    ax = fig.axes[0]
    assert ax.get_xlabel() == "beta" and ax.get_ylabel() == "worst efficiency"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "inf"]
    assert {"envy-freeness", "sharing-incentive"} <= {t.get_text() for t in ax.get_yticklabels()}


def test_processes_give_the_same_frontier() -> None:
    args = {"metric": "utilization", "properties": ["sharing-incentive"], "users": 2, "resources": 2, "budget": 12}
    one = frontier("slots", "slots", [1, 2, 4], workers=1, **args)
    two = frontier("slots", "slots", [1, 2, 4], workers=2, **args)
    assert one.to_pandas().equals(two.to_pandas())
    assert [p.worst.instance for p in one.points] == [p.worst.instance for p in two.points]


def test_a_policy_file_with_a_numeric_parameter(tmp_path: Path) -> None:
    from analyzer import load_policy_file
    from analyzer.policy_file import forget_policy_file

    path = tmp_path / "mix.py"
    path.write_text(textwrap.dedent('''
        from models import FillingPolicy, register

        @register
        class Mix(FillingPolicy):
            name = "mix-share-test"
            description = "max-min on (1 - mix) dominant share + mix mean share"
            parameters = {"mix": 1}

            def share_per_task(self, demands, capacity):
                s = demands / capacity
                t = self.params["mix"]
                return (1 - t) * s.max(axis=1) + t * s.sum(axis=1) / s.shape[1]
    '''))
    load_policy_file(path)
    try:
        f = frontier("mix-share-test", "mix", [0, 1], metric="efficiency", properties=["envy-freeness"], budget=20,
                     workers=1)
    finally:
        forget_policy_file(path)
    assert [p.label for p in f.points] == ["mix-share-test:mix=0", "mix-share-test"]  # 1 is the default
    assert f[0].worst.value == worst_case("drf", "efficiency", budget=20, bound=False).value  # mix 0 is DRF
    assert all(p.status("envy-freeness") in STATUSES for p in f.points)


@pytest.mark.parametrize("kwargs, word", [
    ({"param": "bet"}, "did you mean 'beta'"), ({"values": ["x"]}, "not a number"), ({"values": []}, "values"),
    ({"policy": "slots", "param": "slots", "values": [1.5]}, "whole number"),
    ({"properties": ["envy"]}, "unknown property"), ({"users": 0}, "users"),
])
def test_bad_arguments_name_the_field(kwargs: dict, word: str) -> None:
    from models import PolicyError

    args = {"policy": "fds", "param": "beta", "values": [1], **kwargs}
    with pytest.raises((PolicyError, ValueError), match=word):
        frontier(args.pop("policy"), args.pop("param"), args.pop("values"), budget=5, workers=1, **args)


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["frontier", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["text", "md", "latex", "csv", "json"])
def test_cli_every_format(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    code, out, _ = _cli(capsys, "fds", "--param", "beta", "--values", "1,inf", "--metric", "envy", "--properties",
                        "envy-freeness", "--budget", "8", "--workers", "1", "--format", fmt)
    assert code == 0 and "envy-freeness" in out and "inf" in out
    if fmt == "json":
        data = json.loads(out)
        assert [p["beta"] for p in data["points"]] == ["1", "inf"]
        assert data["points"][0]["proofs"]["envy-freeness"]["status"] == "proved"


def test_cli_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "frontier.png"
    code, text, _ = _cli(capsys, "gfj", "--param", "beta", "--values", "1,inf", "--metric", "envy", "--budget", "8",
                         "--workers", "1", "--plot", str(out))
    assert code == 0 and out.read_bytes().startswith(b"\x89PNG") and "gfj along beta" in text


@pytest.mark.parametrize("argv, word", [
    (["fds", "--param", "bet", "--values", "1"], "param"),
    (["fds", "--param", "beta", "--values", "1,x"], "not a number"),
    (["fds", "--param", "beta", "--values", "1,"], "--values"),
    (["fds", "--param", "beta", "--values", "1", "--metric", "effic"], "unknown metric"),
    (["fds", "--param", "beta", "--values", "1", "--plot", "x.gif"], "--plot"),
    (["fds", "--param", "beta", "--values", "1", "--users", "100000", "--resources", "1000"], "users x resources"),
    (["fds", "--param", "beta", "--values", "1", "--prove-timeout", "0"], "--prove-timeout"),
    (["fds", "--values", "1"], "--param"),
])
def test_cli_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], word: str) -> None:
    code, out, err = _cli(capsys, *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and word in err, err


@pytest.mark.slow
def test_the_issues_fds_frontier() -> None:
    f = frontier("fds", "beta", [0.25, 1, "inf"], metric="efficiency",
                 properties=["sharing-incentive", "envy-freeness"], users=3, resources=2, seed=0)
    assert f[1].status("sharing-incentive") == "proved" and f[1].status("envy-freeness") == "proved"
    assert 0.75 <= float(f["inf"].worst.value) <= 0.75 * 1.01
    assert f[0.25].status("sharing-incentive") != "proved"
