"""The vectorised screens of the filling family and CEEI flag exactly what
each instance screened alone flags (a group of one): the comparisons are
made row by row on stacked instances of mixed sizes, weights and caps
(Ghodsi et al., NSDI 2011, Sections 3 and 6 for the properties)."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.properties import get_property
from analyzer.searching.instance_stream import make_cell
from models import Instance, get_policy


def _stream(prop: str, cls: str, count: int, start: int = 0) -> list[Instance]:
    """``count`` checkable instances of the search stream of ``prop`` in class ``cls``."""
    cell = make_cell("drf", prop, 4 * count, 0, cls, "continuous")
    out: list[Instance] = []
    pos = start
    while len(out) < count:
        inst = cell.at(pos)[1]
        pos += 1
        if inst is not None and get_property(prop).applies(inst) is None:
            out.append(inst)
    return out


@pytest.mark.parametrize("policy", ["drf", "asset", "ceei"])
@pytest.mark.parametrize("prop", ["single-resource-fairness", "bottleneck-fairness", "pareto-efficiency",
                                  "sharing-incentive", "envy-freeness"])
def test_batched_screen_is_each_instance_alone(policy: str, prop: str) -> None:
    insts = _stream(prop, "weights,caps,zeros", 40) + _stream(prop, "paper", 40)
    pol, p = get_policy(policy), get_property(prop)
    together = p.screen_many(pol, insts, "continuous")
    alone = np.array([p.screen_many(pol, [inst], "continuous")[0] for inst in insts])
    assert together.tolist() == alone.tolist()


def test_maxmin_screen_flags_a_policy_off_max_min() -> None:
    # asset fairness on a bottleneck instance is not max-min on it: flagged, batched or alone
    insts = [Instance.from_exact([10, 10], [[2, 1], [3, 1]]), Instance.from_exact([9, 18], [[3, 1], [3, 2]]),
             Instance.from_exact([10], [[1], [2]], weights=[1, 3], max_tasks=[None, 2])]
    p, pol = get_property("bottleneck-fairness"), get_policy("asset")
    flags = p.screen_many(pol, insts, "continuous")
    checks = [p.check(pol, inst) is not None for inst in insts]
    assert all(f or not c for f, c in zip(flags, checks, strict=True))
    assert any(checks)


@pytest.mark.parametrize(("policy", "prop"), [("static", "pareto-efficiency"), ("asset", "sharing-incentive"),
                                              ("asset", "bottleneck-fairness"), ("static", "single-resource-fairness")])
def test_batched_screen_flags_every_violation(policy: str, prop: str) -> None:
    insts = _stream(prop, "weights,caps,zeros", 30) + _stream(prop, "paper", 30)
    pol, p = get_policy(policy), get_property(prop)
    flags = p.screen_many(pol, insts, "continuous")
    found = [p.check(pol, inst) is not None for inst in insts]
    assert any(found)
    assert all(f for f, v in zip(flags.tolist(), found, strict=True) if v)


@pytest.mark.parametrize("policy", ["drf", "asset", "ceei", "static", "leximin-tasks"])
def test_bottleneck_based_screen_holds_every_suspect_of_the_check(policy: str) -> None:
    from analyzer.properties._common import Evaluator
    from analyzer.properties.bottleneck_based import _complaints_numeric

    prop = "bottleneck-based-fairness"
    insts = _stream(prop, "weights,caps,zeros", 60) + _stream(prop, "paper", 60)
    pol, p = get_policy(policy), get_property(prop)
    flags = p.screen_many(pol, insts, "continuous")
    ev = Evaluator(pol)
    suspects = [bool(_complaints_numeric(inst, ev.numeric(inst)).any()) for inst in insts]
    assert all(f for f, s in zip(flags.tolist(), suspects, strict=True) if s)
    alone = [p.screen_many(pol, [inst], "continuous")[0] for inst in insts]
    assert flags.tolist() == alone
    if policy in ("drf", "static"):  # both break it on the stream: the screen passes those on
        assert any(suspects)
    assert p.screen_many(pol, insts[:3], "discrete").all()


def test_a_chunk_solved_again_gives_the_remembered_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    from analyzer.properties import _batch

    insts = _stream("sharing-incentive", "weights,caps,zeros", 50)
    ceei = get_policy("ceei")
    _batch._SOLVED.clear()
    first = _batch.numeric_batch(ceei, insts, "continuous")
    assert len(_batch._SOLVED) > 0
    again = _batch.numeric_batch(ceei, list(insts), "continuous")  # remembered
    _batch._SOLVED.clear()
    fresh = _batch.numeric_batch(ceei, insts, "continuous")
    for a, b, c in zip(first, again, fresh, strict=True):
        assert (a is None) == (b is None) == (c is None)
        if a is not None:
            assert a.tolist() == b.tolist() == c.tolist()
    # another solver for the same policy label is never answered from the memo
    calls: list[int] = []
    own = ceei.batch_solver()

    def counting(D, R, w, caps):  # type: ignore[no-untyped-def]
        calls.append(len(D))
        return own(D, R, w, caps)

    monkeypatch.setattr(ceei, "batch_solver", lambda: counting)
    _batch.numeric_batch(ceei, insts, "continuous")
    assert calls
    monkeypatch.setattr(_batch, "SOLVED_MEMO", 2)
    for k in range(5):
        _batch.numeric_batch(get_policy("drf"), insts[k:k + 5], "continuous")
    assert len(_batch._SOLVED) <= 2


def test_best_rows_rank_as_one_sort_by_segment_gain_and_position() -> None:
    from analyzer.properties._sp_rank import KEEP, best_rows

    rng = np.random.default_rng(5)
    for _ in range(200):
        lens = rng.integers(1, 9, int(rng.integers(1, 12)))
        seg = np.repeat(np.cumsum(rng.integers(1, 4, len(lens))), lens)
        gain = rng.integers(-3, 3, len(seg)).astype(float)  # many ties
        gain[rng.random(len(seg)) < 0.15] = np.nan
        pos = np.arange(len(seg))
        order = np.lexsort((pos, -gain, seg))
        start = np.flatnonzero(np.r_[True, seg[order][1:] != seg[order][:-1]])
        rank = pos - np.repeat(start, np.diff(np.r_[start, len(seg)]))
        top, first = best_rows(seg, gain)
        assert top.tolist() == order[rank < KEEP].tolist()
        assert first.tolist() == order[start].tolist()
