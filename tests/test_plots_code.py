"""ropelab.plots.code: the figure of chapter 3A draws exactly the scores it is given."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ropelab.plots.code import plot_scores_by_distance


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def panels():
    r = np.arange(-3, 4)
    flat = np.tile(np.cos(r), (2, 1))  # two key positions, one curve
    fanned = np.stack([np.cos(r), np.sin(r) + 2.0])
    return {"correct": flat, "broken": fanned, "third": -flat}, r, [0, 1000]


def test_every_line_is_one_row_of_its_panel():
    data, r, keys = panels()
    fig = plot_scores_by_distance(data, r, keys)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == list(data)
    for ax, scores in zip(visible, data.values(), strict=True):
        lines = [line for line in ax.get_lines() if line.get_label().startswith("key")]
        assert [line.get_label() for line in lines] == ["key at n = 0", "key at n = 1,000"]
        for line, row in zip(lines, scores, strict=True):
            np.testing.assert_array_equal(line.get_xdata(), r)
            np.testing.assert_array_equal(line.get_ydata(), row)
    # three panels on a 2 x 2 grid: the fourth axes is hidden
    assert len(fig.axes) == 4 and not fig.axes[3].get_visible()


def test_the_first_key_position_is_the_wide_pale_line():
    data, r, keys = panels()
    ax = plot_scores_by_distance(data, r, keys, ncols=3).axes[0]
    first, second = ax.get_lines()[:2]
    assert first.get_linewidth() > 3 * second.get_linewidth()
    assert first.get_alpha() < 1.0


def test_bad_panels_raise():
    _, r, keys = panels()
    with pytest.raises(ValueError, match="panels"):
        plot_scores_by_distance({}, r, keys)
    with pytest.raises(ValueError, match="expected"):
        plot_scores_by_distance({"x": np.zeros((3, r.size))}, r, keys)
