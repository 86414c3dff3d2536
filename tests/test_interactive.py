"""ropelab.interactive: the controls, the one clamp, the spec of every figure and its readout.

The clamp is checked rule by rule on hand-picked values; every spec is checked for what the
views rely on (defaults inside the ranges, data at the defaults and at the corners of the
ranges, a figure drawn from the data, a readout whose numbers are the data's); the readouts
against scores and counts computed here from the formulas.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ropelab.interactive import FIGURES, Control, clamp, figure_spec, kinds
from ropelab.interactive.controls import choice, linear, log, round_half_up
from ropelab.interactive.figures import BROWSER_KINDS

# Kinds whose spec can be built here (the lab's needs the committed results of its schema).
KINDS = [k for k in FIGURES if k != "lab"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --- the clamp ---------------------------------------------------------------------------------

DIM = linear("dim", "d", 128, 2, 256, 2, even=True)
LENGTH = log("length", "T", 4096, 128, 131072, log_base=2, step=0.25, integer=True)
TUNE = log("tune", "T'", 4096, 128, 2**20, log_base=2, step=0.25, integer=True, at_least="length")
THETA = linear("theta", "θ", 0.5, 0.01, 3.14, 0.01, decimals=2)
LAYOUT = choice("layout", "layout", "half", ("interleaved", "half"))
MODELS = choice("models", "models", ("a", "b"), ("a", "b", "c"), multiple=True)
CONTROLS = (DIM, LENGTH, TUNE, THETA, LAYOUT, MODELS)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, {"dim": 128, "length": 4096, "tune": 4096, "theta": 0.5}),
        ({"dim": 7}, {"dim": 8}),  # 3.5 rounds half up to 4 planes
        ({"dim": 5}, {"dim": 6}),
        ({"dim": 4.99}, {"dim": 4}),
        ({"dim": 1}, {"dim": 2}),
        ({"dim": -40}, {"dim": 2}),
        ({"dim": 257}, {"dim": 256}),
        ({"dim": float("nan")}, {"dim": 128}),
        ({"dim": float("inf")}, {"dim": 128}),
        ({"dim": -float("inf")}, {"dim": 128}),
        ({"dim": "64"}, {"dim": 128}),
        ({"dim": None}, {"dim": 128}),
        ({"dim": True}, {"dim": 128}),
        ({"dim": np.float32(10.0)}, {"dim": 10}),
        ({"length": 5000.5}, {"length": 5001}),
        ({"length": 5000.49}, {"length": 5000}),
        ({"length": 1}, {"length": 128}),
        ({"length": 9000, "tune": 100}, {"length": 9000, "tune": 9000}),
        ({"length": 9000, "tune": 20000}, {"tune": 20000}),
        ({"tune": 1e12}, {"tune": 2**20}),
        ({"theta": 0.0}, {"theta": 0.01}),
        ({"theta": 3.2}, {"theta": 3.14}),
        ({"theta": 1.234}, {"theta": 1.234}),
        ({"layout": "interleaved"}, {"layout": "interleaved"}),
        ({"layout": "diagonal"}, {"layout": "half"}),
        ({"layout": 3}, {"layout": "half"}),
        ({"models": ["c", "a", "c", "z"]}, {"models": ("c", "a")}),
        ({"models": "b"}, {"models": ("b",)}),
        ({"models": []}, {"models": ("a", "b")}),
        ({"models": [1, None]}, {"models": ("a", "b")}),
    ],
)
def test_clamp_rules(given, expected):
    clamped = clamp(CONTROLS, given)
    assert list(clamped) == [c.name for c in CONTROLS]
    for name, value in expected.items():
        assert clamped[name] == value, name
        assert type(clamped[name]) is type(value), name


def test_whole_numbers_are_ints_and_reals_floats():
    clamped = clamp(CONTROLS, {"dim": 64.0, "theta": 1})
    assert isinstance(clamped["dim"], int) and isinstance(clamped["theta"], float)


@pytest.mark.parametrize(
    ("value", "rounded"),
    [(0.5, 1), (1.5, 2), (2.5, 3), (-0.5, 0), (-1.5, -1), (2.4999999, 2), (0.49999999999999994, 0)],
)
def test_round_half_up_is_javascripts_math_round(value, rounded):
    assert round_half_up(value) == rounded


@settings(max_examples=200, deadline=None)
@given(
    values=st.fixed_dictionaries(
        {
            "dim": st.one_of(st.floats(), st.integers(-(10**6), 10**6), st.text(max_size=3)),
            "length": st.floats(),
            "tune": st.floats(),
            "theta": st.floats(),
        }
    )
)
def test_clamped_values_are_always_in_range(values):
    out = clamp(CONTROLS, values)
    assert out["dim"] % 2 == 0 and 2 <= out["dim"] <= 256
    assert 128 <= out["length"] <= out["tune"] <= 2**20
    assert 0.01 <= out["theta"] <= 3.14
    assert clamp(CONTROLS, out) == out  # clamping is idempotent


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Control(name="x", label="x", default=1), "needs low, high and step"),
        (lambda: linear("x", "x", 1, 2, 1, 1), "low < high"),
        (lambda: linear("x", "x", 5, 0, 4, 1), "outside"),
        (lambda: log("x", "x", 1, 0, 4, step=1), "log slider needs low > 0"),
        (lambda: linear("x", "x", 2, 1, 4, 1, even=True), "even ends"),
        (lambda: choice("x", "x", "c", ("a", "b")), "not among its options"),
        (lambda: choice("x", "x", "a", ()), "must not be empty"),
    ],
)
def test_bad_controls_raise(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_at_least_must_name_an_earlier_control():
    with pytest.raises(ValueError, match="must be an earlier control"):
        clamp((TUNE, LENGTH), {})


def test_slider_values():
    assert linear("m", "m", 2, 0, 4, 1, integer=True).slider_values() == [0, 1, 2, 3, 4]
    grid = THETA.slider_values()
    assert grid[0] == 0.01 and grid[-1] == 3.14 and len(grid) == 314
    assert grid[123] == 1.24  # 124/100, not 124 * 0.01 = 1.2400000000000002
    powers = log("r", "r", 16, 16, 65536, log_base=2, step=1, integer=True).slider_values()
    assert powers == [2.0**k for k in range(4, 17)]
    # a grid whose ends are not grid points keeps the ends
    odd = linear("x", "x", 1.0, 0.05, 1.0, 0.1).slider_values()
    assert odd[0] == 0.05 and odd[1] == pytest.approx(0.1) and odd[-1] == 1.0
    with pytest.raises(ValueError, match="is a choice"):
        LAYOUT.slider_values()


# --- the specs ---------------------------------------------------------------------------------


def test_registry():
    assert FIGURES == (
        "sinusoid",
        "rotation2d",
        "complex_pair",
        "complex_score",
        "block_matrix",
        "precision",
        "spectrum",
        "decay",
        "calculator",
        "extension_methods",
        "multiaxis",
        "lab",
        "remapping",
    )
    assert kinds(explorable=True) == BROWSER_KINDS
    assert set(kinds(explorable=False)) == {"sinusoid", "lab"}
    with pytest.raises(ValueError, match="kind must be one of sinusoid, rotation2d"):
        figure_spec("spectra")


def corners(kind: str) -> list[dict]:
    """Every combination of the ends of the sliders (the first option of a choice)."""
    spec = figure_spec(kind)
    ends = [
        [c.default] if c.is_choice else [c.low, c.high]
        for c in spec.controls
    ]  # fmt: skip
    return [dict(zip(spec.names, combo, strict=True)) for combo in itertools.product(*ends)]


@pytest.mark.parametrize("kind", KINDS)
def test_spec_defaults_constants_and_data(kind):
    spec = figure_spec(kind)
    assert spec.params() == spec.defaults()
    json.dumps(spec.to_json(spec.defaults()))  # the browser's config is plain JSON
    names = [c.name for c in spec.controls]
    for c in spec.controls:
        if c.at_least is not None:
            assert names.index(c.at_least) < names.index(c.name)
    for params in [spec.defaults(), *corners(kind)]:
        data = spec.compute(**params)
        if spec.browser_keys is not None:
            assert set(spec.browser_keys) <= set(data)
        text = spec.readout(data)
        assert isinstance(text, str) and text and "nan" not in text.lower()
    with pytest.raises(ValueError, match=f"figure '{kind}' takes the parameters"):
        spec.compute(width=3)


@pytest.mark.parametrize("kind", KINDS)
def test_static_figure_draws_the_data(kind):
    spec = figure_spec(kind)
    figure = spec.draw(spec.compute())
    assert isinstance(figure, matplotlib.figure.Figure)
    assert figure.axes and any(ax.lines or ax.images or ax.collections for ax in figure.axes)


def test_figures_draw_their_numbers():
    # spot checks that a figure draws the data it is given, not its own
    spec = figure_spec("decay")
    data = spec.compute(dim=64, base=500.0, max_distance=4096)
    left = spec.draw(data).axes[0]
    np.testing.assert_array_equal(left.lines[0].get_ydata(), data["ones_score"])
    spec = figure_spec("spectrum")
    data = spec.compute(dim=32, base=500.0, train_len=4096.0)
    scatter = spec.draw(data).axes[0].collections[0]
    np.testing.assert_allclose(scatter.get_offsets()[:, 1], data["theta"])


# --- the readouts ------------------------------------------------------------------------------


def hand_score(q, k, m, n, theta) -> float:
    """(R(m theta) q) . (R(n theta) k), with the rotations written out."""

    def turn(v, phi):
        c, s = math.cos(phi), math.sin(phi)
        return np.array([v[0] * c - v[1] * s, v[0] * s + v[1] * c])

    return float(turn(q, m * theta) @ turn(k, n * theta))


@pytest.mark.parametrize(
    ("m", "n", "theta", "shift"),
    [(2, 5, 0.5, 3), (0, 0, 0.01, 0), (64, 0, 3.14, 64), (7, 40, 1.23, 17), (30, 29, 3.0, 5)],
)
def test_rotation_readout_against_hand_computation(m, n, theta, shift):
    spec = figure_spec("rotation2d")
    q, k = spec.constants["q"], spec.constants["k"]
    text = spec.readout(spec.compute(m=m, n=n, theta=theta, shift=shift))
    values = [float(x) for x in re.findall(r"= ([+-]\d+\.\d{6})$", text, flags=re.MULTILINE)]
    expected = [
        hand_score(q, k, m, n, theta),
        hand_score(q, k, m + shift, n + shift, theta),
        hand_score(q, k, 0, n - m, theta),
        hand_score(q, k, m, n + shift, theta),
    ]
    np.testing.assert_allclose(values, expected, atol=6e-7)
    assert text.splitlines()[-1] == (
        "score(m, n) and score(m + s, n + s) differ by less than 1e-12 (rounding)"
    )
    assert f"n − m = {n - m:+d}" in text


def test_calculator_readout_llama2_at_one_million():
    text = figure_spec("calculator").readout(figure_spec("calculator").compute())
    assert text.splitlines()[:2] == [
        "regime: β > β0: bound = T_extra",
        "supported length (prediction): 129,027 tokens",
    ]
    assert "d_extra = 92 of 128 dims (46 planes" in text
    assert "β1 = 2,608, β2 = 1,304, β3 = 652" in text


def test_spectrum_readout_llama2():
    spec = figure_spec("spectrum")
    text = spec.readout(spec.compute(dim=128, base=10000.0, train_len=4096.0))
    boundary = 64 * math.log(4096 / (2 * math.pi)) / math.log(10000)
    assert f"boundary (d/2)·log_β(T_train/2π) = {boundary:.3f}; d_extra = 92" in text
    assert "in 46 of 64 planes" in text and "18 do not" in text
    assert f"= {2 * math.pi / 4096:.4g})" in text


def test_decay_readout_base_one():
    spec = figure_spec("decay")
    text = spec.readout(spec.compute(dim=64, base=1.0, max_distance=1024))
    # base 1: every θ_i = 1, s(r) = d cos r, the bound stays at (d/2 + 1)/2
    assert f"s(1) = {64 * math.cos(1):.3f}, s(1,024) = {64 * math.cos(1024):.3f}" in text
    assert "16.500 at r = 1, 16.500 at r = 1,024 (16.5 at r = 0)" in text


def test_block_readout():
    spec = figure_spec("block_matrix")
    text = spec.readout(spec.compute(dim=4, base=100.0, position=3, layout="half"))
    assert text == (
        "2 planes of the 4×4 matrix, half layout; θ_1 = 0.1 rad per position\n"
        "at m = 3: plane 0 turns by mθ_0 = 3.0000 rad, the slowest plane by mθ_1 = 0.3000 rad"
    )


# --- layering ----------------------------------------------------------------------------------


def test_specs_and_explorables_need_no_plotting_or_widget_library():
    code = (
        "import sys\n"
        "import ropelab.explorables as e\n"
        "from ropelab.interactive import figure_spec\n"
        "for kind in e.KINDS:\n"
        "    spec = figure_spec(kind)\n"
        "    spec.readout(spec.compute())\n"
        "    e.explorable(kind)\n"
        "heavy = [m for m in ('matplotlib', 'ipywidgets', 'torch') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "", f"imported {done.stdout.strip()}"
