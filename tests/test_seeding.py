"""The stream's batched seeding draws exactly what numpy's own seeding draws
(analyzer/searching/seeding.py), and a cell's chunk of positions is the
same instances one position at a time."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.searching.instance_stream import make_cell
from analyzer.searching.seeding import MAX_KEY, draws, state_words


def test_state_words_match_generate_state() -> None:
    keys = np.arange(40)
    got = state_words([5, 6, 7], keys)
    want = np.stack([np.random.SeedSequence([5, 6, 7], spawn_key=(int(k),)).generate_state(4, np.uint64)
                     for k in keys])
    assert got.dtype == np.uint64 and (got == want).all()


def test_bad_keys_are_refused() -> None:
    with pytest.raises(ValueError, match="positions"):
        state_words([0], np.array([-1]))
    with pytest.raises(ValueError, match=">= 0"):
        state_words([-3], np.array([0]))


@pytest.mark.parametrize("prop", ["strategy-proofness", "sharing-incentive"])
def test_at_many_is_at_if(prop: str) -> None:
    cell = make_cell("drf", prop, 400, 3, None, "continuous")
    positions = range(cell.grid_len - 5, cell.grid_len + 70)  # across the grid's end
    many = cell.at_many(positions, cell.shapes)
    for pos, (phase, inst) in zip(positions, many, strict=True):
        one_phase, one = cell.at_if(pos, cell.shapes)
        assert phase == one_phase
        assert (inst is None and one is None) or (inst is not None and one is not None and inst == one)


def _calls(rng, trial: int) -> list:
    """A mix of the calls the strategies make, and ranges where Lemire's
    method rejects often (``2**31 + 1``), plus the 64-bit and whole-word paths."""
    return [
        rng.integers(2, 6), rng.integers(1, 31, size=3), rng.integers(1, 11, size=(trial % 5 + 1, 3)),
        rng.uniform(0.02, 0.3), rng.uniform(0, 3, size=4), rng.random((2, 3)), rng.random(),
        rng.integers(5), rng.integers(3, size=4), rng.integers(-1, 2, size=5), rng.integers(7, 8, size=2),
        rng.integers(0, 2**31 + 1, size=40), rng.integers(0, 2**32), rng.integers(0, 2**32, size=3),
        rng.integers(0, 2**62, size=3), rng.integers(0, 3 * 2**61), rng.random(3), rng.integers(1, 9, size=1),
    ]


@pytest.mark.parametrize("entropy", [[0], [7, 3], [2**32 - 1, 0, 2**31], [0, 1, 2, 3, 4], [0, 123, 456, 789, 1011],
                                     [2**40 + 5, 3], [1, 2, 3, 4, 5, 6, 7]])
def test_draws_are_numpys_draws(entropy: list[int]) -> None:
    keys = [0, 1, 5, 99, 4096, MAX_KEY]
    for trial, (k, src) in enumerate(zip(keys, draws(entropy, keys), strict=True)):
        ref = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(k,)))
        for got, want in zip(_calls(src, trial), _calls(ref, trial), strict=True):
            assert np.shape(got) == np.shape(want)
            assert np.asarray(got).dtype == np.asarray(want).dtype
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


def test_draws_refuse_what_they_do_not_draw() -> None:
    src = next(draws([0], [0]))
    with pytest.raises(ValueError, match="range"):
        src.integers(3, 3)
    with pytest.raises(ValueError, match="range"):
        src.integers(0, 2**64)
