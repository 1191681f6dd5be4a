"""The stream's near misses (the starting points of the optimisation
phase): the margins of every MARGIN_EVERY-th checked instance, taken in one
``margin_many`` call per screened batch, are each instance's own margin."""

from __future__ import annotations

import math

import pytest

from analyzer.properties.base import Property
from analyzer.searching import checks
from analyzer.searching.instance_stream import make_cell

CELLS = [
    ("drf", "population-monotonicity", None),
    ("ceei", "sharing-incentive", None),
    ("asset", "single-resource-fairness", None),
    ("drf", "strategy-proofness", None),
    ("ceei", "envy-freeness", "weights,caps,zeros"),
]


@pytest.mark.parametrize(("policy", "prop", "cls"), CELLS)
@pytest.mark.parametrize("batched", [True, False])
def test_near_misses_are_each_instances_margin(policy: str, prop: str, cls: str | None, batched: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checks, "NEAR_MISSES", 10**6)  # keep them all
    monkeypatch.setattr(checks, "BATCH_SCREEN", batched)
    cell = make_cell(policy, prop, 10_000, 0, cls, "continuous")
    stop = 300 if batched else 120
    chunk = checks.examine(cell, 0, stop, 10**6, True)
    assert chunk.violation is None
    want = {}
    for pos in range(0, stop, checks.MARGIN_EVERY):
        _, inst = cell.at(pos)
        if inst is not None and checks.screenable(cell, inst) == "c":
            # the base class's margin_many: margin itself, instance by instance (nan: no answer)
            mg = float(Property.margin_many(cell.prop, cell.policy, [inst], cell.mode)[0])
            if math.isfinite(mg):
                want[pos] = mg
    got = {pos: mg for mg, pos in chunk.near}
    assert len(want) >= 8 and got.keys() == want.keys()
    for pos, mg in want.items():
        assert math.isclose(got[pos], mg, rel_tol=1e-9, abs_tol=1e-12), (pos, got[pos], mg)
