"""Figures for papers (issue 16): plot functions return the Figure, draw
into a given axes, write only when given a path; --dpi, --figsize, --style,
value labels, JPEG, axes that scale to the data, a colour bar for many users."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from test_cli import PAPER, run

from analyzer import Instance, solve
from analyzer.plotting.allocations import plot_allocations
from analyzer.plotting.style import LEGEND_MAX_USERS


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def paper_allocs() -> tuple[Instance, list]:
    inst = Instance.load(PAPER)
    return inst, [solve(inst, p) for p in ("drf", "asset", "ceei")]


def test_returns_the_figure_and_writes_nothing_without_a_path(tmp_path, monkeypatch) -> None:
    from matplotlib.figure import Figure

    monkeypatch.chdir(tmp_path)
    inst, allocs = paper_allocs()
    fig = plot_allocations(inst, allocs)  # Allocations are accepted directly
    assert isinstance(fig, Figure) and list(tmp_path.iterdir()) == []
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[:3] == ["drf: shares per resource", "asset: shares per resource", "ceei: shares per resource"]
    # the DRF panel's stacked bars are the paper's Figure 3: A <1/3, 2/3>, B <2/3, 1/9>
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert heights == pytest.approx([1 / 3, 2 / 3, 2 / 3, 1 / 9])


def test_draws_into_a_given_axes() -> None:
    from matplotlib.figure import Figure

    inst, allocs = paper_allocs()
    fig = Figure()
    left, right = fig.subplots(1, 2)
    assert plot_allocations(inst, allocs, ax=left, value_labels=True) is fig
    assert len(fig.axes) == 2 and not right.patches  # nothing drawn elsewhere, no new axes
    assert len(left.patches) == 3 * 2 * 2  # 3 policies x 2 resources x 2 users
    labels = [t.get_text() for t in left.texts]
    assert {"drf", "asset", "ceei"} <= set(labels) and "0.667" in labels and "0.909" in labels


def test_axes_scale_to_small_shares_and_many_users_get_a_colour_bar() -> None:
    n = 25
    inst = Instance.from_arrays([100, 100], np.tile([1.0, 0.5], (n, 1)) * 5 / 25 * 4)
    fig = plot_allocations(inst, [solve(inst, "drf")])
    dom = fig.axes[1]
    assert dom.get_title().startswith("dominant share")
    top = dom.get_ylim()[1]
    tallest = max(p.get_height() for p in dom.patches)
    assert tallest == pytest.approx(1 / n) and top < 2 * tallest  # 25 users at 0.04 fill the panel
    assert n > LEGEND_MAX_USERS and not fig.legends  # no legend cut off at "... 5 more"
    colorbar = fig.axes[-1]
    ticks = [t.get_text() for t in colorbar.get_yticklabels()]
    assert ticks[0] == "u0" and ticks[-1] == "u24"


@pytest.mark.parametrize("ext", ["png", "jpg", "jpeg", "svg", "pdf"])
def test_cli_formats_including_jpeg(tmp_path, capsys, ext: str) -> None:
    out = tmp_path / f"fig.{ext}"
    code, _, err = run(capsys, "plot", str(PAPER), "-o", str(out))
    assert code == 0 and err == ""
    head = out.read_bytes()[:4]
    assert head == {"png": b"\x89PNG", "jpg": b"\xff\xd8\xff\xe0", "jpeg": b"\xff\xd8\xff\xe0", "pdf": b"%PDF"}.get(
        ext, head) and len(out.read_bytes()) > 1000


def test_cli_dpi_figsize_style_and_labels(tmp_path, capsys) -> None:
    out = tmp_path / "fig.png"
    code, _, err = run(capsys, "plot", str(PAPER), "-o", str(out), "--dpi", "50", "--figsize", "8,4",
                       "--style", "grayscale", "--value-labels", "--no-dominant")
    assert code == 0, err
    assert png_size(out) == (400, 200)


@pytest.mark.parametrize(("flags", "message"), [
    (["--dpi", "0"], "--dpi: must be between 10 and 2400"),
    (["--figsize", "8"], "--figsize: expected W,H"),
    (["--figsize", "a,b"], "--figsize: expected W,H"),
    (["--style", "greyscale"], "--style: unknown matplotlib style 'greyscale'; did you mean 'grayscale'?"),
])
def test_cli_bad_figure_options_exit_2(tmp_path, capsys, flags: list[str], message: str) -> None:
    out = tmp_path / "fig.png"
    code, _, err = run(capsys, "plot", str(PAPER), "-o", str(out), *flags)
    assert code == 2 and message in err and err.count("\n") == 1 and not out.exists()


def test_shares_over_time_has_the_figure_8_layout(tmp_path) -> None:
    from matplotlib.figure import Figure

    from analyzer.plotting.timeline import plot_shares_over_time

    t = np.array([0.0, 60.0, 120.0, 240.0])
    shares = np.zeros((4, 2, 2))
    shares[:, 0] = [[0.5, 0.25], [0.5, 0.25], [1 / 3, 2 / 3], [1 / 3, 2 / 3]]
    shares[1:, 1] = [2 / 3, 1 / 9]
    out = tmp_path / "fig8.svg"
    fig = plot_shares_over_time(t, shares, ["job1", "job2"], ["cpu", "mem"], out)
    assert isinstance(fig, Figure) and out.stat().st_size > 1000
    labels = [a.get_ylabel() for a in fig.axes]
    assert labels == ["share of cpu", "share of mem", "dominant share"]  # (a), (b), (c)
    dom = fig.axes[2].lines[0].get_ydata()
    assert list(dom) == pytest.approx([0.5, 0.5, 2 / 3, 2 / 3])
    with pytest.raises(ValueError, match="shape"):
        plot_shares_over_time(t, shares[:, :1], ["job1", "job2"], ["cpu", "mem"])
    own = Figure()
    ax = own.subplots()
    assert plot_shares_over_time(t, np.zeros((4, 25, 1)), [f"j{i}" for i in range(25)], ["cpu"], ax=ax) is own
    assert len(ax.lines) == 25 and len(own.axes) == 2  # the axes and the users' colour bar
