"""Every size a user can type (issue 28): memory bounded by
:mod:`models.limits`, never by the combinatorics of the size; a size past a
limit is refused before any work, in one line with exit code 2."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from analyzer.cli import interrupts
from analyzer.cli.common import EXIT_BAD_INPUT
from analyzer.cli.main import main
from analyzer.searching.instance_stream import make_cell
from analyzer.simulation import as_workload
from analyzer.simulation.workload import launch_bound
from models import Instance, SizeLimitError
from models.limits import (
    MAX_DISCRETE_TASKS,
    MAX_GRID_POSITIONS,
    MAX_SIM_LAUNCHES,
    check_discrete_size,
    discrete_task_bound,
)
from proofs.prover.driver import check_size
from proofs.prover.symbolic import dominant_cases

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"

HUGE_MACHINES = """
[resources]
cpu = 3000000000000
mem = 6000000000000
[users.A]
demand = { cpu = 1, mem = 4 }
[users.B]
demand = { cpu = 3, mem = 1 }
[[machines]]
count = 1000000000000
cpu = 3
mem = 6
"""

HUGE_TASKS = """
[resources]
cpu = 9e12
mem = 18e12
[users.A]
demand = { cpu = 1, mem = 4 }
[users.B]
demand = { cpu = 3, mem = 1 }
"""


def one_line_exit_2(args: list[str], capsys: pytest.CaptureFixture[str], field: str) -> None:
    code = main(args)
    out, err = capsys.readouterr()
    assert code == EXIT_BAD_INPUT, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"fairalloc: error: {field}: "), err


@pytest.mark.parametrize("command", [
    ["discrete", "{f}"], ["plot", "{f}", "--discrete", "-o", "{o}"],
    ["check", "{f}", "--policy", "drf", "--property", "envy-freeness", "--mode", "discrete"], ["variants", "{f}"],
])
@pytest.mark.parametrize("text,field", [(HUGE_MACHINES, "machines"), (HUGE_TASKS, "resources")])
def test_discrete_sizes_are_refused_up_front(command: list[str], text: str, field: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    # before: numpy's "Unable to allocate 36.4 TiB" traceback, exit 1
    path = tmp_path / "big.toml"
    path.write_text(text)
    args = [a.format(f=path, o=tmp_path / "x.png") for a in command]
    one_line_exit_2(args, capsys, field)
    assert not (tmp_path / "x.png").exists()


def test_the_continuous_setting_takes_the_same_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.toml"
    path.write_text(HUGE_MACHINES)
    assert main(["solve", str(path), "--policy", "drf"]) == 0


def test_discrete_task_bound_is_an_upper_bound() -> None:
    from analyzer import progressive_filling

    for inst in (Instance.load(PAPER), Instance.from_exact([10, 7], [[1, 0], [2, 3], [0, 1]], max_tasks=[2, None, 1]),
                 Instance.from_exact([5], [[1], [2]], max_tasks=[0, 0])):
        placed = sum(progressive_filling(inst, "drf", on_full="skip").tasks.values())
        assert placed <= discrete_task_bound(inst)
    check_discrete_size(Instance.from_exact([MAX_DISCRETE_TASKS], [[1]]))  # at the limit: accepted
    with pytest.raises(SizeLimitError, match="^resources: "):
        check_discrete_size(Instance.from_exact([MAX_DISCRETE_TASKS + 1], [[1]]))


SIM = """
[simulation]
until = {until}
[[machines]]
count = {count}
cpu = 4
mem = 14
[[jobs]]
user = "a"
tasks = {tasks}
demand = {{ cpu = 1, mem = 2 }}
duration = 0.001
"""


@pytest.mark.parametrize("until,count,tasks,field", [
    ("1e12", 10, 10**12, "until"),        # before: 5 GB in a minute and Ctrl-C unheard
    ("10", 10**9, 10, "machines"),        # before: MemoryError traceback
])
def test_simulation_sizes_are_refused_up_front(until: str, count: int, tasks: int, field: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "w.toml"
    path.write_text(SIM.format(until=until, count=count, tasks=tasks))
    one_line_exit_2(["simulate", str(path)], capsys, field)


def test_launch_bound_of_the_examples_is_far_below_the_limit() -> None:
    for name in ("sim_section_7_1.toml", "sim_section_7_2.toml"):
        w = as_workload(ROOT / "examples" / name)
        bound = launch_bound(w, w.options.get("until"))
        assert bound is not None and 0 < bound < MAX_SIM_LAUNCHES / 100
    w = as_workload({"machines": [{"count": 2, "cpu": 2, "mem": 2}],
                     "jobs": [{"user": "a", "tasks": 5, "demand": {"cpu": 1, "mem": 1}, "duration": 10}]})
    assert launch_bound(w, None) == 5 and launch_bound(w, 15.0) == 5  # 4 slots, at most 8 launches by t=15


@pytest.mark.parametrize("users,resources,field", [(1000, 1000, "users"), (8, 8, "users"), (20, 13, "users")])
def test_prove_sizes_are_refused_before_any_formula(users: int, resources: int, field: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # before: 1000 x 1000 spent minutes building a cross-check formula, and
    # 30 x 30 a MemoryError enumerating the case split
    one_line_exit_2(["prove", "drf", "envy-freeness", "--users", str(users), "--resources", str(resources),
                     "--timeout", "5"], capsys, field)


def test_many_resources_few_users_are_still_proved() -> None:
    check_size("drf", "envy-freeness", 2, 12)  # 12! permutations were tried per case before
    from analyzer import prove

    assert prove("drf", "envy-freeness", 2, 12, workers=1, timeout=120).status == "proved"


def test_symmetry_reduction_is_unchanged() -> None:
    def by_every_permutation(m: int, fixed: tuple[int, ...], free: tuple[int, ...], extra: int) -> list:
        n, out = len(fixed) + len(free), set()
        perms = list(itertools.permutations(range(m)))
        for head in itertools.product(range(m), repeat=len(fixed)):
            for bag in itertools.combinations_with_replacement(range(m), len(free)):
                for tail in itertools.product(range(m), repeat=extra):
                    f, s, e = min((tuple(p[v] for v in head), tuple(sorted(p[v] for v in bag)),
                                   tuple(p[v] for v in tail)) for p in perms)
                    dom = [0] * (n + extra)
                    for k, u in enumerate(fixed):
                        dom[u] = f[k]
                    for k, u in enumerate(free):
                        dom[u] = s[k]
                    for k in range(extra):
                        dom[n + k] = e[k]
                    out.add(tuple(dom))
        return sorted(out)

    for m, nf, nfree, extra in itertools.product(range(1, 5), range(3), range(4), range(2)):
        fixed, free = tuple(range(nf)), tuple(range(nf, nf + nfree))
        dominant_cases.cache_clear()
        assert dominant_cases(m, fixed, free, extra, True) == by_every_permutation(m, fixed, free, extra)


def test_table_prove_size_is_checked_before_the_search(capsys: pytest.CaptureFixture[str]) -> None:
    one_line_exit_2(["table", "--policy", "drf", "--prove", "20,20", "--budget", "10"], capsys, "--prove")


def test_grid_of_a_huge_budget_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    # before: a budget of 10^12 kept building grid instances (20 MB/s) until killed
    import analyzer.searching.instance_stream as stream

    assert MAX_GRID_POSITIONS >= 0.3 * 100_000  # the slow fuzz tier's budgets keep their whole grid
    monkeypatch.setattr(stream, "MAX_GRID_POSITIONS", 500)  # the same code, a cheaper cap
    cell = make_cell("drf", "sharing-incentive", 10**12, 0, "zeros", "continuous")
    assert cell.grid_len == 500
    assert make_cell("drf", "sharing-incentive", 1000, 0, "zeros", "continuous").grid_len == 300  # unchanged


def test_ctrl_c_is_held_while_numba_compiles(tmp_path: Path) -> None:
    # an interrupted compile left numba half initialised: "RuntimeError: no
    # compiled object yet for <Library ...>" traceback, exit 1
    fake = tmp_path / "numba" / "core" / "compiler.py"
    code = compile("import sys\nFRAME = sys._getframe()\n", str(fake), "exec")
    space: dict[str, object] = {}
    exec(code, space)  # noqa: S102 -- a frame whose file is numba's compiler
    assert interrupts._in_import(space["FRAME"])  # type: ignore[arg-type]
    assert not interrupts._in_import(sys._getframe())
