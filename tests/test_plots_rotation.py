"""Tests of :mod:`ropelab.plots.rotation`, the figures and data of chapters 1 and 2.

Every expected value is computed here from the formulas themselves (cos and sin written out,
Python complex arithmetic), never by calling the function under test; the figure tests read
the drawn data back from the artists and compare it with those independent values.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.text import Annotation

from ropelab import rotation2d as r2
from ropelab.plots import rotation as rot

Q = (1.0, 0.4)
K = (0.6, 0.9)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def matrix(phi: float) -> np.ndarray:
    """R(phi) written out by hand."""
    return np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])


def score(q, k, m, n, theta) -> float:
    """(R(m theta) q) . (R(n theta) k) with explicit matrices."""
    return float((matrix(m * theta) @ np.asarray(q)) @ (matrix(n * theta) @ np.asarray(k)))


def arrow_tips(ax) -> list[tuple[float, float]]:
    """The tips of the arrows drawn by the module (annotations with an arrow)."""
    return [
        tuple(float(v) for v in artist.xy)
        for artist in ax.texts
        if isinstance(artist, Annotation) and artist.arrow_patch is not None
    ]


def has_tip(ax, expected, atol=1e-12) -> bool:
    return any(np.allclose(tip, expected, atol=atol, rtol=0) for tip in arrow_tips(ax))


# --------------------------------------------------------------------------------------
# chapter 1: data
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("phi", [0.0, 0.3, math.pi / 4, -1.7, 2 * math.pi, 100.0])
def test_rotation_2d_is_the_textbook_matrix(phi):
    np.testing.assert_allclose(r2.rotation_2d(phi), matrix(phi), atol=1e-15, rtol=0)


def test_worked_example_one_zero_by_quarter_pi():
    half_sqrt2 = math.sqrt(2.0) / 2.0
    np.testing.assert_allclose(
        r2.rotate_2d((1.0, 0.0), math.pi / 4), [half_sqrt2, half_sqrt2], atol=1e-15, rtol=0
    )


def test_rotate_by_quarter_turn_swaps_coordinates():
    np.testing.assert_allclose(r2.rotate_2d((3.0, 2.0), math.pi / 2), [-2.0, 3.0], atol=1e-14)


@settings(max_examples=40, deadline=None)
@given(
    x=st.tuples(st.floats(-10, 10), st.floats(-10, 10)),
    a=st.floats(-20, 20),
    b=st.floats(-20, 20),
)
def test_rotate_2d_matches_the_formula_keeps_length_and_composes(x, a, b):
    out = r2.rotate_2d(x, a)
    np.testing.assert_allclose(out, matrix(a) @ np.asarray(x), atol=1e-12)
    assert math.isclose(np.hypot(*out), math.hypot(*x), rel_tol=1e-12, abs_tol=1e-12)
    twice = r2.rotate_2d(r2.rotate_2d(x, a), b)
    np.testing.assert_allclose(twice, r2.rotate_2d(x, a + b), atol=1e-10)


def test_complex_input_is_read_as_a_vector():
    np.testing.assert_array_equal(r2.as_vector_2d(2.0 - 3.0j), [2.0, -3.0])
    assert r2.as_complex((2.0, -3.0)) == 2.0 - 3.0j
    assert r2.as_complex(1.5) == 1.5 + 0.0j


def test_rope_score_2d_against_explicit_matrices_and_broadcasting():
    theta = 0.37
    m = np.array([0, 3, 10, 40])
    n = np.array([[1], [7]])
    expected = np.array([[score(Q, K, mi, ni, theta) for mi in m] for ni in (1, 7)])
    np.testing.assert_allclose(r2.rope_score_2d(Q, K, m, n, theta), expected, atol=1e-12)
    assert r2.rope_score_2d(Q, K, 2, 5, theta).shape == ()


def test_score_depends_only_on_the_offset():
    theta = 0.5
    values = [float(r2.rope_score_2d(Q, K, m, m + 3, theta)) for m in (0, 2, 17, 60, 1000)]
    relative = float(r2.relative_score_2d(Q, K, 3, theta))
    by_hand = float(np.asarray(Q) @ matrix(3 * theta) @ np.asarray(K))
    assert relative == pytest.approx(by_hand, abs=1e-14)
    np.testing.assert_allclose(values, by_hand, atol=1e-11)
    # ... and the sign of the offset matters: n - m = -3 gives another score
    assert abs(float(r2.rope_score_2d(Q, K, 5, 2, theta)) - by_hand) > 0.1


def test_shifted_scores():
    theta, m, n = 0.5, 2, 5
    data = r2.shifted_scores(Q, K, m, n, theta, np.arange(20))
    fixed = float(np.asarray(Q) @ matrix((n - m) * theta) @ np.asarray(K))
    np.testing.assert_allclose(data["both"], fixed, atol=1e-12)
    key_only = [
        float(np.asarray(Q) @ matrix((n + s - m) * theta) @ np.asarray(K)) for s in range(20)
    ]
    np.testing.assert_allclose(data["key_only"], key_only, atol=1e-12)
    assert np.ptp(data["key_only"]) > 1.0  # the key-only curve really moves


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: r2.as_vector_2d((1.0, 2.0, 3.0)), "vector must be a 2D vector"),
        (lambda: r2.as_vector_2d((1.0, float("nan"))), "vector must be finite"),
        (lambda: r2.rotate_2d((1.0, 0.0), float("inf")), "angle must be finite"),
        (lambda: r2.rotate_2d((1.0, 0.0), [0.1, 0.2]), "angle must be a single real number"),
        (lambda: r2.rope_score_2d(Q, K, 0, 1, "a"), "theta must be real numbers"),
        (lambda: rot.plot_score_vs_shift(Q, K, 0, 1, 0.5, max_shift=0), "max_shift must be"),
        (lambda: rot.plot_rotation((0.0, 0.0)), "vector must be non-zero"),
        (lambda: rot.plot_relative_rotation(Q, K, 0, 1, 0.5, shift=65), "shift must be between"),
        (lambda: rot.plot_relative_rotation(Q, K, 0, 1, 0.5, shift=1.5), "shift must be an"),
        (lambda: r2.rope_polar_parts(0.0, 0.5, [0, 1]), "q must be non-zero"),
        (lambda: rot.plot_rope_orbit(1.0, 0.5, num_positions=1), "num_positions must be"),
        (lambda: rot.plot_complex_multiplication(0.0, 1.0), "must be non-zero"),
        (lambda: r2.as_complex(complex("nan")), "z must be finite"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --------------------------------------------------------------------------------------
# chapter 1: figures
# --------------------------------------------------------------------------------------


def test_plot_rotation_draws_the_worked_example():
    fig = rot.plot_rotation((1.0, 0.0), math.pi / 4)
    ax = fig.axes[0]
    half_sqrt2 = math.sqrt(2.0) / 2.0
    assert has_tip(ax, (1.0, 0.0))
    assert has_tip(ax, (half_sqrt2, half_sqrt2), atol=1e-15)
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert "R(φ)x = (0.707, 0.707)" in labels
    assert "45.0°" in ax.get_title()
    circle = ax.lines[0]
    np.testing.assert_allclose(np.hypot(circle.get_xdata(), circle.get_ydata()), 1.0)


def test_plot_score_vs_shift_draws_the_independent_scores():
    theta, m, n = 0.5, 2, 5
    fig = rot.plot_score_vs_shift(Q, K, m, n, theta, max_shift=32)
    both, key_only = fig.axes[0].lines[:2]
    s = np.arange(33)
    np.testing.assert_array_equal(both.get_xdata(), s)
    np.testing.assert_allclose(both.get_ydata(), score(Q, K, m, n, theta), atol=1e-12)
    np.testing.assert_allclose(
        key_only.get_ydata(), [score(Q, K, m, n + si, theta) for si in s], atol=1e-12
    )


def test_plot_relative_rotation_draws_rotated_and_shifted_pairs():
    theta, m, n, shift = 0.5, 2, 5, 3
    fig = rot.plot_relative_rotation(Q, K, m, n, theta, shift, max_shift=64)
    left, right = fig.axes[:2]
    for vector, angle in [
        (Q, 0.0),
        (K, 0.0),
        (Q, m * theta),
        (K, n * theta),
        (Q, (m + shift) * theta),
        (K, (n + shift) * theta),
    ]:
        assert has_tip(left, matrix(angle) @ np.asarray(vector)), (vector, angle)
    # the angle from R_{m+s} q to R_{n+s} k is the angle from q to k plus (n - m) theta
    turn = math.atan2(K[1], K[0]) - math.atan2(Q[1], Q[0]) + (n - m) * theta
    wrapped = math.atan2(math.sin(turn), math.cos(turn))
    assert f"{wrapped:.3f}" in left.get_title()
    flat = right.lines[0]
    np.testing.assert_allclose(flat.get_ydata(), score(Q, K, m, n, theta), atol=1e-12)
    marker = next(line for line in right.lines if line.get_label() == f"current s = {shift}")
    assert marker.get_xdata()[0] == shift
    assert marker.get_ydata()[0] == pytest.approx(score(Q, K, m + shift, n + shift, theta))
    assert f"{score(Q, K, m, n, theta):.4f}" in right.get_title()


# --------------------------------------------------------------------------------------
# chapter 2: data and figures
# --------------------------------------------------------------------------------------


def test_rope_orbit_is_q_times_e_to_the_i_m_theta():
    q, theta = 1.2 * np.exp(0.3j), 0.5
    m = np.arange(10)
    expected = [complex(q) * complex(math.cos(mi * theta), math.sin(mi * theta)) for mi in m]
    np.testing.assert_allclose(r2.rope_orbit(q, theta, m), expected, atol=1e-14)


def test_rope_polar_parts_radius_constant_phase_linear():
    q, theta = -0.7 + 0.2j, 0.9
    m = np.arange(25)
    radius, phase = r2.rope_polar_parts(q, theta, m)
    np.testing.assert_allclose(radius, abs(q), atol=1e-14)
    np.testing.assert_allclose(phase, m * theta, atol=1e-12)  # unwrapped past 2 pi
    assert phase[-1] > 2 * math.pi


def test_score_with_linear_phase_is_the_rope_score():
    q, k, theta = 1.0 + 0.4j, 0.6 + 0.9j, 0.5
    m = np.arange(8)
    n = np.arange(8)[:, None]
    complex_form = r2.score_with_phase(q, k, m, n, lambda p: theta * p)
    np.testing.assert_allclose(complex_form, r2.rope_score_2d(Q, K, m, n, theta), atol=1e-12)


def test_score_with_phase_constant_offset_cancels_quadratic_breaks():
    q, k, theta, c = 1.2 * np.exp(0.3j), 0.9 * np.exp(1.1j), 0.5, 0.01
    s = np.arange(30.0)
    m, n = 2 + s, 5 + s

    def by_hand(phase):
        return [
            abs(q) * abs(k) * math.cos(0.3 - 1.1 + phase(mi) - phase(ni))
            for mi, ni in zip(m, n, strict=True)
        ]

    for phase in (lambda p: theta * p, lambda p: theta * p + 1.0):
        values = r2.score_with_phase(q, k, m, n, phase)
        np.testing.assert_allclose(values, by_hand(lambda p: theta * p), atol=1e-12)
    quadratic = r2.score_with_phase(q, k, m, n, lambda p: theta * p + c * p**2)
    np.testing.assert_allclose(quadratic, by_hand(lambda p: theta * p + c * p**2), atol=1e-12)
    assert np.ptp(quadratic) > 0.5


def test_plot_complex_multiplication_draws_the_product():
    a, b, c, d = 1.2 * math.cos(0.5), 1.2 * math.sin(0.5), 0.8 * math.cos(0.9), 0.8 * math.sin(0.9)
    fig = rot.plot_complex_multiplication(complex(a, b), complex(c, d))
    ax = fig.axes[0]
    assert has_tip(ax, (a, b)) and has_tip(ax, (c, d))
    assert has_tip(ax, (a * c - b * d, a * d + b * c))
    labels = " ".join(text.get_text() for text in ax.get_legend().get_texts())
    assert "0.96" in labels and "1.40" in labels  # 1.2 * 0.8 and 0.5 + 0.9


def test_plot_rope_orbit_points_and_phase():
    q, theta = 1.2 * np.exp(0.3j), 0.5
    fig = rot.plot_rope_orbit(q, theta, num_positions=13)
    left, right = fig.axes[:2]
    m = np.arange(13)
    points = left.collections[0].get_offsets()
    np.testing.assert_allclose(points[:, 0], 1.2 * np.cos(0.3 + m * theta), atol=1e-12)
    np.testing.assert_allclose(points[:, 1], 1.2 * np.sin(0.3 + m * theta), atol=1e-12)
    phase = next(line for line in right.lines if line.get_marker() == "o")
    np.testing.assert_allclose(phase.get_ydata(), m * theta, atol=1e-12)


def test_plot_phase_counterexample_lines():
    q, k, theta, c, gamma = 1.2 * np.exp(0.3j), 0.9 * np.exp(1.1j), 0.5, 0.01, 1.0
    fig = rot.plot_phase_counterexample(q, k, 2, 5, theta, curvature=c, gamma=gamma, max_shift=32)
    linear, offset, quadratic = fig.axes[0].lines[:3]
    fixed = 1.2 * 0.9 * math.cos(0.3 - 1.1 - 3 * theta)
    np.testing.assert_allclose(linear.get_ydata(), fixed, atol=1e-12)
    np.testing.assert_allclose(offset.get_ydata(), fixed, atol=1e-12)
    s = np.arange(33)
    expected = 1.2 * 0.9 * np.cos(0.3 - 1.1 - 3 * theta + c * ((2 + s) ** 2 - (5 + s) ** 2))
    np.testing.assert_allclose(quadratic.get_ydata(), expected, atol=1e-12)
