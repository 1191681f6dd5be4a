"""Vacuity said as such (issue 27, item 2): a property no feasible
allocation violates at a size is "vacuous" there, never "proved"; each
property declares the size it speaks from, z3 checks the declaration, and
``table --prove`` proves every cell at least there."""

from __future__ import annotations

import json

import pytest

from analyzer import property_table, prove
from analyzer.cli import main
from proofs.prover.properties import negations
from proofs.prover.vacuity import speaks_at, vacuity

pytest.importorskip("z3")


def test_single_resource_fairness_with_two_resources_is_vacuous() -> None:
    r = prove("utilitarian", "single-resource-fairness", 2, 2)
    assert r.status == "vacuous" and not r.proved and r.cases == []
    assert r.reason.startswith("no feasible allocation violates the property at this size")
    assert "speaks only of 1 resource" in r.reason
    assert "status='vacuous'" in repr(r) and "no feasible allocation" in repr(r)
    assert "vacuous" in r._repr_html_() and r.to_dict()["status"] == "vacuous"


def test_vacuous_whatever_the_policy(opaque: str) -> None:
    # the verdict does not depend on the policy: one without an encoding is vacuous too
    assert prove(opaque, "single-resource-fairness", 3, 2).status == "vacuous"
    assert prove(opaque, "single-resource-fairness", 3, 1).status == "unknown"


def test_cli_says_vacuous_and_exits_4(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "drf", "single-resource-fairness"]) == 4
    out = capsys.readouterr().out
    assert out.startswith("single-resource-fairness for drf at 2 users x 2 resources: VACUOUS (no feasible "
                          "allocation violates the property at this size")
    assert main(["prove", "drf", "single-resource-fairness", "--format", "json"]) == 4
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "vacuous" and "speaks only of 1 resource" in data["reason"]


@pytest.mark.parametrize("prop", sorted(negations()))
def test_each_property_speaks_from_its_declared_size(prop: str) -> None:
    """At the declared size the property rules out a Pareto-efficient
    allocation (any allocation, for Pareto efficiency itself); one user
    fewer it does not (where the formula exists), and it is never vacuous
    there."""
    neg = negations()[prop]
    n, m = neg.speaks
    assert neg.resources in (None, m)
    assert speaks_at(prop, n, m, "positive") is True
    assert vacuity(prop, n, m, "positive") is None
    if n - 1 >= neg.min_users:
        assert speaks_at(prop, n - 1, m, "zeros") is False


def test_population_monotonicity_speaks_from_three_users() -> None:
    assert negations()["population-monotonicity"].speaks == (3, 1)
    r = prove("drf", "population-monotonicity", 2, 2)
    assert r.status == "proved" and "speaks from 3 users" in r.note  # true, and said to be weak
    assert prove("drf", "population-monotonicity", 3, 2).note == ""


def test_table_proves_each_cell_where_it_speaks() -> None:
    t = property_table(["drf"], ["population-monotonicity"], budget=20, workers=1, prove=(2, 2))
    proof = t.proof("drf", "population-monotonicity")
    assert any(n >= 3 for n, _ in proof.proved)
    assert proof.covers == (3, 2) and proof.mark().startswith("(proved ≤ 3x2")
    assert proof.text().startswith("proved for n ≤ 3, m ≤ 2")


def test_table_marks_state_the_sizes_covered() -> None:
    t = property_table(["drf"], ["single-resource-fairness", "envy-freeness"], budget=20, workers=1,
                       prove=(2, 2))
    assert t.cell_text("drf", "single-resource-fairness") == "✓ (proved ≤ 2x1)"
    assert t.proof("drf", "single-resource-fairness").proved == [(1, 1), (2, 1)]
    assert t.cell_text("drf", "envy-freeness") == "✓ (proved ≤ 2x2)"
