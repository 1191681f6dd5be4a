"""The prover interface shared by the encodings (issue 21): weights and
caps on the symbolic market, the registries of encodings, factories and
unencodable policies, and ``prove``'s "unknown" with a reason."""

from __future__ import annotations

from typing import Any

import pytest
import z3

from analyzer import prove
from analyzer.cli import main
from models import PolicyError
from proofs.prover.encodings import (
    ENCODINGS,
    FACTORIES,
    UNENCODABLE,
    Encoding,
    Unencodable,
    get_encoding,
    register_encoding_factory,
    register_unencodable,
)
from proofs.prover.symbolic import market


def test_market_has_symbolic_weights_and_caps() -> None:
    mk, cons = market(3, 2, "positive", "max", (0, 1, 0), weighted=True, capped=True)
    assert mk.w is not None and mk.cap is not None and len(mk.w) == len(mk.cap) == 3
    s = z3.Solver()
    s.add(*cons, mk.w[1] <= 0)
    assert s.check() == z3.unsat  # weights asserted positive
    x = [z3.Real(f"x{i}") for i in range(3)]
    assert len(mk.capped_tasks(x)) == 3
    small = mk.without(1)
    assert small.w == [mk.w[0], mk.w[2]] and small.cap == [mk.cap[0], mk.cap[2]]
    plain, _ = market(2, 2, "positive", "max", (0, 1))
    assert plain.w is None and plain.cap is None and plain.capped_tasks(x) == []


def _formula(mk: Any, x: Any, tag: str) -> list[Any]:
    return mk.feasible(x)


def test_factory_and_unencodable_registries() -> None:
    def factory(params: dict[str, Any]) -> Encoding | str:
        beta = params.get("beta", 1)
        return Encoding("fam-test", "max", _formula) if isinstance(beta, int) else f"fam-test: beta={beta} irrational"

    register_encoding_factory("fam-test", factory)
    register_unencodable("never-test", "its definition is a simulation")
    try:
        assert get_encoding("fam-test:beta=2").name == "fam-test"
        with pytest.raises(Unencodable, match="irrational"):
            get_encoding("fam-test:beta=0.5")
        with pytest.raises(Unencodable, match="simulation"):
            get_encoding("never-test")
        with pytest.raises(Unencodable, match="without parameters"):
            get_encoding("drf:beta=2")
        assert issubclass(Unencodable, PolicyError)
    finally:
        FACTORIES.unregister("fam-test")
        UNENCODABLE.unregister("never-test")


def test_encoding_states_the_class_it_covers() -> None:
    enc = Encoding("e", "max", _formula)
    assert enc.covers(False, False) is None
    assert "unweighted, uncapped instances only" in (enc.covers(True, False) or "")
    assert Encoding("e", "max", _formula, weighted=True, capped=True).covers(True, True) is None
    assert ENCODINGS.get("drf").normalise == "max"


def test_unencodable_policy_is_unknown_with_reason(opaque: str, capsys: pytest.CaptureFixture[str]) -> None:
    r = prove(opaque, "envy-freeness", workers=1)
    assert r.status == "unknown" and "no SMT encoding" in r.reason and not r.cases
    assert r.to_dict()["reason"] == r.reason
    assert main(["prove", opaque, "envy-freeness"]) == 3
    assert "UNKNOWN" in capsys.readouterr().out


@pytest.mark.parametrize("kw", [{"setting": "sideways"}, {"bound": 4}, {"weighted": "yes"}, {"users": 0}])
def test_bad_arguments_are_bad_input(kw: dict[str, Any]) -> None:
    with pytest.raises(PolicyError):
        prove("drf", "envy-freeness", **kw)


def test_class_not_covered_is_unknown_never_proved(opaque: str) -> None:
    # an encoding that does not honour weights cannot prove a weighted claim
    ENCODINGS.register(opaque, Encoding(opaque, "max", _formula))
    try:
        r = prove(opaque, "sharing-incentive", weighted=True, workers=1)
    finally:
        ENCODINGS.unregister(opaque)
    assert r.status == "unknown" and "unweighted, uncapped instances only" in r.reason


def test_a_factory_encoding_is_made_once_per_label() -> None:
    # the per-encoding caches (the cross-check against the solver, the symmetries) key on the encoding
    assert get_encoding("fds:beta=2") is get_encoding("fds:beta=2")
    assert get_encoding("single-resource:resource=1") is not get_encoding("single-resource")
