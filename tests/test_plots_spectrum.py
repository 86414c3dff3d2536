"""ropelab.plots.spectrum: chapter 4's figures draw the right numbers, and its helpers compute them.

Every expected value is computed here from the formulas (θ_i = β^(-2i/d), λ_i = 2π/θ_i,
cos(mθ_i)) or taken from the sources (LLaMA 2: 46 planes; Figure 5: 16 and 8 planes), never
read back from the code under test.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from matplotlib.colors import to_rgba

from ropelab import spectrum as spectrum_math
from ropelab.plots import spectrum
from ropelab.plots.style import ACCENT, KEY


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def theta_ref(dim: int, base: float) -> np.ndarray:
    return np.array([base ** (-(2 * i) / dim) for i in range(dim // 2)])


def wavelength_ref(dim: int, base: float) -> np.ndarray:
    return np.array([2 * math.pi * base ** ((2 * i) / dim) for i in range(dim // 2)])


def colours_of(collection) -> list[tuple[float, ...]]:
    return [tuple(c) for c in collection.get_facecolors()]


# --- θ_i against i ------------------------------------------------------------------------------


def test_theta_spectrum_draws_each_base_on_both_axes():
    bases = (500.0, 10000.0, 1e6)
    fig = spectrum.plot_theta_spectrum(32, bases)
    linear, log = fig.axes
    assert linear.get_yscale() == "linear" and log.get_yscale() == "log"
    for ax in (linear, log):
        lines = ax.get_lines()
        assert len(lines) == len(bases)
        for line, base in zip(lines, bases, strict=True):
            np.testing.assert_array_equal(line.get_xdata(), np.arange(16))
            np.testing.assert_allclose(line.get_ydata(), theta_ref(32, base), rtol=1e-13)


def test_theta_spectrum_is_a_straight_line_on_a_log_axis():
    # log10 θ_i = -(2i/d) log10 β: constant steps of -(2/d) log10 β
    line = spectrum.plot_theta_spectrum(128, (10000.0,)).axes[1].get_lines()[0]
    steps = np.diff(np.log10(line.get_ydata()))
    np.testing.assert_allclose(steps, -2 / 128 * 4, rtol=1e-10)


# --- wavelengths --------------------------------------------------------------------------------


def test_wavelength_chart_for_llama2():
    fig = spectrum.plot_wavelengths(128, 10000.0, 4096.0)
    ax = fig.axes[0]
    points = ax.collections[0].get_offsets()
    np.testing.assert_array_equal(points[:, 0], np.arange(64))
    np.testing.assert_allclose(points[:, 1], wavelength_ref(128, 10000.0), rtol=1e-12)
    colours = colours_of(ax.collections[0])
    assert colours[:46] == [to_rgba(ACCENT)] * 46  # 46 planes complete a period (92 dims)
    assert colours[46:] == [to_rgba(KEY)] * 18
    assert ax.get_lines()[0].get_ydata()[0] == 4096.0  # the T_train line
    assert ax.get_lines()[1].get_xdata()[0] == 45.5  # the boundary between planes 45 and 46
    assert "46 of 64" in ax.get_title()


def test_spectrum_state_draws_theta_threshold_and_reference():
    fig = spectrum.plot_spectrum_state(64, 500000.0, 8192.0, reference_base=10000.0)
    left, right = fig.axes
    np.testing.assert_allclose(
        left.collections[0].get_offsets()[:, 1], theta_ref(64, 500000.0), rtol=1e-13
    )
    reference, threshold = left.get_lines()[:2]
    np.testing.assert_allclose(reference.get_ydata(), theta_ref(64, 10000.0), rtol=1e-13)
    assert threshold.get_ydata()[0] == pytest.approx(2 * math.pi / 8192)
    np.testing.assert_allclose(
        right.collections[0].get_offsets()[:, 1], wavelength_ref(64, 500000.0), rtol=1e-12
    )
    # the green points are exactly those above the threshold, in both panels
    expected = [
        to_rgba(ACCENT) if t >= 2 * math.pi / 8192 else to_rgba(KEY)
        for t in theta_ref(64, 500000.0)
    ]
    assert colours_of(left.collections[0]) == expected
    assert colours_of(right.collections[0]) == expected
    count = expected.count(to_rgba(ACCENT))
    assert f"{count} of 32 planes" in fig.get_suptitle()


@pytest.mark.parametrize(
    ("dim", "base", "train_len"),
    [(2, 2.0, 16.0), (256, 1e7, 131072.0), (2, 1e7, 16.0), (256, 2.0, 131072.0)],
)
def test_spectrum_state_draws_at_the_corners_of_the_widget_range(dim, base, train_len):
    fig = spectrum.plot_spectrum_state(dim, base, train_len)
    fig.canvas.draw()  # layout and text rendering must not fail either
    assert len(fig.axes[0].collections[0].get_offsets()) == dim // 2


def test_period_picture_reproduces_figure5():
    fig = spectrum.plot_period_picture(32, (500.0, 1e6), 4096.0)
    small, large = fig.axes[:2]
    for ax, base, count in ((small, 500.0, 16), (large, 1e6, 8)):
        bars = ax.patches[-16:]
        ends = np.array([bar.get_x() + bar.get_width() for bar in bars])
        np.testing.assert_allclose(ends, wavelength_ref(32, base), rtol=1e-12)
        greens = sum(to_rgba(bar.get_facecolor()) == to_rgba(ACCENT) for bar in bars)
        assert greens == count
        assert f"{count} of 16" in ax.get_title()
        assert ax.get_xscale() == "log"


# --- fast and slow planes -----------------------------------------------------------------------


def test_plane_scales_match_the_formulas():
    scales = spectrum_math.plane_scales(128, 10000.0, 4096.0)
    theta = theta_ref(128, 10000.0)
    np.testing.assert_allclose(scales["degrees_per_token"], theta * 180 / math.pi, rtol=1e-13)
    np.testing.assert_allclose(scales["tokens_per_radian"], 1 / theta, rtol=1e-13)
    np.testing.assert_allclose(scales["wavelength"], wavelength_ref(128, 10000.0), rtol=1e-12)
    np.testing.assert_allclose(scales["turns"], 4096 * theta / (2 * math.pi), rtol=1e-13)
    assert scales["degrees_per_token"][0] == pytest.approx(57.29577951308232)
    # plane 63 turns by 4096·10000^(-126/128) ≈ 0.473 rad ≈ 27.1° in the whole context
    assert scales["arc_degrees"][63] == pytest.approx(math.degrees(4096 * 10000 ** (-126 / 128)))
    assert 27.0 < scales["arc_degrees"][63] < 27.2
    np.testing.assert_array_equal(scales["arc_degrees"][:46], 360.0)
    assert (scales["arc_degrees"][46:] < 360).all()
    # half a turn or less within 4096 tokens: 4096·10000^(-2i/128) <= π  <=>  i >= 49.3
    expected = [4096 * 10000 ** (-2 * i / 128) <= math.pi for i in range(64)]
    np.testing.assert_array_equal(scales["monotone"], expected)
    assert int(scales["monotone"].sum()) == 14  # planes 50..63


@settings(max_examples=100, deadline=None)
@given(r=st.integers(-(10**6), 10**6), theta=st.floats(1e-6, 10.0))
def test_wrapped_angle_is_the_same_rotation_reduced_to_one_turn(r, theta):
    angle = float(spectrum_math.wrapped_angle(r, theta))
    assert -math.pi <= angle < math.pi
    assert math.cos(angle) == pytest.approx(math.cos(r * theta), abs=1e-6)
    assert math.sin(angle) == pytest.approx(math.sin(r * theta), abs=1e-6)


def test_closest_return_of_plane_zero():
    r, angle = spectrum_math.closest_return(1.0, 100)
    assert r == 44  # 44 ≈ 7·2π = 43.98
    assert angle == pytest.approx(44 - 14 * math.pi, abs=1e-12)
    # brute force, written independently
    errors = [abs((d + math.pi) % (2 * math.pi) - math.pi) for d in range(1, 101)]
    assert errors.index(min(errors)) + 1 == 44
    assert spectrum_math.closest_return(1.0, 1000)[0] == 710  # 710 ≈ 113·2π (355/113 ≈ π)
    with pytest.raises(ValueError, match="max_distance"):
        spectrum_math.closest_return(1.0, 0)


def test_plane_signals_plot_cos_m_theta():
    fig = spectrum.plot_plane_signals(128, 10000.0, planes=(0, 24, 63), short_len=32, long_len=512)
    near, far = fig.axes[:2]
    theta = theta_ref(128, 10000.0)
    for ax, length in ((near, 32), (far, 512)):
        for line, plane in zip(ax.get_lines(), (0, 24, 63), strict=True):
            m = np.arange(length + 1)
            np.testing.assert_array_equal(line.get_xdata(), m)
            np.testing.assert_allclose(line.get_ydata(), np.cos(m * theta[plane]), atol=1e-12)
    with pytest.raises(ValueError, match="planes"):
        spectrum.plot_plane_signals(128, 10000.0, planes=(64,))


# --- two bases ----------------------------------------------------------------------------------


def test_compare_bases_10000_and_100000():
    data = spectrum_math.compare_bases(128, 10000.0, 100000.0)
    i = np.arange(64)
    np.testing.assert_allclose(data["theta_a"], theta_ref(128, 1e4), rtol=1e-13)
    np.testing.assert_allclose(data["theta_b"], theta_ref(128, 1e5), rtol=1e-13)
    # θ_i(1e5)/θ_i(1e4) = (1e4/1e5)^(2i/d) = 10^(-2i/d)
    np.testing.assert_allclose(data["ratio"], 10.0 ** (-2 * i / 128), rtol=1e-12)
    np.testing.assert_allclose(data["rel_change"], 1 - 10.0 ** (-2 * i / 128), atol=1e-13)
    # the sources' observation: except i = 0, every θ_i is smaller with the larger base
    assert data["abs_diff"][0] == 0.0
    assert (data["theta_b"][1:] < data["theta_a"][1:]).all()
    # the absolute difference peaks near the start and is tiny at the end ...
    assert int(np.argmax(data["abs_diff"])) == 6
    assert data["abs_diff"][63] == pytest.approx(10000 ** (-126 / 128) - 100000 ** (-126 / 128))
    assert data["abs_diff"][63] < 2e-4
    # ... while the relative change is largest at the end: the last plane keeps about 10 %
    assert data["ratio"][63] == pytest.approx(0.10366, abs=1e-5)
    assert (np.diff(data["ratio"]) < 0).all()


@settings(max_examples=100, deadline=None)
@given(
    half=st.integers(8, 128),
    base_a=st.floats(2.0, 1e5),
    factor=st.floats(1.5, 100.0),
)
def test_difference_peak_is_where_the_difference_is_largest(half, base_a, factor):
    dim, base_b = 2 * half, base_a * factor
    peak = spectrum_math.difference_peak(dim, base_a, base_b)
    # compare with a fine grid of continuous i, computed directly (for small bases the peak
    # lies past the last plane; the grid reaches 4·d/2 and the check covers peaks inside it)
    assume(peak < 3.5 * half)
    grid = np.linspace(0, 4 * half, 400001)
    values = base_a ** (-2 * grid / dim) - base_b ** (-2 * grid / dim)
    assert peak == pytest.approx(grid[np.argmax(values)], abs=half / 20000)


def test_difference_peak_for_10000_and_100000():
    assert spectrum_math.difference_peak(128, 1e4, 1e5) == pytest.approx(64 * math.log10(1.25))
    assert spectrum_math.difference_peak(128, 1e4, 1e5) == pytest.approx(6.2022, abs=1e-4)


def test_base_comparison_figure_draws_the_comparison():
    fig = spectrum.plot_base_comparison(128, 10000.0, 100000.0)
    spec, diff, ratio = fig.axes[:3]
    a, b = spec.get_lines()
    np.testing.assert_allclose(a.get_ydata(), theta_ref(128, 1e4), rtol=1e-13)
    np.testing.assert_allclose(b.get_ydata(), theta_ref(128, 1e5), rtol=1e-13)
    curve, peak = diff.get_lines()[:2]
    np.testing.assert_allclose(
        curve.get_ydata(), theta_ref(128, 1e4) - theta_ref(128, 1e5), atol=1e-15
    )
    assert peak.get_xdata()[0] == 6
    np.testing.assert_allclose(ratio.get_lines()[0].get_ydata(), 10.0 ** (-np.arange(64) / 64))


def test_plane_signals_fast_plane_does_not_hide_the_slow_ones():
    """Issue 13: over 4,096 positions plane 0 turns 652 times and used to paint a solid band
    over the other curves; it is now a faint band behind them, labelled with its periods."""
    fig = spectrum.plot_plane_signals(128, 10000.0, planes=(0, 24, 63), long_len=4096)
    far = fig.axes[1]
    fast, middle, slow = far.get_lines()
    periods = 4096 * theta_ref(128, 10000.0)[0] / (2 * np.pi)
    assert fast.get_alpha() < 0.3 and fast.get_zorder() < min(middle.get_zorder(), 3)
    for line in (middle, slow):
        assert line.get_alpha() in (None, 1.0) and line.get_zorder() > fast.get_zorder()
    assert f"i = 0: {periods:,.0f} periods (faint band)" in [t.get_text() for t in far.texts]
