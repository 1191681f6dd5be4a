"""The reference engine's users and queued job specs (:mod:`.engine`)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .workload import JobSpec


@dataclass(eq=False)
class QueuedSpec:
    """A job spec in the reference engine: tasks waiting, running, done."""

    spec: JobSpec
    user: int
    demand: np.ndarray  # scaled, with the slot column
    pending: int
    index: int  # demand table row
    running: int = 0
    done: int = 0
    started: int = 0  # tasks launched so far (cycles the durations)
    truncated: bool = False
    generation: int = 0
    need: tuple[int, ...] = ()  # demand in the placement columns
    record: Any = None  # the JobRecord of its job
    real: Any = None  # demand in resource units (work accounting)


@dataclass(eq=False)
class QueuedUser:
    """A user of the reference engine: its queue of specs and heap entry version."""

    name: str
    weight: float
    rank: float
    queue: deque[QueuedSpec] = field(default_factory=deque)
    version: int = 0
    blocked: bool = False
