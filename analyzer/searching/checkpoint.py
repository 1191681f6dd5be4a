"""The running state of one search, as checkpointed to the ``--out``
stream (:mod:`~analyzer.searching.stream`) and resumed from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..properties.base import Violation
from .checks import NEAR_MISSES, Chunk


@dataclass
class SearchState:
    """Where one search is: the next stream position, the instances checked
    and skipped, the first solver error, the near misses kept for the
    optimisation and the next optimisation start. A ``progress`` record of
    the ``--out`` stream holds exactly this (:meth:`to_record`,
    :meth:`from_record`)."""

    pos: int = 0
    checked: int = 0
    unsupported: int = 0
    not_applicable: int = 0
    errors: int = 0
    error: str | None = None
    near: list[tuple[float, int]] = field(default_factory=list)
    opt_start: int = 0

    def to_record(self, key: str, phase: str) -> dict[str, Any]:
        """The checkpoint record of cell ``key`` in ``phase``."""
        return {"type": "progress", "cell": key, "phase": phase, "pos": self.pos, "checked": self.checked,
                "unsupported": self.unsupported, "not_applicable": self.not_applicable, "errors": self.errors,
                "error": self.error, "near": [list(x) for x in self.near], "opt_start": self.opt_start}

    @classmethod
    def from_record(cls, r: dict[str, Any]) -> SearchState:
        """Inverse of :meth:`to_record`."""
        return cls(pos=r["pos"], checked=r["checked"], unsupported=r["unsupported"],
                   not_applicable=r["not_applicable"], errors=r["errors"], error=r.get("error"),
                   near=[(float(a), int(b)) for a, b in r["near"]], opt_start=r.get("opt_start", 0))

    def absorb(self, chunk: Chunk, limit: int) -> tuple[Violation | None, str | None, int | None]:
        """Merge a chunk (in stream order), stopping after ``limit`` checks."""
        found: tuple[Violation | None, str | None, int | None] = (None, None, None)
        for off, ev in enumerate(chunk.events):
            if self.checked >= limit:
                return found
            pos = chunk.start + off
            self.pos = pos + 1
            if ev == "u":
                self.unsupported += 1
            elif ev == "a":
                self.not_applicable += 1
            elif ev == "e":
                self.errors += 1
                self.error = self.error or chunk.error
            else:
                self.checked += 1
        last = chunk.start + len(chunk.events) - 1
        self.near = sorted([*self.near, *((m, p) for m, p in chunk.near if p < self.pos)])[:NEAR_MISSES]
        if chunk.violation is not None:
            return chunk.violation, chunk.phase, last
        return found


