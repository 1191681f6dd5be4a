"""Comparisons, simulations and proofs in a notebook (issue 23): a short
repr, an HTML table, a tidy frame and, where a picture fits, ``plot``."""

from __future__ import annotations

import contextlib
import importlib
import io
from pathlib import Path

import numpy as np
import pytest

import analyzer
from analyzer import Instance, check, simulate, solve
from analyzer.comparison import Comparison
from models import PolicyError
from proofs.prover.result import CaseResult, ProofResult

pd = pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"
WORKLOAD = {"machines": [{"count": 2, "cpu": 4, "mem": 8}],
            "jobs": [{"user": "A", "tasks": 6, "demand": {"cpu": 1, "mem": 3}, "duration": 5},
                     {"user": "B", "tasks": 5, "demand": {"cpu": 2, "mem": 1}, "duration": [3, 4], "arrival": 2}]}


def test_solve_several_policies_is_a_comparison_as_the_cli_shows_it() -> None:
    c = solve(PAPER, ["drf", "asset", "ceei"], exact=True)
    assert isinstance(c, Comparison) and list(c) == ["drf", "asset", "ceei"] and len(c) == 3
    assert c["drf"].tasks["A"] == 3 and str(c["ceei"].tasks["B"]) == "18/11"
    assert repr(c) == ("Comparison(policies=['drf', 'asset', 'ceei'], users=2, resources=2, exact=True, "
                       "tasks={'drf': {'A': 3, 'B': 2}, 'asset': {'A': '63/25', 'B': '54/25'}, "
                       "'ceei': {'A': '45/11', 'B': '18/11'}})")
    html = c._repr_html_()
    assert html.startswith("<table>") and "<td>63/25</td>" in html and "utilization per resource" in html
    from analyzer.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["solve", str(PAPER), "--policy", "drf,asset,ceei", "--exact", "--format", "csv"]) == 0
    cli = pd.read_csv(io.StringIO(out.getvalue()))
    frame = c.to_pandas()
    assert len(frame) == 3 * 2 * 2 and list(frame.columns) == list(cli.columns)
    pd.testing.assert_frame_equal(frame, cli, check_dtype=False)
    with pytest.raises(KeyError, match="no policy 'slots'"):
        c["slots"]
    with pytest.raises(PolicyError, match="at least one policy"):
        solve(PAPER, [])


def test_comparison_of_many_users_stays_short_and_plots() -> None:
    from matplotlib.figure import Figure

    big = solve(Instance.from_arrays([1, 1], np.ones((3000, 2))), ("drf", "asset"))
    assert len(repr(big)) <= 400 and "\n" not in repr(big)
    assert big._repr_html_().count("<tr>") < 100
    assert isinstance(solve(PAPER, ["drf", "asset"]).plot(), Figure)


def test_simulation_result_in_a_notebook() -> None:
    from matplotlib.figure import Figure

    r = simulate(WORKLOAD, "drf")
    text = repr(r)
    assert text.startswith("SimulationResult(policy='drf'") and len(text) <= 400 and "\n" not in text
    assert "jobs_completed={'A': 1, 'B': 1}" in text
    assert "<table>" in r._repr_html_() and "mean response time" in r._repr_html_()
    frame = r.to_pandas()
    assert list(frame.columns) == ["policy", "time", "user", "resource", "share", "dominant_share", "utilization"]
    assert len(frame) == len(r.times) * 2 * 2  # one row per time x user x resource
    for t in r.times:
        at = frame[frame.time == t]
        shares = r.share_at(t)
        for row in at.itertuples():
            assert row.share == pytest.approx(shares[row.user][row.resource])
            assert row.dominant_share == pytest.approx(r.dominant_share_at(t)[row.user])
            assert row.utilization == pytest.approx(r.utilization_at(t)[row.resource])
    fig = r.plot()
    assert isinstance(fig, Figure) and len(fig.axes) >= 3
    own = Figure()
    ax = own.add_subplot()
    assert r.plot(ax=ax) is own and ax.get_lines()


def test_simulation_repr_of_many_users_is_short() -> None:
    jobs = [{"user": f"user{i:03d}", "tasks": 1, "demand": {"cpu": 1, "mem": 1}, "duration": 1} for i in range(200)]
    r = simulate({"machines": [{"count": 4, "cpu": 8, "mem": 8}], "jobs": jobs}, "drf", record_users=False)
    assert len(repr(r)) <= 400
    with pytest.raises(ValueError, match="not recorded"):
        r.to_pandas()


def test_proof_result_in_a_notebook() -> None:
    cases = [CaseResult(f"dominant r{i % 2}; report r{i % 3}", "unsat", 0.01 * i) for i in range(300)]
    p = ProofResult("proved", "drf", "envy-freeness", 2, 2, "positive", cases=cases, seconds=3.5,
                    assumptions={"weights": "equal"})
    text = repr(p)
    assert len(text) <= 400 and "cases={'unsat': 300}" in text and "\n" not in text
    frame = p.to_pandas()
    assert len(frame) == 300 and set(frame.status) == {"unsat"}
    assert p._repr_html_().count("<tr>") < 100 and "300 cases" in p._repr_html_()
    inst = Instance.from_exact([30, 30], [[1, 3], [1, 1]])
    found = ProofResult("counterexample", "asset", "sharing-incentive", 2, 2, "positive",
                        counterexample=check("asset", inst, "sharing-incentive"), cases=cases[:1])
    assert len(repr(found)) <= 400 and "u1 gets 12 tasks" in repr(found)


def test_dir_lists_every_public_name() -> None:
    for module in ("analyzer.searching.engine", "analyzer.table_proofs_discrete"):  # binds submodules on the package
        importlib.import_module(module)
    names = dir(analyzer)
    assert names == sorted(analyzer.__all__)  # exactly the public names: no loaded submodule
    assert {"check", "search", "prove", "simulate", "load_trace", "Comparison"} <= set(names)
    assert all(hasattr(analyzer, n) for n in analyzer.__all__)
