"""ropelab.plots.after (chapter 10): each figure draws the data it is given."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ropelab import remapping as remap
from ropelab.plots import after


def test_remapping_maps_draw_each_map():
    grid = remap.sample_positions(1000, 10)
    maps = {
        name: (grid, remap.relative_map(name, 1000, 10, window=100), 500)
        for name in ("RoPE", "ReRoPE")
    }
    fig = after.plot_remapping_maps(maps)
    images = [ax.images[0] for ax in fig.axes if ax.images]
    assert len(images) == 2
    # RoPE's last row, first column: 999 / 499 - 1 clipped to 1; ReRoPE's: 100 / 499 - 1
    assert images[0].get_array()[-1, 0] == pytest.approx(1.0)
    assert images[1].get_array()[-1, 0] == pytest.approx(100 / 499 - 1)
    assert images[0].get_array().mask[0, 1]  # above the diagonal: no value
    plt.close(fig)
    with pytest.raises(ValueError, match="maps"):
        after.plot_remapping_maps({})


def test_draw_remapping_shows_the_row_and_the_training_length():
    data = remap.remapping_data("Self-Extend", 16384, 4096, 1024, 5)
    fig = after.draw_remapping(data)
    right = fig.axes[1]
    lines = right.get_lines()
    np.testing.assert_array_equal(lines[1].get_ydata(), data["row"])
    assert lines[2].get_ydata()[0] == 4096
    assert "4,096" in right.get_title()
    plt.close(fig)


def test_layer_kinds_and_temporal_ids():
    fig = after.plot_layer_kinds({"a": [0, 1, 2, 0], "b": [2, 2]})
    grid = fig.axes[0].images[0].get_array()
    assert grid[0].tolist() == [0, 1, 2, 0] and grid.mask[1, 2]
    plt.close(fig)
    with pytest.raises(ValueError, match="0, 1 or 2"):
        after.plot_layer_kinds({"a": [3]})
    fig = after.plot_temporal_ids({"x": ([0, 1, 2], [0, 4, 8])})
    assert fig.axes[0].get_lines()[0].get_ydata().tolist() == [0, 4, 8]
    plt.close(fig)
