"""Ctrl-C that never lands inside an import.

Most heavy modules (scipy's HiGHS, cvxpy, sympy, z3) are imported lazily, in
the middle of a search. A ``KeyboardInterrupt`` raised while a compiled
extension initialises is not an ordinary exception: pybind11 turns it into
``ImportError: initialization failed`` (a traceback, exit 1), a library's
``try: import ... except ImportError`` fallback swallows it (the run goes on
and exits 0), or CPython records it as unhandled and kills the process with
SIGINT at exit, whatever exit code the command chose. All three were seen
on ``fairalloc search`` interrupted a fraction of a second after its start.

The command line therefore installs :func:`install`: a SIGINT handler that
raises ``KeyboardInterrupt`` as Python's default handler does, except while
an import (or numba's compilation of a kernel, which breaks the same way)
is running; then the interrupt is held and delivered by a timer (SIGALRM)
as soon as neither is on the stack. Library code does not touch
the handler: only the console entry point installs it.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType

#: Seconds between two looks at whether the import holding a Ctrl-C has ended.
RETRY_SECONDS = 0.01

_IMPORT_FRAMES = "<frozen importlib"

#: Packages whose Python frames on the stack mean a kernel is being
#: compiled (numba's compiler, llvmlite): a ``KeyboardInterrupt`` raised
#: there leaves them half initialised, and the next step fails with an
#: unrelated ``AttributeError`` traceback (seen on ``fairalloc variants``
#: interrupted during its first, compiling, run). A compiled kernel that
#: runs is called from C, with no such frame above it.
_COMPILER_DIRS = tuple(f"{os.sep}{pkg}{os.sep}" for pkg in (os.path.join("numba", "core"), "llvmlite"))


def _in_import(frame: FrameType | None) -> bool:
    """Whether an import, or the compilation of a kernel, runs somewhere on
    the stack that ``frame`` ends."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(_IMPORT_FRAMES) or any(d in name for d in _COMPILER_DIRS):
            return True
        frame = frame.f_back
    return False


def _deliver(signum: int, frame: FrameType | None) -> None:
    """Raise ``KeyboardInterrupt`` here, or hold it while an import runs."""
    if _in_import(frame):
        signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    raise KeyboardInterrupt


def install() -> bool:
    """Install the import-safe Ctrl-C handler in the main thread.

    Returns whether it was installed: not when SIGINT is ignored or has a
    handler of somebody else's (an embedding application), nor outside the
    main thread, nor when SIGALRM is already in use.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return False
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False
    if signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None):
        return False
    signal.signal(signal.SIGALRM, _deliver)
    signal.signal(signal.SIGINT, _deliver)
    return True
