"""ropelab.plots.blocks: the plotted data equals an independent computation (chapter 3).

The reference matrices are built here entry by entry from θ_i = β^(-2i/d) and 2x2 blocks;
the reference scores use complex numbers (interleaved) or explicit pair arithmetic (half),
never ropelab.core.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ropelab.plots.blocks import (
    lookback_head,
    pair_scores,
    plot_costs,
    plot_layout_mismatch,
    plot_rotation_layouts,
    plot_rotation_matrix,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def thetas(dim: int, base: float) -> np.ndarray:
    return np.array([base ** (-2.0 * i / dim) for i in range(dim // 2)])


def pairs(dim: int, layout: str) -> list[tuple[int, int]]:
    if layout == "interleaved":
        return [(2 * i, 2 * i + 1) for i in range(dim // 2)]
    return [(i, i + dim // 2) for i in range(dim // 2)]


def reference_matrix(m: float, dim: int, base: float, layout: str) -> np.ndarray:
    matrix = np.zeros((dim, dim))
    for (a, b), theta in zip(pairs(dim, layout), thetas(dim, base), strict=True):
        c, s = np.cos(m * theta), np.sin(m * theta)
        matrix[a, a], matrix[a, b], matrix[b, a], matrix[b, b] = c, -s, s, c
    return matrix


def reference_rotate(x: np.ndarray, m: float, base: float, layout: str) -> np.ndarray:
    dim = x.size
    out = np.empty(dim)
    for (a, b), theta in zip(pairs(dim, layout), thetas(dim, base), strict=True):
        z = complex(x[a], x[b]) * np.exp(1j * m * theta)
        out[a], out[b] = z.real, z.imag
    return out


def reference_score(q, k, m, n, q_layout, k_layout, base=10000.0):
    return reference_rotate(q, m, base, q_layout) @ reference_rotate(k, n, base, k_layout)


# ------------------------------------------------------------------ the matrix


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize(
    ("m", "dim", "base"), [(2.0, 16, 10000.0), (37.0, 8, 500.0), (0.0, 4, 2.0)]
)
def test_heatmap_is_the_rotation_matrix(layout, m, dim, base):
    fig = plot_rotation_matrix(m, dim, base, layout)
    image = fig.axes[0].images[0].get_array()
    np.testing.assert_allclose(image, reference_matrix(m, dim, base, layout), atol=1e-14)
    assert image.shape == (dim, dim)
    assert fig.axes[0].images[0].get_clim() == (-1.0, 1.0)


def test_outlines_mark_the_planes_of_each_layout():
    fig = plot_rotation_matrix(3.0, 8, layout="half", outline_planes=1)
    corners = sorted((p.get_x() + 0.5, p.get_y() + 0.5) for p in fig.axes[0].patches)
    # plane 0 of the half layout: rows and columns 0 and d/2 = 4
    assert corners == [(0, 0), (0, 4), (4, 0), (4, 4)]
    fig = plot_rotation_matrix(3.0, 8, layout="interleaved", outline_planes=2)
    assert len(fig.axes[0].patches) == 8


def test_layouts_figure_is_conjugated_by_the_permutation():
    dim, m = 12, 5.0
    fig = plot_rotation_layouts(m, dim)
    left = fig.axes[0].images[0].get_array()
    right = fig.axes[1].images[0].get_array()
    order = list(range(0, dim, 2)) + list(range(1, dim, 2))  # x_half = x_interleaved[order]
    perm = np.eye(dim)[order]
    np.testing.assert_allclose(left, reference_matrix(m, dim, 10000.0, "interleaved"), atol=1e-14)
    np.testing.assert_allclose(right, perm @ left @ perm.T, atol=1e-14)


# ------------------------------------------------------------------ the cost


def test_cost_curves_are_the_formulas():
    dims = [8, 64, 128, 256]
    fig = plot_costs(dims)
    ops, stored = fig.axes
    d = np.array(dims, dtype=float)
    dense_ops, fast_ops = (line.get_ydata() for line in ops.get_lines()[:2])
    np.testing.assert_array_equal(ops.get_lines()[0].get_xdata(), d)
    np.testing.assert_array_equal(dense_ops, 2 * d**2 - d)
    np.testing.assert_array_equal(fast_ops, 3 * d)
    dense_mem, fast_mem = (line.get_ydata() for line in stored.get_lines()[:2])
    np.testing.assert_array_equal(dense_mem, d**2)
    np.testing.assert_array_equal(fast_mem, d)


# ------------------------------------------------------------------ wrong pairing


def test_lookback_head_looks_back():
    w_q, w_k, x = lookback_head(32, 5, fast_planes=6, seed=1)
    assert w_q.shape == w_k.shape == (32, 32)
    np.testing.assert_array_equal(w_q[12:], 0.0)
    q, k = w_q @ x, w_k @ x
    np.testing.assert_allclose(k, reference_rotate(q, 5.0, 10000.0, "interleaved"), atol=1e-13)
    r = np.arange(-20, 40)
    scores = pair_scores(q, k, 300 + r, np.full(r.shape, 300))
    assert r[np.argmax(scores)] == 5
    assert scores.max() == pytest.approx(q @ q, rel=1e-12)


@pytest.mark.parametrize(
    ("q_layout", "k_layout"),
    [
        ("interleaved", "interleaved"),
        ("half", "half"),
        ("interleaved", "half"),
        ("half", "interleaved"),
    ],
)
def test_pair_scores_match_a_hand_rotation(q_layout, k_layout):
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal(10), rng.standard_normal(10)
    m = np.array([0.0, 3.0, 17.0, 250.0])
    n = np.array([1.0, 3.0, 40.0, 7.0])
    got = pair_scores(q, k, m, n, q_layout=q_layout, k_layout=k_layout)
    want = [reference_score(q, k, a, b, q_layout, k_layout) for a, b in zip(m, n, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_relative_only_when_the_layouts_agree():
    rng = np.random.default_rng(4)
    q, k = rng.standard_normal(16), rng.standard_normal(16)
    m, n, shift = np.array([9.0]), np.array([2.0]), 500.0
    for layout in ("interleaved", "half"):
        a = pair_scores(q, k, m, n, q_layout=layout, k_layout=layout)
        b = pair_scores(q, k, m + shift, n + shift, q_layout=layout, k_layout=layout)
        np.testing.assert_allclose(a, b, rtol=1e-10)
    a = pair_scores(q, k, m, n, q_layout="interleaved", k_layout="half")
    b = pair_scores(q, k, m + shift, n + shift, q_layout="interleaved", k_layout="half")
    assert abs(a[0] - b[0]) > 1e-2


def test_mismatch_figure_data():
    dim, lookback, start = 16, 3, 50
    r = np.arange(-4, 9)
    fig = plot_layout_mismatch(
        dim,
        lookback,
        fast_planes=4,
        distances=r,
        key_start=start,
        mixed_key_starts=(100, 700),
    )
    left, right = fig.axes
    intended, converted, wrong = (line.get_ydata() for line in left.get_lines()[:3])
    w_q, w_k, x = lookback_head(dim, lookback, fast_planes=4)
    q, k = w_q @ x, w_k @ x
    # intended: q^T R_{n-m+L} q = sum_i (q_2i^2 + q_2i+1^2) cos((n - m + L) theta_i)
    energy = q[0::2] ** 2 + q[1::2] ** 2
    expected = np.cos(np.outer(-r + lookback, thetas(dim, 10000.0))) @ energy
    np.testing.assert_allclose(intended, expected, atol=1e-12)
    np.testing.assert_allclose(converted, expected[::3], atol=1e-12)
    np.testing.assert_array_equal(left.get_lines()[1].get_xdata(), r[::3])
    wrong_expected = [reference_score(q, k, start + d, start, "half", "half") for d in r]
    np.testing.assert_allclose(wrong, wrong_expected, atol=1e-12)
    assert np.abs(wrong - expected).max() > 1.0
    mixed = [line.get_ydata() for line in right.get_lines()[1:3]]
    for curve, key in zip(mixed, (100, 700), strict=True):
        want = [reference_score(q, k, key + d, key, "interleaved", "half") for d in r]
        np.testing.assert_allclose(curve, want, atol=1e-12)
    assert np.abs(mixed[0] - mixed[1]).max() > 1.0


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"fast_planes": 0}, "fast_planes"),
        ({"fast_planes": 33}, "fast_planes"),
        ({"dim": 7}, "dim"),
    ],
)
def test_lookback_head_rejects_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        lookback_head(**{"dim": 64, **kwargs})


def test_pair_scores_rejects_mismatched_vectors():
    with pytest.raises(ValueError, match="q and k"):
        pair_scores(np.ones(4), np.ones(6), [0], [0])
    with pytest.raises(ValueError, match="layout"):
        pair_scores(np.ones(4), np.ones(4), [0], [0], q_layout="pairs")
