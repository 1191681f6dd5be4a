"""Fuzzing (hypothesis) of instance parsing and of every registered policy.

Every test runs twice: under the bounded ``fuzz`` profile in the default
run, and under the large ``fuzz-slow`` profile when marked ``slow``
(``pytest -m slow tests/test_fuzz.py``). Profiles live in tests/conftest.py.

Claims checked: parsers either build an instance or raise
:class:`~models.errors.InstanceError` with one line naming a field (never
another exception); every policy, on values from 1e-9 to 1e9 with many
zeros, duplicate users, one user, one resource, 10^3 resources and tasks
bigger than a whole capacity, returns finite, non-negative task counts that
are feasible within :data:`~models.tolerances.FEASIBILITY_RTOL`, or raises a
clean :class:`~models.errors.SolverError`; exact solvers are exactly
feasible (``usage_exact <= capacity_exact``) and agree with the float ones.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fuzz_strategies import exact_instances, instances, junk, mangled_scenarios, scenario_dicts, toml_texts
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from analyzer.cli.main import main
from models import Instance, InstanceError, PolicyError, SolverError, available, get_policy
from models.filling import FillingPolicy
from models.tolerances import CROSSCHECK_RTOL, FEASIBILITY_RTOL

PROFILES = [pytest.param("fuzz", id="fuzz"), pytest.param("fuzz-slow", id="slow", marks=pytest.mark.slow)]
POLICIES = sorted(p for p in available() if not get_policy(p).discrete_only)  # continuous solvers only
EXACT_POLICIES = [p for p in POLICIES if get_policy(p).has_exact]
#: Policies solved by the fast progressive-filling kernel (no convex
#: solver); the others get fewer examples in the default run.
FAST = {p for p in POLICIES if isinstance(get_policy(p), FillingPolicy)}


def fuzz(profile: str, strategy: st.SearchStrategy[Any], body: Callable[[Any], None], fraction: float = 1.0,
         shrink: bool = True) -> None:
    """Run ``body`` on examples of ``strategy`` under ``profile`` (with
    ``fraction`` of its examples, at least 2)."""
    base = settings.get_profile(profile)
    phases = tuple(base.phases) if shrink else tuple(p for p in base.phases if p is not Phase.shrink)
    run = settings(base, max_examples=max(2, int(base.max_examples * fraction)), phases=phases)(given(strategy)(body))
    run()


def assert_one_line_error(exc: Exception) -> None:
    msg = str(exc)
    assert msg and "\n" not in msg, repr(msg)
    assert ":" in msg, f"message does not name a field: {msg!r}"


# ---------------------------------------------------------------- parsing
@pytest.mark.parametrize("profile", PROFILES)
def test_from_dict_mangled_scenarios(profile: str) -> None:
    def body(d: dict[str, Any]) -> None:
        try:
            inst = Instance.from_dict(d)
        except InstanceError as exc:
            assert_one_line_error(exc)
            return
        assert np.all(np.isfinite(inst.demands)) and np.all(inst.capacity > 0)

    fuzz(profile, mangled_scenarios(), body, 2)


@pytest.mark.parametrize("profile", PROFILES)
def test_from_dict_pure_junk(profile: str) -> None:
    def body(d: Any) -> None:
        try:
            Instance.from_dict(d)
        except InstanceError as exc:
            assert_one_line_error(exc)

    fuzz(profile, st.one_of(junk(), st.fixed_dictionaries({"resources": junk(), "users": junk()})), body, 2)


@pytest.mark.parametrize("profile", PROFILES)
def test_valid_scenarios_round_trip_through_toml(profile: str) -> None:
    def body(d: dict[str, Any]) -> None:
        inst = Instance.from_dict(d)
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "s.toml"
            p.write_text(inst.to_toml())
            assert Instance.load(p) == inst

    fuzz(profile, scenario_dicts(), body, 2)


def _load_text(content: str | bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / f"scenario{suffix}"
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8", errors="surrogateescape")
        try:
            Instance.load(p)
        except InstanceError as exc:
            assert_one_line_error(exc)
            assert str(exc).startswith(str(p) + ": "), str(exc)


@pytest.mark.parametrize("profile", PROFILES)
def test_load_mangled_toml_text(profile: str) -> None:
    fuzz(profile, toml_texts(), lambda text: _load_text(text, ".toml"), 2)


@pytest.mark.parametrize("profile", PROFILES)
def test_load_mangled_json_text(profile: str) -> None:
    texts = st.one_of(
        mangled_scenarios().map(lambda d: json.dumps(d, default=str)),
        st.text(alphabet='{}[]":,0123456789.eE-+ natrufl', max_size=60),
        st.integers(1, 3000).map(lambda k: "[" * k),
    )
    fuzz(profile, texts, lambda text: _load_text(text, ".json"), 2)


@pytest.mark.parametrize("profile", PROFILES)
def test_load_random_bytes(profile: str) -> None:
    fuzz(profile, st.tuples(st.binary(max_size=200), st.sampled_from([".toml", ".json", ".txt", ""])),
         lambda args: _load_text(*args), 2)


@pytest.mark.parametrize("profile", PROFILES)
def test_from_arrays_junk(profile: str) -> None:
    values = st.one_of(
        st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5), st.none(), st.text(max_size=2)
    )
    arrays = st.fixed_dictionaries({
        "capacity": st.lists(values, max_size=3),
        "demands": st.one_of(st.lists(st.lists(values, min_size=0, max_size=3), max_size=3), values),
        "weights": st.one_of(st.none(), st.lists(values, max_size=3)),
        "max_tasks": st.one_of(st.none(), st.lists(values, max_size=3), values),
        "users": st.one_of(st.none(), st.lists(st.text(max_size=2), max_size=3)),
    })

    def body(kw: dict[str, Any]) -> None:
        try:
            inst = Instance.from_arrays(**kw)
        except InstanceError as exc:
            assert_one_line_error(exc)
            return
        assert np.all(np.isfinite(inst.capacity)) and np.all(inst.capacity > 0)
        assert np.all(np.isfinite(inst.demands)) and np.all(inst.demands >= 0)
        assert not np.isnan(inst.max_tasks).any()

    fuzz(profile, arrays, body, 4)


@pytest.mark.parametrize("profile", PROFILES)
def test_cli_solve_on_mangled_files_exits_0_or_2(profile: str, capsys) -> None:
    def body(text: str) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "s.toml"
            p.write_text(text)
            capsys.readouterr()
            code = main(["solve", str(p), "--policy", "drf,asset", "--format", "json"])
            out, err = capsys.readouterr()
        assert code in (0, 2), err
        if code == 2:
            assert err.startswith("fairalloc: error: ") and err.count("\n") == 1
        else:
            data = json.loads(out)
            assert "NaN" not in out and len(data["allocations"]) == 2

    fuzz(profile, toml_texts(), body)


# ---------------------------------------------------------------- policies
def check_allocation(inst: Instance, policy: str) -> None:
    """Solve ``inst`` with ``policy``: finite, non-negative, feasible; or a
    clean SolverError/PolicyError (never a wrong answer)."""
    pol = get_policy(policy)
    if pol.supports(inst) is not None:
        return
    try:
        a = pol.solve(inst)
    except (SolverError, PolicyError) as exc:
        assert_one_line_error(exc)
        assert policy in str(exc)
        return
    assert a.x.shape == (inst.n,)
    assert np.all(np.isfinite(a.x)), a.x
    assert np.all(a.x >= 0), a.x
    for view in (a.shares, a.dominant_shares, a.usage, a.utilization):
        assert not np.isnan(view).any()
    assert a.max_violation() <= FEASIBILITY_RTOL, (a.max_violation(), inst.describe())
    json.dumps(a.to_dict(), allow_nan=False)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("profile", PROFILES)
def test_policy_output_is_finite_and_feasible(profile: str, policy: str) -> None:
    fuzz(profile, instances(), lambda inst: check_allocation(inst, policy), 2 if policy in FAST else 0.4)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("profile", PROFILES)
def test_policy_one_user_or_one_resource(profile: str, policy: str) -> None:
    shapes = st.one_of(instances(n=st.just(1)), instances(m=st.just(1)), instances(n=st.just(1), m=st.just(1)))
    fuzz(profile, shapes, lambda inst: check_allocation(inst, policy), 1 if policy in FAST else 0.3)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("profile", PROFILES)
def test_policy_a_thousand_resources(profile: str, policy: str) -> None:
    wide = instances(n=st.integers(1, 5 if policy in FAST else 2), m=st.just(1000))
    fuzz(profile, wide, lambda inst: check_allocation(inst, policy), 0.3 if policy in FAST else 0.05)


#: Instances for the exact solvers: exact data (integers and fractions), and
#: float data over 1e-9..1e9 (where the float kernel's relative saturation
#: test must give the same events as exact arithmetic).
EXACT_SOURCES = {"exact-data": exact_instances(), "float-data": instances(n=st.integers(1, 5), m=st.integers(1, 4))}


@pytest.mark.parametrize("source", sorted(EXACT_SOURCES))
@pytest.mark.parametrize("policy", EXACT_POLICIES)
@pytest.mark.parametrize("profile", PROFILES)
def test_exact_solver_is_exactly_feasible_and_matches_floats(profile: str, policy: str, source: str) -> None:
    pol = get_policy(policy)

    def body(inst: Instance) -> None:
        e = pol.solve_exact(inst)
        assert e.exact and e.x_exact is not None
        assert all(v >= 0 for v in e.x_exact)
        assert all(u <= c for u, c in zip(e.usage_exact, inst.capacity_exact, strict=True))
        for xi, ki in zip(e.x_exact, inst.max_tasks_exact, strict=True):
            assert ki is None or xi <= ki
        np.testing.assert_allclose(pol.solve(inst).x, [float(v) for v in e.x_exact], rtol=CROSSCHECK_RTOL, atol=0)

    fuzz(profile, EXACT_SOURCES[source], body, 2)


# Policies whose stage LPs stay well conditioned over 1e-9..1e9 data: their
# share of one task is at least the dominant share over m, so a user's
# entries in the scaled LP are at most m, and each capacity row is divided
# by its largest entry (models/filling.py). Leximin on task counts and single-resource
# sharing price tasks by a count or by one resource: their LP coefficients
# span the data's whole 1e-18..1e18 range, which no double-precision LP
# solver resolves; their numeric kernel is fuzzed against the exact solver
# over the whole range above, and their LPs on ordinary data in
# tests/test_policies_basic.py.
LP_WELL_SCALED = sorted(FAST & {"drf", "asset", "slots"})


@pytest.mark.parametrize("policy", LP_WELL_SCALED)
@pytest.mark.parametrize("profile", PROFILES)
def test_lp_sequence_matches_filling_over_the_whole_range(profile: str, policy: str) -> None:
    # the LP definition (cvxpy) against the kernel, on data from 1e-9 to 1e9:
    # found the LP giving 0 tasks where 5.8e12 was right (badly scaled task
    # variables) and users left unfrozen whose use of a full resource is tiny
    pol = get_policy(policy)

    def body(inst: Instance) -> None:
        a = pol.solve_program(inst)
        assert a.stats["max_violation"] <= FEASIBILITY_RTOL
        np.testing.assert_allclose(a.x, pol.solve(inst).x, rtol=CROSSCHECK_RTOL, atol=0)

    fuzz(profile, instances(n=st.integers(1, 4), m=st.integers(1, 3)), body, 0.4)


# ------------------------------------------------------------- properties
@pytest.mark.parametrize("profile", PROFILES)
def test_property_checks_do_not_crash_on_fuzzed_instances(profile: str) -> None:
    from analyzer.properties import available_properties, get_property

    props = sorted(available_properties())
    if not props:
        pytest.skip("no property registered yet")

    def body(args: tuple[Instance, str, str]) -> None:
        inst, policy, prop = args
        p = get_property(prop)
        if p.applies(inst) is not None:
            return
        try:
            v = p.check(get_policy(policy), inst)
        except (PolicyError, SolverError) as exc:
            assert_one_line_error(exc)
            return
        if v is not None:
            assert v.property == prop and "\n" not in v.one_line()

    small = instances(n=st.integers(1, 3), m=st.integers(1, 3))
    fast = sorted(FAST) or POLICIES
    fuzz(profile, st.tuples(small, st.sampled_from(fast), st.sampled_from(props)), body, 1)


def test_lp_sequence_regression_tiny_use_of_a_full_resource() -> None:
    # found by the fuzzing above: user u1 uses resource r1 (which fills) at
    # ~1e-7 of its dominant share; the LP sequence used to leave it active
    # (dual below DUAL_TOL) and gave it 1.36e-5 tasks instead of 9.03e-6
    cap = [546.16558041, 24.75165784, 3572.29375385]
    dem = [[0.0, 3.48018727e05, 0.0], [4.02072261e07, 2.37681475e-06, 4.67143882e-07],
           [0.0, 2.18089912e06, 6.24693284e08]]
    inst = Instance.from_arrays(cap, dem)
    drf = get_policy("drf")
    exact = [float(v) for v in drf.solve_exact(inst).x_exact]
    np.testing.assert_allclose(drf.solve_program(inst).x, exact, rtol=CROSSCHECK_RTOL)
    np.testing.assert_allclose(drf.solve(inst).x, exact, rtol=CROSSCHECK_RTOL)


@pytest.mark.parametrize("profile", PROFILES)
def test_json_output_is_strict_json(profile: str) -> None:
    from analyzer.render import to_json

    def reject(name: str) -> Any:
        raise AssertionError(f"bare {name} in JSON output")

    values = st.recursive(st.one_of(st.floats(), st.integers(), st.fractions(), st.text(max_size=3),
                                    st.floats().map(np.float64)),
                          lambda kids: st.one_of(st.lists(kids, max_size=3), st.dictionaries(st.text(max_size=3), kids,
                                                                                            max_size=3)),
                          max_leaves=8)
    def body(v: Any) -> None:
        json.loads(to_json(v), parse_constant=reject)

    fuzz(profile, values, body)


@pytest.mark.skipif("ceei" not in POLICIES, reason="no CEEI policy registered")
def test_ceei_answers_when_caps_bind_far_below_capacity() -> None:
    # data spread over 1e-9..1e9: Clarabel and SCS stop at optimal_inaccurate
    # here; the Newton method on the dual (models/ceei_newton.py) answers
    inst = Instance.from_arrays([18192931.562217426], [[115.69193495063536], [193908.7815962683]],
                                max_tasks=[149.1329202853947, 0.00874021475763391])
    a = get_policy("ceei").solve(inst)
    np.testing.assert_allclose(a.x, inst.max_tasks, rtol=CROSSCHECK_RTOL)
