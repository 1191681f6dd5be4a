"""The ``fairalloc`` console script and ``python -m analyzer``: standard
library only, so that Ctrl-C is handled from the first instruction.

:func:`main` installs the import-safe SIGINT handler
(:mod:`analyzer.cli.interrupts`) before anything heavy loads (numpy, the
command line's modules), then imports and runs :func:`analyzer.cli.main.main`.
A Ctrl-C at any moment from there to the last write gives one line on
stderr and exit code 130; what ``--out`` recorded stays (the commands
stream it as they go). Once the output is written and flushed, Ctrl-C is
ignored: the work is done and the exit code stands.
"""

import signal
import sys

from .interrupts import install

#: Exit code of an interrupted command (128 + SIGINT), as analyzer.cli.common's.
EXIT_INTERRUPTED = 130


def _interrupted() -> int:
    """The one line of an interrupted command; its exit code."""
    try:
        sys.stderr.write("fairalloc: error: interrupted\n")
        sys.stderr.flush()
    except (KeyboardInterrupt, OSError):
        pass
    return EXIT_INTERRUPTED


def _quiet() -> None:
    """From here on Ctrl-C changes nothing: ignore it, and the timer that
    delivers one held during an import (:mod:`analyzer.cli.interrupts`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)


def main() -> None:
    """Run the command line with Ctrl-C handled throughout; exits."""
    install()
    try:
        from .main import main as cli_main

        code = cli_main()
        for stream in (sys.stdout, sys.stderr):  # the last writes, still under the handler
            try:
                stream.flush()
            except BrokenPipeError:
                pass
        if hasattr(signal, "getitimer") and signal.getitimer(signal.ITIMER_REAL)[0] > 0:
            raise KeyboardInterrupt  # a Ctrl-C held by an import, not delivered yet
        _quiet()
    except KeyboardInterrupt:
        _quiet()
        code = _interrupted()
    sys.exit(code)
