"""Evidence in every view: an Instance's repr names its demands (bounded for
10^6 users) and its HTML shows capacities, demands, weights, caps and
machines; labelled arrays show their labels; a refuted proof shows its
instance and violation, and any field the result has."""

from __future__ import annotations

import dataclasses
import html
from pathlib import Path

import numpy as np
import pytest

from analyzer import Instance, check, prove, solve
from models.instance_view import REPR_MAX_CHARS
from proofs.prover.result import CaseResult, ProofResult

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"


def test_an_instance_repr_names_its_demands() -> None:
    inst = Instance.load(PAPER)
    assert repr(inst) == ("Instance(name='paper two users', n=2, m=2, resources=('cpu', 'mem'), R=<9, 18>, "
                          "users={A: <1, 4>, B: <3, 1>})") or "users={A: <1, 4>, B: <3, 1>}" in repr(inst)
    capped = Instance.from_exact([30, 30], [[1, 3], ["1/3", 1]], weights=[1, 2], max_tasks=[None, 5])
    assert repr(capped).endswith("R=<30, 30>, users={u0: <1, 3>, u1: <1/3, 1> w=2 cap=5})")
    cluster = Instance.load(ROOT / "examples" / "paper_section_7_1.toml")
    assert "machines=48" in repr(cluster) and "job1: <1, 10>" in repr(cluster)


def test_the_repr_of_a_million_users_is_short_and_builds_nothing_per_user() -> None:
    inst = Instance.from_arrays(np.ones(12), np.ones((10**6, 12)))
    text = repr(inst)
    assert "\n" not in text and len(text) <= REPR_MAX_CHARS + 40
    assert "u0: <1, 1, 1, 1, 1, 1, 1, 1, … +4>" in text and text.endswith(" more})") and "999,9" in text
    inst._repr_html_()
    assert "users" not in inst.__dict__ and "demands_exact" not in inst.__dict__  # no 10^6 names or Fractions


def test_an_instance_html_shows_capacities_demands_weights_caps_and_machines() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 8, "mem": 16},
                               "users": {"A": {"demand": {"cpu": "1/3", "mem": 4}, "weight": 2},
                                         "B": {"demand": {"cpu": 3, "mem": 1}, "max_tasks": 2}},
                               "machines": [{"count": 2, "cpu": 4, "mem": 8, "name": "node"}]})
    page = inst._repr_html_()
    for row in ("<td>capacity R</td><td>8</td><td>16</td>", "<td>A</td><td>1/3</td><td>4</td><td>2</td><td>∞</td>",
                "<td>B</td><td>3</td><td>1</td><td>1</td><td>2</td>", "<td>node</td><td>2</td><td>4</td><td>8</td>"):
        assert row in page
    assert "<th>weight</th><th>max tasks</th>" in page
    big = Instance.from_arrays([1, 1], np.ones((5_000, 2)))._repr_html_()
    assert big.count("<tr>") < 60 and "… 4961 more rows" in big


def test_labelled_arrays_show_their_labels() -> None:
    a = solve(PAPER, "drf", exact=True)
    assert repr(a.shares).splitlines() == ["LabelledArray(user x resource, shape=(2, 2))",
                                           "user       cpu       mem",
                                           "A     0.333333  0.666667",
                                           "B     0.666667  0.111111"]
    assert repr(a.utilization).splitlines()[1:] == ["resource     value", "cpu              1", "mem       0.777778"]
    page = a.dominant_shares._repr_html_()
    assert "<th>user</th><th>value</th>" in page and "<td>A</td><td>0.666667</td>" in page
    assert repr(a.shares.T).startswith("LabelledArray([[")  # unlabelled (a transposed view): numpy's repr
    many = solve(Instance.from_arrays([1] * 10, np.ones((10**5, 10))), "drf").shares
    text = repr(many)
    assert len(text.splitlines()) < 20 and "… 99,988 more users" in text and "… 2 more resources" in text


@pytest.fixture(scope="module")
def refuted() -> ProofResult:
    pytest.importorskip("z3")
    return prove("ceei", "strategy-proofness")


def test_a_refuted_proof_shows_its_instance_and_violation(refuted: ProofResult) -> None:
    cx = refuted.counterexample
    assert refuted.status == "counterexample" and cx is not None and cx.exact
    page = refuted._repr_html_()
    assert html.escape(cx.instance.describe()) in page and html.escape(cx.message) in page
    assert "re-verified in exact arithmetic" in page and "<td>user</td><td>u0</td>" in page
    assert "<th>weight</th><th>max tasks</th>" in page  # the instance's own table
    assert f"instance={cx.instance.describe()!r}" in repr(refuted) and len(repr(refuted)) <= 400


def test_a_proof_view_shows_every_field_a_result_has() -> None:
    # fields added to ProofResult later (e.g. the solvers that agreed) show without touching the views
    @dataclasses.dataclass(repr=False)
    class Richer(ProofResult):
        solvers: tuple[str, ...] = ()

    inst = Instance.from_exact([30, 30], [[1, 3], [1, 1]])
    r = Richer("counterexample", "asset", "sharing-incentive", 2, 2, "positive",
               counterexample=check("asset", inst, "sharing-incentive"), cases=[CaseResult("c", "sat", 0.1)],
               note="found at once", solvers=("z3 4.13", "cvc5 1.1"))
    assert "solvers=('z3 4.13', 'cvc5 1.1')" in repr(r) and "note='found at once'" in repr(r)
    page = r._repr_html_()
    assert "<td>solvers</td><td>z3 4.13, cvc5 1.1</td>" in page and "<td>note</td><td>found at once</td>" in page
    assert html.escape(inst.describe()) in page
