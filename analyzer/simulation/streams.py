"""Streams of job specs that know how many specs they have read ahead.

A simulation cannot know its work in advance (jobs stream in, repeat,
are cut by ``until``: :mod:`.forms`), but a stream read in batches (a
trace's chunk of rows, a workload file's jobs) holds the specs of its
current batch before the run reaches them. :meth:`SpecStream.known`
counts them, so that a run whose work is known to be large starts on the
compiled event loop instead of running its first events as Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import numpy as np

#: A job spec (:class:`.workload.JobSpec`; the streams know nothing of its fields).
Spec = TypeVar("Spec")


class SpecStream(Iterator[Spec]):
    """Job specs in arrival order, read in batches (a trace's chunk, a
    TOML file's jobs), that say how many specs they hold already read:
    the work a run has ahead of it before it starts (:mod:`.forms`).

    Parameters
    ----------
    batches : iterable of (ndarray, callable)
        Each batch: the arrival times of its specs (non-decreasing) and
        a function making its ``k``-th spec.
    """

    def __init__(self, batches: Iterable[tuple[np.ndarray, Callable[[int], Spec]]]) -> None:
        self._batches = iter(batches)
        self._arrivals: np.ndarray = np.zeros(0)
        self._make: Callable[[int], Spec] | None = None
        self._pos = 0

    def __next__(self) -> Spec:
        while self._pos >= self._arrivals.size:
            self._arrivals, self._make = next(self._batches)  # StopIteration ends the stream
            self._pos = 0
        assert self._make is not None
        self._pos += 1
        return self._make(self._pos - 1)

    def known(self, until: float | None = None) -> int:
        """Specs read and not handed out yet that arrive by ``until``
        (all when ``None``); the batches not read yet are not counted."""
        rest = self._arrivals[self._pos:]
        return int(rest.size if until is None else np.count_nonzero(rest <= until))


def specs_known(stream: Iterator[Spec], until: float | None = None) -> int:
    """:meth:`SpecStream.known` of ``stream``; 0 for any other iterator
    (a workload built by hand says nothing ahead of time)."""
    return stream.known(until) if isinstance(stream, SpecStream) else 0


__all__ = ["SpecStream", "specs_known"]
