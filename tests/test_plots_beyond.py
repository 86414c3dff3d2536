"""ropelab.plots.beyond: each figure draws exactly the data it is given (checked on the
artists), and rejects data of the wrong shape."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ropelab.plots import beyond


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _lines(ax):
    return [
        line for line in ax.get_lines() if line.get_label() and not line.get_label().startswith("_")
    ]


def test_spectra_draws_wavelengths_and_marks_removed_planes():
    theta = np.array([1.0, 0.1, 0.01, 0.0])
    fig = beyond.plot_spectra({"p-RoPE": theta}, train_len=100)
    ax = fig.axes[0]
    dots = next(line for line in ax.get_lines() if line.get_label() == "p-RoPE")
    np.testing.assert_allclose(dots.get_xdata(), [0, 1, 2])
    np.testing.assert_allclose(dots.get_ydata(), 2 * np.pi / theta[:3])
    crosses = next(line for line in ax.get_lines() if line.get_marker() == "x")
    np.testing.assert_allclose(crosses.get_xdata(), [3])
    assert any(
        line.get_ydata()[0] == 100 for line in ax.get_lines() if line.get_linestyle() == "--"
    )


def test_decay_curves():
    r = np.array([1.0, 10.0, 100.0])
    fig = beyond.plot_decay_curves(r, {"a": [3.0, 2.0, 1.0], "b": [1.0, 0.0, -1.0]})
    lines = _lines(fig.axes[0])
    assert [line.get_label() for line in lines] == ["a", "b"]
    np.testing.assert_allclose(lines[1].get_ydata(), [1.0, 0.0, -1.0])
    with pytest.raises(ValueError, match="shape of distances"):
        beyond.plot_decay_curves(r, {"a": [1.0]})


def test_plane_norms():
    q = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    theta = np.array([1.0, 0.1, 0.01])
    fig = beyond.plot_plane_norms(q, q * 2, theta)
    k_lines = _lines(fig.axes[1])
    np.testing.assert_allclose(k_lines[1].get_ydata(), [8.0, 10.0, 12.0])
    np.testing.assert_allclose(k_lines[1].get_xdata(), 2 * np.pi / theta)
    with pytest.raises(ValueError, match="n_planes"):
        beyond.plot_plane_norms(q, q, theta[:2])


def test_rotated_coordinates():
    masks = {"a": [1, 1, 0, 0], "b": [1, 0, 1, 0]}
    fig = beyond.plot_rotated_coordinates(masks, {"a": [1.0, 0.1], "b": [1.0]})
    np.testing.assert_array_equal(fig.axes[0].images[0].get_array(), [[1, 1, 0, 0], [1, 0, 1, 0]])
    np.testing.assert_allclose(_lines(fig.axes[1])[0].get_ydata(), [1.0, 0.1])
    with pytest.raises(ValueError, match="same labels"):
        beyond.plot_rotated_coordinates(masks, {"a": [1.0]})


def test_cache_sizes():
    fig = beyond.plot_cache_sizes({"MHA": 32768, "MLA": 576})
    widths = [patch.get_width() for patch in fig.axes[0].patches]
    assert widths == [32768, 576]
    texts = [text.get_text() for text in fig.axes[0].texts]
    assert texts == ["32,768", "576"]
    with pytest.raises(ValueError, match="> 0"):
        beyond.plot_cache_sizes({"x": 0})


def test_offset_dependence_and_temperature():
    fig = beyond.plot_offset_dependence([0, 1, 2], [0.0, 0.3, 0.5])
    np.testing.assert_allclose(fig.axes[0].get_lines()[0].get_ydata(), [0.0, 0.3, 0.5])
    fig = beyond.plot_temperature([0, 8191], [1.0, 1.07])
    line = fig.axes[0].get_lines()[0]
    np.testing.assert_allclose(line.get_xdata(), [1, 8192])
    np.testing.assert_allclose(line.get_ydata(), [1.0, 1.07])
    with pytest.raises(ValueError, match="same shape"):
        beyond.plot_temperature([0, 1], [1.0])


def test_layer_patterns():
    fig = beyond.plot_layer_patterns({"a": [True, False], "b": [False, False]})
    np.testing.assert_array_equal(fig.axes[0].images[0].get_array(), [[1, 0], [0, 0]])
    with pytest.raises(ValueError, match="same number of layers"):
        beyond.plot_layer_patterns({"a": [True], "b": [True, False]})


def test_axis_allocations():
    theta = np.array([1.0, 0.5, 0.25, 0.125])
    fig = beyond.plot_axis_allocations({"x": [0, 1, 2, 0], "y": [0, 0, 1, 2]}, theta)
    first = {line.get_label(): line for line in fig.axes[0].get_lines()}
    np.testing.assert_allclose(first["t"].get_xdata(), [0, 3])
    np.testing.assert_allclose(first["t"].get_ydata(), [1.0, 0.125])
    second = {line.get_label(): line for line in fig.axes[1].get_lines()}
    np.testing.assert_allclose(second["w"].get_xdata(), [3])
    with pytest.raises(ValueError, match="shape of theta"):
        beyond.plot_axis_allocations({"x": [0, 1]}, theta)


def test_score_map():
    rows, cols = np.arange(-1, 2), np.arange(-2, 3)
    data = np.arange(15.0).reshape(3, 5) - 7
    fig = beyond.plot_score_map(rows, cols, {"axial": data, "raster": -data})
    np.testing.assert_allclose(fig.axes[0].images[0].get_array(), data)
    assert fig.axes[1].images[0].get_clim() == (-7.0, 7.0)  # max |value|, shared
    with pytest.raises(ValueError, match="must have shape"):
        beyond.plot_score_map(rows, cols, {"a": data[:2]})


def test_base_bound():
    fig = beyond.plot_base_bound(
        [1e3, 1e4], [500, 5000], {1024: 4295.0}, published={1024: 4300.0}, trend={1024: 1824.0}
    )
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    np.testing.assert_allclose(lines["first m with B(m) < 0"].get_ydata(), [500, 5000])
    np.testing.assert_allclose(lines["smallest base found"].get_xdata(), [4295.0])
    np.testing.assert_allclose(lines["Men et al., Table 1"].get_xdata(), [4300.0])
    with pytest.raises(ValueError, match="same shape"):
        beyond.plot_base_bound([1.0], [1, 2], {})
