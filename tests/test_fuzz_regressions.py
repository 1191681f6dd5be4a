"""What the fuzz campaign of issue 28 found, pinned as plain tests (each
case once, fast): a negative ``--seed`` named as such."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAPER = str(ROOT / "examples" / "paper_two_users.toml")
SIM = str(ROOT / "examples" / "sim_section_7_1.toml")

SEEDED = [
    ["search", "--policy", "drf", "--property", "envy-freeness", "--budget", "3", "--workers", "1", "--quiet"],
    ["table", "--policy", "drf", "--property", "envy-freeness", "--budget", "3", "--workers", "1", "--quiet"],
    ["worst", "drf", "efficiency", "--budget", "3", "--bound", "no", "--quiet"],
    ["frontier", "fds", "--param", "beta", "--values", "1", "--budget", "3", "--quiet"],
    ["discrete", PAPER, "--tie-break", "random"],
    ["simulate", SIM, "--until", "1", "--quiet"],
    ["variants", "--find", "tie", "--budget", "3"],
]


@pytest.mark.parametrize("argv", SEEDED, ids=lambda a: a[0])
def test_a_negative_seed_is_bad_input_naming_the_flag(argv: list[str], capfd: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, "--seed", "-1"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "--seed" in err and "must be a whole number >= 0, got -1" in err, err


def test_a_negative_seed_from_python_names_the_seed() -> None:
    from analyzer import search

    with pytest.raises(ValueError, match="seed: must be >= 0, got -1"):
        search("drf", "envy-freeness", budget=3, seed=-1, workers=1)

