"""Property tables: cells, formats, n/a cells, workers, and the CLI."""

from __future__ import annotations

import csv
import io
import json

import pytest

from analyzer import property_table
from analyzer.cli.main import main
from analyzer.tables.table import PropertyTable
from models import register
from models.filling import FillingPolicy
from models.policy import POLICIES


class NoInstances(FillingPolicy):
    """Test-only policy supporting no instance at all (every cell n/a)."""

    name = "test-nothing"

    def share_per_task(self, demands, capacity):
        return (demands / capacity).max(axis=1)

    def supports(self, instance):
        return "supports nothing"


@pytest.fixture(autouse=True, scope="module")
def _registered():
    register(NoInstances)
    yield
    POLICIES.unregister(NoInstances.name)


@pytest.fixture(scope="module")
def table() -> PropertyTable:
    return property_table(["asset", "drf", "test-nothing"], ["sharing-incentive", "resource-monotonicity"],
                          budget=80, seed=0, workers=1)


def test_cells_hold_fail_or_are_n_a(table):
    si = table["asset", "sharing-incentive"]
    assert si.holds is False and si.counterexample.exact and si.counterexample.instance.n <= 3
    assert table["drf", "sharing-incentive"].holds is True
    assert table["drf", "sharing-incentive"].instances == 80
    assert table["drf", "resource-monotonicity"].holds is False
    na = table["test-nothing", "sharing-incentive"]
    assert na.holds is None and na.unsupported > 0
    assert table["drf", "sharing-incentive"].instance_class.name == "paper"
    with pytest.raises(KeyError):
        table["drf", "envy-freeness"]


def test_text_and_markdown(table):
    text = table.to_text()
    assert "✓" in text and "✗" in text and "n/a" in text
    assert "no counterexample in 80 instances of class paper" in text
    md = table.to_markdown()
    assert md.count("|") > 10 and "✗ R=<" in md
    assert table.cell_text("asset", "sharing-incentive") == "✗"


def test_latex_csv_json(table):
    tex = table.to_latex()
    assert r"$\surd$" in tex and r"$\times^{1}$" in tex and r"\begin{tabular}" in tex
    rows = list(csv.DictReader(io.StringIO(table.to_csv())))
    assert len(rows) == 6
    asset_si = next(r for r in rows if r["policy"] == "asset" and r["property"] == "sharing-incentive")
    assert asset_si["holds"] == "false" and asset_si["counterexample"].startswith("R=<") and asset_si["exact"] == "true"
    assert next(r for r in rows if r["policy"] == "test-nothing")["holds"] == "n/a"
    data = json.loads(table.to_json())
    assert [c["policy"] for c in data["cells"][:3]] == ["asset", "drf", "test-nothing"]
    assert data["cells"][0]["counterexample"]["instance"]["resources"]
    assert table.to_dict()["interrupted"] is False


def test_workers_give_the_same_table(table):
    two = property_table(["asset", "drf", "test-nothing"], ["sharing-incentive", "resource-monotonicity"],
                         budget=80, seed=0, workers=2)
    assert [c.outcome() for c in two.cells.values()] == [table.cells[k].outcome() for k in two.cells]


def test_cli_table_json_and_formats(capsys):
    assert main(["table", "--policy", "asset,drf", "--property", "sharing-incentive", "--budget", "40", "--format",
                 "json", "--quiet", "--workers", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["holds"] for c in data["cells"]] == [False, True]
    for fmt, marker in (("text", "✗"), ("md", "| sharing-incentive"), ("latex", r"$\surd$"), ("csv", "policy,")):
        assert main(["table", "--policy", "asset,drf", "--property", "sharing-incentive", "--budget", "20",
                     "--format", fmt, "--quiet", "--workers", "1"]) == 0
        assert marker in capsys.readouterr().out


def test_cli_search(capsys, tmp_path):
    out = tmp_path / "s.jsonl"
    rc = main(["search", "--policy", "asset", "--property", "sharing-incentive", "--budget", "50", "--quiet",
               "--out", str(out), "--workers", "1"])
    text = capsys.readouterr().out
    assert rc == 1 and "violated" in text and "[resources]" in text
    assert main(["search", "--policy", "drf", "--property", "sharing-incentive", "--budget", "30", "--quiet",
                 "--format", "json", "--workers", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["holds"] is True


@pytest.mark.parametrize("argv, field", [
    (["table", "--budget", "-3"], "--budget"),
    (["table", "--class", "bogus"], "bogus"),
    (["table", "--property", "nope"], "nope"),
    (["table", "--policy", "asset,,drf"], "--policy"),
    (["table", "--resume"], "--out"),
    (["table", "--workers", "-2", "--budget", "1", "--property", "sharing-incentive"], "workers"),
    (["search", "--policy", "drf", "--property", "sharing-incentive", "--mode", "quantum"], "mode"),
    (["search", "--policy", "zzz", "--property", "sharing-incentive"], "zzz"),
])
def test_cli_bad_input_is_one_line_exit_2(capsys, argv, field):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fairalloc: error:") and field in err


def _stderr_of(args: list[str], tty: bool) -> str:
    import os
    import pty
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "100"}
    if not tty:
        return subprocess.run([sys.executable, "-m", "analyzer", *args], cwd=root, env=env, capture_output=True,
                              text=True, timeout=300).stderr
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal has a width
    proc = subprocess.Popen([sys.executable, "-m", "analyzer", *args], cwd=root, env=env, stdout=subprocess.DEVNULL,
                            stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=300)
    os.close(master)
    return b"".join(chunks).decode(errors="replace")


def test_progress_bar_only_on_a_terminal_and_not_with_quiet():
    args = ["search", "--policy", "drf", "--property", "sharing-incentive", "--budget", "50", "--workers", "1"]
    assert "inst" in _stderr_of(args, tty=True)
    assert _stderr_of(args, tty=False) == ""
    assert _stderr_of([*args, "--quiet"], tty=True) == ""
