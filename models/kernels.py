"""Which form of a kernel runs: plain Python for small work, compiled above a size.

fairalloc's kernels (the discrete engine's first fit, Mesos offers, the
simulator's event loop) are plain Python functions on numpy arrays that
numba can compile (:mod:`models.compiled`). Compiling pays off only for
large work: importing numba and loading the compiled kernels from the disk
cache costs more (about 0.7 s) than a small run takes as Python, and the
first compilation of an installation takes seconds. So each entry point
measures its work (the kernel's own unit: placements for the discrete
engine, events and decisions for the simulator) and asks
:func:`runs_compiled`: below :data:`COMPILE_MIN_WORK` of its kind (with
the work the process has run as Python so far: many small calls add up)
the Python form runs and numba is not even imported (unless this process
has loaded the compiled kernel already: then it runs compiled).

Above it, the first compiled run of an installation compiles every
registered kernel at once, for the argument types its callers pass
(:func:`compiled_form`): one line on standard error announces it (see
:func:`models.compiled.set_notice`), numba caches the code on disk, and
every later run of any command loads it. A kernel registers with
:func:`register_kernel` from its own module; the modules are found through
the ``fairalloc.kernels`` entry points of the installed package (the
installation declares its kernels; ``models`` names no module of the
packages above it), and the built-in ``models`` kernels also without them.

The seconds spent importing numba and compiling or loading kernels are
counted by :func:`kernel_seconds`; :class:`Stopwatch` leaves them out of
the timings a run reports (the simulator's ``seconds``).

Examples
--------
>>> KERNELS.get("first-fit").work  # its unit of work: a threshold in COMPILE_MIN_WORK
'placements'
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .compiled import announce, cache_root, compile_ahead, compiled_before, numba_available
from .registry import Registry

#: Work from which a kernel runs compiled rather than as Python, per kind
#: of work (:attr:`Kernel.work`): ``"placements"`` counts the estimated
#: placements of the discrete engine's first fit (about 3 us each as
#: Python; cursor steps and Mesos offers in that unit, see
#: ``models._fill_kernel.CURSOR_STEP`` and
#: ``models.variants._mesos_offers.OFFER_COST``), ``"events"`` the
#: simulator's events plus decisions (about 50 us each as Python). Each is
#: the work whose Python CPU time equals that of importing numba and
#: loading the compiled kernel from the cache (0.6-0.7 s), rounded up:
#: ``benchmarks/bench_cold_start.py`` measures it (its "break-even" lines,
#: two runs at load 8-10: first fit 209,000-230,000 placements, offers
#: 198,000-228,000, the simulator 12,000-14,000 events).
COMPILE_MIN_WORK: dict[str, int] = {"placements": 250_000, "events": 15_000}

#: The entry-point group naming the modules that register kernels.
ENTRY_POINTS = "fairalloc.kernels"


@dataclass(frozen=True)
class Kernel:
    """A kernel: its Python function, the helpers it calls (callees first),
    sample arguments typed as its callers pass them, its kind of work (a
    key of :data:`COMPILE_MIN_WORK`) and whether it needs numba's runtime
    (see :func:`models.compiled.compiled`)."""

    function: Callable[..., Any]
    helpers: tuple[Callable[..., Any], ...]
    sample: Callable[[], tuple[Any, ...]]
    work: str
    runtime: bool = True

    def compiled_before(self) -> bool:
        """Whether this installation compiled it already (same sources and versions)."""
        return compiled_before(self.function, self.helpers, runtime=self.runtime)


#: Registered kernels by name.
KERNELS: Registry[Kernel] = Registry("compiled kernel", lazy=("models._fill_kernel", "models.variants._mesos_offers"))

_FORMS: dict[str, Callable[..., Any]] = {}
#: Work run as Python with the kernels of each kind in this process (:func:`runs_compiled`).
_PYTHON_WORK: dict[str, float] = {}
_SECONDS = [0.0]
_LOCK = threading.RLock()
_ENTRY_POINTS_LOADED = [False]


def register_kernel(name: str, function: Callable[..., Any], helpers: tuple[Callable[..., Any], ...],
                    sample: Callable[[], tuple[Any, ...]], work: str, *, runtime: bool = True) -> None:
    """Register a kernel (from the module defining it) under ``name``.

    Raises
    ------
    ValueError
        For a kind of work without a threshold in :data:`COMPILE_MIN_WORK`.
    """
    if work not in COMPILE_MIN_WORK:
        raise ValueError(f"{name}: unknown kind of work {work!r} (known: {', '.join(COMPILE_MIN_WORK)})")
    KERNELS.register(name, Kernel(function, helpers, sample, work, runtime))


def runs_compiled(name: str, work: float, *, tally: bool = True) -> bool:
    """Whether kernel ``name`` should run compiled for ``work`` more units
    of its kind: numba available (only then imported) and either the
    kernel loaded by this process already (nothing left to pay for) or
    the work at least :data:`COMPILE_MIN_WORK`. With ``tally`` the work
    this process has run as Python with kernels of that kind counts too,
    and a ``False`` adds ``work`` to it: many small calls add up (a
    simulation under a production variant runs an offer round per
    scheduling round). ``tally=False``: ``work`` is the whole run's (the
    simulator measures its own)."""
    kind = KERNELS.get(name).work
    if name not in _FORMS:
        done = _PYTHON_WORK.get(kind, 0.0) if tally else 0.0
        if done + work < COMPILE_MIN_WORK[kind]:
            if tally:
                _PYTHON_WORK[kind] = done + work
            return False
    t0 = time.perf_counter()
    try:
        return numba_available()
    finally:
        _SECONDS[0] += time.perf_counter() - t0


def choose(name: str, work: float) -> Callable[..., Any]:
    """Kernel ``name`` compiled when :func:`runs_compiled` says so, else its Python function."""
    return compiled_form(name) if runs_compiled(name, work) else KERNELS.get(name).function


def load_kernel_modules() -> None:
    """Import every module that registers kernels: the installed package's
    ``fairalloc.kernels`` entry points, then the built-in ones."""
    if not _ENTRY_POINTS_LOADED[0]:
        from importlib.metadata import entry_points

        _ENTRY_POINTS_LOADED[0] = True
        for ep in sorted(entry_points(group=ENTRY_POINTS), key=lambda e: e.name):
            ep.load()
    KERNELS.load()


def compiled_form(name: str) -> Callable[..., Any]:
    """Kernel ``name`` compiled (numba must be available). The first call
    of a process compiles, in one go, every registered kernel this
    installation has not compiled yet (announced in one line), then loads
    ``name`` from the disk cache; the seconds are added to
    :func:`kernel_seconds`."""
    with _LOCK:
        out = _FORMS.get(name)
        if out is not None:
            return out
        t0 = time.perf_counter()
        try:
            load_kernel_modules()
            pending = [n for n, k in KERNELS.items() if n not in _FORMS and not k.compiled_before()]
            if pending:
                announce(f"compiling the fast kernels with numba ({len(pending)} kernels, once per installation: "
                         f"about a minute; cached in {cache_root()})")
            for n in (*pending, name):
                if n not in _FORMS:
                    k = KERNELS.get(n)
                    _FORMS[n] = compile_ahead(k.function, k.helpers, k.sample(), runtime=k.runtime)
        finally:
            _SECONDS[0] += time.perf_counter() - t0
        return _FORMS[name]


def prepare(names: list[str] | None = None) -> float:
    """Compile (or load from the disk cache) the kernels ``names`` (all
    when ``None``) now, before any timed work; the seconds it took. With
    numba missing or disabled, nothing is done.

    A loaded kernel then runs compiled whatever the size of the work
    (:func:`runs_compiled`): benchmarks call this to time the compiled
    form alone, and so may a script that wants every run compiled.
    """
    t0 = time.perf_counter()
    if numba_available():
        load_kernel_modules()
        for name in KERNELS.names() if names is None else names:
            compiled_form(name)
    return time.perf_counter() - t0


def kernel_seconds() -> float:
    """Seconds this process spent importing numba and compiling or loading kernels."""
    return _SECONDS[0]


class Stopwatch:
    """Wall seconds since it was made, without :func:`kernel_seconds` spent meanwhile.

    Examples
    --------
    >>> watch = Stopwatch()
    >>> watch.seconds() >= 0 and watch.kernel_seconds() == 0
    True
    """

    def __init__(self) -> None:
        self._t0 = time.perf_counter()
        self._k0 = kernel_seconds()

    def kernel_seconds(self) -> float:
        """Seconds spent on numba (import, compilation, cache loads) since the start."""
        return kernel_seconds() - self._k0

    def seconds(self) -> float:
        """Seconds since the start, numba's time left out."""
        return time.perf_counter() - self._t0 - self.kernel_seconds()


__all__ = ["COMPILE_MIN_WORK", "ENTRY_POINTS", "KERNELS", "Kernel", "Stopwatch", "choose", "compiled_form",
           "kernel_seconds", "load_kernel_modules", "prepare", "register_kernel", "runs_compiled"]
