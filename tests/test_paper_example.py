"""The paper's own numbers (Ghodsi et al., NSDI 2011, Sections 4.1, 5.1, 5.2)."""

from fractions import Fraction

import pytest

from analyzer import Instance, solve

PAPER = {"resources": {"cpu": 9, "mem": 18},
         "users": {"A": {"demand": {"cpu": 1, "mem": 4}}, "B": {"demand": {"cpu": 3, "mem": 1}}}}


@pytest.fixture
def paper() -> Instance:
    return Instance.from_dict(PAPER)


def test_file_and_dict_agree(paper: Instance) -> None:
    assert Instance.load("examples/paper_two_users.toml").to_dict()["users"] == paper.to_dict()["users"]


@pytest.mark.parametrize(
    ("policy", "a", "b"),
    [("drf", Fraction(3), Fraction(2)), ("asset", Fraction(63, 25), Fraction(54, 25))],
)
def test_filling_policies_exact(paper: Instance, policy: str, a: Fraction, b: Fraction) -> None:
    alloc = solve(paper, policy, exact=True)
    assert alloc.exact
    assert alloc.tasks["A"] == a and alloc.tasks["B"] == b
    num = solve(paper, policy)
    assert num.tasks["A"] == pytest.approx(float(a), rel=1e-12)
    assert num.tasks["B"] == pytest.approx(float(b), rel=1e-12)


def test_drf_equalises_dominant_shares(paper: Instance) -> None:
    alloc = solve(paper, "drf", exact=True)
    assert alloc.dominant_shares_exact == (Fraction(2, 3), Fraction(2, 3))


def test_asset_numbers_match_paper_decimals(paper: Instance) -> None:
    a = solve(paper, "asset")
    assert round(a.tasks["A"], 2) == 2.52 and round(a.tasks["B"], 2) == 2.16


def test_ceei(paper: Instance) -> None:
    alloc = solve(paper, "ceei")
    assert alloc.tasks["A"] == pytest.approx(45 / 11, abs=1e-7)
    assert alloc.tasks["B"] == pytest.approx(18 / 11, abs=1e-7)
    # market clearance: both resources are used up
    assert alloc.utilization == pytest.approx([1.0, 1.0], abs=1e-7)
