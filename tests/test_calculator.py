"""ropelab.calculator: the scaling-law calculator of chapter 6.

``calculator_data`` is checked against the paper's published numbers and against formulas
written out here; its method bands against the frequencies that ``frequencies_from_config``
(transformers' formulas) actually produces.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ropelab import calculator as calc
from ropelab.rope_config import frequencies_from_config

TWO_PI = 2 * math.pi


def test_default_state_is_llama2_with_base_one_million():
    data = calc.calculator_data(128, 4096, 1e6, 4096)
    assert data["d_extra"] == 92 and data["full_period_planes"] == 46
    assert data["extra_len"] == pytest.approx(TWO_PI * 1e6 ** (92 / 128), rel=1e-12)
    assert round(data["extra_len"]) == 129027
    assert data["regime"] == "β > β0: bound = T_extra"
    assert data["supported_length"] == pytest.approx(data["extra_len"])
    assert data["critical_base"] == pytest.approx(10000.0)
    assert [round(b) for b in data["thresholds"]] == [2608, 1304, 652]
    planes = np.arange(64)
    np.testing.assert_allclose(data["wavelengths"], TWO_PI * 1e6 ** (2 * planes / 128))
    np.testing.assert_allclose(data["pretrain_wavelengths"], TWO_PI * 1e4 ** (2 * planes / 128))
    # T_extra is the new wavelength of plane d_extra / 2
    assert data["wavelengths"][46] == pytest.approx(data["extra_len"])


@pytest.mark.parametrize(
    ("base", "regime", "supported"),
    [
        (500.0, "d'_extra = d: no hard bound (conjecture)", None),
        (10000.0, "β ≤ β0: bound = T_tune", 16384),
        (60000.0, "β ≤ β0: bound = T_tune", 16384),
        (80000.0, "β > β0: bound = T_extra", TWO_PI * 80000.0 ** (92 / 128)),
        (1e6, "β > β0: bound = T_extra", TWO_PI * 1e6 ** (92 / 128)),
    ],
)
def test_theorem3_at_16k(base, regime, supported):
    data = calc.calculator_data(128, 4096, base, 16384)
    assert round(data["critical_base"]) == 71738
    assert data["regime"] == regime
    if supported is None:
        assert data["supported_length"] is None
        assert data["effective_d_extra"] == 128
    else:
        assert data["supported_length"] == pytest.approx(supported)


def category(ratio: np.ndarray, factor: float) -> np.ndarray:
    """0 where a plane is kept, 2 where it is divided by the factor, 1 in between."""
    kept = np.isclose(ratio, 1.0, rtol=1e-9)
    scaled = np.isclose(ratio, 1.0 / factor, rtol=1e-9)
    return np.where(kept, 0, np.where(scaled, 2, 1))


@pytest.mark.parametrize(
    ("dim", "base", "tune_len"), [(128, 1e6, 4096), (128, 1e4, 16384), (64, 500.0, 8192)]
)
def test_bands_agree_with_the_frequencies_transformers_computes(dim, base, tune_len):
    data = calc.calculator_data(dim, 4096, base, tune_len)
    theta = 1.0 / base ** (np.arange(0, dim, 2) / dim)
    factor = 4.0
    # the original length of the methods: the length the fine-tuned model is reliable to,
    # T_extra above the critical base (written out here), T_tune otherwise
    beta0 = 1e4 ** (math.log(tune_len / TWO_PI) / math.log(4096 / TWO_PI))
    d_extra = 2 * math.ceil(dim / 2 * math.log(4096 / TWO_PI) / math.log(1e4))
    original = round(TWO_PI * base ** (d_extra / dim)) if base > beta0 else tune_len
    tune_len = original
    configs = {
        "PI": {"rope_type": "linear", "factor": factor},
        "YaRN": {
            "rope_type": "yarn",
            "factor": factor,
            "original_max_position_embeddings": tune_len,
        },
        "Llama 3": {
            "rope_type": "llama3",
            "factor": factor,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": tune_len,
        },
    }
    for name, params in configs.items():
        config = {
            "head_dim": dim,
            "max_position_embeddings": int(factor * tune_len),
            "rope_parameters": {"rope_theta": base, **params},
        }
        ratio = frequencies_from_config(config)[0] / theta
        assert np.array_equal(data["bands"][name], category(ratio, factor)), name
    ntk_theta = 1.0 / (base * factor ** (dim / (dim - 2))) ** (np.arange(0, dim, 2) / dim)
    assert np.array_equal(data["bands"]["NTK"], category(ntk_theta / theta, factor))


def test_bands_for_llama2_at_its_training_length():
    bands = calc.calculator_data(128, 4096, 10000.0, 4096)["bands"]
    # YaRN and Llama 3 divide exactly the 18 planes that never completed a period by s
    assert np.flatnonzero(bands["YaRN"] == 2).tolist() == list(range(46, 64))
    assert np.flatnonzero(bands["Llama 3"] == 2).tolist() == list(range(46, 64))


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((127, 4096, 1e4, 4096), "dim"),
        ((128, 6.0, 1e4, 4096), "train_len"),
        ((128, 4096, 1.0, 4096), "base"),
        ((128, 4096, 1e4, 2048), "tune_len"),
    ],
)
def test_calculator_data_rejects_bad_input(args, name):
    with pytest.raises(ValueError, match=name):
        calc.calculator_data(*args)


def test_another_pretraining_base():
    data = calc.calculator_data(128, 4096, 1e6, 4096, pretrain_base=500000.0)
    planes = math.ceil(64 * math.log(4096 / TWO_PI) / math.log(500000.0))
    assert data["d_extra"] == 2 * planes
    np.testing.assert_allclose(
        data["pretrain_wavelengths"], TWO_PI * 500000.0 ** (2 * np.arange(64) / 128)
    )


# --- issue 12: the calculator's original length and its wording ---------------------------


def test_extensions_start_from_t_extra_not_t_tune():
    # LLaMA 2 fine-tuned at 4,096 with base 10^6 is reliable to T_extra = 129,027 (plane 46's
    # new wavelength); YaRN and Llama 3 on top of it must start there, not at 4,096
    data = calc.calculator_data(128, 4096, 1e6, 4096)
    t_extra = TWO_PI * 1e6 ** (92 / 128)
    assert calc.extension_original_len(data["supported_length"], 4096) == round(t_extra)
    wavelength = TWO_PI * 1e6 ** (2 * np.arange(64) / 128)
    # Llama 3 divides by s the planes longer than L / f_low = L (f_low = 1): only plane 46 on
    # would be, from 129,027; from T_tune = 4,096 planes 31-63 would be (the wrong variant)
    scaled = np.flatnonzero(data["bands"]["Llama 3"] == 2)
    assert scaled.tolist() == np.flatnonzero(wavelength > round(t_extra)).tolist()
    # planes 0-45 saw full periods in pre-training, plane 46's wavelength is T_extra itself
    # (one period within it): none of them is divided by s
    assert round(t_extra) == 129027 and scaled[0] == 47
    assert np.flatnonzero(wavelength > 4096)[0] == 31  # what T_tune would have divided
    assert np.all(data["bands"]["YaRN"][:46] < 2)


def test_extension_original_len_in_each_regime():
    assert calc.extension_original_len(129027.3, 4096) == 129027
    assert calc.extension_original_len(16384.0, 16384) == 16384
    assert calc.extension_original_len(None, 16384) == 16384  # no bound predicted: T_tune
    with pytest.raises(ValueError, match="tune_len"):
        calc.extension_original_len(None, -1.0)


def test_readout_says_where_extensions_start_and_calls_no_bound_a_conjecture():
    from ropelab.interactive.readouts import calculator_readout

    text = calculator_readout(calc.calculator_data(128, 4096, 1e6, 4096))
    assert text.splitlines()[0] == "regime: β > β0: bound = T_extra"
    assert "T_extra = 129,027 tokens, not T_tune = 4,096" in text
    # one rule (chapters 6 and 7): the paper's for three methods, the book's extension for two
    assert "the paper's\nrule for log scaling, xPos and dynamic NTK; the book's for YaRN" in text
    small = calculator_readout(calc.calculator_data(128, 4096, 500.0, 16384))
    assert "no hard bound (a conjecture of the source)" in small
    assert "T_tune = 16,384 tokens (no bound is predicted)" in small
    below = calculator_readout(calc.calculator_data(128, 4096, 1e4, 16384))
    assert below.splitlines()[0] == "regime: β ≤ β0: bound = T_tune"
    assert "smaller base" not in below and "larger base" not in text
    for readout in (text, small, below):
        assert max(len(line) for line in readout.splitlines()) <= 79
