"""Solving cvxpy problems with a fallback chain and a clear failure.

Every cvxpy solve in fairalloc goes through :func:`solve_problem`: the
solvers are tried in order until one reaches ``optimal``; if none does, a
:class:`~models.errors.SolverError` names the policy and every status seen.
Solver output is never clipped silently: callers check feasibility against
:data:`~models.tolerances.FEASIBILITY_RTOL` and report it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from .errors import SolverError, SolverOptionError
from .tolerances import conic_solver_options

#: Default order for conic programs (log, exp, SOC).
CONIC_SOLVERS: tuple[str, ...] = ("CLARABEL", "SCS")
#: Default order for linear programs.
LP_SOLVERS: tuple[str, ...] = ("HIGHS", "CLARABEL", "SCS")
#: Solvers whose C library writes a banner to the process's standard output
#: whatever their options say (HiGHS prints its copyright lines when the
#: first ``Highs`` object of a process is built, before any option such as
#: ``output_flag`` can be set; cvxpy already passes ``output_flag=False``).
_BANNER_SOLVERS: frozenset[str] = frozenset({"HIGHS"})


@contextlib.contextmanager
def _c_stdout_silenced() -> Iterator[None]:
    """Send what C code writes to file descriptor 1 to ``os.devnull`` for
    the duration of one solver call: neither the user's terminal (on
    stdout or stderr) nor a notebook (whose kernel forwards descriptor 1)
    shows a solver's banner. Python's own ``sys.stdout`` is flushed first
    and is not redirected when it is not descriptor 1."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1 at all: nothing can reach it
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


@dataclass(frozen=True)
class SolverChoice:
    """A caller's choice of cvxpy solver and options (cvxpy's own names),
    in force inside :func:`solver_choice`."""

    solver: str | None = None
    options: tuple[tuple[str, Any], ...] = ()


_CHOICE: ContextVar[SolverChoice | None] = ContextVar("fairalloc_solver_choice", default=None)


def current_choice() -> SolverChoice:
    """The solver choice in force (no solver, no options outside
    :func:`solver_choice`)."""
    return _CHOICE.get() or SolverChoice()


@contextmanager
def solver_choice(solver: str | None = None, options: Mapping[str, Any] | None = None) -> Iterator[SolverChoice]:
    """Inside the block, every cvxpy solve of :func:`solve_problem` uses
    ``solver`` (instead of the fallback chain) and passes ``options`` to it
    on top of fairalloc's tolerances (e.g. ``{"max_iter": 100}``). Scoped to
    the current thread or task (a context variable): nothing global changes.

    Raises
    ------
    SolverOptionError
        For a solver cvxpy does not have installed.
    """
    if solver is not None:
        import cvxpy as cp

        installed = cp.installed_solvers()
        if solver.upper() not in installed:
            from .errors import did_you_mean

            raise SolverOptionError(f"--solver: {solver!r} is not an installed cvxpy solver"
                                    f"{did_you_mean(solver.upper(), installed)} (installed: {', '.join(installed)})")
        solver = solver.upper()
    token = _CHOICE.set(SolverChoice(solver, tuple((options or {}).items())))
    try:
        yield current_choice()
    finally:
        _CHOICE.reset(token)


def _attempt(problem: Any, name: str, choice: SolverChoice, accept: Callable[[Any], str | None] | None
             ) -> str | None:
    """One solve of ``problem`` with solver ``name``: ``None`` when it
    reached an accepted optimum, else why not (a solver error, the status,
    or ``accept``'s reason).

    Raises
    ------
    SolverOptionError
        When the solver rejects an option given by the user.
    """
    import cvxpy as cp

    try:
        quiet = _c_stdout_silenced() if name in _BANNER_SOLVERS else contextlib.nullcontext()
        with warnings.catch_warnings(), quiet:
            warnings.simplefilter("ignore")
            problem.solve(solver=name, **{**conic_solver_options(name), **dict(choice.options)})
    except TypeError as exc:  # cvxpy and the solvers reject an unknown or mistyped option so
        if not choice.options:
            raise
        raise SolverOptionError(f"--solver-option: {name}: {' '.join(str(exc).split())[:160]}") from None
    except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
        if choice.options and "option" in str(exc).lower():  # HiGHS: "returned status kError for option"
            raise SolverOptionError(f"--solver-option: {name}: {' '.join(str(exc).split())[:160]}") from None
        return f"error ({' '.join(str(exc).split())[:80]})"
    status = str(problem.status)
    if status != cp.OPTIMAL:
        return status
    return accept(problem) if accept is not None else None


def solve_problem(
    problem: Any,
    policy: str,
    solvers: Sequence[str] = CONIC_SOLVERS,
    accept: Callable[[Any], str | None] | None = None,
    attempts: list[str] | None = None,
) -> str:
    """Solve ``problem`` with the first solver that reaches ``optimal``.

    Parameters
    ----------
    problem : cvxpy.Problem
        The problem to solve (modified in place: variables get values).
    policy : str
        Policy label used in the error message.
    solvers : sequence of str
        cvxpy solver names, tried in order; those not installed are skipped.
    accept : callable, optional
        Called after an optimal solve; returns ``None`` to accept or a reason
        to reject the solution (e.g. "infeasible by 3e-6") and try the next
        solver.
    attempts : list of str, optional
        When given, every failed attempt is appended to it as
        ``"NAME: status"`` (so a caller can report the fallbacks taken).
        cvxpy's warnings are not printed: the statuses carry them.

    Returns
    -------
    str
        The name of the solver that succeeded.

    Raises
    ------
    SolverError
        When no solver reached an acceptable optimum.
    """
    import cvxpy as cp

    installed = set(cp.installed_solvers())
    tried: list[str] = attempts if attempts is not None else []
    start = len(tried)
    choice = current_choice()
    if choice.solver is not None:
        solvers = (choice.solver,)
    for name in solvers:
        if name not in installed:
            continue
        failure = _attempt(problem, name, choice, accept)
        if failure is None:
            return name
        tried.append(f"{name}: {failure}")
    mine = tried[start:]
    if not mine:
        raise SolverError(policy, "no solver installed", "asked for " + ", ".join(solvers))
    last = mine[-1].split(": ", 1)[1]
    raise SolverError(policy, last, "tried " + "; ".join(mine))
