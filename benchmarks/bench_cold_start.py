"""CLI cold start: ``fairalloc solve examples/paper_two_users.toml --policy drf``
and ``fairalloc simulate examples/sim_section_7_1.toml``.

Wall time of ``python -m analyzer solve ... --policy drf`` (a fresh
interpreter each time, so imports are included) against a bare
``python -c pass`` measured in the same run (goal: <= 0.6 s in total), and
the ten slowest imports of the command from ``python -X importtime``.

Then ``simulate`` as a new user meets it: the first run with an empty
kernel cache (numba compiles, and says so once), warm runs (the cache
loaded), and the plain-Python fallback (``FAIRALLOC_NO_NUMBA=1``) as the
baseline; wall and CPU time of the child process.

Run: ``python benchmarks/bench_cold_start.py [--no-simulate]``
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
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


SIMULATE = [sys.executable, "-m", "analyzer", "simulate", "examples/sim_section_7_1.toml"]


def timed_child(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system) of one run, and its stderr
    (not a terminal: without the compilation notice)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, check=True, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    wall_s = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall_s, cpu, r.stderr


def simulate_times() -> None:
    """First run (empty cache), warm runs, and plain Python, of ``fairalloc simulate``."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "FAIRALLOC_CACHE_DIR": cache}
        env.pop("FAIRALLOC_NO_NUMBA", None)
        first, first_cpu, _ = timed_child(SIMULATE, env)
        warm = [timed_child(SIMULATE, env) for _ in range(3)]
        python, python_cpu, _ = timed_child(SIMULATE, {**env, "FAIRALLOC_NO_NUMBA": "1"})
    w_wall, w_cpu = min(w for w, _, _ in warm), min(c for _, c, _ in warm)
    print("fairalloc simulate examples/sim_section_7_1.toml (wall s, CPU s of the process):")
    report("  first run, empty kernel cache (compiles)", first, f"cpu {first_cpu:.2f} s")
    report("  warm run (cache loaded), best of 3", w_wall, f"cpu {w_cpu:.2f} s")
    report("  plain Python (FAIRALLOC_NO_NUMBA=1), the baseline", python, f"cpu {python_cpu:.2f} s")
    print(f"{'  first run / warm run (CPU)':<60s} {first_cpu / w_cpu:10.1f} x")
    print(f"{'  plain Python / warm run (CPU)':<60s} {python_cpu / w_cpu:10.1f} x")


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
    if "--no-simulate" not in sys.argv:
        simulate_times()


if __name__ == "__main__":
    main()
