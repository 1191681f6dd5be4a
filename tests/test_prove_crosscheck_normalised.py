"""The guard before a proof (issue 27, item 4): the encoding is checked
against the policy's exact solver on at least 50 seeded instances per
class, each in the proof's own normal form (capacities 1, demand rows
normalised as the encoding's cases are, the domain's zeros, weights and
caps), through the proof's own symbolic market."""

from __future__ import annotations

from fractions import Fraction

import pytest

pytest.importorskip("z3")

from analyzer import solve  # noqa: E402
from analyzer.proving.encoding_guard import CROSSCHECK_INSTANCES, crosscheck_instances, encoding_mismatch  # noqa: E402
from proofs.prover.crosscheck import disagreement, first_disagreement, normal_form  # noqa: E402
from proofs.prover.encodings import Encoding, get_encoding  # noqa: E402


def _normalised(n: int, m: int, domain: str, normalise: str | None, weighted: bool, capped: bool) -> list:
    return [normal_form(i, normalise) for i in crosscheck_instances(n, m, domain, weighted, capped)]


def test_at_least_fifty_instances_per_class() -> None:
    assert CROSSCHECK_INSTANCES >= 50
    assert len(crosscheck_instances(2, 2, "positive", False, False)) == CROSSCHECK_INSTANCES
    assert crosscheck_instances(3, 2, "zeros", True, True) == crosscheck_instances(3, 2, "zeros", True, True)


@pytest.mark.parametrize("normalise", ["max", "sum", None])
@pytest.mark.parametrize("domain", ["positive", "zeros"])
def test_instances_are_in_the_proofs_normal_form(normalise: str | None, domain: str) -> None:
    cases = _normalised(3, 2, domain, normalise, True, True)
    for inst in cases:
        assert inst.capacity_exact == (1, 1)
        for row in inst.demands_exact:
            assert (min(row) > 0) if domain == "positive" else (min(row) >= 0 and max(row) > 0)
            if normalise == "max":
                assert max(row) == 1
            elif normalise == "sum":
                assert sum(row) == 1
    rows = [row for inst in cases for row in inst.demands_exact]
    assert domain == "positive" or any(0 in row for row in rows)
    assert any(w != 1 for inst in cases for w in inst.weights_exact)
    caps = [k for inst in cases for k in inst.max_tasks_exact]
    assert any(k is None for k in caps) and any(k is not None for k in caps)


def test_the_normal_form_keeps_the_bundles() -> None:
    """Scaling a resource with its capacity, and a user's row with its
    cap, changes no bundle: the solver's shares are the same."""
    raw = crosscheck_instances(2, 2, "zeros", True, True, count=5, seed=3)
    for inst in raw:
        for normalise in ("max", "sum", None):
            a, b = solve(inst, "drf", exact=True), solve(normal_form(inst, normalise), "drf", exact=True)
            for i in range(inst.n):
                for j in range(inst.m):
                    share = a.x_exact[i] * Fraction(inst.demands_exact[i][j]) / Fraction(inst.capacity_exact[j])
                    assert share == b.x_exact[i] * Fraction(normal_form(inst, normalise).demands_exact[i][j])


def _unit_only(wrong: str, right: str) -> Encoding:
    """``right``'s encoding, except on unit-capacity markets (the proof's
    normal form), where it is ``wrong``'s."""
    good, bad = get_encoding(right), get_encoding(wrong)
    return Encoding(right, good.normalise, lambda mk, x, tag: (bad if mk.unit else good).formula(mk, x, tag),
                    weighted=True, capped=True)


def test_an_encoding_wrong_only_in_normal_form_is_caught() -> None:
    """Right on the un-normalised instances the old guard used, wrong on
    the proof's normalised market: only the normal-form check sees it."""
    enc = _unit_only("asset", "drf")
    raw = crosscheck_instances(2, 2, "positive", False, False, count=2)
    for inst in raw:
        a = solve(inst, "drf", exact=True)
        assert disagreement(enc, inst, a.x_exact, list(a.x)) is None  # constants: the old guard passes
    why = encoding_mismatch("drf", enc, 2, 2, "positive", False, False)
    assert why is not None and why.startswith("drf: the encoding disagrees with the policy's solver on R=<1, 1>")


def test_a_sample_outside_the_class_is_reported() -> None:
    """An instance that is not in normal form contradicts the class
    constraints of the proof's market: never a silent pass."""
    inst = crosscheck_instances(2, 2, "positive", False, False, count=1)[0]  # capacities and rows not normalised
    a = solve(inst, "drf", exact=True)
    found, decided = first_disagreement(get_encoding("drf"), [(inst, a.x_exact, list(a.x))], "positive", False, False)
    assert found is not None and "does not satisfy the encoding" in found[1] and decided == 0


@pytest.mark.parametrize("policy", ["drf", "asset", "static", "leximin-tasks", "single-resource"])
def test_the_encodings_pass_the_guard(policy: str) -> None:
    for domain in ("positive", "zeros"):
        assert encoding_mismatch(policy, get_encoding(policy), 2, 2, domain, True, True) is None


def test_undecided_samples_are_replaced_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sample z3 cannot decide in time is no evidence: further seeded
    instances are drawn until 50 are decided; with none decided the proof
    is refused (never trusted on fewer)."""
    from analyzer.proving import encoding_guard as proving
    from proofs.prover import crosscheck

    real, calls = crosscheck._compare, []

    def flaky(*args: object) -> object:
        calls.append(1)
        return "z3 could not decide whether ... (canceled)" if len(calls) <= 3 else real(*args)

    monkeypatch.setattr(crosscheck, "_compare", flaky)
    proving._mismatch.cache_clear()
    try:
        assert encoding_mismatch("drf", get_encoding("drf"), 2, 2, "positive", False, False) is None
        assert len(calls) == CROSSCHECK_INSTANCES + 3
        monkeypatch.setattr(crosscheck, "_compare", lambda *args: "z3 could not decide whether ... (canceled)")
        proving._mismatch.cache_clear()
        why = encoding_mismatch("drf", get_encoding("drf"), 2, 2, "positive", False, False)
        assert why is not None and "on only 0 of 100 instances" in why
    finally:
        proving._mismatch.cache_clear()


def test_the_guard_has_a_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cross-check stops at its deadline (the proof's timeout, at least
    GUARD_SECONDS): past it, the proof says so ("unknown") instead of
    running 50-100 instances' queries first; an unfinished cross-check is
    not remembered, a finished one is."""
    import time

    from analyzer import prove
    from analyzer.proving import encoding_guard as guard
    from analyzer.proving import smt

    monkeypatch.setattr(smt, "GUARD_SECONDS", 1e-6)  # the same code with a deadline already past
    guard._mismatch.cache_clear()
    try:
        r = prove("ceei", "population-monotonicity", 3, 2, timeout=1e-6, workers=1)
        assert r.status == "unknown" and "did not finish within the proof's timeout" in r.reason, r.reason
        assert guard._mismatch.cache_info().currsize == 0
        enc = get_encoding("drf")
        assert encoding_mismatch("drf", enc, 2, 2, "positive", False, False, time.monotonic() + 600) is None
        assert guard._mismatch.cache_info().currsize == 1
    finally:
        guard._mismatch.cache_clear()
