"""Filling certificates cover every phase of every filling policy (issue 12):
the second phase, where users whose share of one task is 0 share the rest by
DRF, is verified like the first."""

from __future__ import annotations

import pytest

from models import Instance, get_policy
from models.filling import FillingPolicy
from models.policy import available
from proofs import certify_filling, explain
from tests.exact_instances import small_integer_instances

FILLING = sorted(name for name, cls in available().items() if issubclass(cls, FillingPolicy))
VARIANTS = [*FILLING, "single-resource:resource=1", "single-resource:resource=2", "slots:slots=3", "slots:slots=7"]


@pytest.mark.parametrize("spec", VARIANTS)
def test_every_filling_certificate_verifies_on_random_instances(spec: str) -> None:
    pol = get_policy(spec)
    checked = 0
    for inst in small_integer_instances(seed=12, count=40):
        if pol.supports(inst) is not None:
            continue
        cert = certify_filling(pol, inst, pol.solve_exact(inst))
        failed = [c for c in cert.checks if not c.holds]
        assert cert.holds, (spec, inst.to_dict(), failed)
        checked += 1
    assert checked >= 10


def test_second_phase_is_explained_and_verified() -> None:
    # B and C use no cpu: after A saturates cpu they share mem by weighted DRF
    inst = Instance.from_dict({"resources": {"cpu": 4, "mem": 9},
                               "users": {"A": {"demand": {"cpu": 2, "mem": 1}},
                                         "B": {"demand": {"cpu": 0, "mem": 1}, "weight": 2},
                                         "C": {"demand": {"cpu": 0, "mem": 3}}}})
    pol = get_policy("single-resource:resource=cpu")
    alloc = pol.solve_exact(inst)
    lines = explain(pol, alloc)
    assert certify_filling(pol, inst, alloc).holds
    assert any(line.startswith("phase 2:") for line in lines)
    assert lines[-1].endswith("max-min fair (bottleneck argument verified in rationals)")
    # x_B / 9 / 2 = 3 x_C / 9 and x_B + 3 x_C = 7 (mem left after A)
    assert [str(v) for v in alloc.x_exact] == ["2", "14/3", "7/9"]


def test_cli_explain_verifies_the_second_phase(tmp_path, capsys) -> None:
    from analyzer.cli.main import main

    path = tmp_path / "s.toml"
    path.write_text('[resources]\ncpu = 3\ngpu = 5\n\n[users.A]\ndemand = { cpu = 1, gpu = 1 }\n\n'
                    '[users.B]\ndemand = { gpu = 2 }\n\n[users.C]\ndemand = { gpu = 1 }\nweight = 3\n')
    assert main(["solve", str(path), "--policy", "single-resource:resource=cpu", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "phase 2:" in out and "NOT verified" not in out
    assert "-> max-min fair (bottleneck argument verified in rationals)" in out
