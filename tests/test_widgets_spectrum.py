"""ropelab.widgets.spectrum: the numbers behind the chapter-4 widget, its clamping and its sliders.

References are computed here from the formulas (θ_i = β^(-2i/d), λ_i = 2π/θ_i, the closed
form of the plane count) and from the numbers the sources publish, not from the code under test.
"""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ropelab.widgets.spectrum import (
    BASE_RANGE,
    DEFAULTS,
    DIM_RANGE,
    TRAIN_LEN_RANGE,
    clamp_controls,
    spectrum_data,
    spectrum_widget,
)

matplotlib.use("Agg")


def closed_form_count(dim: int, base: float, train_len: float) -> int:
    """Planes with 2π β^(2i/d) <= T: i <= (d/2) log_β(T/2π), clipped to [0, d/2]."""
    bound = dim / 2 * math.log(train_len / (2 * math.pi)) / math.log(base)
    return min(max(math.floor(bound) + 1, 0), dim // 2)


# --- published numbers --------------------------------------------------------------------------


def test_llama2_setting_has_46_full_planes_and_critical_dim_92():
    data = spectrum_data(128, 10000.0, 4096.0)
    assert data["n_planes"] == 64
    assert data["n_full"] == 46
    assert data["n_partial"] == 18
    assert data["critical_dim"] == 92  # Liu et al., Lemma 1, for LLaMA 2
    assert 45 < data["boundary"] < 46  # 64·log_10000(4096/2π) ≈ 45.03: planes 0..45
    assert data["full_period"][:46].all() and not data["full_period"][46:].any()


def test_scaling_laws_figure5_counts():
    # d = 32 (16 planes), T_train = 4096: base 500 puts every period inside, base 1e6 only half
    small = spectrum_data(32, 500.0, 4096.0)
    large = spectrum_data(32, 1e6, 4096.0)
    assert small["n_full"] == 16 and small["full_period"].all()
    assert large["n_full"] == 8 and large["n_partial"] == 8
    # the last plane of base 500: 2π·500^(30/32) ≈ 2130 tokens, inside 4096
    assert small["wavelength"][-1] == pytest.approx(2 * math.pi * 500 ** (30 / 32), rel=1e-12)
    assert 2000 < small["wavelength"][-1] < 2200


def test_llama3_default_state():
    data = spectrum_data(**DEFAULTS)
    assert (data["dim"], data["base"], data["train_len"]) == (128, 500000.0, 8192.0)
    assert data["n_full"] == closed_form_count(128, 500000.0, 8192.0) == 35
    assert data["critical_dim"] == 70


# --- independent formulas -----------------------------------------------------------------------


def test_arrays_match_the_formulas():
    dim, base, train_len = 64, 2500.0, 1000.0
    data = spectrum_data(dim, base, train_len)
    i = np.arange(dim // 2)
    theta = np.array([base ** (-2 * k / dim) for k in i])
    np.testing.assert_array_equal(data["plane"], i)
    np.testing.assert_allclose(data["theta"], theta, rtol=1e-14)
    np.testing.assert_allclose(data["wavelength"], 2 * np.pi * base ** (2 * i / dim), rtol=1e-13)
    np.testing.assert_allclose(data["turns"], train_len * theta / (2 * np.pi), rtol=1e-13)
    assert data["theta_threshold"] == pytest.approx(2 * math.pi / train_len, rel=1e-15)
    assert data["boundary"] == pytest.approx(
        32 * math.log10(1000 / (2 * math.pi)) / math.log10(2500)
    )
    # a plane completes a period exactly when θ_i reaches the threshold 2π/T
    np.testing.assert_array_equal(data["full_period"], theta >= 2 * np.pi / train_len)
    np.testing.assert_array_equal(data["full_period"], data["turns"] >= 1)
    assert data["full_period"].dtype == np.bool_


@settings(max_examples=200, deadline=None)
@given(
    half=st.integers(1, 128),
    base=st.floats(2.0, 1e7),
    train_len=st.floats(16.0, 131072.0),
)
def test_counts_follow_the_closed_form(half, base, train_len):
    dim = 2 * half
    bound = half * math.log(train_len / (2 * math.pi)) / math.log(base)
    if abs(bound - round(bound)) < 1e-9:
        return  # on a plane boundary rounding decides; the ceiling then differs by design
    data = spectrum_data(dim, base, train_len)
    count = closed_form_count(dim, base, train_len)
    assert data["boundary"] == pytest.approx(bound, rel=1e-12)
    assert data["n_full"] == count
    assert data["n_full"] + data["n_partial"] == half
    assert int(data["full_period"].sum()) == count
    assert data["full_period"][:count].all() and not data["full_period"][count:].any()
    assert data["critical_dim"] == min(2 * math.ceil(bound), dim)
    if count < half:
        assert data["critical_dim"] == 2 * count


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((7, 10000.0, 4096.0), "dim"),
        ((0, 10000.0, 4096.0), "dim"),
        ((128, 1.0, 4096.0), "base"),
        ((128, float("nan"), 4096.0), "base"),
        ((128, 10000.0, 6.0), "train_len"),
    ],
)
def test_bad_input_names_the_argument(args, name):
    with pytest.raises(ValueError, match=name):
        spectrum_data(*args)


# --- clamping -----------------------------------------------------------------------------------


def test_clamp_keeps_valid_values_and_moves_the_others_to_the_edges():
    assert clamp_controls(128, 10000.0, 4096.0) == (128, 10000.0, 4096.0)
    assert clamp_controls(0, 1.0, 1.0) == (2, 2.0, 16.0)
    assert clamp_controls(1000, 1e9, 1e9) == (256, 1e7, 131072.0)
    assert clamp_controls(129.2, 500.0, 100.0)[0] in (128, 130)
    assert clamp_controls(-5, -3.0, -1.0) == (2, 2.0, 16.0)
    with pytest.raises(ValueError, match="base"):
        clamp_controls(128, float("inf"), 4096.0)


@settings(max_examples=200, deadline=None)
@given(
    dim=st.floats(-1e3, 1e3),
    base=st.floats(-1e9, 1e9),
    train_len=st.floats(-1e7, 1e7),
)
def test_every_clamped_value_is_valid_input(dim, base, train_len):
    d, b, t = clamp_controls(dim, base, train_len)
    assert isinstance(d, int) and d % 2 == 0 and DIM_RANGE[0] <= d <= DIM_RANGE[1]
    assert BASE_RANGE[0] <= b <= BASE_RANGE[1]
    assert TRAIN_LEN_RANGE[0] <= t <= TRAIN_LEN_RANGE[1]
    data = spectrum_data(d, b, t)  # raises if the clamp let an invalid value through
    assert 0 <= data["n_full"] <= d // 2


# --- the widget ---------------------------------------------------------------------------------


def test_widget_sliders_cover_exactly_the_valid_ranges():
    widgets = pytest.importorskip("ipywidgets")
    box = spectrum_widget()
    sliders = {child.description: child for child in box.children if hasattr(child, "min")}
    dim, base, length = sliders["head dim d"], sliders["base β"], sliders["T_train (tokens)"]
    assert isinstance(dim, widgets.IntSlider)
    assert (dim.min, dim.max, dim.step, dim.value) == (2, 256, 2, 128)
    assert isinstance(base, widgets.FloatLogSlider) and isinstance(length, widgets.FloatLogSlider)
    assert base.base**base.min == pytest.approx(2.0)
    assert base.base**base.max == pytest.approx(1e7)
    assert base.value == pytest.approx(500000.0)
    assert length.base**length.min == pytest.approx(16.0)
    assert length.base**length.max == pytest.approx(131072.0)
    assert length.value == pytest.approx(8192.0)
    # every slider step lands on a value the clamp leaves unchanged
    for exponent in np.arange(length.min, length.max + 1e-9, length.step):
        t = length.base**exponent
        assert clamp_controls(128, 10000.0, t)[2] == pytest.approx(t)


def test_widget_redraws_at_the_corners_of_the_ranges():
    pytest.importorskip("ipywidgets")
    import matplotlib.pyplot as plt

    plt.close("all")
    box = spectrum_widget()
    dim_slider, base_slider, length_slider = box.kwargs_widgets
    for dim, base, length in [(2, 2.0, 16.0), (256, 1e7, 131072.0), (256, 2.0, 16.0)]:
        dim_slider.value, base_slider.value, length_slider.value = dim, base, length
        box.update()  # interactive swallows errors: check the figure it drew instead
        title = plt.gcf().get_suptitle()
        count = closed_form_count(dim, base, length)
        assert f"$d = {dim}$" in title
        assert f"{count} of {dim // 2} planes" in title
        plt.close("all")
