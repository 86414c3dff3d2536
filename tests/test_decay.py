"""ropelab.decay against independent computations: rotated vectors, loops and Monte Carlo."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ropelab.core import apply_rope, inv_freq
from ropelab.decay import expected_score, ones_score, pair_score, partial_sums, relative_upper_bound


@pytest.mark.parametrize("base", [1.0, 10.0, 500.0, 10000.0, 1e6])
@pytest.mark.parametrize("dim", [8, 64, 128])
def test_ones_score_equals_rotated_dot_product(base, dim):
    distances = np.array([0, 1, 5, 40, 333, 4096])
    ones = np.ones(dim)
    # query at position r, key at 0: the sources' experiment
    expected = [apply_rope(ones, r, base=base) @ ones for r in distances]
    np.testing.assert_allclose(ones_score(distances, dim, base), expected, atol=1e-9)


def test_base_one_oscillates_without_decay():
    r = np.arange(0, 2000)
    score = ones_score(r, 64, 1.0)
    np.testing.assert_allclose(score, 64 * np.cos(r), atol=1e-9)
    assert score[1900:].max() > 63.9  # no decay: it returns to d again and again


def test_base_10000_decays():
    score = np.abs(ones_score(np.arange(0, 65536), 128, 10000.0))
    assert score[0] == pytest.approx(128.0)
    # windows of growing distance: both the peak and the mean of |score| fall window by window
    edges = [0, 16, 128, 1024, 8192, 65536]
    windows = [score[a:b] for a, b in itertools.pairwise(edges)]
    peaks = [w.max() for w in windows]
    means = [w.mean() for w in windows]
    assert peaks == sorted(peaks, reverse=True) and means == sorted(means, reverse=True)
    assert peaks[-1] < 0.3 * score[0] and means[-1] < 0.1 * score[0]


@pytest.mark.parametrize("dim", [16, 128])
def test_pair_score_matches_rotations(dim):
    rng = np.random.default_rng(7)
    q, k = rng.standard_normal((2, dim))
    distances = np.array([-50, -3, 0, 2, 17, 1000])
    expected = [apply_rope(q, 100 + r) @ apply_rope(k, 100) for r in distances]
    np.testing.assert_allclose(pair_score(distances, q, k), expected, atol=1e-9)
    np.testing.assert_allclose(
        pair_score(distances, np.ones(dim), np.ones(dim)), ones_score(distances, dim)
    )


def test_partial_sums_and_bound_by_loops():
    dim, base = 16, 10000.0
    theta = inv_freq(dim, base)
    for r in [0.0, 3.0, 250.0]:
        sums = [sum(np.exp(1j * r * theta[k]) for k in range(j)) for j in range(1, dim // 2 + 1)]
        np.testing.assert_allclose(partial_sums(r, dim, base), sums, atol=1e-12)
        assert relative_upper_bound(r, dim, base) == pytest.approx(np.mean(np.abs(sums)))
    assert relative_upper_bound(0, 128, 10000.0) == pytest.approx(32.5)


def test_abel_bound_holds_for_random_vectors():
    """|Σ h_i e^{irθ_i}| <= max|h_{i+1} - h_i| · Σ_j |S_j| with h_{d/2} = 0 (RoFormer 3.4.3)."""
    dim = 32
    rng = np.random.default_rng(11)
    distances = np.arange(0, 3000, 7)
    for _ in range(20):
        q, k = rng.standard_normal((2, dim))
        h = (q[0::2] + 1j * q[1::2]) * np.conj(k[0::2] + 1j * k[1::2])
        lhs = np.abs(np.exp(1j * distances[:, None] * inv_freq(dim)) @ h)
        h_ext = np.append(h, 0.0)
        constant = np.abs(np.diff(h_ext)).max()
        rhs = constant * relative_upper_bound(distances, dim) * (dim // 2)
        assert np.all(lhs <= rhs + 1e-9)


def test_expected_score_by_monte_carlo():
    dim, mean, std, rho = 16, 0.5, 1.5, 0.3
    rng = np.random.default_rng(3)
    n = 200_000
    cov = std**2 * np.array([[1, rho], [rho, 1]])
    pairs = rng.multivariate_normal([mean, mean], cov, size=(n, dim))  # (n, dim, 2)
    q, k = pairs[..., 0], pairs[..., 1]
    for r in [0, 3, 40]:
        scores = np.einsum("nd,nd->n", apply_rope(q, np.full(n, r)), k)
        predicted = expected_score(r, dim, mean=mean, std=std, correlation=rho)
        assert scores.mean() == pytest.approx(predicted, abs=5 * scores.std() / np.sqrt(n))
    assert np.all(expected_score(np.arange(50), dim) == 0.0)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ones_score([0, np.nan], 8), "distances must be finite"),
        (lambda: ones_score([0, 1], 7), "dim must be a positive even integer"),
        (lambda: ones_score([0, 1], 8, 0.0), "base must be > 0"),
        (lambda: relative_upper_bound([0], 8, -2.0), "base must be > 0"),
        (lambda: pair_score([0], np.ones(4), np.ones(6)), "equal length"),
        (lambda: pair_score([0], np.ones(5), np.ones(5)), "len\\(q\\) must be a positive even"),
        (lambda: expected_score([0], 8, std=-1.0), "std must be >= 0"),
        (lambda: expected_score([0], 8, correlation=1.5), "correlation must be in"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_the_trend_ends_with_the_slowest_plane_far_from_a_turn():
    """Chapter 5: at r* = β e^(-γ) the log term of the law is used up, not every plane fast:
    the slowest plane has turned e^(-γ) β^(2/d) ≈ 0.56-0.70 rad (computed independently)."""
    import math

    from ropelab.plots.decay import trend_end

    euler = 0.5772156649015329
    for base in (10.0, 1e4, 1e6):
        r_star = trend_end(base)
        assert r_star == pytest.approx(base * math.exp(-euler), rel=1e-12)
        angle = r_star * inv_freq(128, base)[-1]
        assert angle == pytest.approx(math.exp(-euler) * base ** (2 / 128), rel=1e-12)
        assert 0.56 < angle < 0.71  # well short of one radian, let alone a turn
        # the law d (1 - (ln r + γ) / ln β) is zero there: its log term is used up
        assert 128 * (1 - (math.log(r_star) + euler) / math.log(base)) == pytest.approx(
            0.0, abs=1e-9
        )
