"""ropelab.frequency_designs: Resonance RoPE and the lower bound on the base.

Numbers from the sources:
* Resonance RoPE's released code (``ResonanceRotaryEmbedding``): ``r_wavelengths =
  torch.round(2 * math.pi / inv_freq)``, ``r_inv_freq = 2 * math.pi / r_wavelengths``.
* Men et al. 2024 (arXiv 2405.14591), Table 1, d = 128: the lower bound of the base is
  4.3e3 for 1K, 1.6e4 for 2K, 2.7e4 for 4K and 8.4e4 for 8K tokens.
* Su 2024 (kexue.fm/archives/10122), the same criterion with a finer search: 4.3e3,
  1.2e4, 2.7e4, 8.4e4.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ropelab import decay, inv_freq, wavelengths
from ropelab.frequency_designs import (
    EULER_GAMMA,
    angle_gap,
    base_lower_bound,
    first_negative,
    resonance_frequencies,
    semantic_margin,
    trend_base,
)


def test_resonance_rounds_every_wavelength():
    theta = inv_freq(128, 10000.0)
    ours = resonance_frequencies(theta)
    rounded = np.array([round(2 * math.pi / t) for t in theta], dtype=float)
    np.testing.assert_allclose(ours, 2 * math.pi / rounded, rtol=1e-15)
    np.testing.assert_allclose(2 * np.pi / ours, np.round(wavelengths(128, 10000.0)), rtol=1e-12)
    assert ours[0] == pytest.approx(2 * math.pi / 6)  # 2π = 6.283 rounds to 6


def test_resonance_planes_reuse_training_angles():
    theta = inv_freq(64, 10000.0)
    resonant = resonance_frequencies(theta)
    fits = np.round(2 * np.pi / theta) <= 512
    gap_rope = angle_gap(theta, 512, 2048)
    gap_resonance = angle_gap(resonant, 512, 2048)
    assert np.all(gap_resonance[fits] < 1e-9)
    assert np.all(gap_rope[fits][1:] > 1e-6)  # plain RoPE: new angles, close to old ones
    assert np.all(gap_resonance[~fits] > 0.1)  # planes longer than the training length


def test_angle_gap_against_brute_force():
    theta = np.array([0.7, 0.01])
    gaps = angle_gap(theta, 20, 40)
    for i, t in enumerate(theta):
        seen = np.mod(np.arange(20) * t, 2 * np.pi)
        worst = 0.0
        for m in range(20, 40):
            a = np.mod(m * t, 2 * np.pi)
            d = np.abs(seen - a)
            worst = max(worst, np.min(np.minimum(d, 2 * np.pi - d)))
        assert gaps[i] == pytest.approx(worst, abs=1e-12)


def test_semantic_margin_is_half_the_ones_score_and_the_expected_advantage():
    r = np.array([0.0, 1.0, 10.0, 1000.0])
    theta = inv_freq(128, 10000.0)
    margin = semantic_margin(r, 128, 10000.0)
    np.testing.assert_allclose(margin, np.cos(r[:, None] * theta).sum(axis=1), atol=1e-12)
    # Men et al.: E[q^T R (q + eps)] - E[q^T R k] = 2 sigma^2 B(m), from chapter 5's formula
    similar = decay.expected_score(r, 128, mean=0.3, std=0.7, correlation=1.0)
    random = decay.expected_score(r, 128, mean=0.3, std=0.7, correlation=0.0)
    np.testing.assert_allclose(similar - random, 2 * 0.7**2 * margin, atol=1e-12)


def test_first_negative_against_brute_force():
    bases = np.array([500.0, 4300.0, 12000.0, 26966.0, 1e5])
    ours = first_negative(bases, 128, 6000)
    m = np.arange(6000)[:, None]
    for base, found in zip(bases, ours, strict=True):
        values = np.cos(m * inv_freq(128, base)).sum(axis=1)
        negative = np.flatnonzero(values < 0)
        assert found == (negative[0] if negative.size else 6000)


@pytest.mark.parametrize(
    ("length", "published"),
    [(1024, 4.3e3), (2048, 1.2e4), (4096, 2.7e4), (8192, 8.4e4)],
)
def test_base_lower_bound_reproduces_the_published_values(length, published):
    found = base_lower_bound(length)
    assert float(f"{found:.1e}") == published
    assert first_negative(found, 128, length) >= length
    assert first_negative(found / 1.001, 128, length) < length  # the grid point below fails


def test_the_papers_2k_value_passes_but_is_not_the_smallest():
    assert first_negative(1.6e4, 128, 2048) >= 2048  # Men et al.'s Table 1
    assert base_lower_bound(2048) < 1.6e4


def test_good_bases_are_not_an_interval():
    # 26,966 passes for 4K tokens (above), a larger base 27,000 fails
    assert first_negative(26966.0, 128, 4096) >= 4096
    assert first_negative(27000.0, 128, 4096) < 4096


def test_trend_base():
    assert trend_base(4096) == pytest.approx(math.exp(0.5772156649015329) * 4096)
    assert EULER_GAMMA == pytest.approx(0.57721566490153286)
    np.testing.assert_allclose(trend_base([1000, 2000]), [1781.072418, 3562.144836], rtol=1e-9)


def test_bad_inputs():
    with pytest.raises(ValueError, match="theta must be > 0"):
        resonance_frequencies([1.0, 0.0])
    with pytest.raises(ValueError, match="4π"):
        resonance_frequencies([20.0])
    with pytest.raises(ValueError, match="test_len must be > train_len"):
        angle_gap([0.1], 100, 50)
    with pytest.raises(ValueError, match="bases must be > 0"):
        first_negative([-1.0])
    with pytest.raises(ValueError, match="context_len"):
        base_lower_bound(1)
    with pytest.raises(ValueError, match="stop must be >"):
        base_lower_bound(1024, start=1e4, stop=1e3)
    with pytest.raises(ValueError, match="no base"):
        base_lower_bound(1024, start=100.0, stop=200.0)
