"""Property checks on instances with scenario extensions (group tree):
every instance a check derives (a user removed, a lie, grown capacities)
keeps what still applies of the extensions, so that policies reading them
(``hdrf``, ``hdrf-naive``) can be checked."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from analyzer import check
from analyzer.cli.main import main
from analyzer.properties import Violation, get_property
from analyzer.properties._batch import numeric_many
from analyzer.properties._common import Evaluator
from analyzer.properties._variant import numeric_variant
from analyzer.properties.population_monotonicity import _without
from models import Instance, get_policy

PROPERTIES = ["population-monotonicity", "strategy-proofness", "resource-monotonicity"]
TREE_POLICIES = ["hdrf", "hdrf-naive"]


@pytest.fixture(scope="module")
def hierarchy() -> Instance:
    return Instance.load("examples/hierarchy.toml")


@pytest.fixture(scope="module")
def weighted() -> Instance:
    """Two groups with weights, a nested group and a user at the root."""
    return Instance.from_dict({
        "resources": {"cpu": 6, "gpu": 4},
        "users": {
            "a1": {"demand": {"cpu": 1}, "group": "a"},
            "a2": {"demand": {"cpu": 1, "gpu": 1}, "group": "a/x"},
            "b1": {"demand": {"gpu": 1}, "group": "b"},
            "c": {"demand": {"cpu": 1, "gpu": 2}},
        },
        "groups": {"a": {"weight": 2}, "a/x": {"weight": 3}, "b": {"weight": 1}},
    })


@pytest.mark.parametrize("policy", TREE_POLICIES)
@pytest.mark.parametrize("prop", PROPERTIES)
def test_tree_policies_are_checked(hierarchy: Instance, policy: str, prop: str) -> None:
    result = check(policy, hierarchy, prop)
    assert result is None or isinstance(result, Violation)
    assert isinstance(get_property(prop).margin(policy, hierarchy), float)


def test_naive_recursion_is_not_population_monotonic(hierarchy: Instance) -> None:
    """With n1 gone, CPUs go 1/2 : 1/2 to n2 and group n3 (one user <1, 1>
    in the naive recursion), so n3 takes 1/2 GPU and n4 drops from 2/3 to
    1/2; H-DRF gives n4 1/2 before and after."""
    v = check("hdrf-naive", hierarchy, "population-monotonicity")
    assert v is not None and v.exact
    assert v.message == "n4 gets 2/3 tasks, but only 1/2 once n1 leaves"
    assert check("hdrf", hierarchy, "population-monotonicity") is None


@pytest.mark.parametrize("policy", TREE_POLICIES)
@pytest.mark.parametrize("prop", PROPERTIES)
def test_cli_check_runs_on_the_group_tree(capsys: pytest.CaptureFixture[str], policy: str, prop: str) -> None:
    code = main(["check", "examples/hierarchy.toml", "--policy", policy, "--property", prop])
    _, err = capsys.readouterr()
    assert code in (0, 1), err


def test_removed_user_leaves_its_group(weighted: Instance) -> None:
    a2 = weighted.users.index("a2")
    for smaller in (_without(weighted, a2, exact=False), _without(weighted, a2, exact=True),
                    numeric_variant(weighted, keep=[i for i in range(weighted.n) if i != a2])):
        ext = smaller.extensions
        assert smaller.users == ("a1", "b1", "c")
        assert ext.group == {"a1": "a", "b1": "b"}
        assert ext.group_weights == {"a": F(2), "b": F(1)}  # a/x has no user left
    b1 = weighted.users.index("b1")
    ext = numeric_variant(weighted, keep=[0, 1, 3]).extensions
    assert ext.group == {"a1": "a", "a2": "a/x"} and ext.group_weights == {"a": F(2), "a/x": F(3)}
    assert _without(weighted, b1, exact=False).extensions == ext


def test_lie_and_growth_keep_every_extension(weighted: Instance) -> None:
    D = weighted.demands.copy()
    D[0] = [2.0, 1.0]  # a1 lies
    lie = numeric_variant(weighted, demands=D)
    assert lie.extensions == weighted.extensions and lie.users == weighted.users
    assert np.array_equal(lie.demands, D)
    grown = numeric_variant(weighted, capacity=weighted.capacity * 2)
    assert grown.extensions == weighted.extensions and np.array_equal(grown.capacity, [12.0, 8.0])


@pytest.mark.parametrize("policy", TREE_POLICIES)
def test_screen_variants_are_solved_with_the_tree(weighted: Instance, policy: str) -> None:
    """``numeric_many`` (used by the strategy-proofness and
    resource-monotonicity screens) solves each variant with its groups."""
    pol = get_policy(policy)
    D = np.stack([weighted.demands, weighted.demands])
    D[1, 3] = [1.0, 1.0]  # c under-reports its GPUs
    R = np.stack([weighted.capacity, weighted.capacity * np.array([2.0, 1.0])])
    ev = Evaluator(policy)
    by_lie = numeric_many(ev, weighted, demands=D)
    by_growth = numeric_many(ev, weighted, capacity=R)
    for k in range(2):
        lie = weighted.replace(demands=D[k].astype(int).tolist())
        grown = weighted.replace(capacity=R[k].astype(int).tolist())
        assert np.allclose(by_lie[k], [pol.solve(lie).tasks[u] for u in weighted.users])
        assert np.allclose(by_growth[k], [pol.solve(grown).tasks[u] for u in weighted.users])


@pytest.mark.parametrize("policy", TREE_POLICIES)
@pytest.mark.parametrize("prop", ["population-monotonicity", "resource-monotonicity"])
def test_search_margins_keep_the_tree(hierarchy: Instance, policy: str, prop: str) -> None:
    """The margins the search steers by run on the group tree (a user
    removed or a capacity grown keeps the groups)."""
    assert get_property(prop).has_margin
    assert np.isfinite(get_property(prop).margin(policy, hierarchy))
