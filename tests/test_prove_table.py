"""``table --prove`` in both demand domains and in weighted/capped classes
(issue 21, item 4), and its Python form ``property_table(..., prove=)``."""

from __future__ import annotations

import json

import pytest

from analyzer import property_table
from analyzer.cli import main
from analyzer.searching.classes import InstanceClass
from analyzer.searching.instance_stream import cell_key
from analyzer.searching.result import SearchResult
from analyzer.table import PropertyTable
from analyzer.table_proofs import prove_cell, prove_cells
from models import PolicyError


def test_proved_for_positive_demands_refuted_with_zeros_outside_the_class() -> None:
    t = property_table(["drf"], ["population-monotonicity"], budget=20, workers=1, prove=(3, 2))
    pr = t.proof("drf", "population-monotonicity")
    assert t["drf", "population-monotonicity"].holds  # the paper's class has no zero demands
    assert pr.complete and pr.domains["positive"].complete
    zeros = pr.domains["zeros"].counterexample
    assert zeros is not None and zeros.exact and (zeros.instance.demands == 0).any()
    assert pr.mark() == "(proved ≤ 3x2; zeros ✗)"
    assert t.cell_text("drf", "population-monotonicity") == "✓ (proved ≤ 3x2; zeros ✗)"
    assert "zero demands: refuted, outside the class" in pr.text()


def test_zero_class_cell_becomes_a_cross_and_says_positive_demands_hold() -> None:
    t = property_table(["drf"], ["population-monotonicity"], budget=1, workers=1, prove=(3, 2),
                       instance_class="zeros")
    cell = t["drf", "population-monotonicity"]
    assert cell.found_in == "prove"  # the one-instance search (seed 0) misses it
    assert cell.holds is False and cell.counterexample.exact
    pr = t.proof("drf", "population-monotonicity")
    assert not pr.complete and pr.domains["positive"].complete
    assert pr.text().startswith("proved for n ≤ 3, m ≤ 2 (z3; positive demands")
    assert "[proved for n ≤ 3" in t.notes()[0]


def test_weighted_capped_class_is_proved_and_says_so() -> None:
    t = property_table(["drf"], ["envy-freeness", "sharing-incentive"], budget=20, workers=1, prove=(2, 2),
                       instance_class="weights,caps")
    for prop in ("envy-freeness", "sharing-incentive"):
        pr = t.proof("drf", prop)
        assert pr.complete and pr.weighted and pr.capped
        assert t.cell_text("drf", prop) == "✓ (proved ≤ 2x2: weighted, capped)"
        assert "weighted, capped" in pr.text()


def test_cell_the_prover_cannot_encode_says_why(opaque: str) -> None:
    cell = SearchResult(opaque, "envy-freeness", counterexample=None, instances=1, seed=0, budget=1,
                        instance_class=InstanceClass())
    t = PropertyTable([opaque], ["envy-freeness"], {cell_key(opaque, "envy-freeness"): cell})
    prove_cells(t, 2, 2, workers=1)
    pr = t.proof(opaque, "envy-freeness")
    assert not pr.complete and pr.text().startswith(f"not proved: {opaque}: no SMT encoding")
    assert t.cell_text(opaque, "envy-freeness") == "✓"


@pytest.mark.parametrize("bad", [(2,), (0, 2), ("2", "2"), 3])
def test_bad_prove_sizes_are_bad_input(bad: object) -> None:
    with pytest.raises(PolicyError, match="prove"):
        property_table(["drf"], ["envy-freeness"], budget=1, prove=bad)  # type: ignore[arg-type]


def test_cli_json_has_the_domains(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["table", "--policy", "drf", "--property", "envy-freeness", "--budget", "10", "--prove", "2,2",
                 "--quiet", "--workers", "1", "--format", "json"]) == 0
    proof = json.loads(capsys.readouterr().out)["cells"][0]["proof"]
    assert proof["complete"] and proof["mark"] == "(proved ≤ 2x2)"
    assert set(proof["domains"]) == {"positive", "zeros"} and proof["domains"]["zeros"]["complete"]


def test_ctrl_c_during_proofs_keeps_the_cells_proved_so_far(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    import analyzer.proving as proving
    from proofs.prover.driver import INTERRUPTED
    from proofs.prover.result import UNDECIDED, CaseResult, ProofResult

    real, calls = proving.prove, []

    def prove(policy: str, prop: str, *args: object, **kw: object) -> object:
        calls.append(prop)
        if prop == "envy-freeness":  # Ctrl-C while the second property's cases run
            return ProofResult(UNDECIDED, policy, prop, 2, 2, "positive",
                               cases=[CaseResult("all", "unknown", 0.0, reason=INTERRUPTED)], reason=INTERRUPTED)
        return real(policy, prop, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(proving, "prove", prove)
    code = main(["table", "--policy", "drf", "--property", "sharing-incentive,envy-freeness", "--budget", "10",
                 "--prove", "2,1", "--quiet", "--workers", "1"])
    out, err = capsys.readouterr()
    assert code == 130 and "interrupted" in err
    assert "✓ (proved ≤ 2x1)" in out  # sharing incentive, proved before the interrupt
    assert calls[-1] == "envy-freeness"


@pytest.mark.slow
@pytest.mark.parametrize("cls", ["paper", "weights,caps"])
def test_prover_never_proves_a_cell_the_search_refuted_at_its_size(cls: str) -> None:
    """Every ✗ of the search at a size the prover decides is not 'proved'
    there (and the prover builds a counterexample of its own)."""
    from analyzer import prove

    policies = ["asset", "ceei", "drf", "leximin-tasks", "static"]
    t = property_table(policies, budget=100, workers=1, instance_class=cls)
    checked = 0
    for p in policies:
        for q in t.properties:
            v = t[p, q].counterexample
            if v is None or v.instance.n > 3 or v.instance.m > 2 or q == "bottleneck-based-fairness":
                continue
            r = prove(p, q, v.instance.n, v.instance.m, weighted=cls != "paper", capped=cls != "paper", workers=1)
            assert r.status == "counterexample", (p, q, r.status, r.reason)
            checked += 1
    assert checked >= 10


def test_a_size_proved_with_zeros_is_proved_with_positive_demands(monkeypatch: pytest.MonkeyPatch) -> None:
    # every positive instance is one with zeros allowed: a positive size left undecided is covered
    import analyzer.proving as proving
    from proofs.prover.result import UNDECIDED, ProofResult

    real = proving.prove

    def prove(policy: str, prop: str, n: int, m: int, **kw: object) -> object:
        if (n, m) == (2, 2) and kw["domain"] == "positive":
            return ProofResult(UNDECIDED, policy, prop, n, m, "positive", reason="timeout (stub)")
        return real(policy, prop, n, m, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(proving, "prove", prove)
    proof = prove_cell("drf", "envy-freeness", 2, 2, workers=1)
    assert proof.domains["positive"].proved == [(2, 1), (2, 2)] and proof.complete
    assert proof.domains["positive"].reason == ""
