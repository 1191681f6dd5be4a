"""The ``fairalloc`` command line (also ``python -m analyzer``).

Subcommands live one per module in :mod:`analyzer.commands`; each module
defines ``register(subparsers)`` that adds its parser and sets ``run``.

Exit codes: 0 success; 1 a check found a violation; 2 bad input (one line
on stderr naming the file and field, never a traceback); 3 a solver failed;
130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from models import InstanceError, PolicyError, SolverError

EXIT_OK = 0
EXIT_VIOLATION = 1
EXIT_BAD_INPUT = 2
EXIT_SOLVER = 3
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A bad flag or flag value (exit code 2)."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and an exception, not exit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand module registered or, when
    ``command`` names a subcommand module that defines that subcommand, with
    that module only (the start-up of ``fairalloc solve`` then imports no
    other subcommand's dependencies)."""
    from . import commands

    parser = OneLineParser(
        prog="fairalloc",
        description="Analyze multi-resource fair allocation policies (DRF, asset fairness, CEEI, ...).",
    )
    parser.add_argument("--policy-file", action="append", default=[], metavar="FILE.py",
                        help="load policies defined in a Python file (repeatable; also accepted after the command)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    names = [i.name for i in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name)
             if not i.name.startswith("_")]
    if command is not None and command in names:
        importlib.import_module(f"{commands.__name__}.{command}").register(sub)
        if command in sub.choices:
            return parser
        return build_parser()
    for name in names:
        importlib.import_module(f"{commands.__name__}.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:
        words = load_policy_files(list(sys.argv[1:] if argv is None else argv))
        parser = build_parser(words[0] if words and not words[0].startswith("-") else None)
        args = parser.parse_args(words)
        return int(args.run(args))
    except (UsageError, InstanceError, PolicyError) as exc:
        return fail(str(exc), EXIT_BAD_INPUT)
    except SolverError as exc:
        return fail(str(exc), EXIT_SOLVER)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:
        return EXIT_OK


def load_policy_files(argv: list[str]) -> list[str]:
    """Load every ``--policy-file FILE`` (or ``--policy-file=FILE``) found
    anywhere in ``argv`` and return ``argv`` without them, so that every
    command taking ``--policy`` accepts the flag.

    Raises
    ------
    UsageError
        When the flag has no value.
    PolicyError
        When a file cannot be loaded (see :func:`analyzer.load_policy_file`).
    """
    from .policy_file import load_policy_file

    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest += argv[i:]
            break
        if arg == "--policy-file" or arg.startswith("--policy-file="):
            if "=" in arg:
                value = arg.split("=", 1)[1]
            elif i + 1 < len(argv):
                i += 1
                value = argv[i]
            else:
                raise UsageError("fairalloc: --policy-file: expected a file name")
            if not value:
                raise UsageError("fairalloc: --policy-file: expected a file name")
            load_policy_file(value)
        else:
            rest.append(arg)
        i += 1
    return rest


def fail(message: str, code: int) -> int:
    """Print ``fairalloc: error: message`` as one line on stderr."""
    one_line = " ".join(str(message).split())
    print(f"fairalloc: error: {one_line}", file=sys.stderr)
    return code


def add_format_option(parser: argparse.ArgumentParser, default: str = "text") -> None:
    """The shared ``--format`` flag."""
    from .render import FORMATS

    parser.add_argument("--format", choices=FORMATS, default=default, help=f"output format (default: {default})")


def split_list(value: str, what: str) -> list[str]:
    """Split ``"a,b,c"``; an empty item is a usage error naming ``what``."""
    items = [v.strip() for v in value.split(",")]
    if not items or any(not v for v in items):
        raise UsageError(f"--{what}: empty name in {value!r}")
    return items


def write_out(text: str) -> None:
    """Write to stdout (a closed pipe is not an error)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def entry_point() -> Any:
    """Console-script entry point."""
    sys.exit(main())
