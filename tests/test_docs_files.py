"""Every file a documented command reads ships with fairalloc: a reader can
run each ``$ fairalloc ...`` line of README.md and docs/*.md in a checkout
(data next to the checkout, ``../shared/...``, aside), or it is written by
an earlier documented command (``--save``, ``--out``, ``-o``, ``--plot``)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from test_docs_console import DOCS, console_blocks

ROOT = Path(__file__).resolve().parents[1]
#: Files a command reads: scenarios, workloads, traces, policy files.
READ = re.compile(r"\.(toml|json|csv|py)$")
#: Flags whose value is a file the command writes.
WRITES = ("--save", "--out", "-o", "--plot", "--emit-smt2")


def test_every_file_a_documented_command_reads_ships() -> None:
    missing = []
    for doc in DOCS:
        written: set[str] = set()
        for cmd in console_blocks(doc):
            words = shlex.split(cmd.argv)[1:]
            outputs = {w for flag, w in zip(words, words[1:], strict=False) if flag in WRITES}
            for w in words:
                if READ.search(w) and not w.startswith("-") and w not in outputs and not w.startswith("../") \
                        and w not in written and not (ROOT / w).exists():
                    missing.append(f"{cmd.where}: {w}")
            written |= outputs
    assert not missing, f"documented commands read files that do not ship: {missing}"


def test_the_check_example_ships() -> None:
    text = (ROOT / "examples" / "scenario.toml").read_text(encoding="utf-8")
    assert "cpu = 30" in text and "demand = { cpu = 1, mem = 3 }" in text and "demand = { cpu = 1, mem = 1 }" in text
