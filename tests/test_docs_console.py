"""Docs that cannot drift: every ```console block of README.md and docs/*.md
is run and its output compared with the block (issue 16).

A block is ``$ command`` lines (``< FILE`` at the end feeds standard input;
a line ending in ``\\`` continues on the next),
each followed by its expected output (stdout, then stderr). ``fairalloc`` runs as ``python -m analyzer`` from this
checkout, in a scratch directory holding ``examples/`` and the files a slow
documented command writes for a later one (``tests/docs/*.toml``; every
file a command reads ships: tests/test_docs_files.py).

What is compared: every number, row and line in order. What is normalised,
and why:

* a line ``...`` stands for any number of lines the docs leave out, and
  ``...`` inside a line for any text (the docs elide long cells);
* a duration (``0.17 s``) is replaced by ``T s``: timings vary;
* runs of spaces count as one space and runs of three or more ``-`` as
  three, because an elided cell changes the column widths of the real
  table; trailing spaces are ignored.

Nothing else is normalised: the documented commands print no timings or
paths (a timing column is written ``...`` in the docs). Blocks that run a counterexample search (``table``, ``search``,
``variants --find``), a worst case (``worst``) or a frontier (``frontier``) take seconds to a minute and are
marked ``slow``.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "docs"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Subcommands whose blocks are slow (they search for counterexamples).
SLOW_COMMANDS = ("table", "search", "variants --find", "worst", "frontier")


@dataclass(frozen=True)
class Command:
    where: str
    argv: str
    expected: list[str]


def console_blocks(path: Path) -> list[Command]:
    """The commands of every ```console block of ``path``, with the lines
    expected after each."""
    out: list[Command] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start = i + 1
        end = next(j for j in range(start, len(lines)) if lines[j].strip() == "```")
        current: Command | None = None
        k = start
        while k < end:
            if lines[k].startswith("$ "):
                argv, where = lines[k][2:].strip(), f"{path.name}:{k + 1}"
                while argv.endswith("\\") and k + 1 < end:  # a command continued on the next line
                    k += 1
                    argv = argv[:-1].rstrip() + " " + lines[k].strip()
                current = Command(where, argv, [])
                out.append(current)
            elif current is not None:
                current.expected.append(lines[k])
            else:
                raise AssertionError(f"{path.name}:{k + 1}: console block text before any '$ ' command")
            k += 1
        i = end + 1
    return out


def _norm(line: str) -> str:
    line = re.sub(r"\b\d+(?:\.\d+)? s\b", "T s", line)  # a duration ("0.17 s") differs from run to run
    return re.sub(r"-{3,}", "---", re.sub(r" +", " ", line.rstrip()))


def expected_pattern(expected: list[str]) -> re.Pattern[str]:
    """A regex for the whole normalised output (see the module docstring).

    >>> bool(expected_pattern(["a   b", "...", "z ... end"]).fullmatch("a b\\nx\\ny\\nz what not end\\n"))
    True
    >>> bool(expected_pattern(["a", "b"]).fullmatch("a\\nb\\nc\\n"))
    False
    """
    parts = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in _norm(line).split("...")) + r"\n")
    return re.compile("".join(parts))


@functools.cache
def run_documented(argv: str, cwd: Path) -> str:
    """stdout then stderr of ``argv`` (``fairalloc ... [< FILE]``); a
    command documented twice (README and docs/) runs once."""
    words = shlex.split(argv)
    assert words[0] == "fairalloc", f"a console block runs fairalloc, not {words[0]!r}"
    stdin = ""
    if len(words) > 2 and words[-2] == "<":
        stdin = (cwd / words[-1]).read_text(encoding="utf-8")
        words = words[:-2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "analyzer", *words[1:]], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=600, check=False, input=stdin)
    return proc.stdout + proc.stderr


def _params() -> list[object]:
    out = []
    for doc in DOCS:
        for cmd in console_blocks(doc):
            slow = any(cmd.argv.removeprefix("fairalloc ").startswith(c) or f" {c} " in f" {cmd.argv} "
                       for c in SLOW_COMMANDS)
            marks = [pytest.mark.slow] if slow else []
            outside = [w for w in shlex.split(cmd.argv) if w.startswith("../")]
            if outside:  # data next to the checkout (a trace): a long run, and only where the data is
                marks.append(pytest.mark.slow)
                missing = [w for w in outside if not (ROOT / w).exists()]
                if missing:
                    marks.append(pytest.mark.skip(reason=f"no {missing[0]} next to this checkout"))
            out.append(pytest.param(cmd, id=f"{cmd.where} {cmd.argv[:60]}", marks=marks))
    return out


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("docs") / "repo"
    d.mkdir()
    (d / "examples").symlink_to(ROOT / "examples")
    if (ROOT.parent / "shared").is_dir():  # docs that read ../shared (traces) from a checkout next to it
        (d.parent / "shared").symlink_to(ROOT.parent / "shared")
    for f in FIXTURES.glob("*.toml"):
        (d / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    return d


@pytest.mark.parametrize("cmd", _params())
def test_console_block_matches_the_real_output(cmd: Command, scratch: Path) -> None:
    output = "".join(_norm(line) + "\n" for line in run_documented(cmd.argv, scratch).splitlines())
    assert expected_pattern(cmd.expected).fullmatch(output), (
        f"{cmd.where}: `{cmd.argv}` prints something else than documented; real output:\n{output}")


def test_every_doc_is_scanned_and_the_readme_has_blocks() -> None:
    assert ROOT / "README.md" in DOCS and len(console_blocks(ROOT / "README.md")) >= 8
    fast = [p for p in _params() if not p.marks]  # type: ignore[attr-defined]
    assert len(fast) >= 4  # the default run executes the quick blocks


def test_ci_runs_exactly_the_readme_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme[readme.index("## Quick start"):readme.index("\n## ", readme.index("## Quick start") + 3)]
    documented = [b.strip() for b in re.findall(r"```sh\n(.*?)```", quick, re.DOTALL)]
    ci = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if line and not line.startswith(("#", "set ", "cd "))]
    assert ci == documented and 'pip install -e ".[dev,dask]"' in documented[0]
