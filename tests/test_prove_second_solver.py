"""A second, independent solver (issue 27, item 3): every case z3 finds
unsatisfiable is re-checked by cvc5 on the same SMT-LIB2 text, a proof
names the solvers that agreed, and ``--emit-smt2 DIR`` writes each case as
a self-contained script any solver re-checks from disk."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("z3")
cvc5 = pytest.importorskip("cvc5")

import z3  # noqa: E402

from analyzer import prove  # noqa: E402
from analyzer.cli import main  # noqa: E402
from models import PolicyError  # noqa: E402
from proofs.prover import cvc5_check  # noqa: E402
from proofs.prover.smtlib import flatten  # noqa: E402

HEADER_KEYS = ("policy", "property", "size", "domain", "class", "case")


def test_a_proof_names_both_solvers_with_their_versions() -> None:
    r = prove("drf", "envy-freeness", workers=1)
    assert r.status == "proved"
    assert r.solvers == (f"z3 {z3.get_version_string()}", f"cvc5 {cvc5.__version__}")
    assert all(c.solvers == r.solvers and c.recheck_seconds > 0 for c in r.cases)
    assert r.to_dict()["solvers"] == list(r.solvers)
    assert "cvc5" in repr(r) and "cvc5" in r._repr_html_()


def test_the_text_output_says_which_solvers_agreed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "drf", "envy-freeness", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"every unsat re-checked by cvc5 \S+\):", out)
    assert re.search(r"^  dominant r0,r0: unsat \(\S+ s; cvc5 \S+ s\)$", out, re.MULTILINE)
    assert f"verdict of: z3 {z3.get_version_string()} and cvc5 {cvc5.__version__}" in out
    assert main(["prove", "drf", "envy-freeness", "--workers", "1", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["solvers"] == [f"z3 {z3.get_version_string()}", f"cvc5 {cvc5.__version__}"]


def _solve_cvc5_file(path: Path) -> str:
    """cvc5 reading ``path`` itself (its own parser, from disk)."""
    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("nl-ext", "none")
    solver.setOption("tlimit-per", "60000")
    symbols = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, symbols)
    parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, str(path))
    out = []
    while not (command := parser.nextCommand()).isNull():
        out.append(command.invoke(solver, symbols))
    return "".join(out).split()[-1]


def test_emitted_scripts_are_unsat_for_z3_and_cvc5_from_disk(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's acceptance: each file of ``fairalloc prove drf
    strategy-proofness --emit-smt2 DIR`` is unsat when z3 (and cvc5) read
    it afresh from disk."""
    out = tmp_path / "scripts"  # created by the command
    assert main(["prove", "drf", "strategy-proofness", "--workers", "1", "--emit-smt2", str(out)]) == 0
    assert "PROVED" in capsys.readouterr().out
    files = sorted(out.glob("*.smt2"))
    assert [f.name for f in files] == [f"drf.strategy-proofness.2x2.positive.case{k:02d}.smt2" for k in (1, 2, 3, 4)]
    for f in files:
        text = f.read_text()
        head = dict(line[2:].split(": ", 1) for line in text.splitlines() if line.startswith("; "))
        assert all(key in head for key in HEADER_KEYS)
        assert head["policy"] == "drf" and head["size"] == "2 users x 2 resources"
        assert "(set-logic QF_NRA)" in text and text.rstrip().endswith("(check-sat)\n(exit)")
        fresh = z3.Solver()
        fresh.from_file(str(f))
        assert fresh.check() == z3.unsat, f.name
        logic = z3.SolverFor("QF_NRA")  # as `z3 FILE` reads it: the script's logic
        logic.from_file(str(f))
        assert logic.check() == z3.unsat, f.name
        assert _solve_cvc5_file(f) == "unsat", f.name


def test_every_case_is_written_even_after_a_counterexample(tmp_path: Path) -> None:
    r = prove("drf", "resource-monotonicity", 2, 2, workers=1, emit_smt2=tmp_path)
    assert r.status == "counterexample"
    assert len(list(tmp_path.glob("drf.resource-monotonicity.2x2.positive.case*.smt2"))) == r.assumptions["cases"]


def test_weighted_capped_scripts_are_named_by_their_class(tmp_path: Path) -> None:
    r = prove("drf", "sharing-incentive", 2, 2, weighted=True, capped=True, workers=1, emit_smt2=tmp_path / "a" / "b")
    assert r.status == "proved"
    names = sorted(p.name for p in (tmp_path / "a" / "b").iterdir())
    assert names and all(re.fullmatch(r"drf\.sharing-incentive\.2x2\.positive\.weighted\.capped\.case\d\d\.smt2", n)
                         for n in names)
    assert "; class: weights any > 0, task caps any >= 0" in (tmp_path / "a" / "b" / names[0]).read_text()


def test_a_disagreement_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """cvc5 finding a model where z3 found none: the proof is unknown and
    says so (the worker processes are forked: they see the patch)."""
    monkeypatch.setattr(cvc5_check, "_solve", lambda text, options, seconds: ("sat", ""))
    r = prove("drf", "envy-freeness", workers=1)
    assert r.status == "unknown" and r.solvers == ()
    assert "the solvers disagree: z3 says unsat, cvc5 finds a model (sat)" in r.reason


def test_cvc5_giving_up_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cvc5_check, "_solve", lambda text, options, seconds: ("unknown", "unknown (INCOMPLETE)"))
    r = prove("drf", "envy-freeness", workers=1)
    assert r.status == "unknown"
    assert "z3 says unsat, cvc5 did not confirm it (cylindrical algebraic coverings: unknown (INCOMPLETE)" in r.reason


def test_a_cvc5_that_never_answers_is_stopped_at_its_time() -> None:
    """An attempt that does not return (cvc5 can overrun its own limit) is
    killed when its share of the time is spent: the re-check returns
    "unknown" and leaves no process behind."""
    text = "(set-logic QF_NRA)\n(check-sat)\n"
    hang = ("never", {"never-returns": "true"})

    def never(text: str, options: dict[str, str], seconds: float) -> tuple[str, str]:
        import signal

        signal.pause()  # blocks until killed
        return "unsat", ""

    old_configs, old_solve = cvc5_check.CONFIGS, cvc5_check._solve
    cvc5_check.CONFIGS, cvc5_check._solve = (hang,), never
    try:
        out = cvc5_check.recheck(text, 0.5)
    finally:
        cvc5_check.CONFIGS, cvc5_check._solve = old_configs, old_solve
    assert out.answer == "unknown" and out.reason.startswith("never: timeout after")


def test_the_real_cvc5_answers() -> None:
    sat = cvc5_check.recheck("(set-logic QF_NRA)\n(declare-fun x () Real)\n(assert (> (* x x) 2.0))\n(check-sat)\n",
                             30)
    unsat = cvc5_check.recheck("(set-logic QF_NRA)\n(declare-fun x () Real)\n(assert (< (* x x) 0.0))\n(check-sat)\n",
                               30)
    assert (sat.answer, unsat.answer) == ("sat", "unsat")
    broken = cvc5_check.recheck("(set-logic QF_NRA)\n(assert (> y 0.0))\n(check-sat)\n", 30)
    assert broken.answer == "unknown" and "cvc5 failed" in broken.reason


def test_flatten_makes_z3_text_strict_smtlib() -> None:
    text = "(assert (>= (+ (* a b)) 1.0))\n(assert\n or)\n(assert (and (> a 0.0)))\n(assert (or (and (> (+ a) 1.0)) b))"
    assert flatten(text) == ("(assert (>= (* a b) 1.0))\n(assert\n false)\n(assert (> a 0.0))\n"
                             "(assert (or (> a 1.0) b))")
    assert flatten("(assert (= (^ (+ a b) 2.0) (^ c 1.0) (^ d 3) (^ e 0.0)))") == \
        "(assert (= (* (+ a b) (+ a b)) c (* d d d) 1.0))"


def test_a_power_encoding_is_read_back_by_both_solvers(tmp_path: Path) -> None:
    """FDS's KKT conditions have powers, which z3 prints as ``^``: the
    script has products instead, and both solvers decide it."""
    r = prove("fds:beta=2", "envy-freeness", workers=1, emit_smt2=tmp_path)
    assert r.status == "proved", r.reason
    assert r.solvers[1].startswith("cvc5 ")
    assert all("(^ " not in p.read_text() for p in tmp_path.glob("*.smt2"))


@pytest.mark.parametrize(("value", "message"), [
    ("FILE", "exists and is not a directory"),
    ("", "must be a directory path"),
    (3, "must be a directory path"),
])
def test_a_bad_directory_is_bad_input(tmp_path: Path, value: object, message: str) -> None:
    (tmp_path / "FILE").write_text("x")
    arg = str(tmp_path / "FILE") if value == "FILE" else value
    with pytest.raises(PolicyError, match=f"^emit_smt2: .*{message}"):
        prove("drf", "envy-freeness", workers=1, emit_smt2=arg)


def test_a_bad_directory_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "FILE").write_text("x")
    assert main(["prove", "drf", "envy-freeness", "--emit-smt2", str(tmp_path / "FILE")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--emit-smt2:" in err and "not a directory" in err
    assert main(["prove", "drf", "envy-freeness", "--discrete", "--bound", "2", "--emit-smt2", str(tmp_path)]) == 2
    assert "--emit-smt2: not with --discrete" in capsys.readouterr().err


def test_an_integer_encoding_gets_the_mixed_logic(tmp_path: Path) -> None:
    prove("slots", "envy-freeness", 2, 2, workers=1, emit_smt2=tmp_path, timeout=120)
    texts = [p.read_text() for p in tmp_path.glob("*.smt2")]
    assert texts and all("(set-logic QF_NIRA)" in t and "() Int)" in t for t in texts)


def test_the_recheck_example_reads_the_scripts_without_fairalloc(tmp_path: Path) -> None:
    """``examples/recheck_smt2.py`` (z3's and cvc5's own APIs only) says
    unsat for every case of a proof, and exits 1 on a satisfiable one."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    prove("drf", "envy-freeness", workers=1, emit_smt2=tmp_path)
    files = sorted(str(p) for p in tmp_path.glob("*.smt2"))
    run = subprocess.run([sys.executable, str(root / "examples" / "recheck_smt2.py"), *files], capture_output=True,
                         text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("z3 unsat, cvc5 unsat") == len(files) == 2
    sat = tmp_path / "sat.smt2"
    sat.write_text("(set-logic QF_NRA)\n(declare-fun x () Real)\n(assert (> x 1.0))\n(check-sat)\n")
    run = subprocess.run([sys.executable, str(root / "examples" / "recheck_smt2.py"), str(sat)], capture_output=True,
                         text=True, timeout=600, check=False)
    assert run.returncode == 1 and "z3 sat, cvc5 sat" in run.stdout
