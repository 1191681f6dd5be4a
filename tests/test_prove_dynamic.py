"""Proofs in the dynamic setting (issue 32): the step formulas of the
dynamic mechanisms and of recomputed static policies against their
solvers, and ``prove(..., mode="dynamic")`` on the five properties: proofs
where the paper proves them (Kash, Procaccia and Shah, JAIR 51, 2014,
Section 4: Dynamic DRF keeps all four axioms), counterexamples where the
mechanisms break them, re-verified by the checker, and "unknown" with the
reason where a negation does not cover the class."""

from __future__ import annotations

import pytest

from analyzer import PolicyError, prove, solve
from analyzer.cli import main
from analyzer.encoding_guard import crosscheck_instances
from proofs.prover.crosscheck import disagreement
from proofs.prover.encodings import get_encoding

AXIOMS = ("dynamic-sharing-incentive", "dynamic-envy-freeness", "dynamic-pareto-optimality",
          "dynamic-strategy-proofness")


@pytest.mark.parametrize("policy", ["dynamic-drf", "cautious-drf", "recompute:policy=drf",
                                    "recompute:policy=asset"])
@pytest.mark.parametrize(("domain", "weighted", "capped"), [("positive", False, False), ("zeros", True, True)])
def test_step_formulas_have_the_solvers_allocation_as_only_solution(policy: str, domain: str, weighted: bool,
                                                                     capped: bool) -> None:
    """The last step's formula (which chains every step) against the
    exact solver, on seeded instances of 3 users (a wrong formula would
    prove what it satisfies)."""
    enc = get_encoding(policy)
    for inst in crosscheck_instances(3, 2, domain, weighted, capped, count=6, seed=32):
        alloc = solve(inst, policy, exact=True)
        assert disagreement(enc, inst, alloc.x_exact, list(alloc.x), weighted, capped) is None, inst.describe()


@pytest.mark.parametrize("prop", [*AXIOMS, "irrevocability"])
def test_dynamic_drf_keeps_every_axiom_at_two_by_two(prop: str) -> None:
    r = prove("dynamic-drf", prop, 2, 2, mode="dynamic", workers=1)
    assert r.status == "proved", r.reason
    assert r.assumptions["setting"] == "dynamic: users arrive in order, continuous tasks"


def test_cautious_drf_wastes_its_reserve() -> None:
    """Refuted at three users: the reserve kept for the last user leaves
    room the first two could use within the step's budget."""
    r = prove("cautious-drf", "dynamic-pareto-optimality", 3, 2, mode="dynamic", workers=1)
    assert r.status == "counterexample" and r.counterexample.exact and r.counterexample.mode == "dynamic"
    assert "within the step's budget" in r.counterexample.message


@pytest.mark.parametrize(("policy", "prop", "n", "m"), [("drf", "irrevocability", 2, 2),
                                                        ("asset", "dynamic-sharing-incentive", 2, 2),
                                                        ("leximin-tasks", "dynamic-envy-freeness", 2, 1),
                                                        ("ceei", "dynamic-strategy-proofness", 2, 2)])
def test_recomputed_static_policies_are_refuted(policy: str, prop: str, n: int, m: int) -> None:
    r = prove(policy, prop, n, m, mode="dynamic", workers=1)
    assert r.status == "counterexample" and r.counterexample.exact and r.counterexample.property == prop


def test_uncovered_class_is_unknown_with_the_reason() -> None:
    r = prove("dynamic-drf", "dynamic-strategy-proofness", 2, 2, mode="dynamic", capped=True, workers=1)
    assert r.status == "unknown" and "not encoded with caps" in r.reason


@pytest.mark.parametrize(("kw", "says"), [
    ({"property": "envy-freeness", "mode": "dynamic"}, "not defined in the dynamic setting"),
    ({"property": "irrevocability"}, "not defined in the continuous setting"),
    ({"property": "irrevocability", "mode": "dynamic", "setting": "discrete"}, "contradicts setting"),
])
def test_setting_and_property_must_match(kw: dict[str, str], says: str) -> None:
    with pytest.raises(PolicyError, match=says):
        prove("drf", users=2, resources=2, **kw)


def test_cli_prove_dynamic(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "dynamic-drf", "irrevocability", "--mode", "dynamic", "--workers", "1"]) == 0
    assert capsys.readouterr().out.startswith("irrevocability PROVED for dynamic-drf on every instance with 2 users")
    assert main(["prove", "drf", "irrevocability", "--mode", "dynamic", "--workers", "1"]) == 1
    assert main(["prove", "drf", "irrevocability"]) == 2
    assert main(["prove", "drf", "irrevocability", "--mode", "dynamic", "--discrete", "--bound", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "--mode dynamic: not with --discrete" in err[1]
