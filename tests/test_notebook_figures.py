"""Figures show in Jupyter with no magic (analyzer/plotting/figure.py):
every ``plot()`` returns a matplotlib ``Figure`` (saved as any) that a
notebook cell whose last line it is displays as a PNG image."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer import solve, worst_case

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"
PNG = b"\x89PNG\r\n\x1a\n"


def test_a_plot_is_a_figure_with_a_png_view(tmp_path: Path) -> None:
    from matplotlib.figure import Figure

    fig = solve(PAPER, ["drf", "asset", "ceei"]).plot()
    assert isinstance(fig, Figure)
    png = fig._repr_png_()
    assert png.startswith(PNG)
    fig.savefig(tmp_path / "out.png")  # still saved like any figure, at the same resolution
    assert (tmp_path / "out.png").read_bytes() == png


def test_every_plot_method_shows_in_a_notebook() -> None:
    from analyzer import simulate

    sim = simulate({"machines": [{"count": 2, "cpu": 4, "mem": 8}],
                    "jobs": [{"user": "a", "tasks": 6, "demand": {"cpu": 1, "mem": 2}, "duration": 2}]}, "drf")
    worst = worst_case("drf", "efficiency", users=2, resources=2, seed=0, budget=40)
    for fig in (sim.plot(), worst.plot()):
        assert fig._repr_png_().startswith(PNG)


def test_a_plot_into_given_axes_returns_their_figure() -> None:
    from matplotlib.figure import Figure

    mine = Figure()
    ax = mine.subplots()
    assert solve(PAPER, ["drf", "ceei"]).plot(ax=ax) is mine


def test_the_last_line_of_a_cell_shows_the_image_without_magic(tmp_path: Path) -> None:
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.v4.new_notebook()
    first = f"from analyzer import Instance, solve\ninst = Instance.load({str(PAPER)!r})"
    last = 'solve(inst, ["drf", "asset", "ceei"]).plot()'
    nb.cells = [nbformat.v4.new_code_cell(first), nbformat.v4.new_code_cell(last)]
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    out = nb.cells[-1].outputs
    assert [o.output_type for o in out] == ["execute_result"], out
    assert "image/png" in out[0].data and out[0].data["text/plain"].startswith("<NotebookFigure size")
