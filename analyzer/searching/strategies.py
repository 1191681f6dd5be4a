"""Instance strategies: small composable generators of instances, in the
spirit of hypothesis strategies, driven by a seeded numpy ``Generator``.

Every strategy draws exact integer data (capacities, demands, weights, caps)
so a found instance can be re-verified in exact arithmetic. Strategies
respect an :class:`~analyzer.searching.classes.InstanceClass`: zero demand
entries, weights and caps appear only when the class allows them.

Two kinds of streams feed the search:

* :func:`grid` -- an exhaustive enumeration of small-integer instances
  (``n = 2..3`` users, ``m = 1..3`` resources), in a fixed order: the six
  ``(n, m)`` sub-grids are interleaved, each ordered by its largest entry,
  and instances equal up to renaming users or resources appear once;
* random strategies -- :func:`uniform`, :func:`log_uniform`,
  :func:`shared_dominant` (one resource is every user's dominant resource,
  the setting of bottleneck fairness, Ghodsi et al., NSDI 2011, Section 3)
  and :func:`near_ties` (dominant shares of one task almost equal, where
  filling policies switch bottlenecks), combined with :func:`one_of`.

Examples
--------
>>> import numpy as np
>>> from analyzer.searching.classes import InstanceClass
>>> s = one_of(uniform(InstanceClass()), log_uniform(InstanceClass()))
>>> inst = s.draw(np.random.default_rng(0))
>>> inst.strictly_positive and not inst.weighted
True
>>> first = list(itertools.islice(grid(InstanceClass()), 3))
>>> [(i.n, i.m) for i in first]
[(2, 1), (2, 2), (3, 1)]
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from models import Instance

from .building import build, int_instance
from .classes import InstanceClass

__all__ = ["build", "decorate", "grid", "log_uniform", "near_ties", "one_of", "random_strategies",
           "shared_dominant", "uniform", "Strategy"]

#: ``(n, m)`` shapes of the exhaustive grid, interleaved in this order.
GRID_SHAPES: tuple[tuple[int, int], ...] = ((2, 1), (2, 2), (3, 1), (2, 3), (3, 2), (3, 3))
#: Largest entry the grid enumerates up to.
GRID_MAX_ENTRY: int = 9
#: Weights and caps the grid tries when the class allows them.
GRID_WEIGHTS: tuple[int, ...] = (1, 2)
GRID_CAPS: tuple[int | None, ...] = (None, 1, 2)
#: How often a draw is retried before a filter gives up.
FILTER_TRIES: int = 100


class Strategy(ABC):
    """A generator of instances from a numpy ``Generator``."""

    #: Short name shown in search results (where a counterexample came from).
    name: str = "strategy"

    @abstractmethod
    def draw(self, rng: np.random.Generator) -> Instance:
        """One instance."""

    def draw_if(self, rng: np.random.Generator, wanted: Callable[[int, int], bool]) -> Instance | None:
        """:meth:`draw`, or ``None`` when the draw's ``(n, m)`` is not
        ``wanted`` (then the rest of it is not drawn, where the strategy
        draws its shape first)."""
        inst = self.draw(rng)
        return inst if wanted(inst.n, inst.m) else None

    def map(self, fn: Callable[[Instance], Instance], name: str | None = None) -> Strategy:
        """The strategy whose draws are ``fn(draw)``."""
        return _Mapped(self, fn, name or f"{self.name}.map")

    def filter(self, pred: Callable[[Instance], bool], name: str | None = None) -> Strategy:
        """The strategy whose draws satisfy ``pred`` (retried up to
        :data:`FILTER_TRIES` times, then :class:`ValueError`)."""
        return _Filtered(self, pred, name or f"{self.name}.filter")

    def __or__(self, other: Strategy) -> Strategy:
        return one_of(self, other)

    def __repr__(self) -> str:
        return f"<strategy {self.name}>"


@dataclass(repr=False)
class _Mapped(Strategy):
    inner: Strategy
    fn: Callable[[Instance], Instance]
    name: str = "map"

    def draw(self, rng: np.random.Generator) -> Instance:
        return self.fn(self.inner.draw(rng))


@dataclass(repr=False)
class _Filtered(Strategy):
    inner: Strategy
    pred: Callable[[Instance], bool]
    name: str = "filter"

    def draw(self, rng: np.random.Generator) -> Instance:
        for _ in range(FILTER_TRIES):
            inst = self.inner.draw(rng)
            if self.pred(inst):
                return inst
        raise ValueError(f"strategy {self.name}: no draw passed the filter in {FILTER_TRIES} tries")


@dataclass(repr=False)
class OneOf(Strategy):
    """Draw from one of several strategies, chosen uniformly."""

    options: tuple[Strategy, ...]
    name: str = "one_of"

    def draw(self, rng: np.random.Generator) -> Instance:
        return self.options[int(rng.integers(len(self.options)))].draw(rng)


def one_of(*strategies: Strategy) -> OneOf:
    """The strategy drawing from one of ``strategies`` (flattened)."""
    flat: list[Strategy] = []
    for s in strategies:
        flat.extend(s.options if isinstance(s, OneOf) else (s,))
    return OneOf(tuple(flat), "|".join(s.name for s in flat))


# ----------------------------------------------------------------- random
@dataclass(repr=False)
class _Random(Strategy):
    """Base of the random strategies: shape, integer data, then the class's
    options (zeros, weights, caps) on top."""

    cls: InstanceClass
    name: str = "random"
    #: Fewest resources drawn.
    M_MIN: ClassVar[int] = 1

    def shape(self, rng: np.random.Generator) -> tuple[int, int]:
        """The draw's first step: its ``(n, m)`` (a search skips the rest of
        a draw whose shape its property says nothing about)."""
        n = int(rng.integers(2, self.cls.n_max + 1))
        return n, int(rng.integers(self.M_MIN, self.cls.m_max + 1))

    def draw(self, rng: np.random.Generator) -> Instance:
        return self.finish(rng, *self.shape(rng))

    def draw_if(self, rng: np.random.Generator, wanted: Callable[[int, int], bool]) -> Instance | None:
        n, m = self.shape(rng)
        return self.finish(rng, n, m) if wanted(n, m) else None

    def finish(self, rng: np.random.Generator, n: int, m: int) -> Instance:
        """The rest of a draw of shape ``(n, m)`` (after :meth:`shape`)."""
        cap, dem = self.data(rng, n, m)
        return decorate(rng, self.cls, cap, dem)

    def data(self, rng: np.random.Generator, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError


@dataclass(repr=False)
class _Uniform(_Random):
    name: str = "uniform"

    def data(self, rng: np.random.Generator, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        return rng.integers(1, 31, size=m), rng.integers(1, 11, size=(n, m))


@dataclass(repr=False)
class _LogUniform(_Random):
    name: str = "log-uniform"

    def data(self, rng: np.random.Generator, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        cap = np.maximum(1, np.rint(10 ** rng.uniform(0, 3, size=m))).astype(np.int64)
        dem = np.maximum(1, np.rint(10 ** rng.uniform(0, 2, size=(n, m)))).astype(np.int64)
        return cap, dem


@dataclass(repr=False)
class _SharedDominant(_Random):
    """Every user's dominant resource is the same one (chosen at random)."""

    name: str = "shared-dominant"
    M_MIN: ClassVar[int] = 2

    def data(self, rng: np.random.Generator, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        cap = rng.integers(1, 31, size=m)
        dem = rng.integers(1, 11, size=(n, m))
        j = int(rng.integers(m))
        # raise column j until d_ij / R_j >= d_ik / R_k for every k (integer ceiling)
        need = -(-(dem * cap[j]) // cap[None, :])
        dem[:, j] = need.max(axis=1) + rng.integers(0, 3, size=n)
        return cap, dem

    def finish(self, rng: np.random.Generator, n: int, m: int) -> Instance:
        cap, dem = self.data(rng, n, m)
        dominant = np.argmax(dem / cap[None, :], axis=1)
        return decorate(rng, self.cls, cap, dem, keep=dominant)


@dataclass(repr=False)
class _NearTies(_Random):
    """Dominant shares of one task nearly equal across users."""

    name: str = "near-ties"

    def data(self, rng: np.random.Generator, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        cap = rng.integers(40, 121, size=m)
        level = rng.uniform(0.02, 0.3)
        dom = rng.integers(m, size=n)
        target = level * cap[dom]
        dem = np.floor(rng.uniform(0.05, 1.0, size=(n, m)) * level * cap[None, :]).astype(np.int64)
        dem[np.arange(n), dom] = np.rint(target).astype(np.int64) + rng.integers(-1, 2, size=n)
        return cap, np.maximum(dem, 1)


def uniform(cls: InstanceClass) -> Strategy:
    """Capacities uniform on 1..30, demands uniform on 1..10."""
    return _Uniform(cls)


def log_uniform(cls: InstanceClass) -> Strategy:
    """Capacities log-uniform on 1..1000, demands log-uniform on 1..100."""
    return _LogUniform(cls)


def shared_dominant(cls: InstanceClass) -> Strategy:
    """All users share one dominant resource (``m >= 2``)."""
    return _SharedDominant(cls) if cls.m_max >= 2 else _Uniform(cls)


def near_ties(cls: InstanceClass) -> Strategy:
    """Dominant shares of one task within a few percent of each other."""
    return _NearTies(cls)


def random_strategies(cls: InstanceClass) -> tuple[Strategy, ...]:
    """The random distributions of the search, in the fixed order the
    search cycles through them."""
    return (uniform(cls), log_uniform(cls), shared_dominant(cls), near_ties(cls))


def decorate(rng: np.random.Generator, cls: InstanceClass, cap: np.ndarray, dem: np.ndarray,
             keep: np.ndarray | None = None) -> Instance:
    """Apply the class's options to integer data and build the instance:
    zero demand entries (each user keeps one positive entry, column
    ``keep[i]`` when given), weights on 1..4, caps on 1..8 for some users."""
    n, m = int(dem.shape[0]), int(dem.shape[1])
    dem = np.asarray(dem, dtype=np.int64)
    if cls.zeros and m > 1:
        mask = rng.random((n, m)) < 0.35
        keep = rng.integers(m, size=n) if keep is None else keep
        mask[np.arange(n), keep] = False
        dem = np.where(mask, 0, dem)
    weights = rng.integers(1, 5, size=n) if cls.weights else None
    caps = None
    if cls.caps:
        on = rng.random(n) < 0.4
        caps = np.where(on, rng.integers(1, 9, size=n), np.inf)
    inst = int_instance(np.asarray(cap, dtype=np.int64), dem, weights, caps)
    if inst is not None:
        return inst
    return build([int(c) for c in cap], [[int(v) for v in row] for row in dem],  # data from_arrays refuses
                 None if weights is None else [int(w) for w in weights],
                 None if caps is None else [None if k == np.inf else int(k) for k in caps])


# ------------------------------------------------------------------- grid
def grid(cls: InstanceClass, max_entry: int = GRID_MAX_ENTRY) -> Iterator[Instance]:
    """Every small-integer instance of the class, in a fixed order.

    The sub-grids of :data:`GRID_SHAPES` are interleaved one instance at a
    time; each lists instances by their largest entry ``L = 1, 2, ...,
    max_entry`` (capacities on ``1..L``, demands on ``1..L``, or ``0..L``
    with zero entries), keeping one representative up to renaming users and
    resources (rows and columns in sorted order).
    """
    subs = [_subgrid(cls, n, m, max_entry) for n, m in GRID_SHAPES if m <= cls.m_max and n <= cls.n_max]
    while subs:
        alive = []
        for it in subs:
            inst = next(it, None)
            if inst is not None:
                yield inst
                alive.append(it)
        subs = alive


def _subgrid(cls: InstanceClass, n: int, m: int, max_entry: int) -> Iterator[Instance]:
    lo = 0 if cls.zeros and m > 1 else 1
    extras_w = list(itertools.product(GRID_WEIGHTS, repeat=n)) if cls.weights else [None]
    extras_k = list(itertools.product(GRID_CAPS, repeat=n)) if cls.caps else [None]
    for top in range(1, max_entry + 1):
        for cap in itertools.product(range(1, top + 1), repeat=m):
            for flat in itertools.product(range(lo, top + 1), repeat=n * m):
                if max(max(cap), max(flat)) != top:
                    continue
                rows = [flat[i * m:(i + 1) * m] for i in range(n)]
                if any(not any(r) for r in rows) or not _canonical(cap, rows):
                    continue
                for w in extras_w:
                    for k in extras_k:
                        yield build(list(cap), rows, w, k)


def _canonical(cap: tuple[int, ...], rows: list[tuple[int, ...]]) -> bool:
    """True for the representative with users and resources in sorted order."""
    if any(rows[i] > rows[i + 1] for i in range(len(rows) - 1)):
        return False
    cols = [(cap[j], *(r[j] for r in rows)) for j in range(len(cap))]
    return all(cols[j] <= cols[j + 1] for j in range(len(cols) - 1))
