"""Which form of the simulator's event loop runs (:mod:`models.kernels`).

The loop (:mod:`.kernel`) is registered as two kernels, ``simulation-run``
and ``simulation-admit``, measured in events plus decisions. A run cannot
know its work in advance (jobs stream in, repeat, are cut by ``until``),
so it starts as Python and measures as it goes: once the events and
decisions done reach ``COMPILE_MIN_WORK["events"]`` (about the Python
time that loading the compiled loop costs), the rest of the run is
compiled. The state lives in numpy arrays that both forms read and write
the same way, so the switch changes no decision; a small run never
imports numba.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from models.kernels import COMPILE_MIN_WORK, KERNELS, compiled_form, register_kernel, runs_compiled

from . import kernel as kn
from . import kstore as ks

#: Rounds per call of the Python form (how often the work done is looked at).
PYTHON_ROUNDS_PER_CALL: int = 64


@functools.cache
def _sample_state() -> Any:
    """The state of a one-job run, whose arrays type the kernels' arguments."""
    from models import get_policy

    from .fast import State, kernel_keys
    from .keys import share_model
    from .options import penalties
    from .workload import as_workload

    w = as_workload({"machines": [{"count": 2, "cpu": 2}],
                     "jobs": [{"user": "a", "tasks": 1, "demand": {"cpu": 1}, "duration": 1}]})
    model = share_model(get_policy("drf"), w, slot_tasks="one", aware="policy")
    keys = kernel_keys(model)
    assert keys is not None
    penalty, over = penalties(w, model, None)
    return State(model, len(w.resources), keys[0], keys[1], penalty, over, True)


def _run_sample() -> tuple[Any, ...]:
    st = _sample_state()
    return (st.ft, 0.0, math.inf, False, False, 1, *st.run_args())


def _admit_sample() -> tuple[Any, ...]:
    st = _sample_state()
    return (0.0, 0, math.nan, *st.admit_args())


register_kernel("simulation-run", kn.run, kn.HELPERS, _run_sample, "events", runtime=False)  # allocates nothing
register_kernel("simulation-admit", kn.admit, kn.HELPERS, _admit_sample, "events", runtime=False)


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
        Events plus decisions done as Python before the switch.
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
        if not self._watching:
            return
        work = int(c[ks.EVENTS] + c[ks.DECISIONS])
        if work >= COMPILE_MIN_WORK[KERNELS.get("simulation-run").work]:
            self._watching = False  # decided: numba is looked for once
            self._switch(work)

    def _switch(self, work: int) -> None:
        if runs_compiled("simulation-run", work, tally=False):  # this run's own work, not the process's
            self.run, self.admit = compiled_form("simulation-run"), compiled_form("simulation-admit")
            self.rounds, self.compiled, self.compiled_after, self._watching = self._rounds, True, work, False


__all__ = ["PYTHON_ROUNDS_PER_CALL", "KernelForms"]
