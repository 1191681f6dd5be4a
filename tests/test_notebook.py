"""Results in notebooks: short reprs, HTML tables, tidy pandas frames, and
allocations labelled by user and resource (issue 16)."""

import html
import pickle
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from analyzer import Instance, progressive_filling, property_table, search, solve
from models.display import LabelledArray, html_table

pd = pytest.importorskip("pandas")

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"


@pytest.fixture(scope="module")
def table():
    return property_table(["asset", "drf"], ["sharing-incentive", "envy-freeness"], budget=30, seed=0, workers=1)


def test_allocation_repr_is_one_short_line() -> None:
    a = solve(PAPER, "ceei", exact=True)
    assert repr(a) == "Allocation(policy='ceei', users=2, resources=2, exact=True, tasks={'A': '45/11', 'B': '18/11'})"
    big = solve(Instance.from_arrays([1, 1], np.ones((10_000, 2))), "drf")
    assert "\n" not in repr(big) and len(repr(big)) < 120


def test_allocation_to_pandas_is_tidy_with_the_papers_numbers() -> None:
    frame = solve(PAPER, "ceei", exact=True).to_pandas()
    assert list(frame.columns) == ["policy", "user", "resource", "tasks", "tasks_exact", "dominant_share",
                                   "dominant_share_exact", "bundle", "share", "demand", "capacity"]
    assert set(frame[frame.user == "A"].dominant_share_exact) == {"10/11"}
    assert len(frame) == 4 and list(frame["user"]) == ["A", "A", "B", "B"]
    a_cpu = frame[(frame.user == "A") & (frame.resource == "cpu")].iloc[0]
    assert a_cpu.tasks_exact == "45/11" and a_cpu.tasks == pytest.approx(45 / 11)
    assert a_cpu.share == pytest.approx(45 / 11 / 9)
    wide = frame.pivot(index="user", columns="resource", values="share")
    assert wide.loc["B", "mem"] == pytest.approx(18 / 11 / 18)
    assert solve(PAPER, "drf").to_pandas()["tasks_exact"].isna().all()


def test_allocation_html_is_a_table() -> None:
    html = solve(PAPER, "asset", exact=True)._repr_html_()
    assert html.startswith("<table>") and "<td>63/25</td>" in html and "share of mem" in html
    big = solve(Instance.from_arrays([1, 1], np.ones((5_000, 2))), "drf")._repr_html_()
    assert big.count("<tr>") < 100 and "more" in big


def test_shares_are_labelled_and_still_arrays() -> None:
    a = solve(PAPER, "drf", exact=True)
    s = a.shares
    assert isinstance(s, np.ndarray) and s.shape == (2, 2) and s.dims == ("user", "resource")
    assert s["A", "mem"] == pytest.approx(12 / 18) and s[0, 1] == s["A", "mem"]
    assert s["B"].dims == ("resource",) and s["B"]["cpu"] == pytest.approx(6 / 9)
    assert s[:, "cpu"].dims == ("user",) and list(s[:, "cpu"]) == pytest.approx([3 / 9, 6 / 9])
    assert a.dominant_shares["A"] == pytest.approx(2 / 3) and a.utilization["cpu"] == pytest.approx(1)
    assert a.bundles["B", "mem"] == pytest.approx(2) and a.usage["mem"] == pytest.approx(14)
    assert a.leftover["mem"] == pytest.approx(4)
    with pytest.raises(KeyError, match="no user named 'Z'"):
        s["Z"]
    # reductions are plain numbers / arrays; elementwise results keep the labels; views drop them
    assert type(a.dominant_shares.max()) is np.float64
    assert type(s.max(axis=1)) is np.ndarray
    assert (s * 2).dims == ("user", "resource") and s.T.dims is None
    frame = s.to_pandas()
    assert list(frame.index) == ["A", "B"] and list(frame.columns) == ["cpu", "mem"]
    assert a.dominant_shares.to_pandas()["B"] == pytest.approx(2 / 3)
    copy = pickle.loads(pickle.dumps(s))
    assert copy.dims == ("user", "resource") and copy["B", "cpu"] == s["B", "cpu"]


def test_labelled_array_rejects_dims_that_do_not_fit() -> None:
    inst = Instance.load(PAPER)
    with pytest.raises(ValueError, match="do not fit"):
        LabelledArray.wrap(np.zeros(3), inst, ("user", "resource"))
    with pytest.raises(ValueError, match="no labels"):
        solve(inst, "drf").shares.T.to_pandas()


def test_property_table_in_a_notebook(table) -> None:
    assert repr(table) == ("PropertyTable(policies=['asset', 'drf'], properties=2, cells='4/4', violated=1, "
                           "interrupted=False)")
    frame = table.to_pandas()
    assert len(frame) == 4 and list(frame.columns[:4]) == ["policy", "property", "holds", "instances"]
    row = frame[(frame.policy == "asset") & (frame.property == "sharing-incentive")].iloc[0]
    assert not row.holds and row.exact and row.counterexample.startswith("R=<")
    assert frame[frame.policy == "drf"].holds.all()
    page = table._repr_html_()
    assert "<th>asset</th>" in page and ">✗</td>" in page and ">✓</td>" in page
    # the evidence shows too: the ✗ cell's counterexample (instance and sentence), the ✓ cells' counts
    cx = table["asset", "sharing-incentive"].counterexample
    assert page.count(html.escape(cx.instance.describe())) == 2  # the cell's title and the evidence row
    assert html.escape(cx.message) in page and "no counterexample in 30 instances of class paper" in page


def test_the_html_of_a_property_table_names_the_counterexample_and_the_proof_sizes() -> None:
    t = property_table(["asset", "drf"], ["sharing-incentive"], budget=50, seed=0, workers=1, prove=(2, 2))
    page = t._repr_html_()
    cx = t["asset", "sharing-incentive"].counterexample
    assert cx is not None and html.escape(cx.instance.describe()) in page
    assert "proved for n ≤ 2, m ≤ 2" in page  # the proof's sizes


def test_search_result_in_a_notebook() -> None:
    r = search("asset", "sharing-incentive", budget=50, seed=0, workers=1)
    assert repr(r).startswith("SearchResult(policy='asset', property='sharing-incentive', outcome='violated'")
    frame = r.to_pandas()
    assert len(frame) == 1 and frame.iloc[0].message == r.counterexample.message
    assert "<td>counterexample</td>" in r._repr_html_()


def test_discrete_result_in_a_notebook() -> None:
    d = progressive_filling(PAPER, "drf")
    assert repr(d) == "DiscreteResult(policy='drf', users=2, machines=1, decisions=5, tasks={'A': 3, 'B': 2})"
    frame = d.to_pandas()
    assert set(frame["mode"]) == {"discrete"} and list(frame.tasks_exact) == ["3", "3", "2", "2"]
    assert "<td>3</td>" in d._repr_html_()


def test_missing_pandas_is_a_clear_import_error(monkeypatch, table) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    for obj, owner in ((solve(PAPER, "drf"), "Allocation.to_pandas()"), (table, "PropertyTable.to_pandas()")):
        with pytest.raises(ImportError, match=rf"{owner.replace('(', '[(]').replace(')', '[)]')} needs pandas.*"
                                              "pip install pandas"):
            obj.to_pandas()


def test_html_escapes_and_truncates() -> None:
    out = html_table(["a"], [[f"<{i}>"] for i in range(100)], max_rows=3)
    assert "&lt;0&gt;" in out and "<0>" not in out and "97 more rows" in out
    assert html_table(["x"], [[Fraction(1, 3)]]).count("1/3") == 1
