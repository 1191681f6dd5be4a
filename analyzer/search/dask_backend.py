"""The Dask backend behind ``--scheduler ADDRESS``.

A search or a table sends the same work to a Dask distributed cluster that
``--workers`` sends to a local process pool: :class:`DaskPool` offers the
two pool methods the engine uses (``starmap`` for the chunks of one search's
stream, ``imap_unordered`` for the cells of a table), so results are
identical to the single-process run for the same seed (the engine's results
do not depend on how many workers check its chunks).

The workers must be able to import fairalloc (and any policy or property
file registered at run time) and, with ``--out``, write to the same file
system as the client (the cells of a table stream their checkpoints from
the worker that runs them). Install with ``pip install "fairalloc[dask]"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

#: Seconds to wait for the scheduler to answer before giving up.
CONNECT_TIMEOUT_SECONDS: int = 10


class SchedulerError(ValueError):
    """Dask is missing or the scheduler cannot be reached."""


class DaskPool:
    """A ``multiprocessing.Pool``-like facade over a ``distributed.Client``.

    Parameters
    ----------
    client : distributed.Client
        A connected client.
    """

    def __init__(self, client: Any) -> None:
        self.client = client

    @property
    def workers(self) -> int:
        """Worker threads in the cluster (at least 1)."""
        return max(1, sum(self.client.nthreads().values()))

    def starmap(self, fn: Callable[..., Any], args: Sequence[tuple[Any, ...]]) -> list[Any]:
        """``[fn(*a) for a in args]`` on the cluster, in order."""
        futures = self.client.map(fn, *zip(*args, strict=True), pure=False)
        return list(self.client.gather(futures))

    def imap_unordered(self, fn: Callable[[Any], Any], args: Iterable[Any]) -> Iterator[Any]:
        """``fn(a)`` for each ``a``, all submitted to the cluster at once,
        yielded in submission order (each as soon as it and those before it
        are done; callers key results by cell, not by arrival)."""
        futures = self.client.map(fn, list(args), pure=False)
        for future in futures:
            yield future.result()


@contextmanager
def dask_pool(address: str) -> Iterator[DaskPool]:
    """Connect to the Dask scheduler at ``address`` (``tcp://host:port``).

    Raises
    ------
    SchedulerError
        When dask is not installed or the scheduler cannot be reached (the
        command line turns it into one line and exit code 2).
    """
    try:
        from distributed import Client
    except ImportError:
        raise SchedulerError('--scheduler needs Dask: pip install "fairalloc[dask]"') from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise SchedulerError(f"--scheduler: cannot reach {address}: {' '.join(str(exc).split())[:120]}") from None
    try:
        yield DaskPool(client)
    finally:
        client.close()
