"""Output formats are a registry (analyzer.formats): a format registered from
anywhere is a ``--format`` choice of every command, and the built-ins are
one module each."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from analyzer.cli.main import main
from analyzer.formats import OUTPUT_FORMATS, Document, OutputFormat, format_names, render, render_tables
from analyzer.render import Table
from models.registry import UnknownNameError

ROOT = Path(__file__).resolve().parents[1]
PAPER = str(ROOT / "examples" / "paper_two_users.toml")


class Tsv(OutputFormat):
    """A toy format: tab-separated cells, one block per table."""

    description = "tab-separated values (test)"

    def render(self, doc: Document) -> str:
        lines = []
        for t in doc.tables:
            lines += [f"# {t.title}", "\t".join(t.headers), *("\t".join(str(c) for c in row) for row in t.rows)]
        return "\n".join(lines) + "\n"


@pytest.fixture
def tsv() -> Iterator[None]:
    OUTPUT_FORMATS.register("tsv", Tsv)
    yield
    OUTPUT_FORMATS.unregister("tsv")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_builtins_are_registered_in_the_usual_order() -> None:
    assert format_names()[:5] == ["text", "md", "latex", "csv", "json"]
    with pytest.raises(UnknownNameError, match="did you mean 'latex'"):
        render(Document(), "latx")


def test_a_registered_format_reaches_solve_through_the_cli(tsv: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "solve", PAPER, "--policy", "drf", "--format", "tsv")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("# Tasks per user") and lines[1] == "user\tdrf"
    assert lines[2:4] == ["A\t3.0", "B\t2.0"]  # the paper: DRF gives 3 and 2 tasks


@pytest.mark.parametrize("argv", [
    ("policies",), ("properties",),
    ("check", PAPER, "--policy", "drf", "--property", "sharing-incentive"),
    ("table", "--policy", "drf", "--property", "sharing-incentive", "--budget", "5", "--workers", "1", "--quiet"),
    ("search", "--policy", "drf", "--property", "sharing-incentive", "--budget", "5", "--workers", "1", "--quiet"),
    ("discrete", PAPER, "--policy", "drf"),
    ("variants", PAPER, "--policy", "mesos"),
    ("prove", "drf", "sharing-incentive", "--workers", "1"),
    ("simulate", str(ROOT / "examples" / "sim_section_7_2.toml"), "--until", "120", "--quiet"),
])
def test_every_command_offers_a_registered_format(tsv: None, capsys: pytest.CaptureFixture[str],
                                                  argv: tuple[str, ...]) -> None:
    code, out, err = run(capsys, *argv, "--format", "tsv")
    assert code == 0, err
    assert out.startswith("# ") and "\t" in out


def test_an_unregistered_format_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve", PAPER, "--format", "tsv")
    assert code == 2
    assert err.count("\n") == 1 and "--format" in err and "invalid choice: 'tsv'" in err


def test_check_keeps_its_sentence_in_text_and_gives_a_table_elsewhere(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("check", PAPER, "--policy", "drf", "--property", "sharing-incentive")
    _, text, _ = run(capsys, *argv)
    assert text == "sharing-incentive holds on this instance for drf (continuous)\n"
    _, md, _ = run(capsys, *argv, "--format", "md")
    assert md.startswith("### Check") and "| holds    | True" in md
    _, data, _ = run(capsys, *argv, "--format", "json")
    assert json.loads(data)["holds"] is True


def test_json_without_data_writes_the_tables() -> None:
    out = render_tables([Table("T", ["a"], [[1]])], "json", ["n"])
    assert json.loads(out) == {"tables": [{"title": "T", "headers": ["a"], "rows": [[1]]}], "notes": ["n"]}
