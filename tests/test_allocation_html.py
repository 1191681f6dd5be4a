"""Allocation._repr_html_ on many users: one note of what is left out,
with the right count (it used to add a second, contradictory one)."""

from __future__ import annotations

import numpy as np

from models import Instance, get_policy
from models.display import HTML_MAX_ROWS, html_table


def test_large_allocation_says_once_how_many_users_are_not_shown() -> None:
    n = 1000
    inst = Instance.from_arrays(np.full(2, float(n)), np.random.default_rng(0).uniform(0.1, 1.0, (n, 2)))
    html = get_policy("drf").solve(inst)._repr_html_()
    notes = [line for line in html.splitlines() if "more" in line]
    assert notes == [f'<tr><td colspan="5">… {n - HTML_MAX_ROWS} more rows (to_pandas() has them all)</td></tr>']
    assert html.count("<tr><td>u") == HTML_MAX_ROWS


def test_total_counts_rows_not_built() -> None:
    out = html_table(["a"], [[1], [2]], max_rows=5, total=7)
    assert "… 5 more rows" in out and out.count("<tr><td>") == 2
    assert "more" not in html_table(["a"], [[1], [2]], max_rows=5)
