"""ropelab.extension's explorer of the context-extension methods (chapters 6 and 8).

Every method's frequencies are compared with transformers' own rope functions
(``ROPE_INIT_FUNCTIONS``) on the same config; static NTK, which is no transformers rope type,
with its formula written out here; the bands with thresholds computed here from the papers'
definitions.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import transformers
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

from ropelab.extension import METHODS, method_config, method_explorer_data, method_frequencies

TYPES = {
    "PI": "linear",
    "dynamic NTK": "dynamic",
    "YaRN": "yarn",
    "Llama 3": "llama3",
    "LongRoPE": "longrope",
}
# transformers computes in float32; blended planes carry an extra s·u (tests/test_rope_config.py)
RTOL = 2e-6 + 2 * 32 * 2.0**-24

SETTINGS = [
    (128, 500000.0, 8192, 65536),
    (64, 10000.0, 4096, 16384),
    (128, 1e6, 2048, 2048 * 32),
    (96, 2000.0, 1000, 3000),
]


@pytest.fixture(autouse=True, scope="module")
def _quiet_transformers():
    level = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    yield
    transformers.logging.set_verbosity(level)


@pytest.mark.parametrize("method", sorted(TYPES))
@pytest.mark.parametrize(("dim", "base", "original", "target"), SETTINGS)
def test_methods_equal_transformers(method, dim, base, original, target):
    config, seq_len = method_config(method, dim, base, original, target)
    assert config["rope_parameters"]["rope_type"] == TYPES[method]
    raw = {"hidden_size": 4 * dim, "num_attention_heads": 4, **copy.deepcopy(config)}
    # (LlamaConfig for LongRoPE too: Phi3Config's own top-level original length, 4096 by
    # default, would replace the one in rope_parameters)
    kwargs = {} if seq_len is None else {"seq_len": seq_len}
    inv, attention = ROPE_INIT_FUNCTIONS[TYPES[method]](LlamaConfig(**raw), **kwargs)
    ours, our_attention = method_frequencies(method, dim, base, original, target)
    np.testing.assert_allclose(ours, inv.double().numpy(), rtol=RTOL, atol=0)
    assert our_attention == pytest.approx(float(attention), rel=1e-12)


@pytest.mark.parametrize(("dim", "base", "original", "target"), SETTINGS)
def test_static_ntk_is_a_larger_base(dim, base, original, target):
    s = target / original
    ours, attention = method_frequencies("NTK-aware", dim, base, original, target)
    i = np.arange(dim // 2)
    np.testing.assert_allclose(ours, (base * s ** (dim / (dim - 2))) ** (-2 * i / dim), rtol=1e-13)
    assert attention == 1.0
    # plane 0 kept, the slowest divided by exactly s
    assert ours[0] == 1.0 and ours[-1] == pytest.approx(base ** (-(dim - 2) / dim) / s, rel=1e-12)


def test_llama31_bands_by_the_wavelength_thresholds():
    data = method_explorer_data("Llama 3", 128, 500000.0, 8192, 65536)
    wavelength = 2 * math.pi * 500000.0 ** (np.arange(64) * 2 / 128)
    kept = wavelength < 8192 / 4  # shorter than L / high_freq_factor
    interpolated = wavelength > 8192 / 1  # longer than L / low_freq_factor
    np.testing.assert_array_equal(data["band"] == 0, kept)
    np.testing.assert_array_equal(data["band"] == 2, interpolated)
    assert (data["kept"], data["stretched"], data["interpolated"]) == (29, 6, 29)
    assert data["factor"] == 8.0 and data["attention_factor"] == 1.0
    # the critical dimension of the 8K pre-training: 2 ceil(64 log_500000(8192 / 2 pi))
    assert data["critical_dim"] == 2 * math.ceil(64 * math.log(8192 / (2 * math.pi), 500000.0))


def test_llama3_with_equal_band_factors_has_no_stretched_plane():
    data = method_explorer_data(
        "Llama 3", 128, 500000.0, 8192, 65536, low_freq_factor=2.0, high_freq_factor=2.0
    )
    assert data["stretched"] == 0 and data["kept"] + data["interpolated"] == 64


def test_pi_interpolates_every_plane_and_nothing_at_factor_one():
    assert method_explorer_data("PI", 64, 10000.0, 4096, 16384)["interpolated"] == 32
    for method in METHODS:
        same = method_explorer_data(method, 64, 10000.0, 4096, 4096)
        assert same["kept"] == 32, method
        np.testing.assert_allclose(same["wavelength_after"], same["wavelength_before"])


def test_yarn_attention_factor_and_ramp():
    data = method_explorer_data("YaRN", 128, 10000.0, 4096, 65536)
    assert data["attention_factor"] == pytest.approx(0.1 * math.log(16) + 1)
    # planes that turn more than 32 times over 4096 tokens are kept, fewer than once divided
    turns = 4096 / (2 * math.pi * 10000.0 ** (np.arange(64) * 2 / 128))
    assert np.all(data["band"][turns > 32 * 1.5] == 0)
    assert np.all(data["band"][turns < 0.5] == 2)


def test_bad_input():
    with pytest.raises(ValueError, match="method must be one of PI, NTK-aware"):
        method_config("ALiBi", 64, 10000.0, 4096, 8192)
    with pytest.raises(ValueError, match="target_len must be >= original_len = 4096"):
        method_config("PI", 64, 10000.0, 4096, 2048)
