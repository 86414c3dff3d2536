"""ropelab.decay.decay_data and decay_distances (chapter 5's figure) against plain loops."""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest

from ropelab import decay as W


def loop_point(r: int, dim: int, base: float) -> tuple[float, float]:
    """(ones score, relative upper bound) at distance r, one plane at a time."""
    score, total, partial = 0.0, 0.0, 0j
    for i in range(dim // 2):
        theta = base ** (-2 * i / dim)
        score += 2 * math.cos(r * theta)
        partial += cmath.exp(1j * r * theta)
        total += abs(partial)
    return score, total / (dim // 2)


def test_decay_distances_formula():
    np.testing.assert_array_equal(W.decay_distances(16), np.arange(1, 17))
    for max_distance in (16, 1000, 4096, 65536):
        r = W.decay_distances(max_distance)
        n = W.NUM_DISTANCES
        expected = sorted({math.floor(max_distance ** (k / (n - 1)) + 0.5) for k in range(n)})
        np.testing.assert_array_equal(r, expected)
        assert r[0] == 1 and r[-1] == max_distance
        assert r.dtype.kind == "i" and np.all(np.diff(r) > 0)
    # with 2048 points every integer up to a few hundred is present
    r = W.decay_distances(65536)
    np.testing.assert_array_equal(r[:150], np.arange(1, 151))


@pytest.mark.parametrize(
    ("dim", "base", "max_distance"),
    [(128, 10000.0, 65536), (2, 1.0, 16), (256, 1e7, 300), (10, 3.7, 1000)],
)
def test_decay_data_against_loops(dim, base, max_distance):
    data = W.decay_data(dim, base, max_distance)
    assert (data["dim"], data["base"], data["max_distance"]) == (dim, base, max_distance)
    r = data["distances"]
    assert r[0] == 1 and r[-1] == max_distance
    picks = np.unique(np.linspace(0, r.size - 1, 40).astype(int))
    for j in picks:
        score, bound = loop_point(int(r[j]), dim, base)
        assert data["ones_score"][j] == pytest.approx(score, abs=1e-9)
        assert data["relative_upper_bound"][j] == pytest.approx(bound, abs=1e-9)


def test_decay_data_known_values():
    # base 1: every theta_i = 1, the score is d cos r and the bound stays at (d/2 + 1)/2
    data = W.decay_data(64, 1.0, 1000)
    np.testing.assert_allclose(data["ones_score"], 64 * np.cos(data["distances"]), atol=1e-9)
    np.testing.assert_allclose(data["relative_upper_bound"], 16.5, atol=1e-9)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((1, 100.0, 1000), "dim must be a positive even integer"),
        ((3, 100.0, 1000), "dim must be a positive even integer"),
        ((8.5, 100.0, 1000), "dim must be"),
        ((8, 0.5, 1000), "base must be"),
        ((8, float("nan"), 1000), "base must be"),
        ((8, 100.0, 1), "max_distance must be an integer >= 2"),
        ((8, 100.0, 100.5), "max_distance must be"),
        ((8, "100", 1000), "base must be"),
    ],
)
def test_decay_data_rejects_out_of_range(args, match):
    with pytest.raises(ValueError, match=match):
        W.decay_data(*args)
