"""Batched screening (Property.screen_many on chunks of the stream) gives
exactly the search results of checking every instance one by one: the same
counterexample, found at the same position, after the same counts."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer import search
from analyzer.properties import get_property
from analyzer.properties._batch import numeric_batch
from analyzer.properties._common import Evaluator
from analyzer.searching import checks
from analyzer.searching.instance_stream import make_cell
from models import get_policy

CELLS = [
    ("drf", "sharing-incentive"),
    ("ceei", "envy-freeness"),
    ("drf", "pareto-efficiency"),
    ("asset", "single-resource-fairness"),
    ("ceei", "bottleneck-fairness"),
    ("asset", "bottleneck-fairness"),
    ("drf", "strategy-proofness"),
    ("leximin-tasks", "strategy-proofness"),  # the scale dimension through the lockstep batch
    ("ceei", "resource-monotonicity"),
    ("drf", "population-monotonicity"),
    ("ceei", "population-monotonicity"),
]


def _outcome(policy: str, prop: str, batched: bool, monkeypatch: pytest.MonkeyPatch, **kw: object) -> dict:
    monkeypatch.setattr(checks, "BATCH_SCREEN", batched)
    return search(policy, prop, seed=3, **kw).outcome()


@pytest.mark.parametrize(("policy", "prop"), CELLS)
def test_batched_equals_unbatched(policy: str, prop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    one = _outcome(policy, prop, False, monkeypatch, budget=80)
    many = _outcome(policy, prop, True, monkeypatch, budget=80)
    assert many == one


def test_batched_equals_unbatched_with_weights_and_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    cls = "weights,caps,zeros"
    for policy, prop in [("drf", "envy-freeness"), ("ceei", "sharing-incentive"), ("drf", "bottleneck-fairness")]:
        one = _outcome(policy, prop, False, monkeypatch, budget=60, instance_class=cls)
        many = _outcome(policy, prop, True, monkeypatch, budget=60, instance_class=cls)
        assert many == one, (policy, prop)


@pytest.mark.parametrize("policy", ["drf", "asset", "ceei"])
def test_numeric_batch_equals_single_solves(policy: str) -> None:
    cell = make_cell(policy, "sharing-incentive", 400, 0, None, "continuous")
    insts = [cell.at(p)[1] for p in range(100, 228)]
    ev = Evaluator(get_policy(policy))
    xs = numeric_batch(ev.policy, insts, "continuous")
    solved = [(x, inst) for x, inst in zip(xs, insts, strict=True) if x is not None]
    assert len(solved) > len(insts) // 2
    for x, inst in solved:
        np.testing.assert_allclose(x, Evaluator(get_policy(policy)).direct(inst), rtol=1e-7, atol=1e-9)


def test_screen_flags_every_violation() -> None:
    """On a chunk with known violations (asset, sharing incentive) the
    batched screen flags each instance whose full check finds one."""
    cell = make_cell("asset", "sharing-incentive", 400, 0, None, "continuous")
    prop, pol = get_property("sharing-incentive"), get_policy("asset")
    insts = [cell.at(p)[1] for p in range(64)]
    flags = prop.screen_many(pol, insts, "continuous")
    violated = np.array([prop.check(pol, inst) is not None for inst in insts])
    assert violated.any()
    assert not (violated & ~flags).any()
    assert (~flags).any()  # the screen also clears instances


@pytest.mark.parametrize(("policy", "cls"), [("drf", None), ("asset", "weights,caps,zeros"), ("leximin-tasks", None)])
def test_strategy_proofness_lockstep_screen_equals_single_screens(policy: str, cls: str | None) -> None:
    """The batched screen of many instances flags exactly the instances
    whose one-at-a-time numeric search (the check's screen, a group of one)
    finds a paying report."""
    cell = make_cell(policy, "strategy-proofness", 400, 0, cls, "continuous")
    prop, pol = cell.prop, cell.policy
    insts = [inst for inst in (cell.at(p)[1] for p in range(100, 164))
             if pol.supports(inst) is None and prop.applies(inst) is None]
    flags = prop.screen_many(pol, insts, "continuous")
    ev = Evaluator(pol)
    single = [(inst.m > 1 or not pol.scale_invariant)
              and bool(prop._group(ev, [inst], ev.numeric(inst)[None]).screen()[0]) for inst in insts]
    assert list(flags) == single


def test_strategy_proofness_grid_directions_equal_one_user_at_a_time() -> None:
    """All users' candidate directions at once (two or three resources, zero
    demands included) are the per-user directions, bit for bit, and a margin
    remembered from a screen is the margin computed afresh."""
    from analyzer.properties._sp_screen import _MARGINS, grid_directions

    prop = get_property("strategy-proofness")
    cell = make_cell("drf", "strategy-proofness", 400, 0, "zeros", "continuous")
    insts = [inst for inst in (cell.at(p)[1] for p in range(120, 220)) if inst.m in (2, 3)]
    for inst in insts:
        S, ok = grid_directions(prop, inst.demands, np.broadcast_to(inst.capacity, inst.demands.shape))
        for i in range(inst.n):
            assert np.array_equal(S[i][ok[i]], prop._directions(inst, i, np.random.default_rng(0)))
    pol = get_policy("drf")
    prop.screen_many(pol, insts, "continuous")
    remembered = [prop.margin(pol, inst) for inst in insts]
    _MARGINS.clear()
    assert remembered == [prop.margin(pol, inst) for inst in insts]



@pytest.mark.parametrize("policy", ["drf", "asset"])
def test_strategy_proofness_liar_shares_are_the_whole_rows(policy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row-wise share function is evaluated on the liars' rows only (the
    others are their members' own shares): the same true tasks, bit for
    bit, as evaluating every row of every deviated instance."""
    from analyzer.properties._sp_screen import fill_for

    prop = get_property("strategy-proofness")
    cell = make_cell(policy, "strategy-proofness", 400, 0, "weights,caps,zeros", "continuous")
    insts = [inst for inst in (cell.at(p)[1] for p in range(100, 400)) if (inst.n, inst.m) == (3, 2)]
    insts = [inst for inst in insts if np.array_equal(inst.weights, insts[0].weights)]
    ev = Evaluator(policy)
    group = prop._group(ev, insts, np.stack([ev.numeric(inst) for inst in insts]))
    b, who, S, _ = group.grid()
    assert len(insts) > 3 and len(b) > 100
    liar_rows = group.true_tasks(b, who, S)
    monkeypatch.setattr(type(ev.policy), "rowwise_capacity", False)
    group.fill = fill_for(ev, insts)
    assert liar_rows.tobytes() == group.true_tasks(b, who, S).tobytes()


def test_strategy_proofness_random_directions_equal_one_user_at_a_time() -> None:
    """Four or more resources: every user's candidates drawn for a whole
    group (zero demands included) are the per-user candidates, bit for bit,
    each member's generator seeded as a group of one seeds it."""
    from analyzer.properties._sp_screen import seeds

    prop = get_property("strategy-proofness")
    cell = make_cell("drf", "strategy-proofness", 400, 0, "zeros", "continuous")
    insts = [inst for inst in (cell.at(p)[1] for p in range(100, 400)) if (inst.n, inst.m) == (3, 4)]
    assert len(insts) > 3 and any((inst.demands == 0).any() for inst in insts)
    ev = Evaluator("drf")
    b, who, S, _ = prop._group(ev, insts, np.stack([ev.numeric(inst) for inst in insts])).grid()
    rows = []
    for inst in insts:
        rng = np.random.default_rng(prop.seed)
        rows += [prop._candidates(inst, i, rng, False) for i in range(inst.n)]
    assert S.tobytes() == np.vstack(rows).tobytes()
    same = np.random.Generator(np.random.PCG64(seeds(7)))
    assert same.random(4).tolist() == np.random.default_rng(7).random(4).tolist()


def test_report_caps_of_uncapped_liars_keep_the_shape() -> None:
    """Nobody capped: every reported cap is inf, in the shape the formula
    broadcasts to (one liar's many reports, or one report a liar)."""
    from analyzer.properties._lie_reports import report_caps

    need, reports = np.array([[1.0, 2.0, 0.0]]), np.linspace(0.1, 1.0, 15).reshape(5, 3)
    assert report_caps(need, reports, np.array([np.inf])).tolist() == [np.inf] * 5
    assert report_caps(need, reports, np.array([2.0])).tolist() == (2.0 * (need / reports)[:, :2].max(axis=1)).tolist()
    assert report_caps(reports, reports, np.full(5, np.inf)).shape == (5,)


@pytest.mark.parametrize("policy", ["drf", "asset"])
def test_strategy_proofness_padded_group_is_each_member_alone(policy: str) -> None:
    """Members with different numbers of users and weights screened in one
    group (users padded) get exactly the numbers of a group of one: every
    paying report, its gain and row, and the grid margin."""
    from analyzer.properties._sp_screen import group_key

    prop = get_property("strategy-proofness")
    cell = make_cell(policy, "strategy-proofness", 600, 0, "weights,caps,zeros", "continuous")
    ev = Evaluator(policy)
    insts = [inst for inst in (cell.at(p)[1] for p in range(100, 600)) if inst.m == 3][:60]
    assert len({group_key(ev.policy, inst) for inst in insts}) == 1 and len({inst.n for inst in insts}) > 2
    assert len({inst.weights.tobytes() for inst in insts}) > 2 and any(inst.capped for inst in insts)
    group = prop._group(ev, insts, [ev.numeric(inst) for inst in insts])
    alone = [prop._group(ev, [inst], ev.numeric(inst)[None]) for inst in insts]
    assert group.best_margins().tolist() == [g.best_margins()[0] for g in alone]
    for found, single in zip(group.screen(), (g.screen()[0] for g in alone), strict=True):
        assert [(g, i, S.tobytes()) for g, i, S in found] == [(g, i, S.tobytes()) for g, i, S in single]
    # the compass refinement from every user's first candidate (fresh generators)
    group = prop._group(ev, insts, [ev.numeric(inst) for inst in insts])
    b, who, S, _ = group.grid()
    first = np.flatnonzero(np.r_[True, (np.diff(b) != 0) | (np.diff(who) != 0)])
    gains, rows = group.refine(b[first], who[first], S[first])
    for k, inst in enumerate(insts):
        one = prop._group(ev, [inst], ev.numeric(inst)[None])
        mine = first[b[first] == k]
        g1, r1 = one.refine(np.zeros(len(mine), dtype=int), who[mine], S[mine])
        assert (g1.tobytes(), r1.tobytes()) == (gains[b[first] == k].tobytes(), rows[b[first] == k].tobytes())

def test_strategy_proofness_margin_memo_stays_bounded_without_lookups(monkeypatch) -> None:
    """Screens that never ask for a margin (a search's top-up, a table
    without margins) do not keep every screened instance alive: the memo is
    bounded when written, not only when read."""
    from analyzer.properties import _sp_screen

    monkeypatch.setattr(_sp_screen, "MARGIN_MEMO", 8)
    _sp_screen._MARGINS.clear()
    prop, pol = get_property("strategy-proofness"), get_policy("drf")
    cell = make_cell("drf", "strategy-proofness", 400, 0, "zeros", "continuous")
    insts = [inst for inst in (cell.at(p)[1] for p in range(120, 220)) if inst.m in (2, 3)]
    for k in range(0, len(insts), 4):
        prop.screen_many(pol, insts[k:k + 4], "continuous")
        assert len(_sp_screen._MARGINS) <= 8 + 4
    _sp_screen._MARGINS.clear()


@pytest.mark.parametrize("policy", ["drf", "asset", "ceei"])
def test_population_monotonicity_screen_flags_every_numeric_loss(policy: str) -> None:
    """The batched screen (every leaver of every instance in one solve) flags
    each instance on which the check's own screen sees a remaining user
    lose, and clears the others (weights, caps and zero demands too)."""
    from analyzer.properties._common import numeric_below
    from analyzer.properties.population_monotonicity import _screen

    prop, pol = get_property("population-monotonicity"), get_policy(policy)
    for cls in (None, "weights,caps,zeros"):
        cell = make_cell(policy, prop.name, 400, 1, cls, "continuous")
        insts = [inst for _, inst in cell.at_many(range(cell.grid_len, cell.grid_len + 160), cell.shapes)
                 if inst is not None]
        flags = prop.screen_many(pol, insts, "continuous")
        for inst, flag in zip(insts, flags, strict=True):
            x, after = _screen(Evaluator(pol), inst)
            loss = numeric_below(after, x[None, :])
            np.fill_diagonal(loss, False)
            assert flag or not loss.any(), (policy, cls, inst)
        assert (~flags).any()
