"""The Dask backend behind ``--scheduler ADDRESS``.

A search or a table sends the same work to a Dask distributed cluster that
``--workers`` sends to a local process pool: :class:`DaskPool` offers the
two pool methods the engine uses (``starmap`` for the chunks of one search's
stream, ``imap_unordered`` for the cells of a table), so results are
identical to the single-process run for the same seed (the engine's results
do not depend on how many workers check its chunks).

The workers must be able to import fairalloc and, with ``--out``, write to
the same file system as the client (the cells of a table stream their
checkpoints from the worker that runs them). Policy files loaded with
``--policy-file`` (or :func:`analyzer.load_policy_file`) are shipped: their
source is imported on the scheduler (which deserialises the tasks) and, by
a worker plugin, on every worker, also on workers that join later. A
failure on a worker (a task raising, a worker dying) is one
:class:`SchedulerError`, which the command line reports in one line with
exit code 2. Install with ``pip install "fairalloc[dask]"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

#: Seconds to wait for the scheduler to answer before giving up.
CONNECT_TIMEOUT_SECONDS: int = 10


class SchedulerError(ValueError):
    """Dask is missing, the scheduler cannot be reached, or a worker failed."""


def _remote(what: str, exc: BaseException) -> SchedulerError:
    text = " ".join(str(exc).split())[:160]
    return SchedulerError(f"--scheduler: {what}: {type(exc).__name__}" + (f": {text}" if text else ""))


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
        """``[fn(*a) for a in args]`` on the cluster, in order.

        Raises
        ------
        SchedulerError
            When a task fails or a worker dies (one line).
        """
        futures = self.client.map(fn, *zip(*args, strict=True), pure=False)
        try:
            return list(self.client.gather(futures))
        except Exception as exc:  # noqa: BLE001 -- a remote failure can be any exception: report it in one line
            raise _remote("a worker failed", exc) from None

    def imap_unordered(self, fn: Callable[[Any], Any], args: Iterable[Any]) -> Iterator[Any]:
        """``fn(a)`` for each ``a``, all submitted to the cluster at once,
        yielded in submission order (each as soon as it and those before it
        are done; callers key results by cell, not by arrival)."""
        futures = self.client.map(fn, list(args), pure=False)
        for future in futures:
            try:
                result = future.result()
            except Exception as exc:  # noqa: BLE001 -- as in starmap
                raise _remote("a worker failed", exc) from None
            yield result


@contextmanager
def dask_pool(scheduler: Any) -> Iterator[DaskPool]:
    """A :class:`DaskPool` on ``scheduler``: an address (``tcp://host:port``),
    a connected ``distributed.Client`` (used as is, left open) or a cluster
    object such as ``LocalCluster`` (a client is opened on it and closed).

    Raises
    ------
    SchedulerError
        When dask is not installed, the scheduler cannot be reached, or the
        policy files cannot be shipped (the command line turns it into one
        line and exit code 2).
    """
    try:
        from distributed import Client
    except ImportError:
        raise SchedulerError('--scheduler needs Dask: pip install "fairalloc[dask]"') from None
    own = not isinstance(scheduler, Client)
    if isinstance(scheduler, Client):
        client = scheduler
    else:
        where = scheduler if isinstance(scheduler, str) else getattr(scheduler, "scheduler_address", None)
        if where is None:
            raise SchedulerError(f"--scheduler: expected an address, a distributed.Client or a cluster, "
                                 f"got {type(scheduler).__name__}")
        if isinstance(scheduler, str):
            _check_reachable(scheduler)
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT_SECONDS, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise SchedulerError(f"--scheduler: cannot reach {where}: {' '.join(str(exc).split())[:120]}") from None
    try:
        _ship_policy_files(client)
        yield DaskPool(client)
    finally:
        if own:
            client.close()


def _check_reachable(address: str) -> None:
    """Fail fast, before any ``Client`` exists, when nothing listens at a
    ``tcp://host:port`` address: a ``Client`` whose connection fails leaves
    its event-loop thread running, and a process pool forked later from a
    process with stray threads can deadlock.

    Raises
    ------
    SchedulerError
        When the address does not accept a TCP connection.
    """
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme != "tcp" or parts.hostname is None or parts.port is None:
        return  # tls://, inproc:// ...: left to distributed
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=CONNECT_TIMEOUT_SECONDS):
            pass
    except OSError as exc:
        raise SchedulerError(f"--scheduler: cannot reach {address}: {exc.strerror or exc}") from None


def _ship_policy_files(client: Any) -> None:
    """Import the loaded policy files on the scheduler (it deserialises the
    task graph) and register a
    :class:`~analyzer.searching._dask_plugin.PolicyFilePlugin` for the workers
    (a no-op without any policy file)."""
    from ..policy_file import install_policy_sources, loaded_policy_sources
    from ._dask_plugin import PolicyFilePlugin

    sources = loaded_policy_sources()
    if not sources:
        return
    try:  # the scheduler unpickles the tasks too, so it needs the policy classes
        client.run_on_scheduler(install_policy_sources, sources)
        client.register_plugin(PolicyFilePlugin(sources), name=f"{PolicyFilePlugin.name}-{len(sources)}")
    except Exception as exc:  # noqa: BLE001 -- the user's file fails to import on a worker: one line
        raise _remote("cannot load the policy files on the workers", exc) from None
