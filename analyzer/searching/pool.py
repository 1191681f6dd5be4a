"""The process pool behind ``--workers`` (and, through
:func:`worker_pool`, the Dask cluster behind ``--scheduler``).

Workers ignore SIGINT: Ctrl-C reaches the parent, which stops the pool and
keeps what was already streamed. On Linux the pool forks, so policies and
properties registered at run time (user files, tests) are known to workers.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from models import SolverError


def resolve_workers(workers: int | None) -> int:
    """``None`` or ``0`` means all cores; otherwise at least 1.

    Raises
    ------
    ValueError
        For a negative number.
    """
    if workers is None or workers == 0:
        return os.cpu_count() or 1
    if workers < 0:
        raise ValueError(f"workers must be >= 0, got {workers}")
    return int(workers)


def warm_up(cells: Sequence[Any]) -> None:
    """Do, once in the parent, the work every forked worker would otherwise
    repeat: build the grid prefixes and import what the policies and
    properties import lazily (cvxpy, scipy, sympy...), by checking each
    property once on a small instance of the stream.

    The outcome of a search never depends on this; only the time does.
    """
    seen: set[tuple[str, str]] = set()
    for cell in cells:
        cell.grid_len  # noqa: B018 -- builds and caches the grid prefix
        key = (type(cell.policy).__name__, type(cell.prop).__name__)
        if key in seen:
            continue
        seen.add(key)
        _, inst = cell.at(cell.grid_len)  # the first random instance
        if cell.policy.supports(inst) is None and cell.prop.applies(inst) is None:
            try:
                cell.prop.check(cell.policy, inst, cell.mode)
            except SolverError:  # counted and reported by the search itself
                pass


def _ignore_sigint() -> None:
    """Pool worker start-up: Ctrl-C is the parent's; numeric RuntimeWarnings
    of the screens are not printed (a spawned worker does not inherit the
    parent's warning filters)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by the parent across the fork
    warnings.simplefilter("ignore", RuntimeWarning)


@contextmanager
def process_pool(workers: int) -> Iterator[Any]:
    """A ``multiprocessing.Pool`` of ``workers`` processes, or ``None`` for 1
    (and when other threads run in this process: see below).

    The pool is terminated (not joined) on exit, also on KeyboardInterrupt.
    """
    if workers <= 1 or threading.active_count() > 1:
        # forking a process in which other threads run (a Dask client's
        # event loop, a library's executor) can leave a child waiting forever
        # on a lock one of them held: then one process does the work, with
        # the same result (a search's outcome does not depend on the workers)
        yield None
        return
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    # Ctrl-C is blocked while the workers are made, so a worker cannot
    # receive it between the fork and its own SIG_IGN (it would print a
    # KeyboardInterrupt traceback of its start-up); the pool's maintenance
    # threads, started here, keep the mask for the workers they replace.
    # The parent receives a Ctrl-C held meanwhile once it is unblocked.
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool = multiprocessing.get_context(method).Pool(workers, initializer=_ignore_sigint)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    try:
        yield pool
    finally:
        pool.terminate()
        pool.join()


@contextmanager
def worker_pool(workers: int | None, scheduler: Any = None) -> Iterator[tuple[Any, int]]:
    """``(pool, n)``: a Dask cluster when ``scheduler`` is given (an address,
    a ``distributed.Client`` or a cluster object; ``n`` its worker threads;
    see :mod:`analyzer.searching.dask_backend`), otherwise
    a process pool of ``resolve_workers(workers)`` processes (``None`` for
    one). ``pool`` offers ``starmap`` and ``imap_unordered``.
    """
    if scheduler is not None and scheduler != "":
        from .dask_backend import dask_pool

        with dask_pool(scheduler) as pool:
            yield pool, pool.workers
        return
    n = resolve_workers(workers)
    with process_pool(n) as pool:
        yield pool, n
