"""fds/gfj at finite beta (issue 12): Newton on the KKT system in log-prices
against an independent high-precision solve, the refusal when nothing is
certified, and the re-solve rule for numerically confirmed violations."""

from __future__ import annotations

import numpy as np
import pytest

import models.policies.fds as fds_module
from analyzer import Instance, check, solve
from analyzer.cli.main import main
from models import Allocation, Policy, SolverError, get_policy
from models.alpha_fair import AlphaFairResult
from tests.alpha_fair_reference import alpha_fair_reference
from tests.exact_instances import small_integer_instances

#: Instances per (policy, beta) in the agreement test.
N_AGREE = 12


@pytest.mark.parametrize("beta", [4, 8, 16])
@pytest.mark.parametrize("name,unit", [("gfj", "tasks"), ("fds", "dominant")])
def test_agrees_with_independent_high_precision_solve(name: str, unit: str, beta: int) -> None:
    worst = 0.0
    for inst in small_integer_instances(seed=1200 + beta, count=N_AGREE, max_users=4, max_resources=2):
        x = solve(inst, f"{name}:beta={beta}").x
        ref = np.array(alpha_fair_reference(inst, beta, unit))
        live = ref > 0
        assert np.all(x[~live] == 0)
        worst = max(worst, float(np.max(np.abs(x[live] - ref[live]) / ref[live], initial=0.0)))
    assert worst <= 1e-7


@pytest.mark.parametrize("beta", [6, 16, 40])
def test_separable_instance_closed_form(beta: int) -> None:
    # R = <2, 9>; A alone on r0; B and C share r1 (C needs 2 per task): gfj's
    # KKT gives x_B^-beta = p, x_C^-beta = 2p, so x_C = x_B 2^(-1/beta)
    inst = Instance.from_dict({"resources": {"r0": 2, "r1": 9},
                               "users": {"A": {"demand": {"r0": 1}}, "B": {"demand": {"r1": 1}},
                                         "C": {"demand": {"r1": 2}}}})
    xb = 9 / (1 + 2 * 2 ** (-1 / beta))
    alloc = solve(inst, f"gfj:beta={beta}")
    np.testing.assert_allclose(alloc.x, [2, xb, xb * 2 ** (-1 / beta)], rtol=1e-12)
    assert alloc.certificate.explain()[-1].endswith("the exact optimum for capacities changed by at most that much")


def _failing(*args: object, **kw: object) -> AlphaFairResult:
    n = np.asarray(args[1]).shape[0]
    return AlphaFairResult(np.zeros(n), np.zeros(0), 0, np.inf)


def test_refuses_with_exit_3_when_nothing_is_certified(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    # the conic solver's answer alone is never returned: without a certified
    # Newton solution the policy refuses
    monkeypatch.setattr(fds_module, "solve_alpha_fair", _failing)
    inst = Instance.from_dict({"resources": {"r0": 3, "r1": 5},
                               "users": {"A": {"demand": {"r0": 1}}, "B": {"demand": {"r1": 1}}}})
    with pytest.raises(SolverError, match="not certified"):
        get_policy("gfj:beta=12").solve(inst)
    path = tmp_path / "s.json"
    path.write_text('{"resources": {"r0": 3, "r1": 5}, "users": {"A": {"demand": {"r0": 1}}, '
                    '"B": {"demand": {"r1": 1}}}}')
    assert main(["solve", str(path), "--policy", "gfj:beta=12"]) == 3


def test_conic_answer_is_only_a_starting_point(monkeypatch: pytest.MonkeyPatch) -> None:
    # Newton from the limit fails; the conic answer (inaccurate at beta=16)
    # is polished and certified, not returned as it is
    real = fds_module.solve_alpha_fair
    calls: list[int] = []

    def first_fails(*args: object, **kw: object) -> AlphaFairResult:
        calls.append(1)
        return _failing(*args, **kw) if len(calls) == 1 else real(*args, **kw)

    monkeypatch.setattr(fds_module, "solve_alpha_fair", first_fails)
    inst = Instance.from_dict({"resources": {"r0": 1, "r1": 7},
                               "users": {"A": {"demand": {"r0": 1}}, "B": {"demand": {"r1": 1}}}})
    a = get_policy("gfj:beta=16").solve(inst)
    np.testing.assert_allclose(a.x, [1, 7], rtol=1e-12)
    assert "fallback" in a.stats and a.certificate.failure() is None


class _Noisy(Policy):
    """Equal split; its fast solve is off by ``noise`` (relative), its tight
    re-solve by ``tight_noise``."""

    name = "test-noisy"

    def __init__(self, noise: float, tight_noise: float) -> None:
        super().__init__()
        self.noise, self.tight_noise = noise, tight_noise

    def _split(self, instance: Instance, noise: float) -> Allocation:
        share = instance.capacity / instance.n
        with np.errstate(divide="ignore"):
            x = np.where(instance.demands > 0, share / np.where(instance.demands > 0, instance.demands, 1), np.inf)
        return Allocation(instance=instance, x=x.min(axis=1) * (1 - noise), policy=self.label)

    def solve(self, instance: Instance) -> Allocation:
        return self._split(instance, self.noise)

    def solve_tight(self, instance: Instance) -> Allocation:
        return self._split(instance, self.tight_noise)


def test_numeric_violation_must_survive_the_tight_resolve() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 6, "mem": 4},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 1}}, "B": {"demand": {"cpu": 2}}}})
    # solver noise: 1e-3 below the equal share in the fast solve, exact in the re-solve
    assert check(_Noisy(1e-3, 0.0), inst, "sharing-incentive") is None
    # a real shortfall, the same in both solves: reported, marked numeric
    v = check(_Noisy(1e-2, 1e-2), inst, "sharing-incentive")
    assert v is not None and not v.exact and "re-solve at tighter tolerance" in v.message


def test_tight_resolves_agree_on_accurate_solves() -> None:
    # DRFH (LP sequence) and gfj (Newton): the tight re-solve gives the same answer
    inst = Instance.from_dict({"resources": {"cpu": 14, "mem": 14},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 3}}, "B": {"demand": {"cpu": 2, "mem": 1}},
                                         "C": {"demand": {"cpu": 1, "mem": 1}, "max_tasks": 2}},
                               "machines": [{"cpu": 4, "mem": 10}, {"cpu": 10, "mem": 4}]})
    for spec in ("drfh", "gfj:beta=8", "fds:beta=3"):
        pol = get_policy(spec)
        np.testing.assert_allclose(pol.solve_tight(inst).x, pol.solve(inst).x, rtol=1e-7, err_msg=spec)
