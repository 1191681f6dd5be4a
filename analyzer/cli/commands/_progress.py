"""Progress bars for long commands: tqdm on stderr, shown only when stderr
is a terminal and ``--quiet`` is not given."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def progress_bar(total: int, unit: str, quiet: bool, desc: str = "") -> Any:
    """A tqdm bar (disabled when not wanted; its methods are then no-ops)."""
    from tqdm import tqdm

    class Bar(tqdm):
        # no monitor thread (tqdm starts one per process, even for a disabled
        # bar): the search forks its process pool after creating the bar, and
        # forking a process with stray threads can deadlock the children
        monitor_interval = 0

    enabled = not quiet and sys.stderr.isatty()
    return Bar(total=total, unit=unit, desc=desc, file=sys.stderr, disable=not enabled, leave=False,
                dynamic_ncols=True)


@contextmanager
def quiet_numeric_warnings() -> Iterator[None]:
    """No numpy/scipy ``RuntimeWarning`` (overflow, division by zero in a
    numeric screen) reaches the terminal through the progress bar during a
    search: screens treat inf/nan as "no candidate", and every reported
    counterexample is re-verified exactly. Pool workers forked inside the
    block inherit the filter."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


@contextmanager
def behind_bar(bar: Any, quiet_warnings: bool = True) -> Iterator[None]:
    """Run a long job behind its progress bar: numeric warnings quiet (see
    :func:`quiet_numeric_warnings`), a Dask scheduler that cannot be
    reached is bad input (:class:`~analyzer.cli.common.UsageError`, exit
    2), and the bar closed however the job ends (tqdm's close is
    idempotent)."""
    from ...searching.dask_backend import SchedulerError
    from ..common import UsageError

    try:
        if quiet_warnings:
            with quiet_numeric_warnings():
                yield
        else:
            yield
    except SchedulerError as exc:
        raise UsageError(str(exc)) from None
    finally:
        bar.close()


def add_run_options(p: Any) -> None:
    """Flags shared by ``search`` and ``table`` (with ``--format``)."""
    from ..common import add_format_option, seed_value

    add_format_option(p)
    p.add_argument("--budget", type=int, default=None, help="instances checked per search (default: 10000)")
    p.add_argument("--seed", type=seed_value, default=0, help="master seed (default: 0); same seed, same result")
    p.add_argument("--class", dest="instance_class", default=None,
                   help="instance class: paper (default) or options zeros,weights,caps (or all)")
    p.add_argument("--mode", choices=("continuous", "discrete", "dynamic"), default="continuous",
                   help="setting (default: continuous; dynamic: users arrive in the order listed)")
    p.add_argument("--out", default=None, help="stream checkpoints and findings to this JSON-lines file")
    p.add_argument("--resume", action="store_true", help="continue the run recorded in --out")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on the Dask cluster at ADDRESS (tcp://host:8786) instead of local processes; "
                        'needs pip install "fairalloc[dask]"')
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def checked_out(path: str | None) -> str | None:
    """The ``--out`` file of ``search`` and ``table``, refused before the
    work when it cannot be written (:func:`~analyzer.cli.common.check_destination`)."""
    from ..common import check_destination

    if path is not None:
        check_destination(path, "--out")
    return path


def checked_budget(value: int | None, default: int) -> int:
    """The ``--budget`` value, validated.

    Raises
    ------
    UsageError
        For a negative budget.
    """
    from ..common import UsageError

    if value is None:
        return default
    if value < 0:
        raise UsageError(f"--budget: must be >= 0, got {value}")
    return value
