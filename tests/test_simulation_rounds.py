"""Repeated rounds with changing demands (issue 32, deliverable 3;
analyzer/simulation/rounds.py): Karma's instance (OSDI 2023) as a shipped
rounds file, max-min recomputed every round, memory moving the totals
toward equal, bad files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from analyzer import InstanceError, simulate

ROOT = Path(__file__).resolve().parent.parent
KARMA = ROOT / "examples" / "rounds_karma.toml"


def totals(r) -> dict[str, int]:
    return {u: sum(v) for u, v in r.tasks_per_round().items()}


def test_karma_max_min_each_round() -> None:
    r = simulate(KARMA, "drf")
    assert r.tasks_per_round() == {"A": [6, 12, 0, 6, 6], "B": [6, 0, 12, 6, 6], "C": [0, 0, 0, 6, 6]}
    assert totals(r) == {"A": 30, "B": 30, "C": 12}
    f = r.cumulative_fairness()  # every user is entitled to a third of every round, C asked for nothing in 3
    assert f.ratio.tolist() == pytest.approx([1.0, 1.0, 0.4]) and f.disparity == pytest.approx(2.5)
    assert r.end == 5.0 and r.stats["tasks_running"] == 0


@pytest.mark.parametrize("half_life", [0.5, 1, 2, 4])
def test_karma_memory_moves_totals_toward_equal(half_life: float) -> None:
    r = simulate(KARMA, f"drf:half_life={half_life}")
    got = totals(r)
    assert sum(got.values()) == 72  # the pool is used as fully as without memory
    assert min(got.values()) > 12 and max(got.values()) - min(got.values()) < 30 - 12
    assert r.cumulative_fairness().disparity < 2.5


def test_karma_with_one_round_of_memory() -> None:
    # round 4 starts from memories A 0.208, B 0.375, C 0 (one-round half-life): levels s + M equalise
    # at A 5.75, B 2.75, C 9.5 slices, whole tasks A 6, B 3, C 9
    r = simulate(KARMA, "drf:half_life=1")
    assert r.tasks_per_round() == {"A": [6, 12, 0, 6, 6], "B": [6, 0, 12, 3, 6], "C": [0, 0, 0, 9, 6]}


def test_rounds_of_two_resources_and_weights(tmp_path: Path) -> None:
    f = tmp_path / "r.toml"
    f.write_text('[rounds]\nlength = 0.1\n[resources]\ncpu = 10\nmem = 20\n'
                 '[users.a]\ntasks = [10, 10, 0]\ndemand = { cpu = 1, mem = 1 }\nweight = 3\n'
                 '[users.b]\ntasks = [10, 10, 10]\ndemand = { cpu = 1, mem = 4 }\n')
    r = simulate(f, "drf")
    # weighted DRF by whole tasks each round: a's key rises 0.1 / 3 a task, b's 0.2 (mem); a wins ties (first):
    # a 6 tasks and b 1 are at 0.2, a takes its 7th, b its 2nd (0.4), a its 8th and the 10 cpus are full
    per = r.tasks_per_round()
    assert per == {"a": [8, 8, 0], "b": [2, 2, 5]}  # alone in round 3: mem (20) holds 5 of b's tasks
    assert r.end == pytest.approx(0.3) and sum(per["a"]) + sum(per["b"]) == r.stats["tasks_launched"]
    with pytest.raises(ValueError, match="repeated rounds"):
        simulate({"machines": [{"count": 1, "cpu": 1}],
                  "jobs": [{"user": "a", "tasks": 1, "demand": {"cpu": 1}, "duration": 1}]}).tasks_per_round()


@pytest.mark.parametrize(("body", "field"), [
    ('[rounds]\n[resources]\nx = [18, 9]\n[users.A]\ntasks = [1, 2]\n', "resources.x"),
    ('[rounds]\nlength = 0\n[resources]\nx = 18\n[users.A]\ntasks = [1]\n', "rounds.length"),
    ('[rounds]\nevery = 2\n[resources]\nx = 18\n[users.A]\ntasks = [1]\n', "rounds"),
    ('[rounds]\n[resources]\nx = 18\n[users.A]\ntasks = [1, -2]\n', "users.A.tasks[1]"),
    ('[rounds]\n[resources]\nx = 18\n[users.A]\ntasks = [1, 2]\n[users.B]\ntasks = [1]\n', "users.B.tasks"),
    ('[rounds]\n[resources]\nx = 18\ny = 2\n[users.A]\ntasks = [1]\n', "users.A.demand"),
    ('[rounds]\n[resources]\nx = 18\n[users.A]\ntasks = [1]\ndemand = { z = 1 }\n', "users.A.demand.z"),
    ('[rounds]\n[resources]\nx = 18\n[users.A]\ntasks = [0, 0]\n', "users.A.tasks"),
    ('[rounds]\n[resources]\nx = 18\n[users.A]\ntasks = [1]\nspeed = 2\n', "users.A.speed"),
    ('[rounds]\n[resources]\nx = 18\n[users.A]\ntasks = [1]\n[[machines]]\ncount = 1\n', "machines"),
])
def test_bad_rounds_file(tmp_path: Path, body: str, field: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(body)
    with pytest.raises(InstanceError, match=field.replace("[", r"\[").replace("]", r"\]")):
        simulate(f, "drf")
    cli = subprocess.run([sys.executable, "-m", "analyzer", "simulate", str(f), "--quiet"], capture_output=True,
                         text=True)
    assert cli.returncode == 2 and len(cli.stderr.strip().splitlines()) == 1 and field in cli.stderr


def test_cli_rounds_tables() -> None:
    out = subprocess.run([sys.executable, "-m", "analyzer", "simulate", str(KARMA), "--policy", "drf,drf:half_life=1",
                          "--quiet", "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 0
    import json

    sims = json.loads(out.stdout)["simulations"]
    assert sims[0]["cumulative_fairness"]["disparity"] == pytest.approx(2.5)
    text = subprocess.run([sys.executable, "-m", "analyzer", "simulate", str(KARMA), "--quiet"], capture_output=True,
                          text=True).stdout
    assert "Tasks per round: drf" in text and "disparity (max / min)" in text
