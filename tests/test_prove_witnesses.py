"""Every SMT negation's witness carries the instance's weights and task caps
(issue 27, item 4): a weighted, capped counterexample is re-verified on
the weighted, capped instance z3 constructed, not on its demands alone."""

from __future__ import annotations

from fractions import Fraction

import pytest

pytest.importorskip("z3")

import z3  # noqa: E402

from analyzer import check, prove  # noqa: E402
from analyzer.proving import _reverify, witness_instance  # noqa: E402
from proofs.prover.driver import split  # noqa: E402
from proofs.prover.encodings import get_encoding  # noqa: E402
from proofs.prover.properties import negations  # noqa: E402
from proofs.prover.symbolic import evaluate  # noqa: E402

#: Policies tried, in order, for a weighted, capped counterexample of each
#: negation (each property is violated by one of them at the sizes below).
VIOLATORS = ("drf", "asset", "static", "leximin-tasks")


def _size(prop: str) -> tuple[int, int]:
    neg = negations()[prop]
    if neg.resources == 1:
        return 2, 1
    return (3, 2) if prop == "population-monotonicity" else (2, 2)


@pytest.mark.parametrize("prop", sorted(negations()))
def test_every_negation_witness_names_weights_and_caps(prop: str) -> None:
    n, m = _size(prop)
    for policy in VIOLATORS:
        enc = get_encoding(policy)
        for case in split(policy, prop, n, m, "positive"):
            query = negations()[prop].build(enc, n, m, "positive", case, weighted=True, capped=True)
            assert {"demands", "weights", "caps"} <= set(query.witness), (policy, case, sorted(query.witness))


def _first_reverified(prop: str) -> tuple[str, dict, object]:
    """A weighted, capped witness z3 finds for ``prop`` and its exact
    re-verification, for the first violator that has one (weighted only
    when the negation does not encode caps: dynamic strategy-proofness)."""
    n, m = _size(prop)
    capped = negations()[prop].covers(True, True) is None
    for policy in VIOLATORS:
        enc = get_encoding(policy)
        for domain in ("positive", "zeros"):
            for case in split(policy, prop, n, m, domain):
                query = negations()[prop].build(enc, n, m, domain, case, weighted=True, capped=capped)
                solver = z3.Solver()
                solver.set("timeout", 20000)
                solver.add(*query.constraints)
                if solver.check() != z3.sat:
                    continue
                witness = {k: evaluate(solver.model(), v) for k, v in query.witness.items()}
                v = _reverify(policy, prop, enc.normalise is not None, witness)
                if v is not None:
                    return policy, witness, v
    raise AssertionError(f"no violator of {prop} among {VIOLATORS} gave a re-verified witness")


@pytest.mark.parametrize("prop", sorted(negations()))
def test_every_negation_witness_is_reverified_with_its_weights_and_caps(prop: str) -> None:
    policy, witness, v = _first_reverified(prop)
    assert v.exact and v.property == prop
    expected, _ = witness_instance(witness, get_encoding(policy).normalise is not None)
    assert v.instance.weights_exact == expected.weights_exact
    assert v.instance.max_tasks_exact == expected.max_tasks_exact


def test_weighted_capped_bottleneck_based_counterexample_is_confirmed_by_check() -> None:
    """The issue's case: z3's counterexample kept its weights and caps
    (R=<2,2>; u0 <2,1> cap 2; u1 <1,2> weight 2 cap 3/4), so the exact
    re-check confirms it instead of calling it "unknown"."""
    r = prove("drf", "bottleneck-based-fairness", 2, 2, weighted=True, capped=True, workers=1)
    assert r.status == "counterexample", r.reason
    inst = r.counterexample.instance
    assert any(w != 1 for w in inst.weights_exact) or any(k is not None for k in inst.max_tasks_exact)
    again = check("drf", inst, "bottleneck-based-fairness")
    assert again is not None and again.exact
    assert r.solvers and r.solvers[0].startswith("z3 ")


def test_witness_instance_keeps_weights_and_caps() -> None:
    """z3's witness of the issue (capacities 1) becomes the issue's integer
    instance, weights and caps included."""
    w = {"demands": [[Fraction(1), Fraction(1, 2)], [Fraction(1, 2), Fraction(1)]],
         "weights": [Fraction(1), Fraction(2)], "caps": [Fraction(2), Fraction(3, 4)]}
    inst, _ = witness_instance(w, scale_users=True)
    assert inst.describe() == "R=<2, 2>; u0: <2, 1> cap=2, u1: <1, 2> w=2 cap=0.75"
