"""Progressive filling's one-round case (no active user capped, every one
demanding every resource: Ghodsi et al., NSDI 2011, Section 5, the paper's
class) gives exactly the numbers and events of the general loop."""

from __future__ import annotations

import numpy as np
import pytest

from models import filling_numeric as F


def _batch(rng: np.random.Generator, K: int, n: int, m: int) -> tuple[np.ndarray, ...]:
    D = rng.integers(1, 9, (K, n, m)).astype(float) * rng.choice([1.0, 0.37, 1e-9], (K, n, m))
    R = rng.integers(5, 40, (K, m)).astype(float)
    rates = rng.random((K, n)) + 0.05
    caps = np.full((K, n), np.inf)
    caps[rng.random((K, n)) < 0.2] = 0.0  # padded users: frozen from the start
    return D, R, rates, caps


def _rounds(rounds: list[F.Round]) -> list[tuple[object, ...]]:
    return [(r.live.tolist(), r.level.tolist(), r.saturated.tolist(), r.frozen.tolist(), r.capped.tolist(),
             r.frozen.dtype, r.capped.dtype) for r in rounds]


@pytest.mark.parametrize(("n", "m"), [(1, 1), (2, 2), (5, 3), (3, 4), (9, 2)])
def test_one_round_is_the_loop(n: int, m: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(n * 10 + m)
    for _ in range(30):
        args = _batch(rng, 40, n, m)
        fast = F.fill_levels(*args)
        with monkeypatch.context() as mp:
            mp.setattr(F, "_one_round", lambda *a: None)
            slow = F.fill_levels(*args)
        assert fast[0].tolist() == slow[0].tolist()
        assert _rounds(fast[1]) == _rounds(slow[1])
        assert fast[2].tolist() == slow[2].tolist()


def test_caps_and_zero_demands_take_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    own = F._one_round
    monkeypatch.setattr(F, "_one_round", lambda *a: calls.append(1) or own(*a))
    D = np.array([[[1.0, 4.0], [3.0, 0.0]]])
    F.fill_levels(D, np.array([[9.0, 18.0]]), np.ones((1, 2)), np.full((1, 2), np.inf))
    F.fill_levels(D + 1, np.array([[9.0, 18.0]]), np.ones((1, 2)), np.array([[2.0, np.inf]]))
    assert not calls
    x, rounds, _ = F.fill_levels(D + 1, np.array([[9.0, 18.0]]), np.ones((1, 2)), np.full((1, 2), np.inf))
    assert calls and len(rounds) == 1
