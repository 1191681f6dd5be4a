"""Strategy-proofness (Ghodsi et al., NSDI 2011, Section 3): the paper's
Theorem 4 instance (test data only), DRF and asset on random instances, and
the exactness of a reported lie."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy

from analyzer import Instance, check
from analyzer.api import solve
from analyzer.properties.strategy_proofness import StrategyProofness
from models import get_policy
from models.filling import FillingPolicy
from models.tolerances import CROSSCHECK_RTOL
from tests._policies import BalancedFirst
from tests.strategies import random_instance


def _replay(policy: str, inst: Instance, deviation: dict) -> Fraction:
    """Re-verify a lie from the Violation's data alone: true tasks of the liar."""
    i = inst.user_index[deviation["user"]]
    report = [Fraction(deviation["report"][r]) for r in inst.resources]
    D = [list(row) for row in inst.demands_exact]
    D[i] = report
    K = list(inst.max_tasks_exact)
    if "report_cap" in deviation:
        K[i] = Fraction(deviation["report_cap"])
    x = solve(inst.replace(demands=D, max_tasks=K), policy, exact=True).x_exact[i]
    need = inst.demands_exact[i]
    t = min(x * r / d for r, d in zip(report, need, strict=True) if d > 0)
    return t if inst.max_tasks_exact[i] is None else min(t, inst.max_tasks_exact[i])


def test_theorem4_ceei_is_not_strategy_proof() -> None:
    inst = Instance.from_exact([100, 100], [[16, 1], [1, 2]])
    light = StrategyProofness(light=(8, 4, 8, 0))  # CEEI needs one conic solve per report: a coarse grid
    v = light.check("ceei", inst)
    assert v is not None and v.user == "u0" and v.deviation["kind"] == "lie"
    gain = sympy.sympify(v.after["tasks"]) - sympy.sympify(v.before["tasks"]) * sympy.Rational(11, 10)
    assert gain.is_positive
    assert all(Fraction(q).denominator == 1 for q in v.deviation["report"].values())
    assert check("drf", inst, "strategy-proofness") is None


def test_a_lie_is_exact_and_replays() -> None:
    inst = Instance.from_exact([10, 10], [[1, 4], [1, 1]])
    pol = BalancedFirst()
    assert solve(inst, pol, exact=True).x_exact == (0, 10)
    v = check(pol, inst, "strategy-proofness")
    assert v is not None and v.exact and v.user == "u0" and v.before["tasks"] == "0"
    assert _replay(pol, inst, v.deviation) == Fraction(v.after["tasks"]) > 0


def test_search_is_seeded() -> None:
    inst = Instance.from_exact([100, 100, 100, 100, 100], [[16, 1, 1, 1, 1], [1, 2, 3, 4, 5]])
    a = StrategyProofness(seed=4)._directions(inst, 0, np.random.default_rng(4))
    b = StrategyProofness(seed=4)._directions(inst, 0, np.random.default_rng(4))
    assert np.array_equal(a, b)


def test_batch_filling_matches_the_policy_solver() -> None:
    rng = np.random.default_rng(0)
    for name in ("drf", "asset"):
        pol = get_policy(name)
        for _ in range(40):
            inst = random_instance(rng, n_max=5, m_max=4)
            D = np.stack([inst.demands, inst.demands * rng.uniform(0.5, 2, size=inst.demands.shape)])
            xb = pol.solve_batch(D, inst.capacity, inst.weights, np.stack([inst.max_tasks] * 2))[0]
            for k in range(2):
                other = Instance.from_arrays(inst.capacity, D[k], weights=inst.weights, max_tasks=inst.max_tasks)
                np.testing.assert_allclose(xb[k], pol.solve(other).x, rtol=CROSSCHECK_RTOL)


class _FirstResourceOnly(FillingPolicy):
    """Max-min on the first resource's share: users without it have share 0
    (the second, DRF, filling phase)."""

    name = "test-first-resource"

    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        return demands[:, 0] / capacity[0]


def test_batch_filling_has_the_zero_share_phase() -> None:
    """The batch fills users with a zero share of one task in the second
    (DRF) phase, as the policy's own solver does (audit of issue 12: the
    batch used to divide by the zero share and screen nothing)."""
    rng = np.random.default_rng(2)
    pol = _FirstResourceOnly()
    seen = 0
    for _ in range(40):
        inst = random_instance(rng, n_max=5, m_max=3)
        seen += int((inst.demands[:, 0] == 0).any())
        xb = pol.solve_batch(inst.demands[None], inst.capacity, inst.weights, inst.max_tasks[None])[0]
        np.testing.assert_allclose(xb[0], pol.solve(inst).x, rtol=CROSSCHECK_RTOL, atol=CROSSCHECK_RTOL)
    assert seen > 5


def test_batch_ceei_matches_the_conic_program() -> None:
    import warnings

    from models.ceei_newton import ceei_batch

    rng = np.random.default_rng(0)
    pol = get_policy("ceei")
    for _ in range(25):
        inst = random_instance(rng, n_max=4, m_max=3)
        if not (inst.max_tasks > 0).any():
            continue
        x, ok = ceei_batch(inst.demands[None], inst.capacity, inst.weights, inst.max_tasks[None])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = pol.solve(inst).x
        assert ok[0], inst.describe()
        np.testing.assert_allclose(x[0], ref, rtol=CROSSCHECK_RTOL, atol=CROSSCHECK_RTOL)


ONE_RESOURCE = """
[resources]
cpu = 5

[users.A]
demand = { cpu = 1 }

[users.B]
demand = { cpu = 2 }
"""


def test_cli_check_finds_a_rescaled_report_on_one_resource(tmp_path, capsys) -> None:
    """Issue 12 acceptance, on another instance: R = <5>, A <1>, B <2>;
    leximin-tasks gives 5/3 each; A reporting <c> gets 5/(c + 2) reported
    tasks, worth 5c/(c + 2) > 5/3 for every c > 1."""
    from analyzer.cli.main import main

    p = tmp_path / "one.toml"
    p.write_text(ONE_RESOURCE)
    code = main(["check", str(p), "--policy", "leximin-tasks", "--property", "strategy-proofness"])
    out = capsys.readouterr().out
    assert code == 1 and "VIOLATED" in out and "exact arithmetic" in out
    assert main(["check", str(p), "--policy", "drf", "--property", "strategy-proofness"]) == 0


def test_rescaled_lie_is_exact_and_replays() -> None:
    """A rescaled report is verified exactly and replays; the report keeps
    its scale (it is not normalised to coprime integers)."""
    inst = Instance.from_exact([7, 3], [[1, 1], [2, 1]])
    v = check("leximin-tasks", inst, "strategy-proofness")
    assert v is not None and v.exact
    assert _replay("leximin-tasks", inst, v.deviation) == Fraction(v.after["tasks"]) > Fraction(v.before["tasks"])


def test_scale_dependent_user_policy_is_searched_over_scales() -> None:
    """A user-written filling policy (not declared scale-invariant) whose
    share of one task is the task count: the scale search finds the lie on
    one resource, where the direction search has nothing to try."""
    class PerTask(FillingPolicy):
        name = "test-per-task"

        def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
            return demands[:, 0] * 0 + 1

    inst = Instance.from_exact([12], [[1], [3]])
    v = check(PerTask(), inst, "strategy-proofness")
    assert v is not None and v.exact and v.user == "u0"


def test_declared_scale_invariance_skips_the_scale_search() -> None:
    """DRF declares scale invariance: on one resource nothing is searched."""
    inst = Instance.from_exact([12], [[1], [3]])
    assert StrategyProofness().margin("drf", inst) == float("inf")
    assert StrategyProofness().margin("leximin-tasks", inst) < 0
