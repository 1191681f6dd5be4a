"""The first five minutes: CLI start-up, the first runs of the kernel
commands, and the work from which compiled kernels pay off.

1. Wall time of ``python -m analyzer solve examples/paper_two_users.toml
   --policy drf`` (a fresh interpreter each time, so imports are included)
   against a bare ``python -c pass`` measured in the same run (goal: <= 0.6
   s in total), and the ten slowest imports of the command.
2. ``discrete examples/paper_section_7_1.toml``, ``variants
   examples/variants_tie.toml`` and ``simulate examples/sim_section_7_1.toml``
   as a new user meets them: the first run with an empty kernel cache (a
   temporary ``FAIRALLOC_CACHE_DIR``), the warm run (best of 3) and plain
   Python (``FAIRALLOC_NO_NUMBA=1``, the baseline), wall and CPU seconds of
   the child process. Acceptance: first run <= 1.5 x Python + 0.5 s, warm
   <= 1.3 x Python + 0.3 s (wall).
3. The first compiled run of an installation: every kernel compiled at
   once (models/kernels.py), CPU seconds of a fresh interpreter.
4. The break-even work of each kind (``models.kernels.COMPILE_MIN_WORK``):
   the CPU seconds a fresh interpreter spends importing numba and loading
   a kernel from the warm cache, over the CPU seconds per unit of work that
   the compiled form saves (Python minus compiled, measured here on a
   mid-sized run), against the threshold in use.

Run: ``python benchmarks/bench_cold_start.py [--no-kernels]``
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from _common import ROOT, report

COMMAND = [sys.executable, "-m", "analyzer", "solve", "examples/paper_two_users.toml", "--policy", "drf"]
BASELINE = [sys.executable, "-c", "pass"]
REPEAT = 7
EXAMPLES = (["discrete", "examples/paper_section_7_1.toml"], ["variants", "examples/variants_tie.toml"],
            ["simulate", "examples/sim_section_7_1.toml", "--quiet"])


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


def timed_child(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system) of one run, and its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, check=True, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    wall_s = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall_s, cpu, r.stderr + r.stdout


def solve_start_up() -> None:
    """Part 1 of the module docstring."""
    t_base = wall(BASELINE)
    t_cmd = wall(COMMAND)
    report("python -c pass (interpreter start-up)", t_base)
    report("fairalloc solve paper_two_users.toml --policy drf", t_cmd, "(goal <= 0.6 s)")
    report("  of which fairalloc itself (difference)", t_cmd - t_base)
    print(f"{'command / bare interpreter':<60s} {t_cmd / t_base:10.1f} x")
    print("slowest imports (self time, one run):")
    for us, name in slowest_imports(COMMAND):
        print(f"  {us / 1000:8.1f} ms  {name}")


def first_runs(cache: str) -> None:
    """Part 2 of the module docstring (``cache``: an empty directory)."""
    env = {**os.environ, "FAIRALLOC_CACHE_DIR": cache}
    env.pop("FAIRALLOC_NO_NUMBA", None)
    for args in EXAMPLES:
        cmd = [sys.executable, "-m", "analyzer", *args]
        first, first_cpu, first_err = timed_child(cmd, env)
        warm = [timed_child(cmd, env)[:2] for _ in range(3)]
        python, python_cpu, _ = timed_child(cmd, {**env, "FAIRALLOC_NO_NUMBA": "1"})
        w_wall, w_cpu = min(w for w, _ in warm), min(c for _, c in warm)
        ok_first = first <= 1.5 * python + 0.5
        ok_warm = w_wall <= 1.3 * python + 0.3
        print(f"fairalloc {' '.join(args)} (wall s, CPU s of the process):")
        report("  first run, empty kernel cache", first, f"cpu {first_cpu:.2f} s  "
               f"(<= 1.5 x Python + 0.5 s: {'met' if ok_first else 'NOT met'})")
        report("  warm run, best of 3", w_wall, f"cpu {w_cpu:.2f} s  "
               f"(<= 1.3 x Python + 0.3 s: {'met' if ok_warm else 'NOT met'})")
        report("  plain Python (FAIRALLOC_NO_NUMBA=1), the baseline", python, f"cpu {python_cpu:.2f} s")
        print(f"{'  first run / Python (wall)':<60s} {first / python:10.2f} x")
        print(f"{'  warm run / Python (wall)':<60s} {w_wall / python:10.2f} x")
        if "compiling" in first_err:
            print("  (the first run compiled kernels)")


PROBE = ("import sys, time; from models import kernels; kernels.load_kernel_modules(); "
         "c0, t0 = time.process_time(), time.perf_counter(); [kernels.compiled_form(n) for n in sys.argv[1:]]; "
         "print(time.process_time() - c0, time.perf_counter() - t0)")


def fresh_interpreter(names: list[str], cache: str) -> tuple[float, float]:
    """CPU and wall seconds a fresh interpreter spends making the kernels
    ``names`` compiled (importing numba, then compiling or loading)."""
    env = {**os.environ, "FAIRALLOC_CACHE_DIR": cache}
    env.pop("FAIRALLOC_NO_NUMBA", None)
    out = subprocess.run([sys.executable, "-c", PROBE, *names], check=True, cwd=ROOT, env=env,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def cpu_of(fn: Callable[[], Any], repeat: int = 3) -> float:
    """Smallest CPU seconds of ``repeat`` calls."""
    best = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def per_unit(name: str, run: Callable[[], Any], work_of: Callable[[Any], float] | None = None
             ) -> tuple[float, float, float]:
    """Python and compiled CPU seconds per unit of work of kernel ``name``
    on ``run()``, and the work (the value the entry point passes to
    :func:`models.kernels.runs_compiled`, or ``work_of(result)``)."""
    from models import kernels

    kind = kernels.KERNELS.get(name).work
    seen: list[float] = []
    real = kernels.runs_compiled

    def spy(n: str, work: float) -> bool:
        if n == name:
            seen.append(work)
        return real(n, work)

    saved = kernels.COMPILE_MIN_WORK[kind]
    kernels.runs_compiled = spy  # type: ignore[assignment]
    try:
        kernels.COMPILE_MIN_WORK[kind] = 0
        kernels.compiled_form(name)
        result = run()
        work = work_of(result) if work_of is not None else sum(seen)
        t_c = cpu_of(run)
        kernels.COMPILE_MIN_WORK[kind] = 1 << 62
        kernels._FORMS.clear()  # not loaded: a loaded kernel runs compiled whatever the work
        t_py = cpu_of(run)
    finally:
        kernels.runs_compiled = real  # type: ignore[assignment]
        kernels.COMPILE_MIN_WORK[kind] = saved
    return t_py / work, t_c / work, work


def break_even(cache: str) -> None:
    """Parts 3 and 4 of the module docstring."""
    from bench_discrete import cluster

    from analyzer import simulate
    from models import kernels
    from models.discrete import fill

    os.environ["FAIRALLOC_CACHE_DIR"] = cache  # the examples ran as Python: no kernel in it yet
    kernels.load_kernel_modules()
    cpu, wall_s = fresh_interpreter(["first-fit"], cache)
    report("first compiled run of an installation: every kernel compiled", wall_s, f"cpu {cpu:.1f} s")
    inst = cluster(k=2000, n=200)
    cases = {
        "first-fit": lambda: fill(inst, "drf", placement="first-fit"),
        "mesos-offers": lambda: fill(inst, "mesos"),
        "simulation-run": lambda: simulate("examples/sim_section_7_2.toml", "drf", until=1200, record_users=False),
    }
    for name, run in cases.items():
        work_of = (lambda r: r.stats["events"] + r.stats["decisions"]) if name.startswith("simulation") else None
        py, comp, work = per_unit(name, run, work_of)
        names = ["simulation-run", "simulation-admit"] if name.startswith("simulation") else [name]
        load_cpu, _ = min(fresh_interpreter(names, cache) for _ in range(3))
        kind = kernels.KERNELS.get(name).work
        even = load_cpu / (py - comp)
        print(f"{name} ({kind}; measured on {work:,.0f}): Python {py * 1e6:.2f} us, compiled {comp * 1e6:.3f} us "
              f"per unit; numba import + cache load {load_cpu:.2f} s CPU")
        print(f"{'  break-even work (CPU)':<60s} {even:12,.0f}    in use: COMPILE_MIN_WORK[{kind!r}] = "
              f"{kernels.COMPILE_MIN_WORK[kind]:,}")


def main() -> None:
    solve_start_up()
    if "--no-kernels" in sys.argv:
        return
    with tempfile.TemporaryDirectory() as cache:
        first_runs(cache)
        break_even(cache)
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min)")


if __name__ == "__main__":
    main()
