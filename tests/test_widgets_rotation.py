"""Tests of :mod:`ropelab.widgets.rotation`, chapter 1's widget.

The drawing function is checked against scores computed here by hand; the sliders are
checked to reach only valid inputs, to clamp, and to redraw with their values.
"""

from __future__ import annotations

import math
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ropelab.widgets import rotation as w


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def score(q, k, m, n, theta) -> float:
    """(R(m theta) q) . (R(n theta) k), with the rotations written out."""

    def turn(v, phi):
        return np.array(
            [
                v[0] * math.cos(phi) - v[1] * math.sin(phi),
                v[0] * math.sin(phi) + v[1] * math.cos(phi),
            ]
        )

    return float(turn(q, m * theta) @ turn(k, n * theta))


def readout_numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"= ([+-]\d+\.\d{6})$", text, flags=re.MULTILINE)]


@pytest.mark.parametrize(
    ("m", "n", "theta", "shift"),
    [(2, 5, 0.5, 3), (0, 0, 0.01, 0), (64, 0, 3.14, 64), (7, 40, 1.23, 17), (30, 29, math.pi, 5)],
)
def test_readout_values_against_hand_computation(m, n, theta, shift):
    q, k = w.DEFAULT_Q, w.DEFAULT_K
    text = w.relative_rotation_readout(m, n, theta, shift)
    values = readout_numbers(text)
    expected = [
        score(q, k, m, n, theta),
        score(q, k, m + shift, n + shift, theta),
        score(q, k, 0, n - m, theta),
        score(q, k, m, n + shift, theta),
    ]
    np.testing.assert_allclose(values, expected, atol=6e-7)
    assert text.splitlines()[-1].endswith("True")
    assert f"n − m = {n - m:+d}" in text


def test_readout_with_other_vectors():
    q, k = (0.2, -1.5), (2.0, 0.3)
    values = readout_numbers(w.relative_rotation_readout(3, 9, 0.7, 11, q, k))
    assert values[0] == pytest.approx(score(q, k, 3, 9, 0.7), abs=6e-7)
    assert values[3] == pytest.approx(score(q, k, 3, 20, 0.7), abs=6e-7)


def test_view_draws_the_slider_state():
    fig, text = w.relative_rotation_view(**w.DEFAULTS)
    assert "m = 2, n = 5" in fig._suptitle.get_text()
    right = fig.axes[1]
    flat = right.lines[0]
    expected = score(w.DEFAULT_Q, w.DEFAULT_K, 2, 5, 0.5)
    np.testing.assert_allclose(flat.get_ydata(), expected, atol=1e-12)
    assert len(flat.get_ydata()) == w.POSITION_MAX + 1
    assert readout_numbers(text)[0] == pytest.approx(expected, abs=6e-7)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"m": -1}, "m must be an integer between 0 and 64"),
        ({"n": 65}, "n must be an integer between 0 and 64"),
        ({"shift": 2.5}, "shift must be an integer"),
        ({"shift": True}, "shift must be an integer"),
        ({"theta": 0.0}, r"theta must be a real number in \(0, pi\]"),
        ({"theta": 3.2}, r"theta must be a real number in \(0, pi\]"),
        ({"theta": float("nan")}, r"theta must be a real number in \(0, pi\]"),
    ],
)
def test_out_of_range_input_raises(kwargs, match):
    with pytest.raises(ValueError, match=match):
        w.relative_rotation_view(**{**w.DEFAULTS, **kwargs})


def test_sliders_reach_only_valid_values_and_clamp():
    box = w.relative_rotation_widget()
    sliders = box.sliders
    for name in ("m", "n", "shift"):
        assert (sliders[name].min, sliders[name].max) == (0, w.POSITION_MAX)
    theta = sliders["theta"]
    assert 0 < theta.min and theta.max <= math.pi
    # every reachable value of every slider is accepted by the plain function
    for value in np.arange(theta.min, theta.max + theta.step / 2, theta.step):
        w.relative_rotation_readout(0, 1, float(value), 0)
    for value in range(w.POSITION_MAX + 1):
        w.relative_rotation_readout(value, w.POSITION_MAX - value, theta.max, value)
    sliders["m"].value = 1000
    sliders["theta"].value = 10.0
    sliders["shift"].value = -5
    assert sliders["m"].value == w.POSITION_MAX
    assert sliders["theta"].value == pytest.approx(w.THETA_MAX)
    assert sliders["shift"].value == 0


def test_moving_a_slider_redraws_with_the_slider_values(monkeypatch):
    calls = []
    real_view = w.relative_rotation_view

    def spy(**kwargs):
        calls.append(kwargs)
        return real_view(**kwargs)

    monkeypatch.setattr(w, "relative_rotation_view", spy)
    box = w.relative_rotation_widget()
    assert calls[-1]["m"] == w.DEFAULTS["m"]
    box.sliders["n"].value = 40
    box.sliders["shift"].value = 12
    assert (calls[-1]["n"], calls[-1]["shift"], calls[-1]["m"]) == (40, 12, w.DEFAULTS["m"])
    np.testing.assert_array_equal(calls[-1]["q"], w.DEFAULT_Q)
