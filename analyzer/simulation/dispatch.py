"""The simulator's event loop registered as kernels (:mod:`models.kernels`;
the ``fairalloc.kernels`` entry point of pyproject.toml names this module).

The loop (:mod:`.kernel`) is registered as two kernels, ``simulation-run``
and ``simulation-admit``, measured in events plus decisions, each with the
sample arguments (a one-job run's state, :mod:`.fast`) that type its
compiled form. Which form runs is :mod:`.forms`: a run cannot
know its whole work in advance (jobs stream in, repeat, are cut by
``until``), so it measures as it goes: once the events and decisions
done reach ``COMPILE_MIN_WORK["events"]`` (about the Python time that
loading the compiled loop costs), the rest of the run is compiled. A run
whose stream has read that many job specs arriving in time before the
first event (:mod:`.streams`: a trace's first chunk, the whole 2017
Alibaba table) is known to get there and starts compiled. The state
lives in numpy arrays that both forms read and write the same way, so
the switch changes no decision; a small run never imports numba.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from models.kernels import register_kernel

from . import kernel as kn


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
