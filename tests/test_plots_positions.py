"""ropelab.plots.positions (chapter 0): every figure plots the numbers it claims to plot.

Each test reads the data back out of the matplotlib artists and compares it with a
computation written here from the formulas, not with the module's own helpers.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.collections import PathCollection
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle
from transformers.models.t5.modeling_t5 import T5Attention

from ropelab import positions as pos
from ropelab.plots import positions as figs


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def image_of(ax) -> np.ndarray:
    images = [a for a in ax.get_children() if isinstance(a, AxesImage)]
    assert len(images) == 1
    return np.asarray(images[0].get_array())


def sinusoid_table(length: int, dim: int, base: float) -> np.ndarray:
    m = np.arange(length)[:, None]
    i = np.arange(dim // 2)[None, :]
    table = np.zeros((length, dim))
    table[:, 0::2] = np.sin(m / base ** (2 * i / dim))
    table[:, 1::2] = np.cos(m / base ** (2 * i / dim))
    return table


def test_permutation_figure_shows_the_scores_of_both_orders():
    tokens = ["the", "dog", "bites", "the", "man"]
    order = [0, 4, 2, 3, 1]
    head = pos.toy_head(8)
    x = np.random.default_rng(4).standard_normal((5, 8))
    fig = figs.permutation_figure(tokens, order, x, head, highlight=("dog", "bites"))
    left, right = fig.axes[:2]
    q, k = x @ head.w_q.T, x @ head.w_k.T
    expected = q @ k.T / math.sqrt(8)
    np.testing.assert_allclose(image_of(left), expected, rtol=1e-12)
    xp = x[order]
    np.testing.assert_allclose(
        image_of(right), (xp @ head.w_q.T) @ (xp @ head.w_k.T).T / math.sqrt(8), rtol=1e-12
    )
    assert [t.get_text() for t in right.get_yticklabels()] == ["the", "man", "bites", "the", "dog"]
    # the annotated numbers are the plotted ones
    texts = [t.get_text() for t in left.texts]
    assert texts == [f"{v:.2f}" for v in expected.ravel()]
    # the frame sits on (dog, bites): row 1, column 2 on the left; row 4, column 2 on the right
    for ax, row in ((left, 1), (right, 4)):
        frames = [p for p in ax.patches if isinstance(p, Rectangle)]
        assert len(frames) == 1
        assert frames[0].get_xy() == (1.5, row - 0.5)


@pytest.mark.parametrize(
    ("length", "dim", "base"), [(100, 128, 10000.0), (30, 8, 50.0), (5, 4, 10.0)]
)
def test_sinusoid_figure_plots_the_encoding(length, dim, base):
    fig = figs.sinusoid_figure(length, dim, base)
    heat, curves = fig.axes[0], fig.axes[1]
    table = sinusoid_table(length, dim, base)
    np.testing.assert_allclose(image_of(heat), table, atol=1e-12)
    lines = curves.get_lines()
    assert len(lines) == len({0, 2 * (dim // 8), 2 * (dim // 4)})
    for line in lines:
        column = int(line.get_label().split("=")[1].split(":")[0])
        np.testing.assert_allclose(line.get_ydata(), table[:, column], atol=1e-12)


def test_sinusoid_gram_figure():
    head = pos.toy_head(16, seed=2)
    fig = figs.sinusoid_gram_figure(20, head)
    left, right = fig.axes[:2]  # the colour bars come after the two panels
    theta = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    offsets = np.arange(20)[:, None] - np.arange(20)[None, :]
    np.testing.assert_allclose(
        image_of(left), np.cos(offsets[..., None] * theta).sum(axis=-1), atol=1e-12
    )
    table = sinusoid_table(20, 16, 10000.0)
    np.testing.assert_allclose(
        image_of(right), table @ head.w_q.T @ head.w_k @ table.T, rtol=1e-10, atol=1e-12
    )
    assert "0.00" in left.get_title()


def test_sinusoid_circle_figure_places_the_points():
    fig = figs.sinusoid_circle_figure(dim=16, train_len=40, planes=(1, 6), base=10000.0)
    for ax, plane in zip(fig.axes, (1, 6), strict=True):
        theta = 10000.0 ** (-2 * plane / 16)
        scatters = [c for c in ax.collections if isinstance(c, PathCollection)]
        new, seen = scatters
        m_seen, m_new = np.arange(40), np.arange(40, 80)
        np.testing.assert_allclose(
            seen.get_offsets(), np.c_[np.cos(m_seen * theta), np.sin(m_seen * theta)], atol=1e-12
        )
        np.testing.assert_allclose(
            new.get_offsets(), np.c_[np.cos(m_new * theta), np.sin(m_new * theta)], atol=1e-12
        )
        assert f"{2 * math.pi / theta:.1f}" in ax.get_title()
    with pytest.raises(ValueError, match=r"planes must be plane indices in \[0, 7\]"):
        figs.sinusoid_circle_figure(dim=16, planes=(8,))


def test_relative_lookup_figure():
    fig = figs.relative_lookup_figure(length=7, clip=2, max_offset=200)
    shaw, t5 = fig.axes[:2]
    m = np.arange(7)
    np.testing.assert_array_equal(image_of(shaw), np.clip(m[:, None] - m[None, :], -2, 2))
    (line,) = [ln for ln in t5.get_lines() if len(ln.get_xdata()) > 2]
    offsets = np.arange(-200, 201)
    np.testing.assert_array_equal(line.get_xdata(), offsets)
    ref = T5Attention._relative_position_bucket(
        torch.tensor(offsets), bidirectional=True, num_buckets=32, max_distance=128
    ).numpy()
    np.testing.assert_array_equal(line.get_ydata(), ref)


def test_shift_test_figure():
    head = pos.toy_head(8, max_len=30, seed=1)
    x = np.random.default_rng(9).standard_normal((4, 8))
    shifts = np.arange(0, 40, 2)
    fig = figs.shift_test_figure(x, head, shifts)
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    for scheme in ["shaw", "transformer_xl", "t5", "deberta"]:
        np.testing.assert_array_equal(lines[figs.SCHEME_LABELS[scheme]].get_ydata(), 0.0)
    # sinusoidal: Δ(s) recomputed from the formula
    table = sinusoid_table(50, 8, 10000.0)

    def scores(start: int) -> np.ndarray:
        h = x + table[start : start + 4]
        return (h @ head.w_q.T) @ (h @ head.w_k.T).T / math.sqrt(8)

    expected = [np.max(np.abs(scores(s) - scores(0))) for s in shifts]
    np.testing.assert_allclose(
        lines[figs.SCHEME_LABELS["sinusoidal"]].get_ydata(), expected, rtol=1e-10
    )
    learned = lines[figs.SCHEME_LABELS["learned"]].get_ydata()
    assert np.all(np.isnan(learned[shifts > 26])) and np.all(np.isfinite(learned[shifts <= 26]))
