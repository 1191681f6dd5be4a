"""Adversarial policies for the prover (issue 27, item 5): user filling
policies that break one assumption a proof could make (anonymity,
neutrality, homogeneity, independence of the number of users), written as
traced :class:`~models.FillingPolicy` s and as registered policies with an
encoding of their own. ``tests/test_prove_adversarial.py`` checks that the
prover never proves what an exact search refutes, and still proves what is
true.

Shares that depend on the user's index or on ``n`` are not row-wise
expressions, so they switch off the batched screens (``batch_solver``),
which stack the rows of many instances into one call.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from models import FillingPolicy
from models.policy import POLICIES
from proofs.prover.encodings import ENCODINGS, Encoding
from proofs.prover.encodings.filling import _dominant_shares, bottleneck
from proofs.prover.encodings.single_resource import column_filling
from proofs.prover.symbolic import Market


def _dominant(demands: Any, capacity: Any) -> Any:
    return (demands / capacity).max(axis=1)


class _NotRowwise(FillingPolicy):
    """A share that is not a row-wise expression: no batched screens."""

    def batch_solver(self) -> None:  # type: ignore[override]
        return None


class ByIndex(_NotRowwise):
    """Breaks anonymity: user ``i``'s task counts ``i + 1`` times its
    dominant share, so user 0 is favoured and only the others can lose."""

    name = "adv-by-index"

    def share_per_task(self, demands: Any, capacity: Any) -> Any:
        s = _dominant(demands, capacity)
        return s * np.arange(1, s.shape[0] + 1)


class FavourLast(_NotRowwise):
    """Breaks anonymity the other way: the last user's task counts half."""

    name = "adv-favour-last"

    def share_per_task(self, demands: Any, capacity: Any) -> Any:
        s = _dominant(demands, capacity)
        n = s.shape[0]
        return s * np.array([1] * (n - 1) + [Fraction(1, 2)], dtype=object)


class OneColumn(FillingPolicy):
    """Breaks neutrality: max-min on the share of resource 0 only (with zero
    demands, users without resource 0 share the rest by DRF)."""

    name = "adv-one-column"

    def share_per_task(self, demands: Any, capacity: Any) -> Any:
        return demands[:, 0] / capacity[0]


class WeightedDrf(FillingPolicy):
    """Breaks neutrality but keeps envy-freeness: the dominant share with
    resource ``j`` counted ``2 j + 1`` times (a monotone, homogeneous share
    of the bundle: filling on it is envy-free however resources are
    weighted)."""

    name = "adv-weighted-drf"

    def share_per_task(self, demands: Any, capacity: Any) -> Any:
        s = demands / capacity
        return (s * (2 * np.arange(s.shape[1]) + 1)).max(axis=1)


class Squared(FillingPolicy):
    """Breaks homogeneity: the square of the dominant share (task sizes
    matter, so no user's scale may be normalised)."""

    name = "adv-squared"

    def share_per_task(self, demands: Any, capacity: Any) -> Any:
        s = _dominant(demands, capacity)
        return s * s


class ByCount(_NotRowwise):
    """Depends on ``n``: DRF with three or more users, asset fairness with
    fewer (population monotonicity compares the two)."""

    name = "adv-by-count"

    def share_per_task(self, demands: Any, capacity: Any) -> Any:
        s = demands / capacity
        return s.max(axis=1) if s.shape[0] >= 3 else s.sum(axis=1)


class NegativeAlone(_NotRowwise):
    """Depends on ``n``: a lone user's share is negative (the family refuses
    it), so no proof may use the policy at one user."""

    name = "adv-negative-alone"

    def share_per_task(self, demands: Any, capacity: Any) -> Any:
        return _dominant(demands, capacity) * Fraction(2 * demands.shape[0] - 3, 2)


class ByIndexEncoded(ByIndex):
    """:class:`ByIndex` with an encoding of its own that falsely declares
    it anonymous (and neutral): the prover checks what a registered
    encoding declares before using it."""

    name = "adv-by-index-encoded"


class OneColumnEncoded(OneColumn):
    """:class:`OneColumn` with an encoding of its own declaring no
    symmetry (the default)."""

    name = "adv-one-column-encoded"


def _by_index_formula(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
    """Progressive filling on ``(i + 1)`` times the dominant share."""
    y, cons = _dominant_shares(mk, x, tag)
    return cons + bottleneck(mk, x, [(i + 1) * y[i] for i in range(mk.n)])


#: Every traced adversarial policy.
TRACED = (ByIndex, FavourLast, OneColumn, WeightedDrf, Squared, ByCount, NegativeAlone)
#: Registered policies with their own encodings.
ENCODED = {
    ByIndexEncoded: Encoding(ByIndexEncoded.name, "max", _by_index_formula, weighted=True, capped=True,
                             anonymous=True, neutral=True),
    OneColumnEncoded: Encoding(OneColumnEncoded.name, "max", column_filling(0), weighted=True, capped=True),
}


@pytest.fixture
def adversaries() -> Iterator[None]:
    """Register every adversarial policy (and the encodings of
    :data:`ENCODED`) for one test."""
    for cls in (*TRACED, *ENCODED):
        POLICIES.register(cls.name, cls)
    for cls, enc in ENCODED.items():
        ENCODINGS.register(cls.name, enc)
    yield
    for cls in ENCODED:
        ENCODINGS.unregister(cls.name)
    for cls in (*TRACED, *ENCODED):
        POLICIES.unregister(cls.name)
