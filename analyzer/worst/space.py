"""The instances the worst-case search optimises over, and its starts.

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
"""

from __future__ import annotations

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


def partitions(n: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Partitions of ``n`` into at most ``parts`` positive parts, largest first."""

    def rec(left: int, most: int, k: int) -> Iterator[tuple[int, ...]]:
        if left == 0:
            yield ()
            return
        if k == 0:
            return
        for first in range(min(left, most), 0, -1):
            for rest in rec(left - first, first, k - 1):
                yield (first, *rest)

    yield from rec(n, n, parts)


def starts(space: Space, rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    """Named starting points: for every way of grouping the users by
    dominant resource, users of a group demand 1 of their resource and a
    small random amount of the others (the shape of the known tight
    examples); users with identical random demands; random points."""
    n, m = space.n, space.m
    out: list[tuple[str, np.ndarray]] = []
    for sizes in partitions(n, m):
        theta = rng.uniform(*OFF_DOMINANT_LOG, size=(n, m))
        dominant = np.repeat(np.arange(len(sizes)), sizes)
        theta[np.arange(n), dominant] = 0.0
        out.append(("groups " + "+".join(map(str, sizes)), theta.ravel()))
    row = rng.uniform(-3.0, 0.0, size=m)
    out.append(("identical", np.tile(row - row.max(), n)))
    for k in range(RANDOM_STARTS):
        out.append((f"random {k}", rng.uniform(-WORST_LOG_SPAN / 3, 0.0, size=n * m)))
    return out
