"""The instance stream of one search: everything that determines it (a
:class:`Cell`) and the instance at each position.

The stream depends only on the seed, the property, the instance class, the
mode and the budget, not on the policy (the policies of a table's row walk
the same instances, and a process draws them once: :func:`cached_blocks`):
its first ``GRID_FRACTION * budget`` positions (at most
:data:`~models.limits.MAX_GRID_POSITIONS`) walk the
exhaustive small-integer grid (:func:`~analyzer.searching.strategies.grid`);
position ``k`` after them is drawn from random strategy ``k mod 4``
(uniform, log-uniform, shared dominant resource, near-ties) with a
generator seeded by ``(seed, property, class, mode, k)``. Because an
instance depends only on its position, chunks of positions can be checked
anywhere and in any order.
"""

from __future__ import annotations

import functools
import itertools
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from models import Instance, Policy, PolicyError, get_policy
from models.limits import MAX_GRID_POSITIONS

from ..properties.base import MODES, Property, get_property
from .classes import InstanceClass
from .seeding import MAX_KEY, draws
from .strategies import grid, random_strategies

#: Share of the budget given to the exhaustive grid.
GRID_FRACTION: float = 0.3

#: Random positions drawn together and kept as one block of the per-process cache.
BLOCK: int = 256

#: Most instances the per-process cache of drawn blocks holds (about 1 kB
#: each): one row's random stream at the default budget (~10^4), so the
#: cells of a row run in turn by one process draw it once.
CACHE_INSTANCES: int = 16_384


_GRIDS: dict[InstanceClass, tuple[list[Instance], Iterator[Instance]]] = {}


def grid_prefix(cls: InstanceClass, count: int) -> list[Instance]:
    """The first ``count`` grid instances of a class (cached per process;
    the returned list may be longer than ``count`` -- read it up to
    ``min(count, len)``)."""
    cached, it = _GRIDS.setdefault(cls, ([], grid(cls)))
    if len(cached) < count:
        cached.extend(itertools.islice(it, count - len(cached)))
    return cached


def cell_key(policy: str, prop: str) -> str:
    """The name of a (policy, property) cell in streams and tables."""
    return f"{policy}|{prop}"


@dataclass(frozen=True)
class Cell:
    """Everything that determines one search's instance stream."""

    policy: Policy
    prop: Property
    budget: int
    seed: int
    cls: InstanceClass
    mode: str

    @property
    def key(self) -> str:
        """The cell's name in streams and tables (:func:`cell_key`)."""
        return cell_key(self.policy.label, self.prop.name)

    @functools.cached_property
    def entropy(self) -> list[int]:
        """Seed material: the master seed and stable hashes of the
        property, the class and the mode (not the policy: every policy's
        cell of a property walks the same stream)."""
        tags = (self.prop.name, self.cls.name, self.mode)
        return [int(self.seed), *(zlib.crc32(t.encode()) for t in tags)]

    @functools.cached_property
    def grid_len(self) -> int:
        """Positions of the stream taken by the exhaustive grid:
        :data:`GRID_FRACTION` of the budget, at most
        :data:`~models.limits.MAX_GRID_POSITIONS` (the grid's instances
        are kept in memory)."""
        want = min(int(self.budget * GRID_FRACTION), MAX_GRID_POSITIONS)
        return min(want, len(grid_prefix(self.cls, want)))

    def at(self, pos: int) -> tuple[str, Instance]:
        """Phase name and instance at stream position ``pos``."""
        phase, inst = self.at_if(pos, None)
        assert inst is not None
        return phase, inst

    def at_if(self, pos: int, wanted: Callable[[int, int], bool] | None) -> tuple[str, Instance | None]:
        """:meth:`at`, with ``None`` for the instance when its ``(n, m)`` is
        not ``wanted`` (a random draw then stops after its shape)."""
        g = self.grid_len
        if pos < g:
            inst = grid_prefix(self.cls, g)[pos]
            return "grid", inst if wanted is None or wanted(inst.n, inst.m) else None
        k = pos - g
        strategies = _strategies(self.cls)
        strat = strategies[k % len(strategies)]
        rng = np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=(k,)))
        return f"random:{strat.name}", strat.draw(rng) if wanted is None else strat.draw_if(rng, wanted)

    def at_many(self, positions: range,
                wanted: Callable[[int, int], bool] | None) -> list[tuple[str, Instance | None]]:
        """:meth:`at_if` of consecutive positions, the same instances: the
        random positions are drawn by blocks of :data:`BLOCK` positions
        (aligned on multiples of it, as the search's chunks are; their
        generators seeded together, :meth:`draw_block`) kept in the
        per-process cache (:func:`cached_blocks`) when ``wanted`` is ``None``
        or the cell's own :attr:`shapes`."""
        g = self.grid_len
        out = [self.at_if(pos, wanted) for pos in positions if pos < g]
        lo, hi = max(positions.start, g), positions.stop
        if positions.step != 1 or -(-hi // BLOCK) * BLOCK - g > MAX_KEY or (wanted not in (None, self.shapes)):
            return out + [self.at_if(pos, wanted) for pos in positions if pos >= g]
        tag = (tuple(self.entropy), self.cls, g, None if wanted is None else type(self.prop))
        for b in range(lo // BLOCK, -(-hi // BLOCK)) if lo < hi else ():
            first, end = max(b * BLOCK, g), (b + 1) * BLOCK  # the block's random positions
            block = cached_blocks((tag, b), functools.partial(self.draw_block, range(first - g, end - g), wanted))
            out.extend(block[max(lo - first, 0):min(hi, end) - first])
        return out

    def draw_block(self, ks: range, wanted: Callable[[int, int], bool] | None) -> list[tuple[str, Instance | None]]:
        """Phase names and instances (``None`` where the shape is not
        ``wanted``) of random positions ``g + k``, ``k`` in ``ks`` (each at
        most :data:`~analyzer.searching.seeding.MAX_KEY`): their generators
        are seeded together and draw without numpy's per-call cost
        (:func:`~analyzer.searching.seeding.draws`)."""
        strategies, phases = _strategies(self.cls), _phases(self.cls)
        out: list[tuple[str, Instance | None]] = []
        for k, src in zip(ks, draws(self.entropy, ks), strict=True):
            strat = strategies[k % len(strategies)]
            rng = cast(np.random.Generator, src)  # draws what the Generator draws, for the strategies' calls
            out.append((phases[k % len(strategies)], strat.draw(rng) if wanted is None else strat.draw_if(rng, wanted)))
        return out

    @functools.cached_property
    def shapes(self) -> Callable[[int, int], bool] | None:
        """The property's :meth:`~analyzer.properties.base.Property.applies_to_shape`
        when positions of other shapes may be skipped unbuilt: the property
        declares it and the policy keeps the base
        :meth:`~models.policy.Policy.supports` (which the stream's instances
        always pass, so such a position is "not applicable", never
        "unsupported"); else ``None``."""
        if type(self.policy).supports is not Policy.supports:
            return None
        if type(self.prop).applies_to_shape is Property.applies_to_shape:
            return None
        return self.prop.applies_to_shape


def same_stream(cells: Sequence[Cell], at_least: int = 1) -> list[list[Cell]]:
    """``cells`` grouped by the stream they walk (the policies' cells of
    one property: a table's row), groups and cells in first-seen order. A
    process that runs a group's cells in turn draws its stream once. With
    fewer groups than ``at_least`` (the workers), the largest groups are
    halved until there are enough (or every group is one cell), so no
    worker idles."""
    found: dict[tuple[tuple[int, ...], InstanceClass], list[Cell]] = {}
    for c in cells:
        found.setdefault((tuple(c.entropy), c.cls), []).append(c)
    groups = list(found.values())
    while len(groups) < at_least and max(map(len, groups), default=1) > 1:
        big = max(range(len(groups)), key=lambda i: len(groups[i]))
        half = (len(groups[big]) + 1) // 2
        groups[big:big + 1] = [groups[big][:half], groups[big][half:]]
    return groups


def _strategies(cls: InstanceClass) -> tuple[Any, ...]:
    """:func:`~analyzer.searching.strategies.random_strategies`, built once per
    class and process."""
    got = _RANDOM.get(cls)
    if got is None:
        got = _RANDOM[cls] = tuple(random_strategies(cls))
    return got


_RANDOM: dict[InstanceClass, tuple[Any, ...]] = {}

_Block = list[tuple[str, Instance | None]]
_CACHE: OrderedDict[Hashable, _Block] = OrderedDict()
_CACHED = [0]  # instances held by _CACHE


def cached_blocks(key: Hashable, make: Callable[[], _Block]) -> _Block:
    """The block named ``key``: ``make()`` the first time, then from the
    per-process cache, which holds the most recently used blocks up to
    :data:`CACHE_INSTANCES` instances. Blocks are immutable (instances are
    frozen), so the cells that share a stream share them."""
    got = _CACHE.get(key)
    if got is not None:
        _CACHE.move_to_end(key)
        return got
    got = _CACHE[key] = make()
    _CACHED[0] += _held(got)
    while _CACHED[0] > CACHE_INSTANCES and len(_CACHE) > 1:
        _CACHED[0] -= _held(_CACHE.popitem(last=False)[1])
    return got


def clear_cache() -> None:
    """Empty the per-process cache of drawn blocks."""
    _CACHE.clear()
    _CACHED[0] = 0


def _held(block: _Block) -> int:
    return sum(inst is not None for _, inst in block)


@functools.lru_cache(maxsize=16)
def _phases(cls: InstanceClass) -> tuple[str, ...]:
    """Phase names of the random strategies, in their order."""
    return tuple(f"random:{s.name}" for s in _strategies(cls))


def make_cell(policy: str | Policy, prop: str | Property, budget: int, seed: int,
              instance_class: InstanceClass | str | None, mode: str) -> Cell:
    """Validate the search parameters and build the cell.

    Raises
    ------
    PolicyError
        Unknown policy or property, bad mode.
    ValueError
        Negative budget or seed, or a bad instance class.
    """

    if mode not in MODES:
        raise PolicyError(f"unknown mode {mode!r} (modes: {', '.join(MODES)})")
    if int(budget) < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    if int(seed) < 0:  # numpy's SeedSequence takes none (a ValueError deep in the search otherwise)
        raise ValueError(f"seed: must be >= 0, got {seed}")
    return Cell(policy=get_policy(policy), prop=get_property(prop), budget=int(budget), seed=int(seed),
                cls=InstanceClass.parse(instance_class), mode=mode)


