"""ropelab.plots.decay (chapter 5): the plotted data and the tables against independent
computations: plain loops over planes, closed forms, SymPy and Monte Carlo."""

from __future__ import annotations

import cmath
import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
import sympy

from ropelab.core import apply_rope
from ropelab.decay import pair_score
from ropelab.plots import decay as P
from ropelab.proofs import simplifies_to_zero


def loop_ones(r: float, dim: int, base: float) -> float:
    """sum_i 2 cos(r * base^(-2i/d)), one plane at a time."""
    return sum(2 * math.cos(r * base ** (-2 * i / dim)) for i in range(dim // 2))


def loop_bound(r: float, dim: int, base: float) -> float:
    """(1/(d/2)) sum_j |sum_{k<j} e^{i r theta_k}|, with explicit loops."""
    total, partial = 0.0, 0j
    for k in range(dim // 2):
        partial += cmath.exp(1j * r * base ** (-2 * k / dim))
        total += abs(partial)
    return total / (dim // 2)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --------------------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------------------


def test_octave_edges():
    np.testing.assert_array_equal(P.octave_edges(4), [1, 2, 4, 8, 16])
    with pytest.raises(ValueError, match="max_exponent"):
        P.octave_edges(0)


def test_window_stats_against_loops():
    dim, base, edges = 16, 100.0, [0, 3, 10, 40]
    stats = P.window_stats(dim, base, edges)
    for j in range(3):
        values = [loop_ones(r, dim, base) for r in range(edges[j], edges[j + 1])]
        assert stats["mean"][j] == pytest.approx(np.mean(values))
        assert stats["mean_abs"][j] == pytest.approx(np.mean(np.abs(values)))
        assert stats["rms"][j] == pytest.approx(math.sqrt(np.mean(np.square(values))))
        assert stats["peak"][j] == pytest.approx(max(abs(v) for v in values))
    np.testing.assert_array_equal(stats["start"], [0, 3, 10])
    np.testing.assert_array_equal(stats["stop"], [3, 10, 40])


def test_window_stats_base_one_and_far_floor():
    # base 1: s = d cos r, and integer r are equidistributed modulo 2 pi: mean |s| -> 2d/pi
    stats = P.window_stats(64, 1.0, [8192, 65536])
    assert stats["mean_abs"][0] == pytest.approx(2 * 64 / math.pi, rel=1e-3)
    assert stats["peak"][0] == pytest.approx(64.0, abs=1e-3)
    # far from the origin a small base leaves only the random-phase fluctuation: RMS sqrt(d)
    for base in (10.0, 100.0):
        far = P.window_stats(128, base, [8192, 65536])
        assert far["rms"][0] == pytest.approx(math.sqrt(128), rel=0.05)
        assert far["mean_abs"][0] == pytest.approx(math.sqrt(2 * 128 / math.pi), rel=0.05)


@pytest.mark.parametrize("edges", [[5], [3, 3], [4, 2], [-1, 4], [0, 2.5]])
def test_window_stats_bad_edges(edges):
    with pytest.raises(ValueError, match="edges"):
        P.window_stats(8, 10.0, edges)


@pytest.mark.parametrize(("dim", "base"), [(128, 1e4), (256, 1e5), (128, 1e6), (64, 1e3)])
def test_log_trend_follows_the_score_on_average(dim, base):
    # the law d(1 - (ln r + gamma)/ln beta) against the exact score, averaged per octave
    edges = [2**k for k in range(3, 30) if 2 ** (k - 1) < P.trend_end(base) / 4]
    stats = P.window_stats(dim, base, edges)
    law = P.law_window_means(dim, base, edges)
    assert np.max(np.abs(stats["mean"] - law)) < 0.2 * math.sqrt(dim)
    # and pointwise it is off by no more than the fluctuation, a few sqrt(d)
    r = np.arange(10, int(P.trend_end(base) / 10))
    exact = np.array([loop_ones(x, dim, base) for x in r[:: max(1, r.size // 300)]])
    assert np.max(np.abs(exact - P.log_trend(r[:: max(1, r.size // 300)], dim, base))) < 3 * (
        math.sqrt(dim)
    )


def test_log_trend_values_and_end():
    assert P.log_trend(1.0, 128, math.e) == pytest.approx(128 * (1 - 0.5772156649015329))
    assert P.log_trend(100.0, 10, 1e4) == pytest.approx(
        10 * (1 - (math.log(100) + 0.5772156649) / math.log(1e4))
    )
    for base in (10.0, 1e4, 5e5):
        assert P.trend_end(base) == pytest.approx(0.5614594835668851 * base)
        assert P.log_trend(P.trend_end(base), 64, base) == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(
        P.law_window_means(8, 100.0, [1, 3]), np.mean(P.log_trend([1, 2], 8, 100.0))
    )
    with pytest.raises(ValueError, match="distances must be >= 1"):
        P.log_trend([0.5], 8, 100.0)
    with pytest.raises(ValueError, match="base must be > 1"):
        P.log_trend([2.0], 8, 1.0)


def test_bound_window_means_and_random_walk_level():
    dim, base, edges = 8, 50.0, [0, 4, 9]
    means = P.bound_window_means(dim, base, edges)
    for j in range(2):
        expected = np.mean([loop_bound(r, dim, base) for r in range(edges[j], edges[j + 1])])
        assert means[j] == pytest.approx(expected)
    # random-walk level: |S_j| for j independent uniform phases, averaged over j
    rng = np.random.default_rng(5)
    phases = rng.uniform(0, 2 * np.pi, size=(200_000, 64))
    walk = np.abs(np.cumsum(np.exp(1j * phases), axis=1)).mean()
    assert P.random_walk_level(128) == pytest.approx(walk, rel=0.01)
    # and the relative bound of base 10 000 settles there
    far = P.bound_window_means(128, 1e4, [16384, 65536])[0]
    assert far == pytest.approx(P.random_walk_level(128), rel=0.05)


def test_abel_terms_identity_and_bound():
    rng = np.random.default_rng(1)
    distances = np.arange(0, 2000, 13)
    for dim in (8, 64):
        q, k = rng.standard_normal((2, dim))
        terms = P.abel_terms(q, k, distances)
        # the real part of the sum is the RoPE score of the rotated vectors
        np.testing.assert_allclose(terms["direct"].real, pair_score(distances, q, k), atol=1e-9)
        np.testing.assert_allclose(terms["abel"], terms["direct"], atol=1e-9)
        assert np.all(np.abs(terms["direct"]) <= terms["bound"] + 1e-9)
        h = [
            complex(q[2 * i], q[2 * i + 1]) * complex(k[2 * i], -k[2 * i + 1])
            for i in range(dim // 2)
        ]
        steps = [abs((h[i + 1] if i + 1 < len(h) else 0) - h[i]) for i in range(len(h))]
        assert float(terms["constant"]) == pytest.approx(max(steps))
    # q = k = ones: h_i = 2, so only the last step (0 - 2) survives and the sum is 2 S_{d/2}
    ones = P.abel_terms(np.ones(16), np.ones(16), [0.0, 7.0])
    assert float(ones["constant"]) == pytest.approx(2.0)
    assert ones["bound"][0] == pytest.approx(2 * sum(range(1, 9)))
    assert ones["direct"][1] == pytest.approx(
        2 * sum(cmath.exp(7j * 10000 ** (-2 * i / 16)) for i in range(8))
    )


def test_abel_identity_is_proved_and_a_wrong_version_is_not():
    lhs, rhs, difference = P.abel_identity(4)
    assert simplifies_to_zero(difference)
    assert len(lhs.args) == 4 and len(rhs.free_symbols) == 9  # h_0..h_3, theta_0..theta_3, r
    # forgetting h_{d/2} = 0 (dropping the boundary term of the last plane) breaks it
    h3 = sympy.Symbol("h_3")
    r = sympy.Symbol("r", real=True)
    thetas = sympy.symbols("theta_0:4", real=True)
    boundary = sum(sympy.exp(sympy.I * r * t) for t in thetas) * h3
    assert not simplifies_to_zero(sympy.expand(difference + boundary))
    with pytest.raises(ValueError, match="planes"):
        P.abel_identity(0)


def test_sample_scores_construction_and_moments():
    dim, samples = 8, 5
    scores = P.sample_scores(
        [0, 3], dim, mean=0.2, std=1.5, correlation=0.4, samples=samples, seed=9
    )
    rng = np.random.default_rng(9)
    z, z2 = rng.standard_normal((2, samples, dim))
    q = 0.2 + 1.5 * z
    k = 0.2 + 1.5 * (0.4 * z + math.sqrt(1 - 0.4**2) * z2)
    np.testing.assert_allclose(scores[:, 0], np.sum(q * k, axis=1), atol=1e-9)  # r = 0: q . k
    expected = [apply_rope(q[s], 53) @ apply_rope(k[s], 50) for s in range(samples)]
    np.testing.assert_allclose(scores[:, 1], expected, atol=1e-9)
    # Monte Carlo against the closed form (mu^2 + rho sigma^2) sum 2 cos(r theta_i)
    dim, mu, sigma, rho, n = 32, 0.4, 1.2, -0.3, 40_000
    r = np.array([0, 5, 60])
    scores = P.sample_scores(r, dim, mean=mu, std=sigma, correlation=rho, samples=n, seed=2)
    predicted = (mu**2 + rho * sigma**2) * np.array([loop_ones(x, dim, 1e4) for x in r])
    error = scores.std(axis=0) / math.sqrt(n)
    assert np.all(np.abs(scores.mean(axis=0) - predicted) < 4 * error)


def test_sample_scores_bad_input():
    with pytest.raises(ValueError, match="correlation"):
        P.sample_scores([0], 8, correlation=2.0)
    with pytest.raises(ValueError, match="samples"):
        P.sample_scores([0], 8, samples=1)


# --------------------------------------------------------------------------------------
# Figures: the plotted data against independent computations
# --------------------------------------------------------------------------------------


def test_plot_ones_score_data():
    fig = P.plot_ones_score(dim=16, max_distance=200)
    left, right = fig.axes
    x, y = left.lines[0].get_data()
    np.testing.assert_array_equal(x, np.arange(201))
    np.testing.assert_allclose(y, 16 * np.cos(x), atol=1e-9)  # theta_i = 1: d cos r
    x, y = right.lines[0].get_data()
    np.testing.assert_allclose(y, [loop_ones(r, 16, 1e4) for r in x], atol=1e-9)
    assert "base 1" in left.get_title() and "10000" in right.get_title()


def test_plot_base_sweep_data():
    bases = (1.0, 10.0, 1e4)
    fig = P.plot_base_sweep(dim=8, bases=bases, max_distance=300)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 3
    for ax, base in zip(visible, bases, strict=True):
        x, y = ax.lines[0].get_data()
        np.testing.assert_array_equal(x, np.arange(1, 301))
        np.testing.assert_allclose(y, [loop_ones(r, 8, base) for r in x], atol=1e-9)
        assert f"{base:,.0f}" in ax.get_title()
        if base > 1:
            xt, yt = ax.lines[1].get_data()
            g = 0.5772156649015329
            np.testing.assert_allclose(yt, 8 * (1 - (np.log(xt) + g) / np.log(base)))
            assert xt[-1] == pytest.approx(min(300, base * math.exp(-g)))
        else:
            assert len(ax.lines) == 1  # no law for base 1
        band = ax.patches[0]  # the +-sqrt(d) band
        assert band.get_y() == pytest.approx(-math.sqrt(8))
        assert band.get_height() == pytest.approx(2 * math.sqrt(8))
        assert ax.get_xscale() == "log"


def test_plot_window_means_data():
    bases = (1.0, 100.0)
    fig = P.plot_window_means(dim=16, bases=bases, max_exponent=6)
    ax = fig.axes[0]
    for line, base in zip(ax.lines[:2], bases, strict=True):
        x, y = line.get_data()
        np.testing.assert_array_equal(x, [1, 2, 4, 8, 16, 32])
        expected = [
            np.mean([abs(loop_ones(r, 16, base)) for r in range(2**k, 2 ** (k + 1))])
            for k in range(6)
        ]
        np.testing.assert_allclose(y, expected)
    floor = ax.lines[2].get_ydata()
    assert floor[0] == pytest.approx(math.sqrt(2 * 16 / math.pi))


def test_plot_relative_bound_data():
    fig = P.plot_relative_bound(dim=8, base=100.0, near=40, far_bases=(1.0, 1e4), max_exponent=5)
    left, right = fig.axes
    x, y = left.lines[0].get_data()
    np.testing.assert_array_equal(x, np.arange(41))
    np.testing.assert_allclose(y, [loop_bound(r, 8, 100.0) for r in x])
    assert y[0] == pytest.approx((8 / 2 + 1) / 2)
    for line, base in zip(right.lines[:2], (1.0, 1e4), strict=True):
        xs, ys = line.get_data()
        np.testing.assert_array_equal(xs, [1, 2, 4, 8, 16])
        expected = [
            np.mean([loop_bound(r, 8, base) for r in range(2**k, 2 ** (k + 1))]) for k in range(5)
        ]
        np.testing.assert_allclose(ys, expected)
    np.testing.assert_allclose(right.lines[0].get_ydata(), 2.5)  # base 1: |S_j| = j always
    level = right.lines[2].get_ydata()[0]
    assert level == pytest.approx(np.mean([math.sqrt(math.pi * j) / 2 for j in range(1, 5)]))


def test_plot_expected_score_data():
    cases = ((0.0, 0.0), (0.5, 0.0), (0.0, 0.5))
    mc = np.array([0, 64, 128])
    fig = P.plot_expected_score(dim=16, cases=cases, max_distance=128, mc_distances=mc, samples=300)
    ax = fig.axes[0]
    curves = [line for line in ax.lines if len(line.get_xdata()) == 129]
    assert len(curves) == 3
    for line, (mu, rho) in zip(curves, cases, strict=True):
        x, y = line.get_data()
        np.testing.assert_allclose(y, [(mu**2 + rho) * loop_ones(r, 16, 1e4) for r in x], atol=1e-9)
    # the error-bar dots are the Monte-Carlo means of sample_scores with the same seed
    dots = [line for line in ax.lines if line.get_marker() == "o"]
    assert len(dots) == 3
    for line, (mu, rho) in zip(dots, cases, strict=True):
        expected = P.sample_scores(mc, 16, mean=mu, correlation=rho, samples=300, seed=0).mean(
            axis=0
        )
        np.testing.assert_allclose(line.get_ydata(), expected)
