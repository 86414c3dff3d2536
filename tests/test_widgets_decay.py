"""ropelab.widgets.decay (chapter 5): the explorer's pure data function against plain loops,
its clamping, its sliders (every reachable value is valid input) and its figure."""

from __future__ import annotations

import cmath
import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ropelab.widgets import decay as W


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


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
        ((1, 100.0, 1000), "dim must be"),
        ((3, 100.0, 1000), "dim must be an even integer"),
        ((258, 100.0, 1000), "dim must be"),
        ((8.5, 100.0, 1000), "dim must be"),
        ((8, 0.5, 1000), "base must be"),
        ((8, 2e7, 1000), "base must be"),
        ((8, float("nan"), 1000), "base must be"),
        ((8, 100.0, 15), "max_distance must be"),
        ((8, 100.0, 65537), "max_distance must be"),
        ((8, 100.0, 100.5), "max_distance must be"),
        ((8, "100", 1000), "base must be"),
    ],
)
def test_decay_data_rejects_out_of_range(args, match):
    with pytest.raises(ValueError, match=match):
        W.decay_data(*args)


def test_clamp_params():
    assert W.clamp_params(128, 10000.0, 65536) == (128, 10000.0, 65536)
    assert W.clamp_params(0, 0.01, 3) == (2, 1.0, 16)
    assert W.clamp_params(1000, 1e12, 1e9) == (256, 1e7, 65536)
    assert W.clamp_params(7, 50.0, 100.4) == (8, 50.0, 100)
    assert W.clamp_params(float("nan"), float("inf"), float("nan")) == (128, 10000.0, 65536)


@settings(max_examples=40, deadline=None)
@given(
    dim=st.floats(allow_nan=True, allow_infinity=True),
    base=st.floats(allow_nan=True, allow_infinity=True),
    max_distance=st.floats(allow_nan=True, allow_infinity=True),
)
def test_clamped_values_are_always_valid(dim, base, max_distance):
    d, b, m = W.clamp_params(dim, base, max_distance)
    data = W.decay_data(d, b, m)
    assert np.all(np.isfinite(data["ones_score"])) and np.all(
        np.isfinite(data["relative_upper_bound"])
    )


def test_widget_sliders_reach_only_valid_values_and_redraw():
    box = W.decay_widget()
    base, dim, max_distance = box.children[0].children
    assert (base.base, base.min, base.max) == (10, 0.0, 7.0)
    assert (dim.min, dim.max, dim.step) == (2, 256, 2)
    assert (max_distance.base, max_distance.min, max_distance.max, max_distance.step) == (
        2,
        4.0,
        16.0,
        1,
    )
    # every reachable slider value is already in range, so clamping changes nothing
    exponents = np.arange(base.min, base.max + 1e-9, base.step)
    for value in (base.base ** exponents[0], base.base ** exponents[-1]):
        assert W.clamp_params(128, value, 1024)[1] == pytest.approx(value)
    assert 10 ** exponents[0] == 1.0 and 10 ** exponents[-1] == pytest.approx(1e7)
    for d in range(dim.min, dim.max + 1, dim.step):
        assert W.clamp_params(d, 10.0, 1024)[0] == d
    for e in range(int(max_distance.min), int(max_distance.max) + 1):
        assert W.clamp_params(128, 10.0, 2.0**e)[2] == 2**e
    # the opening state, then a change of every slider redraws with the new values
    assert box.data["dim"] == 128 and box.data["base"] == 10000.0
    assert box.data["max_distance"] == 65536
    dim.value = 32
    base.value = 100.0
    max_distance.value = 256.0
    expected = W.decay_data(32, 100.0, 256)
    np.testing.assert_array_equal(box.data["distances"], expected["distances"])
    np.testing.assert_allclose(box.data["ones_score"], expected["ones_score"])
    np.testing.assert_allclose(box.data["relative_upper_bound"], expected["relative_upper_bound"])


def test_plot_decay_draws_decay_data():
    fig = W.plot_decay(16, 500.0, 2000)
    left, right = fig.axes
    data = W.decay_data(16, 500.0, 2000)
    x, y = left.lines[0].get_data()
    np.testing.assert_array_equal(x, data["distances"])
    np.testing.assert_allclose(y, [loop_point(int(r), 16, 500.0)[0] for r in x], atol=1e-9)
    x, y = right.lines[0].get_data()
    np.testing.assert_allclose(y, [loop_point(int(r), 16, 500.0)[1] for r in x], atol=1e-9)
    band = left.patches[0]
    assert band.get_y() == pytest.approx(-4.0) and band.get_height() == pytest.approx(8.0)
    assert left.get_xscale() == "log" and left.get_xlim() == pytest.approx((1, 2000))
    assert "d = 16" in fig.get_suptitle() and "500" in fig.get_suptitle()
