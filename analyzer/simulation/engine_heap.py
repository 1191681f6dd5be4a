"""The reference engine's user heap (:mod:`.engine`): keys, pushes, and
the usage memory, kept exactly as the kernel keeps it
(:func:`.kstore.memory_at`; the definition is in :mod:`.memory`), so the
decisions of the two engines stay the same."""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np

from . import kstore as ks

#: The user heap is compacted when it holds this many entries per user.
_HEAP_SLACK: int = 4


class UserHeap:
    """Users by key, smallest first: ``heap`` holds ``(key, rank, version,
    user)``, an entry stale once the user's version moved on. Memory:
    ``um`` (per user, as the kernel's), ``rate`` (ln 2 / half-life, 0
    without memory), ``now`` (the time)."""

    um: np.ndarray
    rate: float
    now: float
    U: np.ndarray
    model: Any
    users: list[Any]
    heap: list[tuple[float, float, int, int]]
    blocked: set[int]

    def _key(self, i: int) -> float:
        return (float(self.model.shares(self.U[i][None, :])[0]) + self._memory(i)) / self.users[i].weight

    def _push_many(self, idx: list[int]) -> None:
        """Unblock ``idx`` and push them, keys computed in one call."""
        if not idx:
            return
        users = self.users
        keys = self.model.shares(self.U[idx]).tolist()
        for i, key in zip(idx, keys, strict=True):
            u = users[i]
            u.blocked = False
            self.blocked.discard(i)
            u.version += 1
            if u.queue:
                heapq.heappush(self.heap, ((key + self._memory(i)) / u.weight, u.rank, u.version, i))

    def _push(self, i: int) -> None:
        u = self.users[i]
        u.version += 1
        if u.queue and not u.blocked:
            heapq.heappush(self.heap, (self._key(i), u.rank, u.version, i))

    def _compact(self) -> None:
        """Drop stale heap entries (superseded by a later push) once they
        outnumber the users: they cost memory.
        Valid entries are distinct tuples, so the pop order is unchanged."""
        users = self.users
        if len(self.heap) > _HEAP_SLACK * (len(users) + 1):
            self.heap[:] = [e for e in self.heap if e[2] == users[e[3]].version]
            heapq.heapify(self.heap)

    def _memory(self, i: int) -> float:
        """User ``i``'s usage memory now (0 without memory)."""
        return ks.memory_at(self.um, i, self.rate, self.now)

    def _held(self, i: int) -> None:
        """User ``i``'s use changed now: fold the share it held into its memory."""
        if self.rate > 0.0:
            ks.memory_hold(self.um, i, self.rate, self.now, float(self.model.shares(self.U[i][None, :])[0]))

    def _rekey(self) -> None:
        """Every waiting user's key now (usage memory moves with time); the
        shares in one call, as :meth:`_push_many` computes them."""
        users = self.users
        for u in users:
            u.version += 1
        idx = [i for i, u in enumerate(users) if u.queue and not u.blocked]
        shares = self.model.shares(self.U[idx]).tolist() if idx else []
        self.heap[:] = [((s + self._memory(i)) / users[i].weight, users[i].rank, users[i].version, i)
                        for i, s in zip(idx, shares, strict=True)]
        heapq.heapify(self.heap)
