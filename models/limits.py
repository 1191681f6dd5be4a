"""Every size limit of fairalloc, named, in one place (as
:mod:`models.tolerances` names the tolerances).

A size past its limit is refused before any work starts, with a
:class:`~models.errors.SizeLimitError` naming the field, the size and the
limit (exit code 2 on the command line): memory stays bounded by these
numbers, never by the combinatorics of what was typed. Each limit keeps
its command within about 1.5 GB (measured on the development machine; the
acceptance test runs under a 4 GB address-space limit).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .errors import SizeLimitError

#: Machines of a discrete run (``[[machines]] count`` summed): the engine
#: keeps per-machine free capacities and placements, about 1.3 KB a machine
#: (10^6 machines: 1.3 GB, 37 CPU seconds).
MAX_DISCRETE_MACHINES: int = 1_000_000

#: Whole tasks a discrete run may place (an upper bound computed from the
#: capacities, demands and caps): every placement is recorded, about 100
#: bytes a task (1.8 * 10^7 tasks: 1.7 GB).
MAX_DISCRETE_TASKS: int = 10_000_000

#: Machines of a simulated cluster.
MAX_SIM_MACHINES: int = 1_000_000

#: Task launches a simulation may make before it ends (an upper bound from
#: each job's tasks, duration, arrival and the cluster's room for it): the
#: kernel logs every decision, about 30 bytes a launch (4 * 10^7: 1.1 GB).
#: The whole Alibaba 2017 trace is 1.0 * 10^7.
MAX_SIM_LAUNCHES: int = 50_000_000

#: Cases (dominant-resource assignments) of one proof's case split, and the
#: permutations its symmetry reduction may try (cases times ``m!``): the
#: split is enumerated before the first case is solved.
MAX_PROVE_CASES: int = 100_000
MAX_PROVE_ENUMERATION: int = 50_000_000

#: Positions of a counterexample search's stream walked on the exhaustive
#: small-integer grid (30 % of the budget, up to this): the grid's
#: instances are kept in memory, about 1.3 KB each (50,000: 65 MB), so a
#: budget of 10^12 runs until Ctrl-C in bounded memory. Budgets up to
#: 166,666 are not affected.
MAX_GRID_POSITIONS: int = 50_000

#: Demand entries (users x resources) of one proof: its formulas grow with
#: ``users^2 x resources`` terms (envy, every pair of users), and the
#: largest sizes proved in ``benchmarks/bench_prove.py`` are 6 x 6.
MAX_PROVE_ENTRIES: int = 256
#: The longest timeout, in seconds, a deadline on the clock can hold (a
#: longer one overflows ``time``'s and ``threading``'s conversions: an
#: OverflowError deep in the run).
MAX_TIMEOUT_SECONDS: float = threading.TIMEOUT_MAX


def refuse_above(field: str, size: float, limit: int, what: str, hint: str = "") -> None:
    """Raise :class:`~models.errors.SizeLimitError` when ``size > limit``.

    Examples
    --------
    >>> refuse_above("machines", 10, 100, "machines")
    >>> refuse_above("machines", 10**12, MAX_DISCRETE_MACHINES, "machines", "use fewer, larger machines")
    Traceback (most recent call last):
    ...
    models.errors.SizeLimitError: machines: 1e+12 machines; at most 1000000 (use fewer, larger machines)
    """
    if size > limit:
        raise SizeLimitError(f"{field}: {size:.3g} {what}; at most {limit}" + (f" ({hint})" if hint else ""))


def discrete_task_bound(instance: Any) -> float:
    """An upper bound on the whole tasks any discrete run on ``instance``
    places: each user at most ``min(cap_i, 1 / s_i)`` alone (``s_i`` its
    dominant share of one task) and all together at most ``m / min_i s_i``
    (every task takes at least ``min_i s_i`` of the ``m`` unit resources).
    Users capped at 0 place nothing.

    Examples
    --------
    >>> from models import Instance
    >>> discrete_task_bound(Instance.from_exact([9, 18], [[1, 4], [3, 1]]))  # DRF places 5
    7.0
    """
    live = instance.max_tasks > 0
    if not live.any():
        return 0.0
    D = instance.demands[live]
    with np.errstate(all="ignore"):  # a resource of capacity 0 (scenario key zero_capacity): its users place none
        s = np.where(D > 0, D / instance.capacity, 0.0).max(axis=1)
        alone = np.minimum(instance.max_tasks[live], np.floor(1.0 / s))
        together = np.floor(instance.m / s.min())
    return float(min(alone.sum(), together))


def check_discrete_size(instance: Any) -> None:
    """Refuse a discrete run past :data:`MAX_DISCRETE_MACHINES` machines or
    :data:`MAX_DISCRETE_TASKS` whole tasks (:func:`discrete_task_bound`).

    Raises
    ------
    SizeLimitError
        Naming ``machines`` or ``resources`` (the capacities), the size and the limit.
    """
    machines = sum(int(t.count) for t in instance.machines) if instance.machines else 1
    refuse_above("machines", machines, MAX_DISCRETE_MACHINES, "machines in the discrete setting",
                 "each is kept with its placements; describe fewer, larger machines")
    refuse_above("resources", discrete_task_bound(instance), MAX_DISCRETE_TASKS,
                 "whole tasks could be placed in the discrete setting",
                 "every placement is recorded; scale the capacities and demands down, or use the continuous setting")
