"""Certificates of the filling policies (proofs.filling_certificate) and
``fairalloc solve --exact --explain``."""

from fractions import Fraction

import numpy as np
import pytest
from strategies import random_instance

from analyzer import Instance, get_policy, solve
from analyzer.cli.main import main
from models.filling import FillingPolicy, Stage
from proofs import certify_filling, explain


def test_paper_drf_stage_sentence() -> None:
    inst = Instance.load("examples/paper_two_users.toml")
    cert = certify_filling(get_policy("drf"), inst)
    assert cert.holds
    assert cert.explain()[0] == "stage 1: every user rises to dominant share 2/3; cpu saturates; A and B stop"
    (stage,) = cert.stages
    assert stage.level == Fraction(2, 3) and stage.saturated == ("cpu",) and stage.blocked == {"A": "cpu", "B": "cpu"}


def test_paper_asset_stage() -> None:
    inst = Instance.load("examples/paper_two_users.toml")
    cert = certify_filling(get_policy("asset"), inst)
    assert cert.holds and cert.stages[0].level == Fraction(21, 25)  # 63/25 * (1/9 + 4/18)
    assert cert.explain()[0].startswith("stage 1: every user rises to aggregate share 21/25; cpu saturates")


def test_multi_stage_with_cap_and_weights() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 10, "mem": 20},
                               "users": {"A": {"demand": {"cpu": 1}},
                                         "B": {"demand": {"mem": 1}, "weight": 2},
                                         "C": {"demand": {"cpu": 1, "mem": 1}, "max_tasks": 3}}})
    cert = certify_filling(get_policy("drf"), inst)
    assert cert.holds
    lines = cert.explain()
    assert lines[0] == ("stage 1: every user rises to weighted dominant share 3/10; C stops (C at its task cap)")
    assert lines[1] == "stage 2: users A and B rise to weighted dominant share 17/40; mem saturates; B stops"
    assert lines[2] == "stage 3: user A rises to weighted dominant share 7/10; cpu saturates; A stops"
    assert [s.level for s in cert.stages] == [Fraction(3, 10), Fraction(17, 40), Fraction(7, 10)]


def test_tampered_stages_fail_verification() -> None:
    inst = Instance.load("examples/paper_two_users.toml")
    drf = get_policy("drf")
    good = drf.solve_exact(inst)
    # claim a lower level and a resource that is not exhausted
    bad_stage = Stage(level=Fraction(1, 2), saturated=(1,), frozen=(0, 1), capped=())
    from dataclasses import replace

    cert = certify_filling(drf, inst, replace(good, certificate=[bad_stage]))
    assert not cert.holds
    failed = {c.name for c in cert.checks if not c.holds}
    assert "stage 1: mem is exhausted" in failed and "stage 1: A stops at level 1/2" in failed
    # an allocation below the max-min one has no bottleneck for its users
    low = replace(good, x_exact=(Fraction(2), Fraction(2)))
    assert not certify_filling(drf, inst, low).holds


class CpuShare(FillingPolicy):
    """Max-min on the share of the first resource (a user-defined filling policy)."""

    name = "cpu-share"
    share_label = "cpu share"

    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        return demands[:, 0] / capacity[0]


def test_any_filling_policy_gets_a_certificate() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 12, "mem": 12},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 2}}, "B": {"demand": {"cpu": 2, "mem": 1}}}})
    cert = certify_filling(CpuShare(), inst)
    assert cert.holds and cert.quantity == "cpu share"
    # x_A = 12 t, x_B = 6 t: cpu fills at t = 1/2, mem (24 t + 6 t = 12) at t = 2/5 first
    assert cert.explain()[0] == "stage 1: every user rises to cpu share 2/5; mem saturates; A and B stop"


@pytest.mark.parametrize("policy", ["drf", "asset"])
def test_random_certificates_hold(policy: str) -> None:
    rng = np.random.default_rng(11)
    pol = get_policy(policy)
    for _ in range(200):
        inst = random_instance(rng, n_max=6, m_max=4)
        a = solve(inst, policy, exact=True)
        cert = certify_filling(pol, inst, a)
        assert cert.holds, (inst.describe(), [str(c) for c in cert.checks if not c.holds])
        assert sum(len(s.blocked) + len(s.capped) for s in cert.stages) >= 1 or not (inst.max_tasks > 0).any()


def test_explain_dispatch() -> None:
    inst = Instance.load("examples/paper_two_users.toml")
    ceei = get_policy("ceei")
    lines = explain(ceei, solve(inst, ceei, exact=True))
    assert lines[0] == "prices (budgets = weights): cpu 1/5, mem 1/90"
    assert lines[-1].endswith("-> optimal")
    num = solve(inst, "drf")
    assert explain(get_policy("drf"), num)[0].startswith("no certificate")


def test_cli_explain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "examples/paper_two_users.toml", "--exact", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "stage 1: every user rises to dominant share 2/3; cpu saturates; A and B stop" in out
    assert "prices (budgets = weights): cpu 1/5, mem 1/90" in out
    assert "45/11" in out


def test_cli_explain_json(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["solve", "examples/paper_two_users.toml", "--policy", "ceei,drf", "--explain",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ceei, drf = data["allocations"]
    assert ceei["exact"] is True and ceei["users"]["A"]["tasks"] == "45/11"
    assert ceei["explanation"][0].startswith("prices")
    assert drf["explanation"][0].startswith("stage 1")
