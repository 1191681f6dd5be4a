"""A property not defined in the table's setting is an n/a cell with the
reason (every output format, CLI and Python), and ``property_table``'s
``prove=``/``prove_bound=`` prove the discrete table as
``table --mode discrete --prove N,M --prove-bound K`` does."""

from __future__ import annotations

import csv
import io
import json

import pytest

from analyzer import cli
from analyzer.properties.base import available_properties, get_property
from analyzer.searching.result import SearchResult
from analyzer.table import property_table
from models import PolicyError

#: The properties the discrete (whole-task) setting leaves undefined.
UNDEFINED = ("single-resource-fairness", "bottleneck-fairness", "bottleneck-based-fairness")


def test_which_properties_are_undefined_for_whole_tasks() -> None:
    static = [q for q in available_properties() if "dynamic" not in get_property(q).modes]  # one allocation
    undefined = {q for q in static if get_property(q).undefined_in("discrete")}
    assert undefined == set(UNDEFINED)
    assert all(get_property(q).undefined_in("continuous") is None for q in static)


def test_default_discrete_table_has_n_a_cells() -> None:
    t = property_table(["drf"], budget=5, mode="discrete", workers=1)
    for q in t.properties:
        r = t["drf", q]
        if q in UNDEFINED:
            assert r.holds is None and r.instances == 0 and "not defined in the discrete setting" in r.undefined
            assert t.cell_text("drf", q) == "n/a" and r.undefined in t.cell_text("drf", q, detail=True)
        else:
            assert r.holds is not None and r.undefined is None
    assert t.title.startswith("Property table (discrete setting; class paper;")
    assert SearchResult.from_dict(t["drf", "bottleneck-fairness"].to_dict()) == t["drf", "bottleneck-fairness"]
    assert t.to_pandas().set_index("property").loc["bottleneck-fairness", "message"] == \
        t["drf", "bottleneck-fairness"].undefined


@pytest.mark.parametrize("fmt", ["text", "md", "latex", "csv", "json"])
def test_cli_default_properties_discrete_every_format(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    # the default policies: CEEI has no discrete form, a column of n/a
    assert cli.main(["table", "--mode", "discrete", "--budget", "3", "--workers", "1", "--format", fmt,
                     "--quiet"]) == 0
    out = capsys.readouterr().out
    why = "whole-task max-min is not unique"
    if fmt == "json":
        cells = json.loads(out)["cells"]
        assert all(c["holds"] is None and c["undefined"] for c in cells
                   if c["property"] in UNDEFINED or c["policy"] == "ceei")
        assert sum(c["holds"] is not None for c in cells) == 2 * (len(cells) // 3 - len(UNDEFINED))
    elif fmt == "csv":
        rows = {(r["policy"], r["property"]): r for r in csv.DictReader(io.StringIO(out))}
        assert all(rows["drf", q]["holds"] == "n/a" and "not defined" in rows["drf", q]["message"] for q in UNDEFINED)
        assert "no discrete form" in rows["ceei", "envy-freeness"]["message"]
    else:
        assert out.count(why) == 6 and "justified complaint" in out and "no discrete form" in out
        if fmt == "latex":  # ceei's 9 cells, asset's and drf's 3 each: a note number each
            assert out.count("n/a$^{") == 15


def test_property_table_proves_the_discrete_table_as_the_cli_does(capsys: pytest.CaptureFixture[str]) -> None:
    args = dict(budget=2, seed=0, mode="discrete", workers=1)
    props = ["population-monotonicity", "resource-monotonicity", "bottleneck-fairness"]
    t = property_table(["drf"], props, prove=(2, 2), prove_bound=2, **args)
    assert t.cell_text("drf", "population-monotonicity") == "✓ (proved: bound 2)"
    rm = t["drf", "resource-monotonicity"]  # budget 2 misses it; the enumeration does not
    assert rm.holds is False and rm.found_in == "prove" and rm.counterexample.exact
    assert t.cell_text("drf", "bottleneck-fairness") == "n/a" and t.proof("drf", "bottleneck-fairness") is None
    assert cli.main(["table", "--mode", "discrete", "--policy", "drf", "--property", ",".join(props),
                     "--budget", "2", "--workers", "1", "--prove", "2,2", "--prove-bound", "2", "--format", "json",
                     "--quiet"]) == 0
    cli_cells = json.loads(capsys.readouterr().out)["cells"]
    for mine, theirs in zip(t.to_dict()["cells"], cli_cells, strict=True):
        mine.pop("seconds"), theirs.pop("seconds")
        assert mine == theirs


@pytest.mark.parametrize(("kwargs", "word"), [
    (dict(prove_bound=2), "prove_bound"),
    (dict(prove=(2, 1)), "prove_bound"),
    (dict(prove=(2, 1), prove_bound=0), "prove_bound"),
    (dict(prove=(2, 1), prove_bound=True), "prove_bound"),
    (dict(prove=(0, 1), prove_bound=2), "prove"),
])
def test_bad_prove_arguments_before_the_search(kwargs: dict, word: str) -> None:
    with pytest.raises(PolicyError, match=f"^{word}:"):
        property_table(["drf"], ["envy-freeness"], budget=1, mode="discrete", workers=1, **kwargs)


def test_policy_of_whole_tasks_only_is_n_a_in_the_continuous_table() -> None:
    t = property_table(["drf", "mesos"], ["envy-freeness"], budget=3, workers=1)
    assert t["drf", "envy-freeness"].holds and t.cell_text("mesos", "envy-freeness") == "n/a"
    assert "whole tasks only" in t["mesos", "envy-freeness"].undefined
