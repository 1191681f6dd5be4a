"""The ``fairalloc`` command line (also ``python -m analyzer``): the parser
and the dispatch to the subcommands.

Subcommands live one per module in :mod:`analyzer.cli.commands`; each module
defines ``register(subparsers)`` that adds its parser and sets ``run``.
What they share (exit codes, flags, loading, output) is
:mod:`analyzer.cli.common`.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from typing import NoReturn

from models import InstanceError, PolicyError, SolverError, SolverOptionError
from models.compiled import set_notice
from models.errors import did_you_mean

from ..render import package_version
from .common import (
    _WARNINGS,
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_SOLVER,
    UsageError,
    _note,
    fail,
    load_policy_files,
    write_out,
)


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and an exception, not exit.

    The message names the subcommand (``solve: unrecognized arguments:
    --bogus``), not the program: :func:`fail` adds ``fairalloc: error:``.
    """

    def error(self, message: str) -> NoReturn:
        where = self.prog.removeprefix("fairalloc").strip()
        raise UsageError(f"{where}: {message}" if where else message)


def _flag_hint(parser: argparse.ArgumentParser, command: str | None, message: str) -> str:
    """``"; did you mean --policy?"`` for a misspelt flag in an
    "unrecognized arguments" message (the flags of ``command`` and the
    program's own)."""
    if not message.startswith("unrecognized arguments:"):
        return ""
    known = list(parser._option_string_actions)
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if sub is not None and command in sub.choices:
        known += list(sub.choices[command]._option_string_actions)
    for word in message.split(":", 1)[1].split():
        flag = word.split("=", 1)[0]
        if flag.startswith("--"):
            hint = did_you_mean(flag, [k for k in known if k.startswith("--")])
            if hint:
                return hint
    return ""


def command_names() -> list[str]:
    """The subcommands (one module each in :mod:`analyzer.cli.commands`)."""
    from . import commands

    return [i.name for i in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name)
            if not i.name.startswith("_")]


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
    parser.add_argument("--version", action="version", version=f"fairalloc {package_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    names = command_names()
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
    _WARNINGS.clear()
    set_notice(_note)
    try:
        words = load_policy_files(list(sys.argv[1:] if argv is None else argv))
        if words == ["--version"]:  # without building every subcommand's parser
            write_out(f"fairalloc {package_version()}\n")
            return EXIT_OK
        command = words[0] if words and not words[0].startswith("-") else None
        if command is not None and command not in (known := command_names()):
            raise UsageError(
                f"unknown command {command!r}{did_you_mean(command, known)} (commands: {', '.join(known)})"
            )
        parser = build_parser(command)
        try:
            args = parser.parse_args(words)
        except SystemExit as exc:  # --help, --version: argparse printed them
            return exc.code if isinstance(exc.code, int) else EXIT_OK
        except UsageError as exc:
            raise UsageError(f"{exc}{_flag_hint(parser, command, str(exc))}") from None
        code = int(args.run(args))
        for line in _WARNINGS:  # after the output; not when an error makes them moot
            print(f"fairalloc: warning: {line}", file=sys.stderr)
        return code
    except (UsageError, InstanceError, PolicyError, SolverOptionError) as exc:
        return fail(str(exc), EXIT_BAD_INPUT)
    except SolverError as exc:  # SolverFailure: no solver answered one instance (named)
        return fail(str(exc), EXIT_SOLVER)
    except MemoryError:  # past models.limits' sizes, a size the machine cannot hold: still one line
        return fail("out of memory: a size or budget asked for is too large for this machine", EXIT_BAD_INPUT)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:
        return EXIT_OK
