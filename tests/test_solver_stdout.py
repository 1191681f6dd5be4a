"""A solver's C library must not write to the user's standard output: a
table piped into a file starts with the table (HiGHS prints a banner on
file descriptor 1 whatever its options say)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_lp_policy_output_is_only_the_table() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "analyzer", "solve", str(ROOT / "examples" / "paper_two_users.toml"),
         "--policy", "utilitarian", "--format", "csv"],
        check=False, capture_output=True, text=True, cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    assert "HiGHS" not in r.stdout
    assert "A" in r.stdout and "B" in r.stdout  # the table itself is there
