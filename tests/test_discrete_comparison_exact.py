"""``compare`` (discrete vs continuous, Section 6.2) works in exact
arithmetic only: the paper's example gives exact shares, and a continuous
side that is not exact is refused instead of turned into Fractions of floats."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

import analyzer.comparing.whole_tasks as dc
from models import Instance, PolicyError

PAPER = Instance.from_exact([9, 18], [[1, 4], [3, 1]])


def test_paper_example_is_exact() -> None:
    c = dc.compare(PAPER, "drf", properties=False)
    assert c.continuous_tasks() == (3, 2)  # DRF: A 3 tasks, B 2 (Section 4)
    assert c.shares_continuous == (Fraction(2, 3), Fraction(2, 3))
    assert c.dominant_shares() == ((Fraction(2, 3), Fraction(2, 3)), (Fraction(2, 3), Fraction(2, 3)))
    assert [int(v) for v in c.discrete.fill.tasks] == [3, 2] and c.gap_max_tasks == (0, 0)


def test_a_float_continuous_side_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = dc.solve

    def floats(*args: object, **kw: object) -> object:
        return dataclasses.replace(real(*args, **kw), exact=False, x_exact=None, message="not exact")

    monkeypatch.setattr(dc, "solve", floats)
    with pytest.raises(PolicyError, match="drf: the discrete comparison needs the continuous solution in exact"):
        dc.compare(PAPER, "drf", properties=False)
