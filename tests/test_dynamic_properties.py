"""The properties of the dynamic setting (issue 32; Kash, Procaccia and
Shah, JAIR 51, 2014, Section 3): each checker against its definition
written out again here, step by step in exact arithmetic (an LP for dynamic
Pareto optimality), on seeded random instances and several mechanisms,
lifted static policies included; the mode rules; the CLI."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from analyzer import Instance, PolicyError, check, dynamic_run
from analyzer.cli import main
from models.dynamic import present_fractions
from tests._policies import BalancedFirst, SerialDictatorship
from tests.strategies import random_instance

PAPER = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
#: Mechanisms and lifted static policies, some breaking each property: the
#: dictatorships (tests/_policies.py) take everything in arrival order or in
#: order of balance, leximin on tasks envies.
POLICIES: tuple[Any, ...] = ("dynamic-drf", "cautious-drf", "drf", "asset", "static", "leximin-tasks",
                             SerialDictatorship(), BalancedFirst())


def _instances(seed: int, count: int) -> list[Instance]:
    rng = np.random.default_rng(seed)
    return [random_instance(rng, n_max=4, m_max=3) for _ in range(count)]


def _steps(policy: Any, inst: Instance) -> list[list[Fraction]]:
    run = dynamic_run(inst, policy, exact=True)
    assert run.exact
    return [list(map(Fraction, row)) for row in run.steps.x_exact]  # type: ignore[union-attr]


def _tasks_with(inst: Instance, i: int, bundle: list[Fraction]) -> Fraction:
    need = inst.demands_exact[i]
    t = min(b / d for b, d in zip(bundle, need, strict=True) if d > 0)
    cap = inst.max_tasks_exact[i]
    return t if cap is None else min(t, cap)


# -------------------------------------------------------------- definitions
def _si(inst: Instance, x: list[list[Fraction]]) -> bool:
    W = sum(inst.weights_exact)
    owed = [_tasks_with(inst, i, [inst.weights_exact[i] / W * c for c in inst.capacity_exact]) for i in range(inst.n)]
    return all(x[k][i] >= owed[i] for k in range(inst.n) for i in range(k + 1))


def _irrevocable(inst: Instance, x: list[list[Fraction]]) -> bool:
    return all(x[k][i] >= x[k - 1][i] for k in range(1, inst.n) for i in range(k))


def _def(inst: Instance, x: list[list[Fraction]]) -> bool:
    w = inst.weights_exact
    for k in range(inst.n):
        for i in range(k + 1):
            for j in range(k + 1):
                if i == j:
                    continue
                envied = _tasks_with(inst, i, [w[i] / w[j] * x[k][j] * d for d in inst.demands_exact[j]])
                excused = j < i and x[k][j] == x[i - 1][j]
                if x[k][i] < envied and not excused:
                    return False
    return True


def _dpo(inst: Instance, x: list[list[Fraction]]) -> bool:
    """No step over its budget, and the LP "maximise sum x' over x' >= x^k
    within the budget and the caps" gains nothing (scipy, independent of
    the checker's characterisation)."""
    from scipy.optimize import linprog

    fr = present_fractions(list(inst.weights_exact))
    for k in range(1, inst.n + 1):
        xk = np.array([float(v) for v in x[k - 1][:k]])
        D = inst.demands[:k]
        budget = float(fr[k - 1]) * inst.capacity
        if any(sum(x[k - 1][i] * inst.demands_exact[i][j] for i in range(k)) > fr[k - 1] * inst.capacity_exact[j]
               for j in range(inst.m)):
            return False
        caps = [(float(a), None if not np.isfinite(c) else float(c)) for a, c in zip(xk, inst.max_tasks[:k],
                                                                                    strict=True)]
        lp = linprog(-np.ones(k), A_ub=D.T, b_ub=budget, bounds=caps)
        if lp.status == 0 and -lp.fun > xk.sum() + 1e-7 * max(1.0, xk.sum()):
            return False
    return True


DEFINITIONS = {"dynamic-sharing-incentive": _si, "irrevocability": _irrevocable, "dynamic-envy-freeness": _def,
               "dynamic-pareto-optimality": _dpo}


@pytest.mark.parametrize("prop", sorted(DEFINITIONS))
def test_checker_agrees_with_the_definition(prop: str) -> None:
    seen = {True: 0, False: 0}
    for inst in _instances(2014, 45):
        for pol in POLICIES:
            holds = DEFINITIONS[prop](inst, _steps(pol, inst))
            v = check(pol, inst, prop, mode="dynamic")
            assert (v is None) == holds, (prop, getattr(pol, "label", pol), inst.describe(), v and v.message)
            if v is not None:
                assert v.exact and v.mode == "dynamic" and v.property == prop
            seen[holds] += 1
    assert seen[True] and seen[False]  # both verdicts exercised


def test_irrevocability_acceptance() -> None:
    """Issue 32: DRF recomputed at every arrival takes back from A."""
    v = check("drf", PAPER, "irrevocability", mode="dynamic")
    assert v is not None and v.exact and v.user == "A"
    assert v.message == ("A holds 9/2 tasks after A arrives (step 1) and 3 after B arrives (step 2): "
                         "an allocation is taken back")
    assert v.before == {"step": 1, "tasks": "9/2"} and v.after == {"step": 2, "tasks": "3"}
    assert check("dynamic-drf", PAPER, "irrevocability", mode="dynamic") is None


def test_dynamic_strategy_proofness_finds_verified_lies() -> None:
    """CEEI recomputed at every arrival is manipulable at the last step
    (Ghodsi et al., Theorem 4); the lie reported is re-checked here on its
    own deviated instance."""
    v = check("ceei", PAPER, "dynamic-strategy-proofness", mode="dynamic")
    assert v is not None and v.exact and v.user == "B" and v.deviation["step"] == 2
    report = [Fraction(v.deviation["report"][r]) for r in PAPER.resources]
    lie = PAPER.replace(demands=[list(PAPER.demands_exact[0]), report])
    got = dynamic_run(lie, "ceei", exact=True).tasks_at(2)["B"]
    assert _tasks_with(PAPER, 1, [got * r for r in report]) == Fraction(v.after["tasks"]) > Fraction(18, 11)
    zeros = Instance.from_exact([1, 1, 2], [[0, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 1]], users=list("ABCD"))
    v = check("dynamic-drf", zeros, "dynamic-strategy-proofness", mode="dynamic")
    assert v is not None and v.user == "C" and Fraction(v.after["tasks"]) > Fraction(5, 12)


def test_dynamic_strategy_proofness_holds_for_dynamic_drf_on_positive_demands() -> None:
    rng = np.random.default_rng(5)
    for _ in range(12):
        inst = random_instance(rng, n_max=4, m_max=3, zeros=False, weights=False, caps=False)
        assert check("dynamic-drf", inst, "dynamic-strategy-proofness", mode="dynamic") is None


# ------------------------------------------------------------------ modes
@pytest.mark.parametrize(("prop", "mode", "says"), [
    ("irrevocability", "continuous", "not defined in the continuous setting"),
    ("dynamic-envy-freeness", "discrete", "not defined in the discrete setting"),
    ("envy-freeness", "dynamic", "not defined in the dynamic setting"),
])
def test_a_property_of_the_other_setting_is_bad_input(prop: str, mode: str, says: str) -> None:
    with pytest.raises(PolicyError, match=says) as e:
        check("drf", PAPER, prop, mode=mode)
    assert "\n" not in str(e.value)
    from analyzer import search

    with pytest.raises(PolicyError, match=says):
        search("drf", prop, mode=mode, budget=5, workers=1)


def test_search_finds_and_shrinks_the_lift_breaking_irrevocability() -> None:
    from analyzer import search

    r = search("drf", "irrevocability", mode="dynamic", budget=50, seed=0, workers=1)
    assert r.counterexample is not None and r.counterexample.exact and r.mode == "dynamic"
    assert r.counterexample.instance.describe() == "R=<1>; A: <1>, B: <1>"
    again = search("drf", "irrevocability", mode="dynamic", budget=50, seed=0, workers=1)
    assert again.counterexample is not None and again.counterexample.message == r.counterexample.message


QUICK = ("dynamic-sharing-incentive", "dynamic-envy-freeness", "dynamic-pareto-optimality", "irrevocability")


@pytest.mark.parametrize("prop", QUICK)
def test_dynamic_drf_keeps_the_axioms_in_a_short_search(prop: str) -> None:
    from analyzer import search
    from analyzer.searching.classes import InstanceClass

    r = search("dynamic-drf", prop, mode="dynamic", budget=300, seed=1, workers=1,
               instance_class=InstanceClass(n_max=4, m_max=3))
    assert r.counterexample is None and r.instances == 300


@pytest.mark.slow
@pytest.mark.parametrize("prop", [*QUICK, "dynamic-strategy-proofness"])
def test_dynamic_drf_keeps_the_axioms_acceptance(prop: str) -> None:
    """Issue 32: no counterexample in 2,000 instances of 2-4 users, 2-3
    resources (and the grid's one-resource instances)."""
    from analyzer import search
    from analyzer.searching.classes import InstanceClass

    r = search("dynamic-drf", prop, mode="dynamic", budget=2000, seed=0, workers=1,
               instance_class=InstanceClass(n_max=4, m_max=3))
    assert r.counterexample is None and r.instances == 2000


# -------------------------------------------------------------------- CLI
def test_cli_check_dynamic(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "paper.toml"
    path.write_text(PAPER.to_toml())
    assert main(["check", str(path), "--policy", "drf", "--property", "irrevocability", "--mode", "dynamic"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("irrevocability VIOLATED by drf (dynamic; verified in exact arithmetic)")
    assert main(["check", str(path), "--policy", "dynamic-drf", "--property", "irrevocability",
                 "--mode", "dynamic"]) == 0
    assert "irrevocability holds on this instance for dynamic-drf (dynamic)" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["check", "{file}", "--policy", "drf", "--property", "envy-freeness", "--mode", "dynamic"],
    ["check", "{file}", "--policy", "drf", "--property", "irrevocability"],
    ["check", "{file}", "--policy", "yarn", "--property", "irrevocability", "--mode", "dynamic"],
    ["search", "--policy", "drf", "--property", "irrevocability", "--budget", "5"],
])
def test_cli_bad_mode_and_property_exit_2_with_one_line(argv: list[str], tmp_path: Any,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "paper.toml"
    path.write_text(PAPER.to_toml())
    assert main([a.replace("{file}", str(path)) for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err and "Traceback" not in err


def test_cli_table_dynamic_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["table", "--mode", "dynamic", "--budget", "20", "--workers", "1", "--quiet", "--format", "csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    cells = {tuple(r.split(",")[:2]) for r in rows[1:]}
    assert {p for p, _ in cells} == {"dynamic-drf", "cautious-drf", "drf"}
    assert {q for _, q in cells} == {"dynamic-sharing-incentive", "dynamic-envy-freeness",
                                     "dynamic-pareto-optimality", "dynamic-strategy-proofness", "irrevocability"}
