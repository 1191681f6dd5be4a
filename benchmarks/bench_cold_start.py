"""CLI cold start: ``fairalloc solve examples/paper_two_users.toml --policy drf``.

Wall time of ``python -m analyzer solve ... --policy drf`` (a fresh
interpreter each time, so imports are included) against a bare
``python -c pass`` measured in the same run (goal: <= 0.6 s in total), and
the ten slowest imports of the command from ``python -X importtime``.

Run: ``python benchmarks/bench_cold_start.py``
"""

from __future__ import annotations

import subprocess
import sys
import time

from _common import ROOT, report

COMMAND = [sys.executable, "-m", "analyzer", "solve", "examples/paper_two_users.toml", "--policy", "drf"]
BASELINE = [sys.executable, "-c", "pass"]
REPEAT = 7


def wall(cmd: list[str]) -> float:
    """Smallest wall time of ``REPEAT`` runs of ``cmd`` (seconds)."""
    best = float("inf")
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


def slowest_imports(cmd: list[str], top: int = 10) -> list[tuple[int, str]]:
    """``(self microseconds, module)`` of the ``top`` slowest imports."""
    err = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], cwd=ROOT, capture_output=True, text=True).stderr
    rows = []
    for line in err.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[0].startswith("import time:") and parts[0].split(":")[1].strip().isdigit():
            rows.append((int(parts[0].split(":")[1]), parts[2].strip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    t_base = wall(BASELINE)
    t_cmd = wall(COMMAND)
    report("python -c pass (interpreter start-up)", t_base)
    report("fairalloc solve paper_two_users.toml --policy drf", t_cmd, "(goal <= 0.6 s)")
    report("  of which fairalloc itself (difference)", t_cmd - t_base)
    print(f"{'command / bare interpreter':<60s} {t_cmd / t_base:10.1f} x")
    print("slowest imports (self time, one run):")
    for us, name in slowest_imports(COMMAND):
        print(f"  {us / 1000:8.1f} ms  {name}")


if __name__ == "__main__":
    main()
