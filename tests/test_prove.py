"""The SMT prover (issue 13): encodings against the numeric solvers, known
true and known false property cells, the API and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

z3 = pytest.importorskip("z3")

from analyzer import Instance, prove, solve
from analyzer.cli.main import main
from analyzer.proving.smt import witness_instance
from models.tolerances import ENCODING_CHECK_ATOL
from proofs.prover.driver import split
from proofs.prover.encodings import encodings, get_encoding
from proofs.prover.symbolic import Market

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ["drf", "asset", "ceei", "static", "leximin-tasks"]


def _random_instance(rng: np.random.Generator, n: int, m: int, zeros: bool) -> Instance:
    D = rng.integers(0 if zeros else 1, 6, size=(n, m))
    D[D.sum(axis=1) == 0, 0] = 1
    R = rng.integers(2, 12, size=m)
    return Instance.from_exact([int(v) for v in R], [[int(v) for v in row] for row in D])


def _market(inst: Instance, normalised: bool) -> tuple[Market, list[Fraction]]:
    """The instance as a constant market: as given, or normalised (R = 1,
    each row's largest share 1, with its dominant resource known); the
    factors turning normalised tasks back into the instance's tasks."""
    R = inst.capacity_exact
    positive = bool((inst.demands > 0).all())  # the encodings' positive-domain form is tested too
    if not normalised:
        d = [[z3.RealVal(str(v)) for v in row] for row in inst.demands_exact]
        return Market(d, [z3.RealVal(str(r)) for r in R], False, positive), [Fraction(1)] * inst.n
    shares = [[Fraction(v) / R[j] for j, v in enumerate(row)] for row in inst.demands_exact]
    dom = tuple(max(range(inst.m), key=lambda j, s=s: s[j]) for s in shares)
    top = [s[dom[i]] for i, s in enumerate(shares)]
    d = [[z3.RealVal(str(v / top[i])) for v in s] for i, s in enumerate(shares)]
    return Market(d, [z3.RealVal(1)] * inst.m, True, positive, dom), [1 / t for t in top]


def _close(values: list, expected: list[float], tol: float) -> z3.BoolRef:
    return z3.And([z3.And(v - e <= tol, e - v <= tol) for v, e in zip(values, expected, strict=True)])


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("zeros", [False, True])
def test_policy_encoding_has_exactly_the_solvers_allocation(policy: str, zeros: bool) -> None:
    """With the instance fixed, the formula's only solution is the solver's
    allocation: exactly for rational solutions, else within a box."""
    enc = get_encoding(policy)
    rng = np.random.default_rng(13)
    for n, m in [(2, 2), (3, 2), (2, 3), (3, 3)]:
        inst = _random_instance(rng, n, m, zeros)
        alloc = solve(inst, policy, exact=True)
        for normalised in ([False, True] if enc.normalise == "max" else [False]):
            mk, back = _market(inst, normalised)
            x = [z3.Real(f"x{i}") for i in range(n)]
            s = z3.Solver()
            s.add(*enc.formula(mk, x, "t"))
            scaled = [z3.Real(f"s{i}") for i in range(n)]  # tasks of the instance itself
            s.add(*[scaled[i] == x[i] * z3.RealVal(str(back[i])) for i in range(n)])
            exact = all(isinstance(v, Fraction) or getattr(v, "is_Rational", False) for v in alloc.x_exact)
            if exact:
                target = [z3.RealVal(str(v)) for v in alloc.x_exact]
                assert s.check(z3.And([a == b for a, b in zip(scaled, target, strict=True)])) == z3.sat
                assert s.check(z3.Or([a != b for a, b in zip(scaled, target, strict=True)])) == z3.unsat, inst
            xs = [float(v) for v in alloc.x]
            assert s.check(_close(scaled, xs, ENCODING_CHECK_ATOL)) == z3.sat, (policy, inst.describe())
            assert s.check(z3.Not(_close(scaled, xs, ENCODING_CHECK_ATOL))) == z3.unsat, (policy, inst.describe())


def test_every_table_policy_is_encoded() -> None:
    assert set(POLICIES) <= set(encodings())


@pytest.mark.parametrize(("policy", "prop", "n", "m", "domain"), [
    ("drf", "resource-monotonicity", 2, 2, "positive"),       # Theorem 6
    ("ceei", "strategy-proofness", 2, 2, "positive"),         # Theorem 4
    ("drf", "population-monotonicity", 3, 2, "zeros"),        # zero demands break it
    ("asset", "sharing-incentive", 2, 2, "positive"),         # Section 5.1
    ("asset", "bottleneck-fairness", 2, 2, "positive"),
    pytest.param("ceei", "population-monotonicity", 3, 2, "positive", marks=pytest.mark.slow),  # 46 s
    ("static", "pareto-efficiency", 2, 2, "positive"),
    ("leximin-tasks", "sharing-incentive", 2, 2, "positive"),
])
def test_known_false_cells_give_exact_counterexamples(policy: str, prop: str, n: int, m: int, domain: str) -> None:
    r = prove(policy, prop, n, m, domain=domain, timeout=120, workers=1)
    assert r.status == "counterexample", r.note
    v = r.counterexample
    assert v.exact and v.property == prop and v.instance.n == n and v.instance.m == m
    if domain == "positive":
        assert (v.instance.demands > 0).all()
    else:
        assert (v.instance.demands == 0).any()


@pytest.mark.parametrize(("policy", "prop", "n", "m", "domain"), [
    ("drf", "strategy-proofness", 2, 2, "positive"),
    ("drf", "strategy-proofness", 3, 3, "positive"),   # the 3x3 targets
    ("drf", "sharing-incentive", 3, 3, "positive"),
    ("drf", "envy-freeness", 3, 3, "positive"),
    ("drf", "sharing-incentive", 2, 3, "positive"),
    ("drf", "envy-freeness", 3, 2, "zeros"),
    ("drf", "pareto-efficiency", 2, 2, "zeros"),
    ("drf", "population-monotonicity", 2, 2, "zeros"),
    ("drf", "population-monotonicity", 3, 2, "positive"),
    ("drf", "bottleneck-fairness", 2, 2, "positive"),
    ("asset", "strategy-proofness", 2, 2, "positive"),
    ("ceei", "sharing-incentive", 2, 2, "positive"),
    ("ceei", "envy-freeness", 2, 2, "positive"),
    ("ceei", "single-resource-fairness", 3, 1, "positive"),
    ("static", "sharing-incentive", 3, 3, "zeros"),
    ("leximin-tasks", "pareto-efficiency", 2, 2, "positive"),
])
def test_known_true_cells_are_proved(policy: str, prop: str, n: int, m: int, domain: str) -> None:
    r = prove(policy, prop, n, m, domain=domain, timeout=120, workers=1)
    assert r.status == "proved", r.note
    assert r.counterexample is None
    assert len(r.cases) == r.assumptions["cases"] == len(split(policy, prop, n, m, domain))
    assert all(c.status == "unsat" for c in r.cases)
    assert r.assumptions["weights"] == "equal (unweighted)" and r.assumptions["caps"] == "none"


def test_symmetry_breaking_covers_every_dominant_assignment() -> None:
    # 2 users x 2 resources, a liar and its report: (r0|r0,r0), (r0|r0,r1), ... up to swapping resources
    assert [c.dom for c in split("drf", "strategy-proofness", 2, 2, "positive")] == \
        [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1)]
    assert [c.dom for c in split("asset", "strategy-proofness", 3, 3, "positive")] == [None]
    # envy: users 0 and 1 distinguished, user 2 free; m = 3 -> 1 + 2 + 2 + ... canonical forms
    cases = split("drf", "envy-freeness", 3, 3, "positive")
    assert len(cases) == len(set(cases)) and all(c.dom[0] == 0 and c.roles == (0, 1) for c in cases)


def test_witness_becomes_an_integer_instance() -> None:
    w = {"demands": [[Fraction(1), Fraction(2, 5)], [Fraction(1, 2), Fraction(1)]],
         "report": [Fraction(1), Fraction(3, 4)]}
    inst, extra = witness_instance(w, scale_users=True)
    assert [float(c) for c in inst.capacity] == [2, 20]
    assert inst.demands.tolist() == [[1, 4], [1, 20]]
    assert extra["report"] == [2, 15]


def test_unknown_when_out_of_time() -> None:
    # a policy whose encoding cross-check is quick: the checks before the cases (the encoding guard on 50
    # instances, vacuity) do not count against the proof's timeout, and CEEI's take a minute on 2 cores
    r = prove("drf", "envy-freeness", 3, 2, timeout=1e-6, workers=1)
    assert r.status == "unknown" and r.reason


@pytest.mark.parametrize(("args", "code"), [
    (["prove", "drf", "envy-freeness"], 0),
    (["prove", "ceei", "strategy-proofness", "--workers", "1"], 1),
    (["prove", "drf", "envy-freeness", "--users", "3", "--timeout", "0.000001"], 3),
    (["prove", "drf", "envy-freeness", "--users", "0"], 2),
    (["prove", "no-such-policy", "envy-freeness"], 2),
    (["prove", "drf", "no-such-property"], 2),
    (["prove", "drf", "envy-freeness", "--timeout", "-1"], 2),
    (["prove", "drf", "envy-freeness", "--domain", "negative"], 2),
])
def test_cli_exit_codes(args: list[str], code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == code
    out, err = capsys.readouterr()
    if code == 2:
        assert err.count("\n") == 1 and "Traceback" not in err
    elif code == 1:
        assert "VIOLATED by ceei" in out and "verified in exact arithmetic" in out
    elif code == 0:
        assert "PROVED" in out


def test_cli_json_and_parallel_workers() -> None:
    r = subprocess.run([sys.executable, "-m", "analyzer", "prove", "drf", "strategy-proofness", "--resources", "3",
                        "--workers", "2", "--format", "json"], check=False, capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "proved" and len(out["cases"]) == out["assumptions"]["cases"] == 5


def _table(fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    args = ["table", "--policy", "drf,asset", "--property", "sharing-incentive,envy-freeness,bottleneck-based-fairness",
            "--budget", "40", "--prove", "2,2", "--quiet", "--workers", "1", "--format", fmt]
    assert main(args) == 0
    return capsys.readouterr().out


@pytest.mark.slow  # a minute: six cells proved, both solvers (tests/test_table_proofs.py covers the marks fast)
def test_table_prove_says_which_cells_are_proved(capsys: pytest.CaptureFixture[str]) -> None:
    cells = {(c["policy"], c["property"]): c for c in json.loads(_table("json", capsys))["cells"]}
    proof = cells["drf", "envy-freeness"]["proof"]
    assert proof["complete"] and proof["text"].startswith("proved for n ≤ 2, m ≤ 2")
    assert proof["proved"] == [[2, 1], [2, 2]]  # envy needs two users
    assert "proof" not in cells["asset", "sharing-incentive"]            # a ✗ cell
    assert "proof" not in cells["asset", "bottleneck-based-fairness"]    # no encoding: evidence only
    text = _table("text", capsys)
    assert "✓ (proved ≤ 2x2)" in text and "no counterexample in 40 instances" in text
    rows = _table("csv", capsys).splitlines()
    assert rows[0].endswith(",proof") and any("proved for n ≤ 2" in r for r in rows)
    assert "proved for n ≤ 2, m ≤ 2" in _table("md", capsys)
    assert "proved for n ≤ 2, m ≤ 2" in _table("latex", capsys)


def test_table_prove_bad_sizes_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["table", "--policy", "drf", "--budget", "10", "--prove", "2", "--quiet"]) == 2
    assert "--prove" in capsys.readouterr().err
