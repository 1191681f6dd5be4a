"""Worst cases over time (issue 32): the ratio of the smallest dominant
share after the last arrival to the offline max-min optimum, which for
Dynamic DRF tends to 1/m (Li, Liu, Zhang and Zhang, arXiv 1509.07935)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from analyzer import Instance, worst_case
from analyzer.cli import main
from analyzer.worst.metrics import get_metric


def _groups(n: int, m: int, eps: Fraction) -> Instance:
    """``n - 1`` users spread over ``m`` dominant resources (every other
    entry ``eps``), then one user needing all of every resource equally."""
    rows = [[Fraction(1) if j == i % m else eps for j in range(m)] for i in range(n - 1)]
    return Instance.from_exact([1] * m, [*rows, [Fraction(1)] * m])


@pytest.mark.parametrize(("n", "m"), [(3, 2), (5, 2), (7, 3)])
def test_the_late_user_instance_approaches_the_formula(n: int, m: int) -> None:
    """By hand: before the last arrival the largest group (g users) sits at
    the level (n-1)/(n g), so the last user finds 1/n of the resource left;
    offline, everybody gets 1/(g + 1): ratio (g + 1)/n as eps -> 0."""
    g = -(-(n - 1) // m)
    metric = get_metric("dynamic-maxmin")
    values = [metric.measure(_policy(), _groups(n, m, Fraction(1, 10 ** k))).value for k in (2, 4, 6)]
    assert all(isinstance(v, Fraction) for v in values)
    assert values[0] > values[1] > values[2] > Fraction(g + 1, n)
    assert values[2] - Fraction(g + 1, n) < Fraction(1, 10 ** 4)


def _policy():  # noqa: ANN202
    from models import get_policy

    return get_policy("dynamic-drf")


def test_worst_case_search_finds_the_late_user() -> None:
    r = worst_case("dynamic-drf", "dynamic-maxmin", users=5, resources=2, seed=0, mode="dynamic")
    assert r.exact and isinstance(r.value, Fraction)
    assert Fraction(1, 2) <= r.value <= Fraction(61, 100)  # (g + 1)/n = 3/5 at eps -> 0; never below 1/m
    again = worst_case("dynamic-drf", "dynamic-maxmin", users=5, resources=2, seed=0)
    assert again.value == r.value and again.instance == r.instance  # mode: the metric's own by default


def test_drf_recomputed_ends_at_the_optimum() -> None:
    r = worst_case("drf", "dynamic-maxmin", users=3, resources=2, seed=1, budget=60)
    assert r.value == 1


def test_mode_must_be_the_metrics() -> None:
    with pytest.raises(ValueError, match="defined in the dynamic setting"):
        worst_case("dynamic-drf", "dynamic-maxmin", mode="continuous")
    with pytest.raises(ValueError, match="defined in the continuous setting"):
        worst_case("drf", "efficiency", mode="dynamic")


def test_cli_worst_dynamic(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["worst", "dynamic-drf", "dynamic-maxmin", "--users", "3", "--resources", "2", "--budget", "100",
                 "--mode", "dynamic", "--quiet", "--format", "json"]) == 0
    assert '"metric": "dynamic-maxmin"' in capsys.readouterr().out
    assert main(["worst", "drf", "efficiency", "--mode", "dynamic"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "defined in the continuous setting" in err
