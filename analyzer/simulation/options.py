"""Options of a run shared by both engines: tie-breaks, and over-commit
(machines given more than they have of a resource the scheduler does not
check) with the slow-down of tasks launched on them.

Ties among equal keys go to the user seen first, or to a seeded random
rank per user (:data:`TIE_BREAKS`).

Ghodsi et al., NSDI 2011, Section 7.2: slot schedulers (and CPU-only
fairness) place tasks by slots (CPU) only, so a machine can be handed more
memory than it has; its tasks then run slower, as if swapping. A task
launched on such a machine has its duration multiplied by
``1 + sum_j penalty_j * max(0, used_j / capacity_j - 1)`` (the machine's
use just after the launch; ``overcommit_penalty``, default
:data:`DEFAULT_PENALTY` per resource). Tasks already running keep their
durations (a simplification).
"""

from __future__ import annotations

import numpy as np

from models import PolicyError

from .keys import ShareModel
from .workload import Workload

#: Slow-down per unit of over-commit of a resource (see the module docstring).
DEFAULT_PENALTY: float = 1.0
#: Tie-breaks among equal keys: the user seen first, or a seeded random rank.
TIE_BREAKS: tuple[str, ...] = ("index", "random")


def random_ties(tie_break: str) -> bool:
    """Whether ``tie_break`` (validated) draws a seeded random rank per user."""
    if tie_break not in TIE_BREAKS:
        raise PolicyError(f"tie_break: must be one of {', '.join(TIE_BREAKS)}, got {tie_break!r}")
    return tie_break == "random"


def penalties(workload: Workload, model: ShareModel,
              overcommit_penalty: dict[str, float] | None) -> tuple[np.ndarray, np.ndarray]:
    """The slow-down per resource (validated) and the columns a machine can
    be over-committed in (those the policy does not check when placing)."""
    pen = dict(overcommit_penalty or {})
    for r, v in pen.items():
        if r not in workload.resources:
            raise PolicyError(f"overcommit_penalty.{r}: unknown resource (known: {', '.join(workload.resources)})")
        if isinstance(v, bool) or not isinstance(v, int | float) or not v >= 0:
            raise PolicyError(f"overcommit_penalty.{r}: must be a number >= 0, got {v!r}")
    penalty = np.array([float(pen.get(r, DEFAULT_PENALTY)) for r in workload.resources])
    unchecked = np.setdiff1d(np.arange(len(workload.resources)), model.place_cols)
    over = unchecked[model.machines[:, unchecked].sum(axis=0) > 0] if unchecked.size else unchecked
    return penalty, over


def slowdown(cap: np.ndarray, free: np.ndarray, mach: np.ndarray, cols: np.ndarray,
             penalty: np.ndarray) -> np.ndarray | None:
    """The duration factor on machines ``mach`` (``None`` when no column can be over-committed)."""
    if not cols.size:
        return None
    total = cap[mach][:, cols].astype(float)
    used = total - free[mach][:, cols]
    over = np.maximum(0.0, used / np.where(total > 0, total, 1.0) - 1.0)
    return 1.0 + over @ penalty[cols]


def finish_groups(t: float, durs: tuple[float, ...], started: int, mach: np.ndarray, take: np.ndarray,
                  factor: np.ndarray | None) -> list[tuple[float, np.ndarray, np.ndarray, float]]:
    """``(finish time, machines, counts, task-seconds)`` per group of the
    tasks launched at ``t`` (``take[k]`` on machine ``mach[k]``, task
    numbers from ``started``: durations cycle) that finish together."""
    k = int(take.sum())
    if len(durs) == 1 and (factor is None or np.all(factor == factor[0])):
        f = 1.0 if factor is None else float(factor[0])
        return [(t + durs[0] * f, mach, take, durs[0] * f * k)]
    per_task = np.asarray(durs)[(started + np.arange(k)) % len(durs)]
    where = np.repeat(np.arange(mach.size), take)
    actual = per_task * (1.0 if factor is None else factor[where])
    out = []
    for value in np.unique(actual):
        sel = actual == value
        cnt = np.bincount(where[sel], minlength=mach.size)
        nz = np.flatnonzero(cnt)
        out.append((t + float(value), mach[nz], cnt[nz], float(value) * int(sel.sum())))
    return out
