"""Which form of the simulator's event loop runs: Python, then compiled
once the run's work makes it pay (the kernels are registered by
:mod:`.dispatch`; see its docstring)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from models.kernels import COMPILE_MIN_WORK, KERNELS, compiled_form, runs_compiled

from . import kernel as kn
from . import kstore as ks

#: Rounds per call of the Python form (how often the work done is looked at).
PYTHON_ROUNDS_PER_CALL: int = 64


class KernelForms:
    """The event loop's functions for one run: Python, then compiled once
    the work done reaches the threshold (see the module docstring).

    Attributes
    ----------
    run, admit : callable
        :func:`.kernel.run` and :func:`.kernel.admit`, or their compiled forms.
    rounds : int
        Rounds per call of ``run`` when nothing asks for each round.
    compiled : bool
        Whether the compiled forms run (from now on).
    compiled_after : int or None
        Events plus decisions done as Python before the switch (0 when
        the run started compiled).
    """

    def __init__(self, rounds: int) -> None:
        self.run: Callable[..., int] = kn.run
        self.admit: Callable[..., None] = kn.admit
        self._rounds = rounds
        self.rounds = min(rounds, PYTHON_ROUNDS_PER_CALL)
        self.compiled = False
        self.compiled_after: int | None = None
        self._watching = True
        self._switch(0)  # a loop this process has loaded already runs compiled from the start

    def update(self, c: np.ndarray) -> None:
        """Switch to the compiled forms when the work in the counters ``c``
        (:mod:`.kstore`) reaches the threshold and numba is available."""
        if self._watching:
            self.expect(int(c[ks.EVENTS] + c[ks.DECISIONS]), c)

    def expect(self, work: int, c: np.ndarray) -> None:
        """Switch to the compiled forms now when ``work`` reaches the
        threshold and numba is available: the events and decisions done,
        or the work known to come before the run starts (a job spec
        already read that arrives in time, :mod:`.streams`, is chosen at
        least once unless the run ends first: one decision each)."""
        if self._watching and work >= COMPILE_MIN_WORK[KERNELS.get("simulation-run").work]:
            self._watching = False  # decided: numba is looked for once
            self._switch(work, int(c[ks.EVENTS] + c[ks.DECISIONS]))

    def _switch(self, work: int, done: int = 0) -> None:
        if runs_compiled("simulation-run", work, tally=False):  # this run's own work, not the process's
            self.run, self.admit = compiled_form("simulation-run"), compiled_form("simulation-admit")
            self.rounds, self.compiled, self.compiled_after, self._watching = self._rounds, True, done, False


__all__ = ["PYTHON_ROUNDS_PER_CALL", "KernelForms"]
