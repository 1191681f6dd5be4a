"""Hierarchical DRF (Bhattacharya et al., SoCC 2013) and the naive recursion.

Hand computations are in the docstrings; ``R = <1 CPU, 1 GPU>`` unless
stated, all weights 1 unless stated.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import numpy as np
import pytest

from analyzer import solve
from models import Instance, PolicyError, get_policy
from models.hierarchy import ROOT, Tree
from models.tolerances import CROSSCHECK_RTOL, FEASIBILITY_RTOL

CPU, GPU, BOTH = {"cpu": 1}, {"gpu": 1}, {"cpu": 1, "gpu": 1}


def inst(users: dict[str, tuple[dict[str, Any], str | None]], groups: dict[str, Any] | None = None,
         resources: dict[str, Any] | None = None, **extra: dict[str, Any]) -> Instance:
    """Users as ``name -> (demand, group)``; ``extra[name]`` adds keys."""
    spec: dict[str, Any] = {"resources": resources or {"cpu": 1, "gpu": 1}, "users": {}}
    for u, (d, g) in users.items():
        spec["users"][u] = {"demand": d, **({"group": g} if g else {}), **extra.get(u, {})}
    if groups:
        spec["groups"] = {g: {"weight": w} for g, w in groups.items()}
    return Instance.from_dict(spec)


def exact(policy: str, instance: Instance) -> dict[str, F]:
    a = solve(instance, policy, exact=True)
    assert a.exact
    return dict(a.tasks)


def test_paper_first_example_naive_wastes_cpus() -> None:
    """The tree of the paper's starvation example: n1 <0,1>; group n2 with
    n21 <1,0> and n22 <0,1>.

    H-DRF: n1 = s, n21 = n22 = t and n2's share is the dominant share of
    its aggregate <t, t>, i.e. t; equal shares s = t; the GPUs fill at
    s + t = 1, so s = t = 1/2; n1 and n22 are blocked, n21 (alone in the
    race) takes the rest of the CPUs: 1.

    Naive: n2 is one user with demand <1,1>; DRF against n1 <0,1> gives
    both 1/2 (GPUs full, both blocked), n2's bundle <1/2, 1/2> is split
    n21 1/2 CPU, n22 1/2 GPU: half the CPUs stay idle.
    """
    i = inst({"n1": (GPU, None), "n21": (CPU, "n2"), "n22": (GPU, "n2")})
    assert exact("hdrf", i) == {"n1": F(1, 2), "n21": F(1), "n22": F(1, 2)}
    assert exact("hdrf-naive", i) == {"n1": F(1, 2), "n21": F(1, 2), "n22": F(1, 2)}


def test_paper_blocked_node_example() -> None:
    """The paper's blocked-node tree: n1, n2 <1,0>; group n3 with n31 <1,0>
    and n32 <0,1>; n4 <0,1> (examples/hierarchy.toml).

    H-DRF: everybody rises to 1/3, where the CPUs fill (n1 + n2 + n31 = 1).
    Then n3's share ignores the saturated CPUs: it is n32's GPU share, so
    n32 and n4 rise together until the GPUs fill: 1/2 each.

    Naive: n3 is a user <1,1>; DRF gives n1 = n2 = n3 = 1/3 (CPUs full)
    and n4 the other 2/3 of the GPUs; n32 gets 1/3.
    """
    i = Instance.load("examples/hierarchy.toml")
    third, half = F(1, 3), F(1, 2)
    assert exact("hdrf", i) == {"n1": third, "n2": third, "n31": third, "n32": half, "n4": half}
    assert exact("hdrf-naive", i) == {"n1": third, "n2": third, "n31": third, "n32": third, "n4": F(2, 3)}


def test_collapsed_hierarchy_breaks_the_group_guarantee_hdrf_keeps() -> None:
    """n1 <1,1>; group g with a <1,0>, b <0,1>. g's guaranteed share is 1/2.

    Collapsing the tree gives weighted DRF with weights 1/2, 1/4, 1/4:
    n1 = 2L, a = b = L; CPUs fill at 3L = 1: n1 2/3, a = b = 1/3, so g's
    aggregate <1/3, 1/3> has dominant share 1/3 < 1/2.
    H-DRF: g's share is that of <t, t>, t = n1's: 1/2 each.
    """
    i = inst({"n1": (BOTH, None), "a": (CPU, "g"), "b": (GPU, "g")})
    assert exact("hdrf", i) == {"n1": F(1, 2), "a": F(1, 2), "b": F(1, 2)}
    flat = i.replace(weights=[F(1, 2), F(1, 4), F(1, 4)])
    collapsed = exact("drf", flat)
    assert collapsed == {"n1": F(2, 3), "a": F(1, 3), "b": F(1, 3)}
    assert max(collapsed["a"], collapsed["b"]) < F(1, 2)


def test_weights_at_every_level_and_nesting() -> None:
    """u <1,2> (weight 2) and v <3,0> in a/b; w <0,1> in a (weight 3); z <1,1>.

    Root level L: z = L (share x_z), a's share 3L. In a: b and w at level
    mu, w = mu. In b: u's share 2 x_u = 2 nu, v's 3 x_v = nu, aggregate
    <2 nu, 2 nu>, so b's share is 2 nu = mu. a's aggregate <mu, 2 mu> has
    share 2 mu = 3L. GPUs: 2 mu + L = 4L = 1 at L = 1/4: z = 1/4,
    w = 3/8, u = 3/16, v = 1/16. Only v (CPU only) is left; the CPUs hold
    3/16 + 3/16 + 1/4 = 5/8, so v adds 1/8: v = 3/16.
    """
    i = inst({"u": ({"cpu": 1, "gpu": 2}, "a/b"), "v": ({"cpu": 3}, "a/b"), "w": (GPU, "a"), "z": (BOTH, None)},
             groups={"a": 3}, u={"weight": 2})
    assert exact("hdrf", i) == {"u": F(3, 16), "v": F(3, 16), "w": F(3, 8), "z": F(1, 4)}


def test_caps_and_catch_up() -> None:
    """R = <2, 1>. n1 <1,0>; group g: a, b <1,0> capped at 1/4, c <0,1>; n4 <0,1>.

    Level L for n1 (share x/2), g and n4. In g, a = b = c = mu (a's share
    is x_a / 2, c's is x_c); g's aggregate <2 x_a, x_c> = <mu, mu> over
    R has share mu. a and b cap at x = 1/4, i.e. level 1/8. Then g's
    aggregate is <1/2, c> over R: share max(1/4, c), flat while c < 1/4,
    so c catches up alone from 1/8 to 1/4. Then c, n1 (x = 2L) and n4
    rise; the GPUs fill at c = n4 = 1/2; n1 goes on alone to the CPUs
    left: 2 - 1/2 = 3/2 tasks.
    """
    i = inst({"n1": (CPU, None), "a": (CPU, "g"), "b": (CPU, "g"), "c": (GPU, "g"), "n4": (GPU, None)},
             resources={"cpu": 2, "gpu": 1}, a={"max_tasks": "1/4"}, b={"max_tasks": "1/4"})
    a = solve(i, "hdrf", exact=True)
    assert dict(a.tasks) == {"n1": F(3, 2), "a": F(1, 4), "b": F(1, 4), "c": F(1, 2), "n4": F(1, 2)}
    assert [e.kind for e in a.certificate] == ["cap", "crossing", "saturation", "saturation"]


def test_one_group_is_plain_drf() -> None:
    """With every user in one group, H-DRF is weighted DRF on the leaves."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        from tests.strategies import random_instance

        base = random_instance(rng)
        spec = base.to_dict()
        for u in spec["users"].values():
            u["group"] = "g"
        i = Instance.from_dict(spec)
        assert exact("hdrf", i) == exact("drf", base)


def test_singleton_groups_are_weighted_drf() -> None:
    """A user alone in a group of weight w_i is a DRF user of weight w_i
    (the group's share is its one user's dominant share)."""
    rng = np.random.default_rng(4)
    from tests.strategies import random_instance

    for _ in range(20):
        base = random_instance(rng)
        spec = base.to_dict()
        spec["groups"] = {}
        for u, entry in spec["users"].items():
            entry["group"] = f"g{u}"
            spec["groups"][f"g{u}"] = {"weight": entry.pop("weight", 1)}
        assert exact("hdrf", Instance.from_dict(spec)) == exact("drf", base)


@pytest.mark.parametrize("name", ["hdrf", "hdrf-naive"])
def test_edge_cases(name: str) -> None:
    """One user (in a group); a resource nobody uses; a task larger than
    the cluster; a cap of 0; one resource."""
    one = inst({"A": ({"cpu": 4}, "g")}, resources={"cpu": 2, "mem": 5})
    assert exact(name, one) == {"A": F(1, 2)}
    zero_cap = inst({"A": (CPU, "g"), "B": (CPU, "g")}, resources={"cpu": 3}, A={"max_tasks": 0})
    assert exact(name, zero_cap) == {"A": F(0), "B": F(3)}
    for i in (one, zero_cap):
        assert np.allclose(get_policy(name).solve(i).x, [float(v) for v in exact(name, i).values()])


def test_needs_groups() -> None:
    i = Instance.from_dict({"resources": {"cpu": 1}, "users": {"A": {"demand": {"cpu": 1}}}})
    for name in ("hdrf", "hdrf-naive"):
        assert "group tree" in (get_policy(name).supports(i) or "")
        with pytest.raises(PolicyError, match="group tree"):
            solve(i, name)


def random_grouped(rng: np.random.Generator) -> Instance:
    """A small instance whose users sit in a random tree of weighted groups."""
    from tests.strategies import random_instance

    spec = random_instance(rng, n_max=6).to_dict()
    paths = ["a", "a/b", "a/c", "d", "d/e/f"]
    for u in spec["users"].values():
        r = rng.integers(len(paths) + 1)
        if r < len(paths):
            u["group"] = paths[int(r)]
    used = {p for u in spec["users"].values() if "group" in u
            for p in ["/".join(u["group"].split("/")[: k + 1]) for k in range(u["group"].count("/") + 1)]}
    spec["groups"] = {p: {"weight": int(rng.integers(1, 4))} for p in sorted(used) if rng.random() < 0.6}
    if not used:
        next(iter(spec["users"].values()))["group"] = "a"
        spec.pop("groups")
    return Instance.from_dict(spec)


@pytest.mark.parametrize("name", ["hdrf", "hdrf-naive"])
def test_exact_and_numeric_agree_on_random_trees(name: str) -> None:
    rng = np.random.default_rng(11)
    pol = get_policy(name)
    for _ in range(60):
        i = random_grouped(rng)
        e = pol.solve_exact(i)
        f = pol.solve(i)
        assert f.is_feasible(FEASIBILITY_RTOL) and e.is_feasible(FEASIBILITY_RTOL)
        want = np.array([float(v) for v in e.x_exact])
        assert np.allclose(f.x, want, rtol=CROSSCHECK_RTOL, atol=CROSSCHECK_RTOL), (i.to_dict(), f.x, want)


def guarantees(tree: Tree) -> list[F]:
    """Guaranteed share of every node (SoCC 2013, Section 2): the root's is
    1, a child's is its parent's times its weight over its siblings'."""
    g = [F(0)] * len(tree.label)
    g[ROOT] = F(1)
    for k in reversed(tree.postorder):
        kids = tree.children[k]
        total = sum((tree.weight[c] for c in kids), F(0))
        for c in kids:
            g[c] = g[k] * tree.weight[c] / total
    return g


def node_dominant_share(i: Instance, x: tuple[F, ...], users: np.ndarray) -> F:
    return max(sum((x[int(u)] * i.demands_exact[int(u)][j] for u in users), F(0)) / i.capacity_exact[j]
               for j in range(i.m))


def test_hdrf_keeps_the_hierarchical_share_guarantee() -> None:
    """Without caps, every node's total allocation has a dominant share of
    at least its guaranteed share (exact, random trees)."""
    rng = np.random.default_rng(1)
    for _ in range(60):
        spec = random_grouped(rng).to_dict()
        for u in spec["users"].values():
            u.pop("max_tasks", None)
        i = Instance.from_dict(spec)
        tree = Tree.of(i)
        x = solve(i, "hdrf", exact=True).x_exact
        for k, g in enumerate(guarantees(tree)):
            assert node_dominant_share(i, x, tree.leaves_under[k]) >= g, (spec, tree.label[k])


def test_naive_breaks_the_hierarchical_share_guarantee() -> None:
    """R = <17, 11>; group d holds u1 <1, 2> (weight 2) and group d/e, in
    which (via d/e/f, weight 2) u0 <0, 1> (weight 1/2). u1's guaranteed
    share is 2/3 (weight 2 against d/e's 1).

    Naive: d is alone at the root with demand <1, 3>: it gets 11/3 units,
    the bundle <11/3, 11>. Inside, d/e <0, 1> has share 1/11 per unit and
    rate 11; u1 has share 3/11 per task, rate 2 / (3/11) = 22/3. The second
    resource fills at 11 t + 2 (22/3) t = 11, t = 3/7: u1 = 22/7 tasks,
    dominant share (2 * 22/7) / 11 = 4/7 < 2/3; u0 = 33/7.

    H-DRF: d/e's share is u0's, x0 / 11; u1's is 2 x1 / 11; equal per
    weight: x0 / 11 = x1 / 11 = mu; the second resource fills at
    x0 + 2 x1 = 33 mu = 11: x0 = x1 = 11/3, u1's share exactly 2/3.
    """
    i = Instance.from_dict({"resources": {"r0": 17, "r1": 11},
                            "users": {"u0": {"demand": {"r1": 1}, "weight": "1/2", "group": "d/e/f"},
                                      "u1": {"demand": {"r0": 1, "r1": 2}, "weight": 2, "group": "d"}},
                            "groups": {"d/e/f": {"weight": 2}}})
    assert exact("hdrf-naive", i) == {"u0": F(33, 7), "u1": F(22, 7)}
    assert exact("hdrf", i) == {"u0": F(11, 3), "u1": F(11, 3)}
    tree = Tree.of(i)
    leaf = tree.label.index("u1")
    assert guarantees(tree)[leaf] == F(2, 3)
    assert node_dominant_share(i, solve(i, "hdrf-naive", exact=True).x_exact, tree.leaves_under[leaf]) == F(4, 7)


def test_hdrf_is_non_wasteful_on_random_trees() -> None:
    """H-DRF is feasible, and at its end every user is capped or uses a full
    resource (exact check)."""
    rng = np.random.default_rng(5)
    for _ in range(60):
        i = random_grouped(rng)
        a = solve(i, "hdrf", exact=True)
        use = [sum((x * row[j] for x, row in zip(a.x_exact, i.demands_exact, strict=True)), F(0))
               for j in range(i.m)]
        assert all(u <= c for u, c in zip(use, i.capacity_exact, strict=True))
        full = {j for j in range(i.m) if use[j] == i.capacity_exact[j]}
        for u, x in enumerate(a.x_exact):
            capped = i.max_tasks_exact[u] is not None and x == i.max_tasks_exact[u]
            assert capped or any(i.demands_exact[u][j] > 0 for j in full), (i.to_dict(), u)


def test_tree_layout() -> None:
    i = inst({"x": (CPU, "a/b"), "y": (GPU, None), "z": (GPU, "a")}, groups={"a/b": 2})
    t = Tree.of(i)
    assert [t.label[c] for c in t.children[ROOT]] == ["a", "y"]
    a = t.children[ROOT][0]
    assert [t.label[c] for c in t.children[a]] == ["a/b", "z"]
    assert t.weight[t.children[a][0]] == 2
    assert t.postorder[-1] == ROOT and sorted(t.leaves_under[a].tolist()) == [0, 2]
