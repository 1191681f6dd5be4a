"""Shared helpers for the benchmark scripts (not part of the package)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def best_of(fn: Callable[[], Any], repeat: int = 3) -> float:
    """Smallest wall time of ``repeat`` calls (seconds)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def report(name: str, seconds: float, goal: str = "") -> None:
    """One line: what was measured and how long it took."""
    print(f"{name:<60s} {seconds:10.4f} s  {goal}")


def ratio(name: str, baseline: float, candidate: float, goal: str = "") -> None:
    """One line: how many times faster ``candidate`` is than ``baseline``."""
    print(f"{name:<60s} {baseline / candidate:10.1f} x  {goal}")
