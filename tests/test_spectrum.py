"""ropelab.spectrum.spectrum_data: the numbers behind chapter 4's spectrum figure.

References are computed here from the formulas (θ_i = β^(-2i/d), λ_i = 2π/θ_i, the closed
form of the plane count) and from the numbers the sources publish, not from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ropelab.interactive import figure_spec
from ropelab.spectrum import spectrum_data


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
    data = spectrum_data(**figure_spec("spectrum").defaults())
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


def test_reference_base_adds_its_spectrum():
    data = spectrum_data(64, 500000.0, 8192.0, reference_base=10000.0)
    assert data["reference_base"] == 10000.0
    np.testing.assert_allclose(
        data["reference_theta"], 10000.0 ** (-2 * np.arange(32) / 64), rtol=1e-14
    )
    assert "reference_theta" not in spectrum_data(64, 500000.0, 8192.0)


def test_closest_common_return_finds_where_every_plane_is_back_at_once():
    from ropelab.spectrum import closest_common_return

    # base 1: every theta_i = 1, so the head returns when r is close to a multiple of 2π;
    # 710 = 113·2π + 6.0e-5 (the continued fraction of π: 355/113)
    r, angle = closest_common_return(128, 1.0, 1000)
    assert r == 710 and angle == pytest.approx(abs(710 - 113 * 2 * math.pi), rel=1e-6)
    # brute force on a small head: the largest wrapped angle, minimised over r
    theta = 1.01 ** (-np.arange(0, 16, 2) / 16)
    rs = np.arange(1, 3001)
    wrapped = np.abs((rs[:, None] * theta + math.pi) % (2 * math.pi) - math.pi).max(axis=1)
    assert closest_common_return(16, 1.01, 3000) == (
        int(rs[np.argmin(wrapped)]),
        pytest.approx(wrapped.min(), rel=1e-12),
    )
    # base 2 and up: plane 0 turns 1 rad per token and no r up to 65,536 does better than r = 1
    assert closest_common_return(128, 2.0, 65536) == (1, pytest.approx(1.0))
    with pytest.raises(ValueError, match="max_distance"):
        closest_common_return(128, 2.0, 0)
