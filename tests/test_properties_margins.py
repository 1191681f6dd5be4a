"""Numeric violation margins (used by the search to steer, never to decide):
negative on the paper's counterexamples, non-negative (up to the comparison
tolerance) where the property holds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analyzer import Instance, check, search
from analyzer.properties import PROPERTIES, Property, available_properties, get_property, register_property
from models import PolicyError
from models.tolerances import COMPARE_RTOL
from tests.strategies import random_instance

CASES = [
    ("asset", "sharing-incentive", [30, 30], [[1, 3], [1, 1]]),
    ("asset", "bottleneck-fairness", [21, 21], [[3, 2], [4, 1]]),
    ("drf", "resource-monotonicity", [100, 100], [[2, 1], [1, 2]]),
]


@pytest.mark.parametrize("policy, prop, cap, dem", CASES)
def test_margin_negative_on_counterexamples(policy: str, prop: str, cap: list[int], dem: list[list[int]]) -> None:
    inst = Instance.from_exact(cap, dem)
    assert get_property(prop).margin(policy, inst) < 0
    assert check(policy, inst, prop) is not None


def test_every_property_has_a_margin_and_it_agrees_with_drf_holding() -> None:
    rng = np.random.default_rng(6)
    insts = [random_instance(rng, n_max=3, m_max=3, zeros=False, weights=False, caps=False) for _ in range(10)]
    for name, cls in available_properties().items():
        prop = cls()
        mode = cls.modes[0]  # the dynamic properties: DRF recomputed at every arrival
        for inst in insts:
            mg = prop.margin("drf", inst, mode)
            if check("drf", inst, prop, mode=mode) is None:
                assert mg >= -COMPARE_RTOL, (name, inst.describe(), mg)


class _NoMargin(Property):
    """Test-only: defines no margin."""

    name = "test-no-margin"

    def check(self, policy, instance, mode="continuous"):
        return None


def test_margin_is_a_declared_hook_with_a_default() -> None:
    """The search asks :attr:`Property.has_margin` and calls
    :meth:`Property.margin`; a property without one gets ``inf`` and no
    optimisation phase: its whole budget goes to the instance stream."""
    assert all(cls.has_margin for cls in available_properties().values())
    assert not _NoMargin.has_margin
    paper = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    assert _NoMargin().margin("drf", paper) == math.inf
    register_property(_NoMargin)
    try:
        r = search("drf", "test-no-margin", budget=120, seed=0, workers=1)
    finally:
        PROPERTIES.unregister(_NoMargin.name)
    assert r.holds is True and r.instances == 120
    assert r.generated - r.unsupported - r.not_applicable == 120


def test_properties_registry_unregisters_and_suggests() -> None:
    register_property(_NoMargin)
    assert "test-no-margin" in available_properties()
    PROPERTIES.unregister("test-no-margin")
    assert "test-no-margin" not in available_properties()
    with pytest.raises(PolicyError, match="did you mean 'envy-freeness'"):
        get_property("Envy-Freenes")
    assert get_property(" Envy-Freeness ").name == "envy-freeness"


def test_property_declares_every_attribute_the_search_and_tables_use() -> None:
    """Nothing is looked up on a property with ``getattr``: every
    ``prop.<name>`` the search engine, the tables and ``check`` use is
    declared on :class:`Property` (so a new property sees the whole
    interface, with defaults, in one class)."""
    import ast
    from pathlib import Path

    import analyzer

    root = Path(analyzer.__file__).parent
    files = [*sorted((root / "searching").glob("*.py")), root / "tables" / "table.py", root / "checking.py"]
    used: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute):
                owner = node.value
                if (isinstance(owner, ast.Name) and owner.id == "prop") or (
                        isinstance(owner, ast.Attribute) and owner.attr == "prop"):
                    used.add(node.attr)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
                target = node.args[0]
                assert not (isinstance(target, ast.Name) and target.id == "prop"), f"{path}: getattr on a property"
    assert {"applies", "check", "margin", "has_margin", "screen_many", "name"} <= used
    assert all(hasattr(Property, name) or name in Property.__annotations__ for name in used), used


def _assert_margin_many_is_each_margin(policy: str, insts: list[Instance], mode: str | None = None) -> None:
    """``margin_many`` of every property with a batched override, on the
    instances it applies to, gives what ``margin`` gives one at a time
    (``nan`` where that is not finite), each instance a fresh object
    (nothing remembered by a screen)."""
    from models import get_policy

    pol = get_policy(policy)
    for name, cls in available_properties().items():
        if cls.margin_many is Property.margin_many:  # the default: margin itself, one at a time
            continue
        prop = cls()
        m = mode or cls.modes[0]
        todo = [i for i in insts if prop.applies(i) is None]
        got = prop.margin_many(pol, todo, m)
        assert got.shape == (len(todo),)
        for inst, g in zip(todo, got, strict=True):
            want = prop.margin(pol, inst, m)
            if math.isfinite(want):
                assert g == pytest.approx(want, rel=1e-9, abs=1e-12), (name, m, inst.describe())
            else:
                assert math.isnan(g), (name, m, inst.describe())


@pytest.mark.parametrize("policy", ["drf", "asset", "ceei"])
def test_margin_many_is_each_margin_with_nan_for_no_answer(policy: str) -> None:
    # margin_many is what the search evaluates; it must give margin's values
    # (an override may batch the solves, not change them)
    rng = np.random.default_rng(11)
    insts = [random_instance(rng, n_max=4, m_max=3, zeros=False, weights=False, caps=False) for _ in range(12)]
    _assert_margin_many_is_each_margin(policy, insts)


@pytest.mark.parametrize("policy", ["drf", "asset", "ceei"])
def test_margin_many_on_weighted_capped_zero_demand_mixed_shapes(policy: str) -> None:
    """Weights, caps (0 included), zero demand entries, one user, one
    resource, and groups of mixed shapes (padded for CEEI's batch, by shape
    for the filling family) in one call."""
    rng = np.random.default_rng(5)
    insts = [random_instance(rng, n_max=6, m_max=4) for _ in range(32)]
    insts += [Instance.from_exact([9, 18], [[1, 4], [3, 1]], weights=[2, 1], max_tasks=[None, 0]),
              Instance.from_exact([10], [[1], [2], [3]], max_tasks=[1, None, 2]),
              Instance.from_exact([5, 5, 5], [[1, 0, 0]]),
              Instance.from_exact([9, 18], [[1, 4], [3, 1]], weights=[1, 3]),
              Instance.from_exact([9, 18], [[1, 4], [3, 1]], weights=[3, 1])]
    _assert_margin_many_is_each_margin(policy, insts)


@pytest.mark.parametrize("policy", ["drf", "asset", "ceei"])
def test_margin_many_on_one_shape_close_candidates(policy: str) -> None:
    """The optimisation phase's case: many candidates of one shape close to
    each other (one batch per group)."""
    rng = np.random.default_rng(2)
    base = Instance.from_exact([9, 18, 7], [[1, 4, 1], [3, 1, 2], [2, 2, 1]])
    insts = [Instance.from_arrays(base.capacity * np.exp(rng.normal(0, 0.05, 3)),
                                  base.demands * np.exp(rng.normal(0, 0.05, (3, 3)))) for _ in range(16)]
    _assert_margin_many_is_each_margin(policy, insts)


def test_margin_many_discrete_and_other_policies() -> None:
    """Other settings and policies without a batch solver give margin's
    values too (solved one at a time, compared in batches)."""
    rng = np.random.default_rng(8)
    insts = [random_instance(rng, n_max=4, m_max=3) for _ in range(10)]
    _assert_margin_many_is_each_margin("drf", insts, "discrete")
    _assert_margin_many_is_each_margin("leximin-tasks", insts[:5])


@pytest.mark.parametrize("policy", ["drf", "ceei"])
def test_margin_many_after_a_screen_takes_its_allocations(policy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stream's near misses: the margins of a screened chunk read the
    tasks the screen solved (no second solve) and are each margin's value."""
    from analyzer.properties import _margins
    from models import get_policy

    rng = np.random.default_rng(4)
    insts = [random_instance(rng, n_max=5, m_max=3, zeros=False, weights=False, caps=False) for _ in range(24)]
    pol, prop = get_policy(policy), get_property("envy-freeness")
    prop.screen_many(pol, insts)

    def no_solve(*args: object) -> None:
        raise AssertionError("solved again")

    monkeypatch.setattr(_margins, "run_batch", no_solve)
    got = prop.margin_many(pol, insts)
    want = np.array([prop.margin(pol, inst) for inst in insts])
    np.testing.assert_allclose(got, np.where(np.isfinite(want), want, np.nan), rtol=1e-12, atol=0)
