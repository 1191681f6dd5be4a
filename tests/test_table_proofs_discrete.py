"""``table --mode discrete --prove N,M --prove-bound K``: ✓ cells of the
discrete table proved for every integer instance within the bound; a
counterexample the search missed turns the cell into a ✗."""

from __future__ import annotations

import pytest

from analyzer.cli import main as cli
from analyzer.tables.marks_discrete import prove_discrete_cells
from analyzer.tables.table import property_table


def test_cells_proved_or_refuted_within_the_bound() -> None:
    # budget 2: the search misses DRF's discrete loss of resource monotonicity
    t = property_table(["drf"], ["resource-monotonicity", "population-monotonicity"], budget=2, seed=0,
                       mode="discrete", workers=1)
    assert t["drf", "resource-monotonicity"].holds and t["drf", "population-monotonicity"].holds
    prove_discrete_cells(t, 2, 2, 2, workers=1)
    rm = t["drf", "resource-monotonicity"]
    assert rm.holds is False and rm.found_in == "prove" and rm.counterexample.exact
    proof = t.proof("drf", "population-monotonicity")
    assert proof.complete and proof.proved == [(2, 1), (2, 2)]
    assert "every integer instance within the bound 2" in proof.text()
    assert t.cell_text("drf", "population-monotonicity") == "✓ (proved: bound 2)"


def test_proof_in_every_format() -> None:
    t = property_table(["drf"], ["population-monotonicity"], budget=2, seed=0, mode="discrete", workers=1)
    prove_discrete_cells(t, 2, 1, 2, workers=1)
    d = t.to_dict()["cells"][0]["proof"]
    assert d["mark"] == "(proved: bound 2)"
    assert (d["max_users"], d["max_resources"], d["bound"], d["domain"], d["weighted"], d["capped"]) == \
        (2, 1, 2, "positive", False, False)
    assert "within the bound 2" in t.to_csv() and "within the bound 2" in t.to_markdown()
    assert "✓ (proved: bound 2)" in t.to_text()


def test_continuous_cells_are_left_alone() -> None:
    t = property_table(["drf"], ["population-monotonicity"], budget=2, seed=0, workers=1)
    prove_discrete_cells(t, 2, 1, 2, workers=1)
    assert t.proof("drf", "population-monotonicity") is None


@pytest.mark.parametrize(("argv", "flag"), [
    (["--prove-bound", "2"], "--prove-bound"),
    (["--mode", "discrete", "--prove", "2,1"], "--prove-bound"),
    (["--mode", "discrete", "--prove", "2,1", "--prove-bound", "0"], "--prove-bound"),
])
def test_bad_flags(argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["table", "--policy", "drf", "--property", "envy-freeness", "--budget", "2", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and flag in err[0]


def test_proof_names_the_deviations_decided() -> None:
    t = property_table(["drf"], ["resource-monotonicity"], budget=1, seed=0, mode="discrete", workers=1)
    prove_discrete_cells(t, 2, 1, 3, workers=1)
    proof = t.proof("drf", "resource-monotonicity")
    assert proof.complete and "every growth of the capacities within 1..3" in proof.text()
