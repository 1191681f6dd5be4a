"""One chunk of the bounded class: the picklable task of a process pool or
a Dask cluster.

A chunk is a range of grid indices (:mod:`.space`); the worker decodes
each, keeps the canonical members (:mod:`.symmetry`), decides their orbits
(:mod:`.deciders`) and stops at the first violating orbit. Results do not
depend on how the chunks are spread over workers: the caller reads them in
chunk order.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from .deciders import Context, Hit, decide
from .space import Space
from .symmetry import canonical, orbit_size

#: Contexts built in this process, by job key (policy, property, class)
#: and thread (a Dask worker runs several chunks at once in threads; a
#: context holds per-orbit caches).
_CONTEXTS: dict[tuple[Any, ...], Context] = {}


def forget_contexts() -> None:
    """Drop this process's contexts (a run starts from the policies and
    properties registered now, not from ones a name meant before)."""
    _CONTEXTS.clear()


@dataclass(frozen=True)
class Job:
    """What every chunk of one run shares (small and picklable)."""

    policy: str
    property: str
    space: Space
    #: Whether resource permutations are used (see :mod:`.symmetry`).
    resources: bool
    #: False: no symmetry at all, every point of the grid decided alone
    #: (the baseline the reduction is measured and tested against).
    reduce: bool = True
    #: Go on after a violation and collect every violating orbit (tests).
    every_hit: bool = False

    def context(self) -> Context:
        """This process's :class:`~.deciders.Context` for the job."""
        key = (self.policy, self.property, self.space, threading.get_ident())
        if key not in _CONTEXTS:
            from models import get_policy

            from ...properties.base import get_property

            _CONTEXTS[key] = Context(self.space, get_policy(self.policy), get_property(self.property))
        return _CONTEXTS[key]


@dataclass(frozen=True)
class ChunkResult:
    """What one chunk found.

    Attributes
    ----------
    lo, hi : int
        The grid indices ``lo <= index < hi`` (all of them when ``hit`` is
        ``None``; up to the violating one otherwise).
    orbits : int
        Canonical members decided.
    covered : int
        Instances of the class those orbits hold.
    evaluations : int
        Exact checks and verifications run.
    hits : tuple of Hit
        The first violation found, in index order (every one with
        :attr:`Job.every_hit`).
    """

    lo: int
    hi: int
    orbits: int
    covered: int
    evaluations: int
    hits: tuple[Hit, ...] = ()

    @property
    def hit(self) -> Hit | None:
        """The first violation, or ``None``."""
        return self.hits[0] if self.hits else None


def check_chunk(job: Job, lo: int, hi: int) -> ChunkResult:
    """Decide every orbit whose canonical member has an index in
    ``lo..hi-1``."""
    ctx = job.context()
    space = job.space
    start = ctx.evaluations
    orbits = covered = 0
    hits: list[Hit] = []
    for index in range(lo, hi):
        point = space.decode(index, every_weight=not job.reduce)
        if point is None:
            continue
        if job.reduce:
            if canonical(point, job.resources) != point:
                continue
            covered += orbit_size(point, job.resources) * space.copies(point)
        else:
            covered += 1
        orbits += 1
        hit = decide(ctx, point, alone=not job.reduce)
        if hit is not None:
            hits.append(hit)
            if not job.every_hit:
                return ChunkResult(lo, index + 1, orbits, covered, ctx.evaluations - start, tuple(hits))
    return ChunkResult(lo, hi, orbits, covered, ctx.evaluations - start, tuple(hits))
