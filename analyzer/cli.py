"""The ``fairalloc`` command line (also ``python -m analyzer``).

Subcommands live one per module in :mod:`analyzer.commands`; each module
defines ``register(subparsers)`` that adds its parser and sets ``run``.

Exit codes: 0 success; 1 a check found a violation; 2 bad input (one line
on stderr naming the file and field, never a traceback), also a size past
:mod:`models.limits`; 3 a solver failed (no solver answered an instance,
:class:`~models.errors.SolverFailure`, naming the policy and the
instance); 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from models import InstanceError, PolicyError, SolverError, SolverOptionError
from models.compiled import set_notice
from models.errors import did_you_mean

EXIT_OK = 0
EXIT_VIOLATION = 1
EXIT_BAD_INPUT = 2
EXIT_SOLVER = 3
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A bad flag or flag value (exit code 2)."""


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


def package_version() -> str:
    """fairalloc's version from the installed package's metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fairalloc")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree that was never installed
        return "unknown (not installed)"


def command_names() -> list[str]:
    """The subcommands (one module each in :mod:`analyzer.commands`)."""
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
                raise UsageError("--policy-file: expected a file name")
            if not value:
                raise UsageError("--policy-file: expected a file name")
            load_policy_file(value)
        else:
            rest.append(arg)
        i += 1
    return rest


def load_instance(path: str) -> Any:
    """The scenario named on the command line: a ``.toml``/``.json`` file, or
    ``-`` for standard input (TOML, or JSON when the text starts with ``{``).

    Raises
    ------
    InstanceError
        For unreadable or malformed input, naming the file (or ``<stdin>``).
    """
    from models import Instance

    inst = Instance.parse(sys.stdin.buffer.read(), "<stdin>") if path == "-" else Instance.load(path)
    warn_oversized(inst)
    return inst


#: Warnings of the running command, printed on stderr (one line each) after
#: its output when it succeeds.
_WARNINGS: list[str] = []


def warn_oversized(inst: Any) -> None:
    """One line on stderr (after the output) when a user's single task fits on no machine (not
    an error: it gets a fraction of a task, or none in the discrete setting)."""
    big = inst.oversized_users()
    if not len(big):
        return
    names = [inst.users[int(i)] for i in big[:3]]
    more = f" and {len(big) - 3} more" if len(big) > 3 else ""
    where = "every machine" if inst.machines else "the whole cluster"
    _WARNINGS.append(f"{', '.join(names)}{more}: one task is larger than {where}; it gets less than one task "
                     "(none in the discrete setting)")


def add_file_argument(parser: argparse.ArgumentParser, help_extra: str = "") -> None:
    """The positional scenario ``FILE`` (``-`` reads standard input)."""
    parser.add_argument("file", help=f"scenario file (.toml or .json; - reads standard input){help_extra}")


def _note(message: str) -> None:
    """One line on stderr, terminal or not (a compilation that makes a
    script wait says so): neither an error nor a warning."""
    print(f"fairalloc: {message}", file=sys.stderr, flush=True)


def fail(message: str, code: int) -> int:
    """Print ``fairalloc: error: message`` as one line on stderr."""
    one_line = " ".join(str(message).split())
    print(f"fairalloc: error: {one_line}", file=sys.stderr)
    return code


def add_format_option(parser: argparse.ArgumentParser, default: str = "text") -> None:
    """The shared ``--format`` flag: the names registered in
    :data:`analyzer.formats.OUTPUT_FORMATS`."""
    from .formats import format_names

    parser.add_argument("--format", choices=format_names(), default=default,
                        help=f"output format (default: {default})")


def add_solver_options(parser: argparse.ArgumentParser) -> None:
    """``--solver NAME`` and ``--solver-option KEY=VALUE`` (cvxpy's names),
    for the policies solved by a cvxpy program (the default chain is
    unchanged when neither is given)."""
    parser.add_argument("--solver", default=None, metavar="NAME",
                        help="cvxpy solver for policies solved as a cvxpy program (CLARABEL, SCS, HIGHS, ...; "
                             "default: the fallback chain). DRF, asset fairness and CEEI's Newton method do not "
                             "use cvxpy")
    parser.add_argument("--solver-option", action="append", default=[], metavar="KEY=VALUE",
                        help="option passed to the cvxpy solver under the solver's own name (repeatable), "
                             "e.g. max_iter=100 or tol_gap_abs=1e-10")


def solver_context(args: argparse.Namespace) -> Any:
    """The :func:`models.solvers.solver_choice` block for ``--solver`` and
    ``--solver-option`` (a no-op block when neither was given).

    Raises
    ------
    UsageError
        For an option that is not ``KEY=VALUE``.
    """
    from contextlib import nullcontext

    if args.solver is None and not args.solver_option:
        return nullcontext()
    from models.solvers import solver_choice

    options: dict[str, Any] = {}
    for item in args.solver_option:
        key, eq, raw = item.partition("=")
        if not eq or not key.strip() or not key.strip().isidentifier():
            raise UsageError(f"--solver-option: expected KEY=VALUE, got {item!r}")
        options[key.strip()] = _option_value(raw.strip())
    return solver_choice(args.solver, options)


def _option_value(raw: str) -> Any:
    """``"100"`` -> 100, ``"1e-9"`` -> 1e-9, ``"true"`` -> True, else the text."""
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw


def seed_value(text: str) -> int:
    """The ``type`` of every ``--seed`` flag: a whole number >= 0 (numpy's
    seed sequences take no negative seed)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {value}")
    return value


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
    """Run the command line as the console script does (see
    :func:`analyzer._entry.main`, which installs the Ctrl-C handling before
    this module is imported)."""
    from ._entry import main as entry

    entry()
