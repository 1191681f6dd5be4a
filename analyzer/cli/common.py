"""What the subcommands share: exit codes, the usage error, shared flags
(file, ``--format``, solver options), loading the scenario and the policy
files, warnings, and writing the output.

Exit codes: 0 success; 1 a check found a violation; 2 bad input (one line
on stderr naming the file and field, never a traceback), also a size past
:mod:`models.limits`; 3 a solver failed (no solver answered an instance,
:class:`~models.errors.SolverFailure`, naming the policy and the
instance); 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

EXIT_OK = 0
EXIT_VIOLATION = 1
EXIT_BAD_INPUT = 2
EXIT_SOLVER = 3
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A bad flag or flag value (exit code 2)."""


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
    from ..policy_file import load_policy_file

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


def add_warning(line: str) -> None:
    """Print ``fairalloc: warning: line`` on stderr after the command's output (one line)."""
    _WARNINGS.append(" ".join(line.split()))


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
    from ..formats import format_names

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


def check_destination(path: str, flag: str) -> None:
    """Refuse a file the command cannot write, before any work is done: a
    directory, a missing parent directory, or no write permission (a
    :class:`UsageError` naming ``flag`` and the path)."""
    import os
    from pathlib import Path

    out = Path(path)
    parent = out.parent if str(out.parent) else Path(".")
    if out.is_dir():
        raise UsageError(f"{flag} {path}: is a directory")
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise UsageError(f"{flag} {path}: not writable")


def write_out(text: str) -> None:
    """Write to stdout (a closed pipe is not an error)."""
    sys.stdout.write(text)
    sys.stdout.flush()
