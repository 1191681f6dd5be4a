"""``fairalloc plot`` and :mod:`analyzer.plotting.allocations`: rendered headless (Agg), the
files checked to be well-formed, non-empty images."""

from __future__ import annotations

import importlib.util
import os
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from analyzer.cli.main import main
from analyzer.plotting.allocations import PlotSeries, discrete_shares, plot_allocations, series
from analyzer.plotting.style import plot_format
from models import Instance, get_policy

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "examples" / "paper_two_users.toml"
HAS_DISCRETE = importlib.util.find_spec("analyzer.discrete") is not None


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (asserting the signature)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def assert_image(path: Path, fmt: str) -> None:
    data = path.read_bytes()
    assert len(data) > 1000, f"{path} is suspiciously small ({len(data)} bytes)"
    if fmt == "png":
        w, h = png_size(data)
        assert 200 <= w <= 5000 and 200 <= h <= 5000
        assert data.rstrip(b"\x00")[-8:-4] == b"IEND"
    elif fmt == "svg":
        root = ET.fromstring(data)
        assert root.tag.endswith("svg")
        assert len(list(root.iter())) > 50  # bars, axes, text
    else:
        assert data.startswith(b"%PDF-")
        assert b"%%EOF" in data[-64:]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_cli_plot_writes_a_well_formed_image(tmp_path, capsys, fmt: str) -> None:
    out = tmp_path / f"fig.{fmt}"
    code, stdout, err = run(capsys, "plot", str(PAPER), "--policy", "drf,asset,ceei", "-o", str(out))
    assert code == 0, err
    assert err == ""
    assert_image(out, fmt)


def test_plot_uppercase_extension_and_title(tmp_path, capsys) -> None:
    out = tmp_path / "FIG.PNG"
    code, _, err = run(capsys, "plot", str(PAPER), "--policy", "drf", "-o", str(out), "--title", "paper, Fig. 4")
    assert code == 0, err
    assert_image(out, "png")


def test_plot_shares_are_the_papers_numbers() -> None:
    # Section 4.2 / Figure 4: DRF gives A <3 CPU, 12 GB> and B <6 CPU, 2 GB>
    # of <9 CPU, 18 GB>; the stacked CPU bar is full, the memory bar at 7/9.
    inst = Instance.load(PAPER)
    s = series(get_policy("drf").solve(inst))
    np.testing.assert_allclose(s.shares, [[1 / 3, 2 / 3], [2 / 3, 1 / 9]])
    assert s.shares.sum(axis=0).tolist() == pytest.approx([1.0, 7 / 9])
    assert s.dominant.tolist() == pytest.approx([2 / 3, 2 / 3])


def test_plot_continuous_against_discrete_panels(tmp_path) -> None:
    inst = Instance.load(PAPER)
    alloc = get_policy("asset").solve(inst)  # 2.52 and 2.16 tasks
    s = series(alloc, [2, 2])
    assert s.discrete_shares is not None and s.discrete_dominant is not None
    np.testing.assert_allclose(discrete_shares(inst, [2, 2]), [[2 / 9, 4 / 9], [2 / 3, 1 / 9]])
    np.testing.assert_allclose(s.discrete_shares, discrete_shares(inst, [2, 2]))
    assert np.all(s.discrete_dominant <= s.dominant + 1e-12)
    out = tmp_path / "d.svg"
    plot_allocations(inst, [series(get_policy("drf").solve(inst), [3, 2]), s], out)
    assert_image(out, "svg")
    # hatched (discrete) bars are drawn: the SVG defines a hatch pattern
    assert b"<pattern" in out.read_bytes()


def test_plot_many_users_and_many_resources(tmp_path) -> None:
    rng = np.random.default_rng(7)
    n, m = 30, 60
    inst = Instance.from_arrays(rng.integers(50, 100, size=m), rng.integers(0, 5, size=(n, m)) + np.eye(n, m))
    data = [series(get_policy(p).solve(inst)) for p in ("drf", "asset")]
    out = tmp_path / "big.png"
    plot_allocations(inst, data, out)
    assert_image(out, "png")


@pytest.mark.parametrize("n, m", [(3, 1000), (250, 3)])
def test_plot_a_thousand_resources_or_hundreds_of_users_with_discrete(tmp_path, n: int, m: int) -> None:
    # beyond BAR_MAX_CELLS the shares are stacked step areas and the dominant
    # shares markers: this must stay quick and well formed
    rng = np.random.default_rng(n + m)
    inst = Instance.from_arrays(10.0 ** rng.uniform(-9, 9, size=m), 10.0 ** rng.uniform(-9, 9, size=(n, m)))
    alloc = get_policy("drf").solve(inst)
    out = tmp_path / "wide.svg"
    plot_allocations(inst, [series(alloc, np.floor(alloc.x))], out)
    assert_image(out, "svg")


def test_plot_library_errors() -> None:
    inst = Instance.load(PAPER)
    with pytest.raises(ValueError, match=r"unsupported image format \('.gif'\)"):
        plot_allocations(inst, [], "x.gif")
    with pytest.raises(ValueError, match="no extension"):
        plot_format("figure")
    with pytest.raises(ValueError, match="no policy"):
        plot_allocations(inst, [], "x.png")
    assert isinstance(series(get_policy("drf").solve(inst)), PlotSeries)


@pytest.mark.skipif(not HAS_DISCRETE, reason="analyzer.discrete (issue 5) not merged yet")
def test_cli_plot_discrete(tmp_path, capsys) -> None:
    out = tmp_path / "disc.png"
    code, _, err = run(capsys, "plot", str(PAPER), "--policy", "drf,asset", "--discrete", "-o", str(out))
    assert code == 0, err
    assert_image(out, "png")
    # CEEI has no discrete form: its panel is drawn continuous only, no error
    out = tmp_path / "disc.pdf"
    code, _, err = run(capsys, "plot", str(ROOT / "examples" / "paper_section_7_1.toml"), "--discrete", "-o", str(out))
    assert code == 0, err
    assert_image(out, "pdf")


@pytest.mark.skipif(HAS_DISCRETE, reason="the discrete engine is present")
def test_cli_plot_discrete_without_engine_is_one_line(tmp_path, capsys) -> None:
    code, _, err = run(capsys, "plot", str(PAPER), "--discrete", "-o", str(tmp_path / "d.png"))
    assert code == 2 and err.count("\n") == 1 and "--discrete" in err


BAD_OUTPUTS = {
    "gif": ("out.gif", "unsupported image format ('.gif')"),
    "no_extension": ("out", "no extension"),
    "tiff": ("out.tiff", "unsupported image format"),
    "missing_dir": ("nodir/sub/out.png", "does not exist"),
    "is_directory": ("adir.png", "is a directory"),
}


@pytest.mark.parametrize("case", sorted(BAD_OUTPUTS))
def test_plot_bad_output_exits_2_with_one_line(tmp_path, capsys, case: str) -> None:
    name, expected = BAD_OUTPUTS[case]
    (tmp_path / "adir.png").mkdir()
    code, _, err = run(capsys, "plot", str(PAPER), "-o", str(tmp_path / name))
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert expected in err and "-o" in err and name in err
    assert not (tmp_path / name).is_file()


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_plot_unwritable_directory(tmp_path, capsys) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        code, _, err = run(capsys, "plot", str(PAPER), "-o", str(ro / "x.png"))
    finally:
        ro.chmod(0o700)
    assert code == 2 and "not writable" in err and err.count("\n") == 1


def test_plot_output_path_is_not_a_directory_component(tmp_path, capsys) -> None:
    f = tmp_path / "file.txt"
    f.write_text("x")
    code, _, err = run(capsys, "plot", str(PAPER), "-o", str(f / "x.png"))
    assert code == 2 and err.count("\n") == 1 and "does not exist" in err


def test_plot_missing_output_flag(capsys) -> None:
    code, _, err = run(capsys, "plot", str(PAPER))
    assert code == 2 and "-o" in err and err.count("\n") == 1


def test_plot_fuzzed_instances(tmp_path) -> None:
    # extreme data (1e-9..1e9, zeros, duplicates, caps) renders without error
    from fuzz_strategies import instances
    from hypothesis import given, settings

    @settings(settings.get_profile("fuzz"), max_examples=5)
    @given(instances())
    def body(inst: Instance) -> None:
        allocs = [get_policy(p).solve(inst) for p in ("drf", "asset")]
        out = tmp_path / "f.png"
        plot_allocations(inst, [series(allocs[0], np.floor(allocs[0].x)), series(allocs[1])], out)
        assert_image(out, "png")

    body()
