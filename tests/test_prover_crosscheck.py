"""The pre-proof cross-check says when z3 could not decide, instead of
claiming the encoding allows another allocation."""

from __future__ import annotations

from fractions import Fraction

import z3

from models import Instance
from proofs.prover.crosscheck import disagreement
from proofs.prover.encodings import get_encoding

PAPER = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
                            "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
                                      "B": {"demand": {"cpu": 3, "mem": 1}}}})


def _undecided_at(monkeypatch, call: int) -> None:
    real = z3.Solver.check
    calls: list[int] = []

    def check(self, *args):
        calls.append(1)
        return z3.unknown if len(calls) == call else real(self, *args)

    monkeypatch.setattr(z3.Solver, "check", check)


def test_the_right_encoding_agrees() -> None:
    assert disagreement(get_encoding("drf"), PAPER, [Fraction(3), Fraction(2)], [3.0, 2.0]) is None


def test_a_wrong_allocation_is_named() -> None:
    msg = disagreement(get_encoding("drf"), PAPER, [Fraction(2), Fraction(2)], [2.0, 2.0])
    assert msg is not None and msg.startswith("the solver's allocation (2, 2) does not satisfy the encoding")


def test_undecided_uniqueness_is_not_reported_as_another_solution(monkeypatch) -> None:
    _undecided_at(monkeypatch, 2)
    msg = disagreement(get_encoding("drf"), PAPER, [Fraction(3), Fraction(2)], [3.0, 2.0])
    assert msg is not None and msg.startswith("z3 could not decide whether the encoding allows another allocation")
    assert "also allows" not in msg


def test_undecided_membership_is_not_reported_as_a_violation(monkeypatch) -> None:
    _undecided_at(monkeypatch, 1)
    msg = disagreement(get_encoding("drf"), PAPER, [Fraction(3), Fraction(2)], [3.0, 2.0])
    assert msg is not None and msg.startswith("z3 could not decide whether the solver's allocation (3, 2)")
