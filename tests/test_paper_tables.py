"""Tables for papers (issue 16): LaTeX with booktabs whose ✓/✗ compile
without symbol packages and whose counterexamples are notes under the
table; `solve --format csv` as one tidy table that pandas reads."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from analyzer import property_table
from analyzer.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"


@pytest.fixture(scope="module")
def table():
    return property_table(["asset", "drf"], ["sharing-incentive", "envy-freeness"], budget=30, seed=0, workers=1)


def test_property_table_latex_uses_booktabs_and_notes(table) -> None:
    tex = table.to_latex()
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert tex.count(rule) == 1
    assert r"\hline" not in tex and "\n% note" not in tex and "✓" not in tex and "✗" not in tex
    assert r"sharing-incentive & $\times^{1}$ & $\surd$ \\" in tex
    # the counterexample is note 1, under the table, with < and > printable in any font encoding
    note = next(line for line in tex.splitlines() if r"$^{1}$" in line)
    assert r"asset, sharing-incentive: R=\textless{}1, 1\textgreater{}" in note
    assert r"$\surd$: no counterexample in 30 instances of class paper" in tex
    assert r"\checkmark" in table.to_latex(checkmark="amssymb")
    with pytest.raises(ValueError, match="checkmark"):
        table.to_latex(checkmark="unicode")


def _compile(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    doc = tmp_path / "t.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + body
                   + "\n\\end{document}\n")
    return subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no LaTeX installed (apt-get install texlive-latex-base "
                                                              "texlive-latex-recommended)")
def test_generated_latex_compiles_with_booktabs_only(tmp_path, table, capsys) -> None:
    assert main(["solve", str(PAPER), "--exact", "--policy", "drf,asset,ceei,utilitarian", "--format", "latex"]) == 0
    solved = capsys.readouterr().out
    proc = _compile(tmp_path, table.to_latex() + "\n" + solved)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (tmp_path / "t.pdf").stat().st_size > 1000


def test_solve_csv_is_one_tidy_table(capsys) -> None:
    pd = pytest.importorskip("pandas")
    assert main(["solve", str(PAPER), "--exact", "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert len(frame) == 3 * 2 * 2  # policies x users x resources
    assert list(frame.columns) == ["policy", "user", "resource", "tasks", "tasks_exact", "dominant_share",
                                   "dominant_share_exact", "bundle", "share", "demand", "capacity"]
    ceei_a = frame[(frame.policy == "ceei") & (frame.user == "A")]
    assert set(ceei_a.tasks_exact) == {"45/11"} and ceei_a.tasks.iloc[0] == pytest.approx(45 / 11)
    asset_b = frame[(frame.policy == "asset") & (frame.user == "B") & (frame.resource == "cpu")].iloc[0]
    assert asset_b.tasks_exact == "54/25" and asset_b.dominant_share_exact == "18/25"
    assert frame.tasks.dtype.kind == "f" and frame.share.dtype.kind == "f"  # floats are numbers, not text


def test_solve_csv_without_exact_has_empty_exact_columns(capsys) -> None:
    pd = pytest.importorskip("pandas")
    assert main(["solve", str(PAPER), "--policy", "drf", "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert frame.tasks_exact.isna().all() and list(frame.tasks) == [3.0, 3.0, 2.0, 2.0]


def test_explain_is_refused_with_csv(capsys) -> None:
    assert main(["solve", str(PAPER), "--explain", "--format", "csv"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--explain: not with --format csv" in err
