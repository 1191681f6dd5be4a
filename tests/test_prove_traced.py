"""User filling policies proved without writing an encoding (issue 21,
item 2): the share function is traced on symbolic arrays; the traced
encoding is the exact solver's allocation; untraceable share functions
give "unknown" with the reason."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import z3

from analyzer import load_policy_file, prove, solve
from analyzer.cli import main
from analyzer.encoding_guard import crosscheck_instances
from analyzer.policy_file import forget_policy_file
from models import FillingPolicy
from models.policy import POLICIES
from proofs.prover.crosscheck import disagreement
from proofs.prover.encodings import Unencodable, get_encoding
from proofs.prover.symbolic import evaluate
from proofs.prover.tracing import SymArray, Untraceable, trace

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "new_policy.py"


@pytest.fixture
def mix() -> Iterator[str]:
    load_policy_file(EXAMPLE)
    yield "drf-asset-mix"
    forget_policy_file(EXAMPLE)


class _MyDrf(FillingPolicy):
    name = "my-drf-test"

    def share_per_task(self, demands, capacity):  # type: ignore[no-untyped-def]
        return np.max(demands / capacity, axis=1)


class _CpuOnly(FillingPolicy):
    name = "cpu-only-test"

    def share_per_task(self, demands, capacity):  # type: ignore[no-untyped-def]
        return demands[:, 0] / capacity[0]


class _Branchy(FillingPolicy):
    name = "branchy-test"

    def share_per_task(self, demands, capacity):  # type: ignore[no-untyped-def]
        s = demands / capacity
        return np.where(s[:, 0] > s[:, 1], s[:, 0], s.sum(axis=1))


@pytest.fixture
def users() -> Iterator[None]:
    for cls in (_MyDrf, _CpuOnly, _Branchy):
        POLICIES.register(cls.name, cls)
    yield
    for cls in (_MyDrf, _CpuOnly, _Branchy):
        POLICIES.unregister(cls.name)


def test_symbolic_arrays_follow_numpy() -> None:
    a, b, c = z3.Reals("a b c")
    d = SymArray([[a, b], [c, a]])
    terms = trace(lambda D, R: (D / R).mean(axis=1) * 2 + np.minimum(D[:, 0], 1) - D.sum(axis=1) / D.shape[1],
                  [[a, b], [c, a]], [z3.RealVal(1), z3.RealVal(2)])
    s = z3.Solver()
    s.add(a == 1, b == 4, c == 3)
    s.check()
    assert evaluate(s.model(), terms) == [Fraction(3, 2), Fraction(5, 2)]
    with pytest.raises(Untraceable):
        bool(d[0, 0] > d[0, 1])
    with pytest.raises(Untraceable):
        np.exp(d)


def test_traced_encoding_is_the_exact_solvers_allocation(mix: str, users: None) -> None:
    """Cross-check on random small instances, weighted and capped, both domains."""
    for policy in (mix, _MyDrf.name):
        enc = get_encoding(policy)
        assert enc.weighted and enc.capped and enc.normalise == "max"
        for domain in ("positive", "zeros"):
            for n, m in [(2, 2), (3, 2), (2, 3)]:
                for inst in crosscheck_instances(n, m, domain, True, True, count=3, seed=7 * n + m):
                    alloc = solve(inst, policy, exact=True)
                    assert disagreement(enc, inst, alloc.x_exact, list(alloc.x), True, True) is None, inst.describe()


def test_example_policy_is_proved_and_refuted(mix: str) -> None:
    assert prove(mix, "envy-freeness", workers=1).status == "proved"
    r = prove(mix, "sharing-incentive", workers=1)
    assert r.status == "counterexample" and r.counterexample.exact


def test_traced_drf_proves_what_drf_proves(users: None) -> None:
    for prop in ("sharing-incentive", "strategy-proofness"):
        assert prove(_MyDrf.name, prop, workers=1).status == "proved"


def test_untraceable_share_function_is_unknown_with_reason(users: None) -> None:
    with pytest.raises(Unencodable, match="cannot be traced"):
        get_encoding(_Branchy.name)
    r = prove(_Branchy.name, "envy-freeness", workers=1)
    assert r.status == "unknown" and "cannot be traced" in r.reason


def test_zero_shares_take_the_familys_second_phase(users: None) -> None:
    # CPU-only shares vanish for a user needing no CPU: such users share
    # what the others leave by DRF (models.filling), a second phase
    enc, second_phase = get_encoding(_CpuOnly.name), 0
    for n, m in [(2, 2), (3, 2), (3, 3)]:
        for weighted, capped in [(False, False), (True, True)]:
            for inst in crosscheck_instances(n, m, "zeros", weighted, capped, count=4, seed=3 * n + m):
                alloc = solve(inst, _CpuOnly.name, exact=True)
                assert disagreement(enc, inst, alloc.x_exact, list(alloc.x), weighted, capped) is None, \
                    inst.describe()
                second_phase += any(row[0] == 0 for row in inst.demands_exact)
    assert second_phase >= 3
    assert prove(_CpuOnly.name, "pareto-efficiency", domain="zeros", workers=1).status == "proved"
    r = prove(_CpuOnly.name, "sharing-incentive", domain="zeros", workers=1)
    assert r.status == "counterexample" and r.counterexample.exact


def test_cli_prove_with_policy_file(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(["prove", "drf-asset-mix", "envy-freeness", "--policy-file", str(EXAMPLE), "--workers", "1"])
    finally:
        forget_policy_file(EXAMPLE)
    assert code == 0 and "PROVED" in capsys.readouterr().out


@pytest.mark.slow
def test_example_policy_row_every_tick_proved(mix: str) -> None:
    """The issue's acceptance: examples/new_policy.py's row, every ✓ proved at 2x2 (positive demands)."""
    from analyzer import property_table

    t = property_table([mix], budget=50, workers=1, prove=(2, 2))
    ticks = [q for q in t.properties if t[mix, q].holds]
    assert ticks and all(t.proof(mix, q).domains["positive"].complete for q in ticks), \
        {q: t.proof(mix, q).text() for q in ticks}


@pytest.mark.slow
def test_traced_encoding_on_200_random_instances(mix: str) -> None:
    enc = get_encoding(mix)
    count = 0
    for domain in ("positive", "zeros"):
        for n, m in [(2, 2), (3, 2), (2, 3), (3, 3)]:
            for weighted, capped in [(False, False), (True, True), (True, False)]:
                for inst in crosscheck_instances(n, m, domain, weighted, capped, count=9, seed=100 + n * 10 + m):
                    alloc = solve(inst, mix, exact=True)
                    assert disagreement(enc, inst, alloc.x_exact, list(alloc.x), weighted, capped) is None, \
                        inst.describe()
                    count += 1
    assert count >= 200


def test_validate_asks_the_homogeneity_queries_once(users: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # each call of _homogeneity_issue is n z3 validity queries (up to
    # VALIDATE_TIMEOUT_MS each): a failing size must not ask them twice
    from proofs.prover.encodings import traced

    enc = get_encoding(_MyDrf.name)
    assert enc.normalise == "max" and enc.validate is not None
    calls: list[tuple[int, int]] = []

    def issue(pol: object, n: int, m: int, domain: str) -> str:
        calls.append((n, m))
        return "scaling fails (stub)"

    monkeypatch.setattr(traced, "_homogeneity_issue", issue)
    why = enc.validate(2, 2, "positive")
    assert why is not None and "scaling fails (stub) at 2x2" in why
    assert calls == [(2, 2)]


def test_symbolic_arrays_reflected_operators() -> None:
    # number OP array (numpy's reflected methods) keeps the operand order
    d = SymArray([z3.RealVal(2), z3.RealVal(5)])
    got = [[Fraction(str(z3.simplify(t))) for t in arr.data]
           for arr in (1 + d, 1 - d, 3 * d, 10 / d, d - 1, d / 4, -d, d ** 2)]
    assert got == [[3, 6], [-1, -4], [6, 15], [5, 2], [1, 4], [Fraction(1, 2), Fraction(5, 4)], [-2, -5], [4, 25]]
