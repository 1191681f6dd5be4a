"""Loading a user's policy file (Python API and ``--policy-file``)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from analyzer import PolicyError, available, load_policy_file, solve
from analyzer.cli.main import main
from analyzer.policy_file import forget_policy_file

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "new_policy.py"
PAPER = ROOT / "examples" / "paper_two_users.toml"


@pytest.fixture
def example():
    yield EXAMPLE
    forget_policy_file(EXAMPLE)


def test_example_is_at_most_15_lines() -> None:
    assert len(EXAMPLE.read_text().splitlines()) <= 15


def test_load_from_python(example: Path) -> None:
    assert load_policy_file(example) == ["drf-asset-mix"]
    assert load_policy_file(example) == ["drf-asset-mix"]  # a second load is a no-op
    # shares per task: A (2/9 + 1/6) / 2 = 7/36, B (1/3 + 7/36) / 2 = 19/72;
    # 7 xA / 36 = 19 xB / 72 and cpu xA + 3 xB = 9 fills first: xB = 126/61
    alloc = solve(PAPER, "drf-asset-mix", exact=True)
    assert alloc.x_exact == (Fraction(171, 61), Fraction(126, 61))


@pytest.mark.parametrize("where", ["before", "after", "equals"])
def test_cli_flag_anywhere(capsys, example: Path, where: str) -> None:
    args = {"before": ["--policy-file", str(example), "solve", str(PAPER)],
            "after": ["solve", str(PAPER), "--policy-file", str(example)],
            "equals": ["solve", str(PAPER), f"--policy-file={example}"]}[where]
    assert main([*args, "--policy", "drf-asset-mix", "--exact"]) == 0
    assert "171/61" in capsys.readouterr().out


BAD = {
    "syntax.py": ("x = (\n", "syntax.py:1: syntax error"),
    "raises.py": ("import math\nraise ValueError('boom')\n", "raises.py:2: ValueError: boom"),
    "empty.py": ("x = 1\n", "defines no policy"),
    "clash.py": ("from models import register\nfrom models.policies.drf import DRF\n\n@register\n"
                 "class X(DRF):\n    name = 'asset'\n", "'asset' is already taken"),
    "badname.py": ("from models import register\nfrom models.policies.drf import DRF\n\n@register\n"
                   "class X(DRF):\n    name = 'Has Space'\n", "name must be a non-empty lower-case word"),
    "notpy.txt": ("x = 1\n", "must be a Python file"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_policy_file_exits_2_with_one_line(capsys, tmp_path: Path, name: str) -> None:
    text, expected = BAD[name]
    f = tmp_path / name
    f.write_text(text)
    before = available()
    assert main(["policies", "--policy-file", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err
    assert available() == before  # a failed load leaves the registry as it was
    with pytest.raises(PolicyError, match=str(f.name)):
        load_policy_file(f)


def test_missing_file_and_missing_value(capsys) -> None:
    assert main(["policies", "--policy-file", "/no/such/file.py"]) == 2
    assert "no such policy file" in capsys.readouterr().err
    assert main(["policies", "--policy-file"]) == 2
    assert "expected a file name" in capsys.readouterr().err
