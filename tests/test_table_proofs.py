"""``prove_cells`` (``fairalloc table --prove``): a ✓ cell the prover
refutes becomes a ✗ with the prover's exactly re-verified counterexample."""

from __future__ import annotations

import pytest

from analyzer import check
from analyzer.searching.classes import InstanceClass
from analyzer.searching.instance_stream import cell_key
from analyzer.searching.result import SearchResult
from analyzer.table import HOLDS, VIOLATED, PropertyTable
from analyzer.table_proofs import prove_cells

pytest.importorskip("z3")


def _missed(policy: str, prop: str, cls: InstanceClass | None = None) -> PropertyTable:
    """A table whose one cell is a ✓ from a search that checked one
    instance and missed the violation (asset fairness is not sharing
    incentive: Ghodsi et al., NSDI 2011, Section 4.1)."""
    cell = SearchResult(policy, prop, counterexample=None, instances=1, seed=0, budget=1,
                        instance_class=cls or InstanceClass())
    return PropertyTable([policy], [prop], {cell_key(policy, prop): cell})


def test_prover_counterexample_turns_a_missed_tick_into_a_cross() -> None:
    table = _missed("asset", "sharing-incentive")
    assert table.cell_text("asset", "sharing-incentive") == HOLDS
    prove_cells(table, 2, 2, workers=1)
    r = table["asset", "sharing-incentive"]
    assert r.holds is False and r.found_in == "prove" and r.counterexample.exact
    assert table.cell_text("asset", "sharing-incentive") == VIOLATED
    assert table.proof("asset", "sharing-incentive") is None  # no "proved for ..." beside a ✗
    again = check("asset", r.counterexample.instance, "sharing-incentive")
    assert again is not None and again.exact


def test_proved_cell_keeps_its_tick_and_proof() -> None:
    table = _missed("drf", "sharing-incentive")
    prove_cells(table, 2, 2, workers=1)
    assert table["drf", "sharing-incentive"].holds is True
    assert table.proof("drf", "sharing-incentive").complete
    assert table.cell_text("drf", "sharing-incentive") == f"{HOLDS} (proved ≤ 2x2)"


@pytest.mark.parametrize(("option", "mark"), [("weights", "(proved ≤ 2x2: weighted)"),
                                               ("caps", "(proved ≤ 2x2: capped)")])
def test_proved_mark_names_the_class_it_covers(option: str, mark: str) -> None:
    table = _missed("drf", "sharing-incentive", InstanceClass.parse(option))
    prove_cells(table, 2, 2, workers=1)
    proof = table.proof("drf", "sharing-incentive")
    assert proof.complete and (proof.weighted, proof.capped) == (option == "weights", option == "caps")
    assert table.cell_text("drf", "sharing-incentive") == f"{HOLDS} {mark}"
    words = "weighted, uncapped" if option == "weights" else "unweighted, capped"
    assert words in table.cell_text("drf", "sharing-incentive", detail=True)


@pytest.mark.parametrize("bad", ["0", "-1", "nan", "inf"])
def test_bad_prove_timeout_exits_2_before_the_search(bad: str, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from analyzer.cli import main
    from analyzer.table import TableRun

    def no_search(self: TableRun) -> None:
        raise AssertionError("the table was searched before --prove-timeout was checked")

    monkeypatch.setattr(TableRun, "run", no_search)
    args = ["table", "--policy", "drf", "--property", "sharing-incentive", "--budget", "10", "--quiet",
            "--prove", "2,1", "--prove-timeout", bad]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("fairalloc: error: --prove-timeout:") and len(err.strip().splitlines()) == 1
