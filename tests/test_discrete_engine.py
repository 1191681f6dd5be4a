"""The discrete engine (models.discrete): Algorithm 1 of Ghodsi et al.,
NSDI 2011, Section 4.2, with caps, weights, tie-breaks, stopping variants and
placement on machines."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from discrete_strategies import random_cluster

from models import Instance, PolicyError, discrete
from models.discrete import PLACEMENTS, TIE_BREAKS, IntegerData, fill, level_jump, policies
from models.registry import Registry

PAPER = {"resources": {"cpu": 9, "mem": 18},
         "users": {"A": {"demand": {"cpu": 1, "mem": 4}}, "B": {"demand": {"cpu": 3, "mem": 1}}}}


def names(r) -> list[str]:
    return [r.instance.users[i] for i in r.picks]


def test_paper_example_tasks_and_table1_order() -> None:
    inst = Instance.from_dict(PAPER)
    r = fill(inst, "drf")
    assert r.tasks.tolist() == [3, 2]
    # Table 1: B first (tie at 0 broken towards the larger task), then A, A, B, A
    assert names(r) == ["B", "A", "A", "B", "A"]
    # the run ends at CPU saturation: 9 of 9 CPUs and 14 of 18 GB used
    assert r.free_exact(0) == (Fraction(0), Fraction(4))
    assert r.stopped


def test_table1_dominant_shares_step_by_step() -> None:
    inst = Instance.from_dict(PAPER)
    r = fill(inst, "drf")
    share = {"A": Fraction(2, 9), "B": Fraction(1, 3)}
    held = {"A": 0, "B": 0}
    seen = []
    for u in names(r):
        # the user picked has the lowest dominant share at that point
        assert held[u] * share[u] <= min(held[v] * share[v] for v in held)
        held[u] += 1
        seen.append(held[u] * share[u])
    assert seen == [Fraction(1, 3), Fraction(2, 9), Fraction(4, 9), Fraction(2, 3), Fraction(2, 3)]


@pytest.mark.parametrize("tb, first", [("index", "A"), ("reverse", "B"), ("name", "A"), ("smallest-task", "A")])
def test_tie_break_is_explicit(tb: str, first: str) -> None:
    r = fill(Instance.from_dict(PAPER), "drf", tie_break=tb)
    assert names(r)[0] == first
    assert r.tasks.tolist() == [3, 2]


def test_random_tie_break_is_seeded() -> None:
    inst = Instance.from_arrays([100, 100], np.ones((6, 2)))
    a = fill(inst, "drf", tie_break="random", seed=3).picks
    assert a == fill(inst, "drf", tie_break="random", seed=3).picks
    assert any(fill(inst, "drf", tie_break="random", seed=s).picks != a for s in range(4, 10))


def test_stop_versus_skip() -> None:
    # B's big task stops the paper's variant; skip lets A go on
    inst = Instance.from_dict({"resources": {"cpu": 10},
                               "users": {"A": {"demand": {"cpu": 1}}, "B": {"demand": {"cpu": 4}}}})
    stop = fill(inst, "drf", on_full="stop")
    skip = fill(inst, "drf", on_full="skip")
    assert stop.tasks.tolist() == [4, 1] and names(stop)[-1] == "A"
    assert skip.tasks.tolist() == [6, 1]
    assert skip.failures == (1, 0)


def test_caps_and_weights() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 12},
                               "users": {"A": {"demand": {"cpu": 1}, "weight": 2},
                                         "B": {"demand": {"cpu": 1}},
                                         "C": {"demand": {"cpu": 1}, "max_tasks": 1}}})
    r = fill(inst, "drf")
    assert r.tasks.tolist() == [7, 4, 1]
    # a cap of 2.5 tasks allows 2 whole tasks
    inst = Instance.from_dict({"resources": {"cpu": 12}, "users": {"A": {"demand": {"cpu": 1}, "max_tasks": 2.5}}})
    assert fill(inst, "drf").tasks.tolist() == [2]


def test_fractional_data_is_exact() -> None:
    inst = Instance.from_dict({"resources": {"cpu": "1", "mem": "3/10"},
                               "users": {"A": {"demand": {"cpu": 0.1, "mem": "1/10"}}}})
    assert IntegerData.of(inst).scale == (10, 10)
    assert fill(inst, "drf").tasks.tolist() == [3]


def test_machines_a_task_must_fit_on_one_machine() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 6, "mem": 6},
                               "users": {"A": {"demand": {"cpu": 2, "mem": 2}}},
                               "machines": [{"count": 2, "cpu": 3, "mem": 3}]})
    assert fill(inst, "drf").tasks.tolist() == [2]  # a pool would hold 3
    r = fill(inst, "drf", placement="best-fit")
    assert [dict(p) for p in r.placed] == [{0: 1}, {0: 1}]


def test_machine_by_machine_leaves_a_machine_below_max_task() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 10},
                               "users": {"A": {"demand": {"cpu": 1}}, "B": {"demand": {"cpu": 3}}},
                               "machines": [{"count": 2, "cpu": 5}]})
    ff = fill(inst, "drf", placement="first-fit", on_full="skip")
    mm = fill(inst, "drf", placement="machine-by-machine", on_full="skip")
    assert sum(ff.tasks * [1, 3]) >= sum(mm.tasks * [1, 3])
    for k in range(2):
        used = sum(c * (1 if i == 0 else 3) for i, c in mm.placed[k].items())
        assert 5 - used < 3 or used == 0


def test_bad_settings_raise() -> None:
    inst = Instance.from_dict(PAPER)
    with pytest.raises(PolicyError, match="on_full"):
        fill(inst, "drf", on_full="wait")
    with pytest.raises(PolicyError, match="unknown tie-break .coin."):
        fill(inst, "drf", tie_break="coin")
    with pytest.raises(PolicyError, match="placement"):
        fill(inst, "drf", placement="worst-fit")
    with pytest.raises(PolicyError, match="no discrete form"):
        fill(inst, "ceei")


def _check_feasible(r) -> None:
    inst = r.instance
    D = r.data.demands
    for k, slot in enumerate(r.placed):
        used = sum((D[i] * c for i, c in slot.items()), np.zeros(inst.m, dtype=D.dtype))
        assert np.all(used + r.free[k] == r.data.machines[k])
        assert np.all(r.free[k] >= 0)
    per_user = np.zeros(inst.n, dtype=np.int64)
    for slot in r.placed:
        for i, c in slot.items():
            per_user[i] += c
    assert per_user.tolist() == r.tasks.tolist()
    for i, cap in enumerate(r.data.caps):
        assert cap is None or r.tasks[i] <= cap


@pytest.mark.parametrize("jump_from", [level_jump.JUMP_MIN_PICKS, 0])
def test_batched_equals_one_decision_per_heap_operation(jump_from: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(level_jump, "JUMP_MIN_PICKS", jump_from)  # 0: level jumps even on tiny pools
    rng = np.random.default_rng(5 + jump_from)
    for _ in range(40):
        inst = random_cluster(rng)
        for on_full in ("stop", "skip"):
            for placement in PLACEMENTS:
                tb = list(TIE_BREAKS)[int(rng.integers(len(TIE_BREAKS)))]
                for policy in ("drf", "asset"):
                    a = fill(inst, policy, tie_break=tb, on_full=on_full, placement=placement, seed=1)
                    b = fill(inst, policy, tie_break=tb, on_full=on_full, placement=placement, seed=1, batch=False)
                    assert a.picks == b.picks, (inst.describe(), policy, tb, on_full, placement)
                    assert a.failures[:1] == b.failures[:1]
                    _check_feasible(a)


def test_skip_fills_until_nothing_pending_fits() -> None:
    rng = np.random.default_rng(8)
    for _ in range(200):
        inst = random_cluster(rng)
        r = fill(inst, "drf", on_full="skip")
        for i in range(inst.n):
            if r.data.caps[i] is not None and r.tasks[i] >= r.data.caps[i]:
                continue
            assert all(np.any(r.free[k] < r.data.demands[i]) for k in range(r.free.shape[0]))


def test_level_jump_on_a_large_pool_matches_single_decisions() -> None:
    rng = np.random.default_rng(11)
    D = rng.integers(1, 5, size=(7, 3))
    w = rng.integers(1, 4, size=7)
    caps = np.where(rng.random(7) < 0.3, 40, np.inf)
    inst = Instance.from_arrays(D.sum(axis=0) * 60 + 3, D, weights=w, max_tasks=caps)
    for on_full in ("stop", "skip"):
        a = fill(inst, "drf", on_full=on_full)
        b = fill(inst, "drf", on_full=on_full, batch=False)
        assert a.tasks.sum() > 300 and a.decisions < b.decisions / 5
        assert a.picks == b.picks and a.failures[:1] == b.failures[:1]


def naive_first_fit(inst: Instance, policy: str, tie_break: str, on_full: str) -> tuple[list[int], list[int]]:
    """An independent oracle: recompute every key exactly at every step,
    scan all machines from the first for room."""
    from models.discrete import TIE_BREAKS, get_discrete_policy

    pol = get_discrete_policy(policy)
    rates = pol.rates(inst)
    rank = TIE_BREAKS.get(tie_break)(inst, rates, np.random.default_rng(0))
    machines = [list(mt.capacity_exact) for mt in inst.machines for _ in range(mt.count)] or [list(inst.capacity_exact)]
    caps = [None if k is None else int(k) for k in inst.max_tasks_exact]
    tasks = [0] * inst.n
    active = [i for i in range(inst.n) if caps[i] != 0]
    picks: list[int] = []
    failures: list[int] = []
    while active:
        i = min(active, key=lambda u: (tasks[u] * rates[u], rank[u]))
        d = inst.demands_exact[i]
        home = next((k for k, free in enumerate(machines) if all(f >= v for f, v in zip(free, d, strict=True))), None)
        if home is None:
            failures.append(i)
            active.remove(i)
            if on_full == "stop":
                break
            continue
        machines[home] = [f - v for f, v in zip(machines[home], d, strict=True)]
        tasks[i] += 1
        picks.append(i)
        if caps[i] is not None and tasks[i] >= caps[i]:
            active.remove(i)
    return picks, failures


def test_engine_matches_an_independent_naive_oracle() -> None:
    rng = np.random.default_rng(21)
    for k in range(150):
        inst = random_cluster(rng, n_max=4, k_max=3)
        policy = ("drf", "asset")[k % 2]
        tb = ("largest-task", "index", "reverse")[k % 3]
        on_full = ("stop", "skip")[(k // 2) % 2]
        picks, failures = naive_first_fit(inst, policy, tb, on_full)
        r = fill(inst, policy, tie_break=tb, on_full=on_full, placement="first-fit")
        assert r.picks == picks, inst.describe()
        assert list(r.failures) == failures


class DominantThenCount(discrete.DiscretePolicy):
    """A tuple key, as production schedulers use (share, then fewer tasks)."""

    name = "test-dominant-then-count"

    def key(self, state, i):
        inst = state.instance
        share = max(Fraction(d) / c for d, c in zip(inst.demands_exact[i], inst.capacity_exact, strict=True))
        return (int(state.tasks[i]) * share / inst.weights_exact[i], int(state.tasks[i]))


class RelativeShare(discrete.DiscretePolicy):
    """A key that depends on every user (share minus the mean share)."""

    name = "test-relative"
    global_keys = True

    def key(self, state, i):
        r = discrete.get_discrete_policy("drf").rates(state.instance)
        shares = [int(t) * ri for t, ri in zip(state.tasks, r, strict=True)]
        return shares[i] - sum(shares, Fraction(0)) / len(shares)


def assert_lowest_key_first(r, pol) -> None:
    """Replay a stop-mode run: every pick had the smallest key among the
    users still in the running."""
    from models.discrete import FillState

    inst = r.instance
    st = FillState(instance=inst, data=r.data, tasks=[0] * inst.n, free=[], placed=[])
    caps = r.data.caps
    for i in r.picks:
        live = [u for u in range(inst.n) if caps[u] is None or st.tasks[u] < caps[u]]
        assert min((pol.key(st, u), r.rank[u]) for u in live) == (pol.key(st, i), r.rank[i])
        st.tasks[i] += 1


def test_pluggable_keys_heap_and_scan_paths() -> None:
    rng = np.random.default_rng(4)
    discrete.register_discrete(DominantThenCount)
    try:
        for _ in range(40):
            inst = random_cluster(rng, n_max=4)
            want = fill(inst, "drf", tie_break="index", placement="best-fit")
            for pol in (DominantThenCount(), RelativeShare()):
                got = fill(inst, pol, tie_break="index", placement="best-fit")
                # both keys order users like weighted DRF except the tuple's
                # second entry, which only matters on exact share ties
                if isinstance(pol, RelativeShare):
                    assert got.picks == want.picks
                else:
                    assert_lowest_key_first(got, pol)
        assert "test-dominant-then-count" in discrete.discrete_policies()
        assert fill(Instance.from_dict(PAPER), "test-dominant-then-count").tasks.tolist() == [3, 2]
    finally:
        discrete.DISCRETE_POLICIES.unregister("test-dominant-then-count")


@pytest.mark.parametrize("near", [level_jump.KEY_NEAR, 0.5])
def test_level_jump_with_keys_beyond_float_precision(near: float, monkeypatch: pytest.MonkeyPatch) -> None:
    # coprime capacities make the integer keys exceed 2**53; near=0.5 forces
    # the exact re-sort of stretches of unequal keys
    monkeypatch.setattr(level_jump, "KEY_NEAR", near)
    monkeypatch.setattr(level_jump, "JUMP_MIN_PICKS", 0)
    D = np.ones((8, 4), dtype=int)
    D[np.arange(8), np.arange(8) % 4] = 5  # every resource is someone's dominant one
    inst = Instance.from_arrays([10007, 10009, 10037, 10039], D, weights=[1, 2, 3, 5, 7, 11, 13, 1])
    assert max(discrete.integer_steps(discrete.get_discrete_policy("drf").rates(inst))) >= 2**53
    for on_full in ("stop", "skip"):
        a = fill(inst, "drf", on_full=on_full)
        b = fill(inst, "drf", on_full=on_full, batch=False)
        assert a.decisions < b.decisions / 4
        assert a.picks == b.picks and a.failures[:1] == b.failures[:1]


def test_discrete_policies_registry_loads_a_plugin_package_lazily(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "plugpkg_discrete"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('"""test plugins"""\n')
    (pkg / "round_robin.py").write_text(
        "from models.discrete import DiscretePolicy, register_discrete\n\n"
        "@register_discrete\n"
        "class RoundRobin(DiscretePolicy):\n"
        "    name = 'test-round-robin'\n"
        "    default_tie_break = 'index'\n\n"
        "    def key(self, state, i):\n"
        "        return state.tasks[i]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry("discrete policy", lazy=("plugpkg_discrete",), error=PolicyError)
    monkeypatch.setattr(policies, "DISCRETE_POLICIES", registry)
    r = fill(Instance.from_dict(PAPER), "test-round-robin")
    assert r.tie_break == "index"
    assert [r.instance.users[i] for i in r.picks] == ["A", "B", "A", "B", "A"]
    assert "test-round-robin" in discrete.discrete_policies()


def test_registries_name_the_closest_entry_on_a_typo() -> None:
    inst = Instance.from_dict(PAPER)
    with pytest.raises(PolicyError, match="did you mean 'best-fit'"):
        fill(inst, "drf", placement="bestfit")
    with pytest.raises(PolicyError, match="unknown tie-break 'largest'; did you mean 'largest-task'"):
        fill(inst, "drf", tie_break="largest")
    assert TIE_BREAKS.get("index").help == "input order (first user in the file first)"
    assert set(PLACEMENTS) == {"first-fit", "best-fit", "machine-by-machine"}


def test_production_variants_use_only_the_engines_public_names() -> None:
    # the variants' own decision loops are given a models.discrete.Run (the
    # engine's public type), not a private class of the engine
    import ast
    from pathlib import Path

    import models.variants

    imported = set()
    for path in Path(models.variants.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("discrete"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, (path.name, private)
                assert all(hasattr(discrete, a.name) for a in node.names), path.name
                imported.update(a.name for a in node.names)
    assert "Run" in imported


def _limit_instance() -> Instance:
    return Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 4}, "max_tasks": 2},
                                         "B": {"demand": {"cpu": 3, "mem": 1}}}})


def test_engine_per_step_limit_is_honoured() -> None:
    eng = discrete.Engine(_limit_instance(), "drf")
    assert eng.allocate(limit=[1, 1]).tasks.tolist() == [1, 1]
    assert eng.allocate(limit=[0, None]).tasks.tolist() == [1, 2]  # B fills the rest alone (9 cpu)
    assert eng.allocate(limit=[5, None]).tasks.tolist() == [2, 2]  # A's instance cap (2) still applies
    eng.release("B", 2)
    assert eng.allocate().tasks.tolist() == [2, 2]  # no limit: instance caps only


@pytest.mark.parametrize("limit", [[1], [1, -1], [1, 0.5], ["1", 0], [True, 0]])
def test_engine_bad_limit_is_refused(limit: list) -> None:
    with pytest.raises(PolicyError, match="^limit: "):
        discrete.Engine(_limit_instance(), "drf").allocate(limit=limit)


def test_first_fit_max_tree_places_as_the_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled first fit's max-tree search places every task where the
    plain scan of the machines from the user's cursor does (several machine
    shapes, fractional demands, users that fit only some machines)."""
    from models import kernels
    from models.discrete import run as run_module

    monkeypatch.setitem(kernels.COMPILE_MIN_WORK, "placements", 0)  # small instances, the kernel all the same

    rng = np.random.default_rng(11)
    for trial in range(6):
        shapes = [[int(v) for v in rng.integers(2, 40, size=3)] for _ in range(4)]
        machines = [{"count": int(rng.integers(5, 60)), "name": f"t{t}", **dict(zip("abc", s, strict=True))}
                    for t, s in enumerate(shapes)]
        users = {f"u{i}": {"demand": {r: f"{int(rng.integers(1, 9))}/{int(rng.integers(1, 4))}" for r in "abc"}}
                 for i in range(int(rng.integers(3, 40)))}
        tot = {r: sum(m[r] * m["count"] for m in machines) for r in "abc"}
        inst = Instance.from_dict({"resources": tot, "users": users, "machines": machines})
        tree = fill(inst, "drf", placement="first-fit")
        run_module.FIRST_FIT_SCAN = True
        try:
            scan = fill(inst, "drf", placement="first-fit")
        finally:
            run_module.FIRST_FIT_SCAN = False
        assert tree.picks == scan.picks and tree.tasks.tolist() == scan.tasks.tolist()
        assert [dict(p) for p in tree.placed] == [dict(p) for p in scan.placed], trial
