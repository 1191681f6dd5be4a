"""The instances the worst-case search optimises over, and its generic starts.

Scale normalisation: every capacity is 1 and every demand lies in
``(0, 1]``, parametrised by its logarithm ``theta_ij`` in
``[-WORST_LOG_SPAN, 0]``. Scaling a resource's capacity and every demand on
it by the same factor leaves the shares ``x_i d_ij / R_j`` and so every
metric unchanged for the paper's policies (Ghodsi et al., NSDI 2011,
Section 4), so unit capacities lose nothing; logarithms let the optimiser
reach the tiny off-dominant entries where bounds like DRF's ``1/m`` live
(Parkes, Procaccia and Shah, EC 2012, Section 5). In the zeros domain a
coordinate below ``-WORST_ZERO_CUT`` is the demand 0 (each row keeps its
largest entry).

Starts are generated lazily, one point at a time, and their number is
capped (:data:`GROUP_STARTS`): memory is bounded by the budget, never by
the number of ways of grouping ``n`` users (issue 28).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from models import Instance
from models.tolerances import WORST_LOG_SPAN, WORST_ZERO_CUT

POSITIVE = "positive"
ZEROS = "zeros"
DOMAINS = (POSITIVE, ZEROS)
#: Structured starts: off-dominant entries ``e^t`` with ``t`` uniform in this range.
OFF_DOMINANT_LOG = (-4.0, -1.0)
#: Random starts added after the structured ones.
RANDOM_STARTS = 8
#: Groupings of the users by dominant resource tried as starts: every one
#: when there are at most this many, else this many drawn at random.
GROUP_STARTS = 24

#: A named starting point (log-demands, flattened).
Start = tuple[str, np.ndarray]


@dataclass(frozen=True)
class Space:
    """``n`` users, ``m`` resources, demand domain."""

    n: int
    m: int
    domain: str = POSITIVE

    @property
    def dim(self) -> int:
        return self.n * self.m

    def demands(self, theta: np.ndarray) -> np.ndarray:
        """The demand matrix of the point ``theta`` (clipped to the box)."""
        t = np.clip(np.asarray(theta, dtype=float).reshape(self.n, self.m), -WORST_LOG_SPAN, 0.0)
        d = np.exp(t)
        if self.domain == ZEROS:
            keep = (t >= -WORST_ZERO_CUT) | (t == t.max(axis=1, keepdims=True))
            d = np.where(keep, d, 0.0)
        return d

    def instance(self, theta: np.ndarray) -> Instance:
        return Instance.from_arrays(np.ones(self.m), self.demands(theta))

    def theta(self, demands: np.ndarray) -> np.ndarray:
        """The point of a demand matrix over unit capacities (zeros at the box's edge)."""
        with np.errstate(divide="ignore"):
            return np.clip(np.log(np.asarray(demands, dtype=float)), -WORST_LOG_SPAN, 0.0).ravel()


def partitions(n: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Partitions of ``n`` into at most ``parts`` positive parts, largest
    first, generated lazily."""

    def rec(left: int, most: int, k: int) -> Iterator[tuple[int, ...]]:
        if left == 0:
            yield ()
            return
        if k == 0 or left > most * k:
            return
        for first in range(min(left, most), 0, -1):
            for rest in rec(left - first, first, k - 1):
                yield (first, *rest)

    yield from rec(n, n, parts)


def groupings(n: int, m: int, rng: np.random.Generator) -> Iterator[tuple[int, ...]]:
    """Group sizes of the users by dominant resource: every partition of
    ``n`` into at most ``m`` parts when there are at most
    :data:`GROUP_STARTS`, otherwise :data:`GROUP_STARTS` drawn at random
    (the number of groups uniform, the sizes a random composition)."""
    first = list(itertools.islice(partitions(n, m), GROUP_STARTS + 1))
    if len(first) <= GROUP_STARTS:
        yield from first
        return
    for _ in range(GROUP_STARTS):
        k = int(rng.integers(1, min(n, m) + 1))
        cuts = np.sort(rng.choice(np.arange(1, n), size=k - 1, replace=False)) if k > 1 else np.array([], int)
        sizes = np.diff(np.concatenate([[0], cuts, [n]]))
        yield tuple(int(v) for v in sorted(sizes, reverse=True))


def generic_starts(space: Space, rng: np.random.Generator) -> Iterator[Start]:
    """Named starting points, lazily: for ways of grouping the users by
    dominant resource, users of a group demand 1 of their resource and a
    small random amount of the others (the shape of the known tight
    examples); users with identical random demands; random points."""
    n, m = space.n, space.m
    for sizes in groupings(n, m, rng):
        theta = rng.uniform(*OFF_DOMINANT_LOG, size=(n, m))
        dominant = np.repeat(np.arange(len(sizes)), sizes)
        theta[np.arange(n), dominant] = 0.0
        yield "groups " + "+".join(map(str, sizes)) if len(sizes) <= 8 else f"groups ({len(sizes)})", theta.ravel()
    row = rng.uniform(-3.0, 0.0, size=m)
    yield "identical", np.tile(row - row.max(), n)
    for k in range(RANDOM_STARTS):
        yield f"random {k}", rng.uniform(-WORST_LOG_SPAN / 3, 0.0, size=n * m)
