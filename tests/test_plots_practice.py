"""ropelab.plots.practice (chapter 8): each figure draws exactly the data it is given."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ropelab import packing
from ropelab.checkpoints import half_split_row_order
from ropelab.plots import practice as P


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def data_lines(ax):
    """Lines with more than two points (reference lines have two)."""
    return [line for line in ax.lines if len(line.get_xdata()) > 2]


def test_plane_ratios_draws_each_series_over_the_head_fraction():
    ratios = {"a": np.array([1.0, 0.5, 0.25, 0.25]), "b": np.array([1.0, 1.0, 0.9])}
    fig = P.plot_plane_ratios(ratios, title="t")
    lines = data_lines(fig.axes[0])
    assert [line.get_label() for line in lines] == ["a", "b"]
    np.testing.assert_array_equal(lines[0].get_xdata(), [0, 0.25, 0.5, 0.75])
    np.testing.assert_array_equal(lines[0].get_ydata(), ratios["a"])
    np.testing.assert_allclose(lines[1].get_xdata(), [0, 1 / 3, 2 / 3])
    assert fig.axes[0].get_yscale() == "log"


def test_dropped_scaling_panels():
    exits = np.array([100.0, 100.0, 40.0, 12.5])
    distances = np.array([1.0, 10.0, 100.0])
    rho = np.array([1.0, 0.8, 0.3])
    fig = P.plot_dropped_scaling(exits, 100.0, distances, rho)
    left, right = fig.axes
    np.testing.assert_array_equal(left.lines[0].get_ydata(), exits)
    assert left.lines[1].get_ydata()[0] == 100.0  # the trained length
    np.testing.assert_array_equal(right.lines[0].get_ydata(), rho)
    assert right.lines[-1].get_xdata()[0] == 12.5  # the first exit


def test_layout_conversion_draws_the_permutation_and_the_errors():
    order = half_split_row_order(6, 4)
    fig = P.plot_layout_conversion(order, [3.0, 2.0], [1e-15, 0.0], rotary_dim=4)
    left, right = fig.axes
    image = left.images[0].get_array()
    np.testing.assert_array_equal(np.argmax(image, axis=1), order)
    heights = [bar.get_height() for bar in right.patches]
    np.testing.assert_allclose(heights, [3.0, 2.0, 1e-15, 1e-17])  # exact 0 drawn at 1e-17


def test_precision_draws_errors_and_drops_position_zero():
    positions = np.array([0, 1, 10, 100])
    fig = P.plot_precision(positions, {"x": [0.5, 1e-3, 0.0, 2.0]}, marks=(10,))
    line = data_lines(fig.axes[0])[0]
    np.testing.assert_array_equal(line.get_xdata(), [1, 10, 100])
    np.testing.assert_array_equal(line.get_ydata(), [1e-3, 1e-17, 2.0])
    assert fig.axes[0].get_ylim()[0] == pytest.approx(1e-4)


def test_cache_gaps_and_sink_distances():
    fig = P.plot_cache_gaps([5, 6, 7], {"a": [0.0, 1e-15, 0.3]}, 6)
    line = data_lines(fig.axes[0])[0]
    np.testing.assert_array_equal(line.get_ydata(), [1e-17, 1e-15, 0.3])
    fig = P.plot_sink_distances(np.arange(4), {"c": [0, 1, 2, 2], "s": [0, 1, 2, 3]}, 3)
    lines = data_lines(fig.axes[0])
    np.testing.assert_array_equal(lines[1].get_ydata(), [0, 1, 2, 3])


def test_packing_colours_each_document_and_blanks_the_mask():
    lengths = [2, 3]
    mask = packing.document_mask(lengths)
    fig = P.plot_packing(mask, packing.packed_position_ids(lengths), packing.document_ids(lengths))
    shaded = fig.axes[0].images[0].get_array()
    np.testing.assert_array_equal(shaded > 0, mask)
    assert set(np.unique(shaded[mask])) == {1.0, 2.0}
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["0", "1", "0", "1", "2"]


def test_too_many_series_is_refused():
    with pytest.raises(ValueError, match="at most 8 series"):
        P.plot_plane_ratios({str(i): [1.0, 1.0, 1.0] for i in range(9)})
