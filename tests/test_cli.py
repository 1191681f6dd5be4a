"""The command line: solve, policies, formats, and one test per bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"

GOOD_USERS = '[users.A]\ndemand = { cpu = 1, mem = 4 }\n'


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_text_side_by_side(capsys) -> None:
    code, out, err = run(capsys, "solve", str(PAPER), "--exact")
    assert code == 0
    assert "63/25" in out and "54/25" in out
    assert "45/11" in out and "not exact" not in out  # CEEI is exact too (proofs.ceei_exact)


@pytest.mark.parametrize("fmt", ["text", "md", "latex", "csv", "json"])
def test_solve_formats(capsys, fmt: str) -> None:
    code, out, _ = run(capsys, "solve", str(PAPER), "--policy", "drf,asset", "--exact", "--format", fmt)
    assert code == 0 and out.strip()
    if fmt == "json":
        data = json.loads(out)
        a = data["allocations"][1]["users"]["A"]
        assert a["tasks"] == "63/25" and a["tasks_float"] == pytest.approx(2.52)
    elif fmt == "latex":
        assert r"\begin{tabular}" in out
    elif fmt == "csv":
        assert out.splitlines()[0] == ("policy,user,resource,tasks,tasks_exact,dominant_share,dominant_share_exact,"
                                       "bundle,share,demand,capacity")
    else:
        assert "63/25" in out


def test_policies_lists_every_policy(capsys) -> None:
    code, out, _ = run(capsys, "policies")
    assert code == 0
    for name in ("drf", "asset", "ceei"):
        assert name in out


def test_python_m_analyzer() -> None:
    # which modules `solve --policy drf` may import: tests/test_cold_start.py
    r = subprocess.run([sys.executable, "-m", "analyzer", "solve", str(PAPER), "--policy", "drf"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "Tasks per user" in r.stdout


BAD_FILES = {
    "malformed_toml": ("x.toml", "[resources\ncpu = 1\n", "malformed TOML"),
    "malformed_json": ("x.json", '{"resources": {"cpu": 1}', "malformed JSON"),
    "negative_capacity": ("x.toml", "[resources]\ncpu = -1\nmem = 4\n" + GOOD_USERS, "resources.cpu: must be > 0"),
    "zero_capacity": ("x.toml", "[resources]\ncpu = 0\nmem = 4\n" + GOOD_USERS, "resources.cpu: must be > 0"),
    "nan_capacity": ("x.toml", "[resources]\ncpu = nan\nmem = 4\n" + GOOD_USERS, "resources.cpu: must be a number"),
    "inf_capacity": ("x.toml", "[resources]\ncpu = inf\nmem = 4\n" + GOOD_USERS, "resources.cpu: must be finite"),
    "text_capacity": ("x.toml", '[resources]\ncpu = "lots"\nmem = 4\n' + GOOD_USERS, "resources.cpu: must be a number"),
    "negative_demand": ("x.toml", "[resources]\ncpu = 9\nmem = 4\n[users.B]\ndemand = { cpu = 1, mem = -1 }\n",
                        "users.B.demand.mem: must be >= 0, got -1"),
    "nan_demand": ("x.toml", "[resources]\ncpu = 9\nmem = 4\n[users.B]\ndemand = { cpu = 1, mem = nan }\n",
                   "users.B.demand.mem: must be a number"),
    "inf_demand": ("x.toml", "[resources]\ncpu = 9\nmem = 4\n[users.B]\ndemand = { cpu = 1, mem = inf }\n",
                   "users.B.demand.mem: must be finite"),
    "text_demand": ("x.toml", '[resources]\ncpu = 9\nmem = 4\n[users.B]\ndemand = { cpu = 1, mem = "x" }\n',
                    "users.B.demand.mem: must be a number"),
    "unknown_resource": ("x.toml", "[resources]\ncpu = 9\n[users.B]\ndemand = { cpu = 1, gpu = 1 }\n",
                         "users.B.demand.gpu: unknown resource"),
    "all_zero_demand": ("x.toml", "[resources]\ncpu = 9\n[users.B]\ndemand = { cpu = 0 }\n",
                        "users.B.demand: all entries are zero"),
    "zero_weight": ("x.toml", "[resources]\ncpu = 9\n[users.B]\ndemand = { cpu = 1 }\nweight = 0\n",
                    "users.B.weight: must be > 0"),
    "negative_weight": ("x.toml", "[resources]\ncpu = 9\n[users.B]\ndemand = { cpu = 1 }\nweight = -2\n",
                        "users.B.weight: must be > 0"),
    "negative_cap": ("x.toml", "[resources]\ncpu = 9\n[users.B]\ndemand = { cpu = 1 }\nmax_tasks = -1\n",
                     "users.B.max_tasks: must be >= 0"),
    "no_users": ("x.toml", "[resources]\ncpu = 9\n[users]\n", "users: no users given"),
    "no_resources": ("x.toml", "[resources]\n" + "[users.B]\ndemand = { cpu = 1 }\n", "resources: no resources given"),
    "empty_file": ("x.toml", "", "file is empty"),
    "binary_file": ("x.toml", b"\x00\x01\x02\xff", "binary file"),
    "unknown_user_key": ("x.toml", "[resources]\ncpu = 9\n[users.B]\ndemand = { cpu = 1 }\nwieght = 2\n",
                         "users.B.wieght: unknown key"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_exits_2_with_one_line(tmp_path, capsys, case: str) -> None:
    name, content, expected = BAD_FILES[case]
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    code, out, err = run(capsys, "solve", str(p), "--policy", "drf")
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert expected in err and name in err


def test_missing_file(capsys, tmp_path) -> None:
    code, _, err = run(capsys, "solve", str(tmp_path / "nope.toml"))
    assert code == 2 and "nope.toml: no such file" in err and err.count("\n") == 1


def test_unknown_policy(capsys) -> None:
    code, _, err = run(capsys, "solve", str(PAPER), "--policy", "drf,nosuch")
    assert code == 2 and "unknown policy 'nosuch'" in err and err.count("\n") == 1


def test_unknown_format(capsys) -> None:
    code, _, err = run(capsys, "solve", str(PAPER), "--format", "xml")
    assert code == 2 and "--format" in err and err.count("\n") == 1


def test_cli_subprocess_bad_input_has_no_traceback(tmp_path) -> None:
    p = tmp_path / "bad.toml"
    p.write_text("[resources]\ncpu = 9\n[users.B]\ndemand = { cpu = -1 }\n")
    r = subprocess.run([sys.executable, "-m", "analyzer", "solve", str(p)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2
    assert r.stderr.strip() == f"fairalloc: error: {p}: users.B.demand.cpu: must be >= 0, got -1"
