"""ropelab.scaling: the published numbers of the scaling-laws paper and independent checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ropelab import scaling
from ropelab.core import inv_freq

# --- the numbers the paper (arXiv 2310.05209) and its author's explainer publish -------------


def test_llama2_critical_dimension_is_92():
    assert scaling.critical_dim(128, 4096) == 92
    assert scaling.full_period_planes(128, 4096) == 46  # 46 planes see a full period
    assert 128 // 2 - scaling.full_period_planes(128, 4096) == 18  # 18 do not


def test_theorem1_thresholds_round_to_2608_1304_652():
    b1, b2, b3 = scaling.small_base_thresholds(4096)
    assert (round(b1), round(b2), round(b3)) == (2608, 1304, 652)
    assert (b1, b2, b3) == (2 * 4096 / math.pi, 4096 / math.pi, 4096 / (2 * math.pi))


def test_critical_base_for_16k_rounds_to_71738():
    assert round(scaling.critical_base(4096, 16384)) == 71738


def test_theorem2_bound_for_base_1e6_is_about_129k():
    bound = scaling.extrapolation_bound(1e6, 128, 4096)
    assert 128_000 < bound < 130_000
    assert bound > 100_000  # beyond the 100K of the paper's plot
    # base 10000 gives about 4712, not 4096: the ceiling in d_extra rounds the plane count up
    assert round(scaling.extrapolation_bound(10000.0, 128, 4096)) == 4712


# --- independent checks -----------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    half=st.integers(1, 128),
    train_len=st.floats(10.0, 1e6),
    base=st.floats(1.5, 1e7),
)
def test_critical_dim_counts_planes_with_full_periods(half, train_len, base):
    dim = 2 * half
    wavelengths = 2 * math.pi / inv_freq(dim, base)
    count = int(np.sum(wavelengths <= train_len))
    exponent = half * math.log(train_len / (2 * math.pi)) / math.log(base)
    if abs(exponent - round(exponent)) < 1e-9:
        return  # exactly on a plane boundary the paper's ceiling counts one fewer (documented)
    assert scaling.critical_dim(dim, train_len, base) == min(2 * count, dim)
    assert scaling.full_period_planes(dim, train_len, base) == count


@settings(max_examples=100, deadline=None)
@given(base=st.floats(10001.0, 1e8), half=st.sampled_from([16, 32, 64]))
def test_theorem2_and_its_inverse_round_trip(base, half):
    dim = 2 * half
    bound = scaling.extrapolation_bound(base, dim, 4096)
    assert scaling.base_for_extrapolation(bound, dim, 4096) == pytest.approx(base, rel=1e-9)
    # the critical plane's wavelength after fine-tuning is the bound (eq. 14)
    d_extra = scaling.critical_dim(dim, 4096)
    assert bound == pytest.approx(2 * math.pi * base ** (d_extra / dim), rel=1e-12)


def test_critical_base_definition():
    # β0 puts the critical plane index (d/2)·log_β(T/2π) at T_tune where 10000 put it at T_train
    for t_train, t_tune in [(4096, 16384), (2048, 32768), (128, 512)]:
        beta0 = scaling.critical_base(t_train, t_tune)
        at_tune = math.log(t_tune / (2 * math.pi)) / math.log(beta0)
        at_train = math.log(t_train / (2 * math.pi)) / math.log(10000.0)
        assert at_tune == pytest.approx(at_train, rel=1e-12)
        assert scaling.critical_base(t_train, t_train) == pytest.approx(10000.0)


def test_vectorised_over_bases():
    bases = np.array([2e4, 1e5, 1e6])
    bounds = scaling.extrapolation_bound(bases, 128, 4096)
    assert bounds.shape == (3,)
    assert np.all(np.diff(bounds) > 0)
    by_hand = [2 * math.ceil(64 * math.log(4096 / (2 * math.pi)) / math.log(b)) for b in bases]
    np.testing.assert_array_equal(scaling.critical_dim(128, 4096, bases), by_hand)


def brute_force_alpha(t: int, train_len: int) -> int:
    if t <= train_len:
        return 1
    k = 0
    while train_len * 2**k < t:
        k += 1
    return 2 ** (k + 1) - 1


def test_dynamic_ntk_alpha_matches_its_definition():
    train_len = 4096
    ts = [0, 1, 4095, 4096, 4097, 8192, 8193, 12000, 16384, 16385, 100_000, 10**7]
    assert list(scaling.dynamic_ntk_alpha(ts, train_len)) == [
        brute_force_alpha(t, train_len) for t in ts
    ]
    assert scaling.dynamic_ntk_alpha(8193, 4096) == 7
    for t in range(1, 5000, 37):
        assert scaling.dynamic_ntk_alpha(t, 128) == brute_force_alpha(t, 128)


def test_log_scale():
    t = np.array([0, 1, 100, 4712, 4712**2])
    np.testing.assert_allclose(scaling.log_scale(t, 4712), [1, 1, 1, 1, 2])
    assert scaling.log_scale(10**5, 4712) == pytest.approx(math.log(1e5) / math.log(4712))


def test_xpos_zeta_and_decay():
    np.testing.assert_allclose(scaling.xpos_zeta(4), [0.4 / 1.4, 0.9 / 1.4])
    decay = scaling.xpos_decay([0, 512, 1024], 4)
    np.testing.assert_allclose(decay[1], [0.4 / 1.4, 0.9 / 1.4])
    np.testing.assert_allclose(decay[2], np.array([0.4 / 1.4, 0.9 / 1.4]) ** 2)
    np.testing.assert_array_equal(decay[0], [1.0, 1.0])


# --- Theorem 3 as a prediction ------------------------------------------------------------------


def test_predict_larger_base():
    p = scaling.predict(128, 4096, 1e6)
    assert p.regime == "β > β0: bound = T_extra"
    assert p.d_extra == 92
    assert p.supported_length == pytest.approx(scaling.extrapolation_bound(1e6, 128, 4096))
    assert "Theorem 2" in p.reason


def test_predict_pretrained_model_supports_its_training_length():
    p = scaling.predict(128, 4096, 10000.0)
    assert p.regime == "β ≤ β0: bound = T_tune"
    assert p.supported_length == 4096
    assert p.d_extra == 92


def test_predict_16k_fine_tune_around_the_critical_base():
    above = scaling.predict(128, 4096, 80000.0, tune_len=16384)
    below = scaling.predict(128, 4096, 60000.0, tune_len=16384)
    assert above.regime == "β > β0: bound = T_extra" and above.supported_length > 16384
    assert below.regime == "β ≤ β0: bound = T_tune" and below.supported_length == 16384
    assert round(above.critical_base) == 71738


def test_predict_small_base_has_no_hard_bound():
    p = scaling.predict(128, 4096, 500.0)
    assert p.regime == "d'_extra = d: no hard bound (conjecture)"
    assert p.supported_length is None and p.supported == "no hard bound (conjecture)"
    assert p.d_extra == 128


def test_predict_d_extra_is_capped_and_grows_as_base_shrinks():
    values = [scaling.predict(128, 4096, b).d_extra for b in [9000, 5000, 2000, 1000, 800]]
    assert values == sorted(values)
    assert all(v <= 128 for v in values)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: scaling.critical_dim(127, 4096), "dim must be a positive even integer"),
        (lambda: scaling.critical_dim(128, 6.0), "train_len must be > 2π"),
        (lambda: scaling.critical_dim(128, 4096, 1.0), "base must be > 1"),
        (lambda: scaling.critical_dim(128, np.nan), "train_len must be finite"),
        (lambda: scaling.extrapolation_bound(-5.0, 128, 4096), "base must be > 1"),
        (lambda: scaling.critical_base(4096, 3.0), "tune_len must be > 2π"),
        (lambda: scaling.small_base_thresholds(-1), "train_len must be > 0"),
        (lambda: scaling.dynamic_ntk_alpha(-1, 4096), "t must be >= 0"),
        (lambda: scaling.dynamic_ntk_alpha(10, 0), "train_len must be > 0"),
        (lambda: scaling.log_scale(10, 1.0), "extra_len must be > 1"),
        (lambda: scaling.xpos_zeta(9), "dim must be a positive even integer"),
        (lambda: scaling.xpos_zeta(8, gamma=-0.1), "gamma must be > 0"),
        (lambda: scaling.predict(128, 4096, 1e6, tune_len=1000), "tune_len must be >= train_len"),
        (lambda: scaling.predict(128, 2.0, 1e6), "train_len must be > 6.28"),
        (lambda: scaling.base_for_extrapolation(1.0, 128, 4096), "target_len must be > 2π"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- issue 12: the two inverses of Theorem 2, the jump at β0, the wording of predict ----------


def test_the_two_inverses_of_theorem2_for_100k_and_128k():
    # written out here: the book's inverse uses the ceiled d_extra = 92 of eq. 13,
    # the source's eq. 15 the exponent without the ceiling, 1 / log_10000(4096/2π)
    x = math.log(4096 / (2 * math.pi)) / math.log(10000.0)  # 0.70355, d_extra/d unceiled
    d_extra = 2 * math.ceil(64 * x)
    assert d_extra == 92
    for target, ceiled, unceiled in [(100_000, 701_472, 938_327), (131_072, 1_022_122, None)]:
        mine = scaling.base_for_extrapolation(target, 128, 4096)
        source = scaling.base_for_extrapolation_eq15(target, 4096)
        assert mine == pytest.approx((target / (2 * math.pi)) ** (128 / d_extra), rel=1e-12)
        assert source == pytest.approx((target / (2 * math.pi)) ** (1 / x), rel=1e-12)
        assert round(mine) == ceiled
        if unceiled is not None:
            assert round(source) == unceiled
        assert source > mine  # the unceiled exponent 1/x > 128/92: a larger base
    # "about 1.02M and 1.38M" for 131,072 tokens
    assert 1.37e6 < scaling.base_for_extrapolation_eq15(131_072, 4096) < 1.39e6


def test_eq15_is_the_critical_base_formula_and_does_not_invert_eq14():
    for target in (32_768, 100_000):
        source = scaling.base_for_extrapolation_eq15(target, 4096)
        assert source == pytest.approx(scaling.critical_base(4096, target), rel=1e-12)
        # put back into Theorem 2 (eq. 14, ceiled), it overshoots the target
        assert scaling.extrapolation_bound(source, 128, 4096) > 1.05 * target
        mine = scaling.base_for_extrapolation(target, 128, 4096)
        assert scaling.extrapolation_bound(mine, 128, 4096) == pytest.approx(target, rel=1e-12)
    # the base for a 32K bound: 148,544 (ceiled) against 192,144 (eq. 15 = β0 at 32K)
    assert round(scaling.base_for_extrapolation(32_768, 128, 4096)) == 148_544
    assert round(scaling.base_for_extrapolation_eq15(32_768, 4096)) == 192_144


def test_the_supported_length_jumps_at_the_critical_base():
    beta0 = 10000.0 ** (math.log(16384 / (2 * math.pi)) / math.log(4096 / (2 * math.pi)))
    assert round(beta0) == 71_738
    jump_to = 2 * math.pi * beta0 ** (92 / 128)  # eq. 16b at β0, ceiled exponent
    assert round(jump_to) == 19_420
    at = scaling.predict(128, 4096, beta0, tune_len=16384)
    above = scaling.predict(128, 4096, beta0 * (1 + 1e-12), tune_len=16384)
    assert at.supported_length == 16384
    assert above.supported_length == pytest.approx(jump_to, rel=1e-9)
    # with the unceiled exponent of eq. 16a there would be no jump: T_extra(β0) = T_tune
    x = math.log(4096 / (2 * math.pi)) / math.log(10000.0)
    assert 2 * math.pi * beta0**x == pytest.approx(16384, rel=1e-12)


def test_predict_names_each_regime_and_calls_no_hard_bound_a_conjecture():
    larger = scaling.predict(128, 4096, 1e6, tune_len=16384)
    smaller = scaling.predict(128, 4096, 4e4, tune_len=16384)
    tiny = scaling.predict(128, 4096, 500.0, tune_len=16384)
    assert larger.regime == scaling.REGIME_LARGER_BASE == "β > β0: bound = T_extra"
    assert smaller.regime == scaling.REGIME_SMALLER_BASE == "β ≤ β0: bound = T_tune"
    assert tiny.regime == scaling.REGIME_EVERY_PLANE
    assert "conjecture" in tiny.regime and "conjecture" in tiny.supported
    assert "conjecture" in tiny.reason and "Theorem 1)" not in tiny.reason
    # LLaMA 2 at 10,000 and Llama 3 at 500,000 are at β = β0: no "smaller base" label
    assert scaling.predict(128, 4096, 1e4).regime == "β ≤ β0: bound = T_tune"
    llama3 = scaling.predict(128, 8192, 5e5, pretrain_base=5e5)
    assert llama3.regime == "β ≤ β0: bound = T_tune" and llama3.supported_length == 8192
    # Theorem 1 as the paper states it: every smaller base improves; below β1 it accelerates
    assert "accelerate" in smaller.reason
