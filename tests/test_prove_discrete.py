"""``prove --discrete --bound K``: exhaustive proofs over bounded integer
instances (analyzer.proving.discrete, analyzer.proving.bounded).

The symmetry reduction is compared with the unreduced enumeration of the
same grid (the same violating orbits, the same instance count); a naive
user symmetry (ignoring the engine's input-order tie-break) is shown to
miss counterexamples, so the comparison can fail. Counterexamples are
re-verified by the property's own check; an interrupted run resumes from
its progress file to the uninterrupted result.
"""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path
from typing import Any

import pytest

from analyzer import check
from analyzer.cli import main as cli
from analyzer.proving.bounded import deciders
from analyzer.proving.bounded.space import Point, Space, to_instance, to_point
from analyzer.proving.bounded.symmetry import canonical, orbit_size, user_members
from analyzer.proving.bounded.worker import Job, check_chunk
from analyzer.proving.discrete import prove_discrete
from models import PolicyError


def _orbit_key(point: Point, space: Space, resources: bool) -> Point:
    """The orbit of ``point`` under the reductions (users, resources,
    common weight factors)."""
    if space.weighted:
        g = math.gcd(*(u[1] for u in point[1]))
        point = (point[0], tuple((row, w // g, k) for row, w, k in point[1]))
    return canonical(point, resources)


def violating_orbits(policy: str, prop: str, space: Space, reduce: bool, resources: bool = True
                     ) -> tuple[set[Point], int]:
    """The orbits in which the (reduced or unreduced) enumeration finds a
    violation, and the instances it covers."""
    r = check_chunk(Job(policy, prop, space, resources, reduce=reduce, every_hit=True), 0, space.size)
    return {_orbit_key(h.point, space, resources) for h in r.hits}, r.covered


def assert_same_orbits(policy: str, prop: str, space: Space) -> None:
    reduced, covered = violating_orbits(policy, prop, space, reduce=True)
    full, every = violating_orbits(policy, prop, space, reduce=False)
    assert covered == every == space.class_size
    assert reduced == full


@pytest.mark.parametrize("prop", ["envy-freeness", "strategy-proofness", "resource-monotonicity",
                                  "population-monotonicity", "pareto-efficiency", "sharing-incentive"])
def test_reduction_finds_the_orbits_of_the_full_enumeration(prop: str) -> None:
    assert_same_orbits("drf", prop, Space(2, 2, 2))


@pytest.mark.parametrize(("prop", "space"), [
    ("envy-freeness", Space(2, 2, 2, "zeros")),
    ("strategy-proofness", Space(2, 1, 2, weighted=True, capped=True)),
    ("strategy-proofness", Space(3, 1, 3)),
    ("envy-freeness", Space(3, 1, 3)),
    ("population-monotonicity", Space(3, 1, 3)),
])
def test_reduction_with_zeros_weights_caps(prop: str, space: Space) -> None:
    assert_same_orbits("drf", prop, space)


def test_naive_user_symmetry_would_miss_counterexamples(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ignoring ties (the engine breaks equal task sizes by input
    position), one member per orbit is not enough: the comparison above
    would fail."""
    space = Space(2, 2, 2)
    full, _ = violating_orbits("drf", "envy-freeness", space, reduce=False)
    monkeypatch.setattr(deciders, "ties", lambda *a, **k: set())
    naive, _ = violating_orbits("drf", "envy-freeness", space, reduce=True)
    assert naive < full
    missed = min(full - naive)  # its canonical member is fine, another order of its users is not
    verdicts = [check("drf", to_instance(p), "envy-freeness", mode="discrete") is None
                for _, p in user_members(missed)]
    assert verdicts[0] and not all(verdicts)


def test_orbit_sizes_add_up() -> None:
    space = Space(3, 2, 2, "zeros", weighted=True)
    total = 0
    for index in range(space.size):
        p = space.decode(index)
        if p is not None and canonical(p, True) == p:
            total += orbit_size(p, True) * space.copies(p)
    assert total == space.class_size


def test_counterexample_is_reverified_by_the_check() -> None:
    """Discrete DRF is not envy-free (equal task sizes: the first in input
    order gets the last task)."""
    r = prove_discrete("drf", "envy-freeness", 2, 2, bound=3, workers=1)
    assert r.status == "counterexample"
    v = r.counterexample
    assert v.exact and v.mode == "discrete"
    assert check("drf", v.instance, "envy-freeness", mode="discrete") is not None
    assert max(max(to_point(v.instance)[0]), *(max(u[0]) for u in to_point(v.instance)[1])) <= 3


def test_lie_counterexample_within_the_bound() -> None:
    r = prove_discrete("drf", "strategy-proofness", 2, 2, bound=2, workers=1)
    assert r.status == "counterexample"
    assert r.counterexample.deviation["kind"] == "lie"
    assert all(int(v) <= 2 for v in r.counterexample.deviation["report"].values())


def test_proved_states_the_class() -> None:
    r = prove_discrete("drf", "population-monotonicity", 2, 2, bound=2, workers=1)
    assert r.status == "proved"
    assert r.assumptions["instances"] == 64 and r.assumptions["bound"] == 2
    assert "within the bound" in r.note and "capacities in 1..2" in r.note


def test_weighted_capped_class() -> None:
    """Every weight and cap in 1..K (the weight vector with a common
    factor, (2, 2), stands for (1, 1))."""
    r = prove_discrete("drf", "population-monotonicity", 2, 1, bound=2, weighted=True, capped=True, workers=1)
    assert r.status == "proved"
    assert r.assumptions["instances"] == 2 * 2 ** 2 * 2 ** 2 * 4 ** 2
    assert "weights in 1..2, caps in 0..2 or none" in r.note


def test_too_large_a_class_is_unknown() -> None:
    r = prove_discrete("drf", "envy-freeness", 4, 4, bound=9, workers=1)
    assert r.status == "unknown" and "lower the bound" in r.reason


def test_policy_without_discrete_form_is_unknown() -> None:
    r = prove_discrete("ceei", "envy-freeness", 2, 2, bound=2, workers=1)
    assert r.status == "unknown" and "has no discrete form" in r.reason


def test_property_of_the_continuous_setting_only_is_unknown() -> None:
    r = prove_discrete("drf", "bottleneck-fairness", 2, 2, bound=2, workers=1)
    assert r.status == "unknown" and "continuous setting only" in r.reason


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"bound": 0}, "bound"), ({"bound": None}, "bound"), ({"bound": 2, "domain": "neg"}, "domain"),
    ({"bound": 2, "workers": 0}, "workers"), ({"bound": 2.5}, "bound"),
])
def test_bad_arguments(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(PolicyError, match=f"^{field}:"):
        prove_discrete("drf", "envy-freeness", 2, 2, **kwargs)


def test_resume_continues_where_it_stopped(tmp_path: Path) -> None:
    """A stop event set after some instances (no timing): the progress file
    keeps the chunks done, and the resumed run ends like an uninterrupted
    one, doing only the rest."""
    args: dict[str, Any] = {"bound": 2, "workers": 1}
    whole = prove_discrete("drf", "population-monotonicity", 2, 2, **args)
    path = tmp_path / "progress.json"
    stop = threading.Event()
    seen: list[int] = []

    def stop_after(done: int, total: int) -> None:
        seen.append(done)
        if done >= 20:
            stop.set()

    first = prove_discrete("drf", "population-monotonicity", 2, 2, resume=path, stop=stop, progress=stop_after,
                           **args)
    assert first.status == "unknown" and first.cases[0].reason == "interrupted"
    kept = json.loads(path.read_text())
    assert 20 <= kept["covered"] < 64
    later: list[int] = []
    second = prove_discrete("drf", "population-monotonicity", 2, 2, resume=path,
                            progress=lambda d, t: later.append(d), **args)
    assert second.status == whole.status == "proved"
    assert later[0] > kept["covered"] and later[-1] == 64
    for key in ("orbits", "evaluations", "instances"):
        assert second.assumptions[key] == whole.assumptions[key]


def test_resume_file_of_another_run_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    prove_discrete("drf", "population-monotonicity", 2, 1, bound=2, workers=1, resume=path)
    with pytest.raises(PolicyError, match="^resume: .* belongs to another run"):
        prove_discrete("drf", "population-monotonicity", 2, 1, bound=3, workers=1, resume=path)
    path.write_text("not json")
    with pytest.raises(PolicyError, match="^resume: .* is not a progress file"):
        prove_discrete("drf", "population-monotonicity", 2, 1, bound=2, workers=1, resume=path)


def test_worker_processes_give_the_same_verdict() -> None:
    one = prove_discrete("drf", "sharing-incentive", 2, 2, bound=3, workers=1)
    two = prove_discrete("drf", "sharing-incentive", 2, 2, bound=3, workers=2)
    assert one.status == two.status
    assert one.counterexample.instance == two.counterexample.instance


@pytest.mark.slow
@pytest.mark.parametrize("prop", ["envy-freeness", "strategy-proofness", "resource-monotonicity",
                                  "population-monotonicity", "pareto-efficiency", "sharing-incentive"])
@pytest.mark.parametrize("space", [Space(2, 2, 3), Space(3, 2, 2), Space(2, 2, 2, "zeros", capped=True)])
def test_reduction_exhaustive(prop: str, space: Space) -> None:
    for policy in ("drf", "asset"):
        assert_same_orbits(policy, prop, space)


@pytest.mark.parametrize(("argv", "code"), [
    (["drf", "population-monotonicity", "--bound", "2"], 0),
    (["drf", "envy-freeness", "--bound", "2"], 1),
    (["ceei", "envy-freeness", "--bound", "2"], 3),
    (["drf", "envy-freeness", "--users", "4", "--resources", "4", "--bound", "9"], 3),
])
def test_cli_exit_codes(argv: list[str], code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["prove", *argv, "--discrete", "--workers", "1"]) == code
    out = capsys.readouterr().out
    assert ("PROVED" in out) == (code == 0) and ("within the bound" in out)


@pytest.mark.parametrize(("argv", "head"), [
    (["drf", "population-monotonicity"],
     "population-monotonicity PROVED for drf (discrete) on every integer instance within the bound 2"),
    (["drf", "envy-freeness"], "envy-freeness VIOLATED by drf (discrete; verified in exact arithmetic)"),
    (["ceei", "envy-freeness"], "envy-freeness for ceei (discrete) within the bound 2: UNKNOWN (policy 'ceei'"),
])
def test_cli_head_line(argv: list[str], head: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The verdict's head line (shared with the SMT proofs:
    ``prove.verdict_head``)."""
    cli.main(["prove", *argv, "--bound", "2", "--discrete", "--workers", "1"])
    assert capsys.readouterr().out.startswith(head)


@pytest.mark.parametrize(("argv", "flag"), [
    (["--discrete"], "--bound"), (["--discrete", "--bound", "0"], "--bound"),
    (["--discrete", "--bound", "two"], "--bound"), (["--bound", "2"], "--bound"),
    (["--resume", "p.json"], "--resume"), (["--discrete", "--bound", "2", "--resume", "/no/such/dir/p.json"],
                                           "--resume"),
    (["--discrete", "--bound", "2", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler"),
])
def test_cli_bad_flags(argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["prove", "drf", "envy-freeness", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and flag in err[0]


def test_cli_ctrl_c_keeps_the_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C (a KeyboardInterrupt raised by the third chunk) exits 130
    and the progress file holds the two chunks done; the same command then
    finishes the proof."""
    from analyzer.proving import discrete as proving_discrete

    real, calls = proving_discrete._run_chunk, []

    def interrupted(args: Any) -> Any:
        calls.append(args)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(args)

    path = tmp_path / "p.json"
    argv = ["prove", "drf", "population-monotonicity", "--discrete", "--bound", "2", "--workers", "1",
            "--resume", str(path)]
    monkeypatch.setattr(proving_discrete, "_run_chunk", interrupted)
    assert cli.main(argv) == 130
    assert "interrupted" in capsys.readouterr().err
    assert len(json.loads(path.read_text())["done"]) == 2
    monkeypatch.setattr(proving_discrete, "_run_chunk", real)
    assert cli.main(argv) == 0


def test_analyzer_prove_dispatches_the_discrete_setting() -> None:
    from analyzer import prove

    r = prove("drf", "sharing-incentive", 2, 2, setting="discrete", bound=2, workers=1)
    assert r.status == "counterexample" and r.counterexample.mode == "discrete"
    assert r.assumptions["class"].startswith("2 users x 2 resources, capacities in 1..2")


def test_dask_scheduler_gives_the_single_process_result() -> None:
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        dist = prove_discrete("drf", "resource-monotonicity", 2, 1, bound=3, scheduler=cluster.scheduler_address)
    one = prove_discrete("drf", "resource-monotonicity", 2, 1, bound=3, workers=1)
    assert dist.status == one.status
    assert dist.assumptions["evaluations"] == one.assumptions["evaluations"]
    assert dist.assumptions["orbits"] == one.assumptions["orbits"]


def test_user_policy_gets_every_user_order() -> None:
    """A policy written by a user may read a row's position: no user
    reduction (every order of the users is checked), no resource
    reduction, and the class is still covered."""
    from analyzer.policy_file import load_policy_file
    from analyzer.proving.bounded.symmetry import linear_rates
    from models import get_policy

    root = Path(__file__).resolve().parents[1]
    (name,) = load_policy_file(root / "examples" / "new_policy.py")
    assert linear_rates(get_policy(name)) is None and linear_rates(get_policy("drf")) is not None
    r = prove_discrete(name, "population-monotonicity", 2, 2, bound=2, workers=1)
    assert r.status == "proved", r.reason  # exhaustive at bound 2, so deterministic
    assert r.assumptions["symmetry"] == "users"
