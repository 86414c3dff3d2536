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


# --- issue 12: Qwen's dynamic NTK, and YaRN's ramp as the paper writes it ---------------------


class _QwenTranscription:
    """Qwen's dynamic NTK, transcribed from its released ``modeling_qwen.py`` (Qwen-7B;
    ``QWenModel.get_ntk_alpha`` and ``RotaryEmbedding.update_rotary_pos_emb_cache``), with the
    names of that code: ``seq_length`` is the training length, ``kv_seq_len`` the current one."""

    def __init__(self, dim: int, base: float, seq_length: int) -> None:
        self.dim, self.base, self.seq_length = dim, base, seq_length

    def get_ntk_alpha(self, true_seq_len: int) -> int:
        context_value = math.log(true_seq_len / self.seq_length, 2) + 1
        ntk_alpha = 2 ** math.ceil(context_value) - 1
        ntk_alpha = max(ntk_alpha, 1)
        return ntk_alpha

    def inv_freq(self, kv_seq_len: int):
        import torch

        ntk_alpha = self.get_ntk_alpha(kv_seq_len)
        base = self.base * ntk_alpha ** (self.dim / (self.dim - 2))
        return 1.0 / (base ** (torch.arange(0, self.dim, 2).double() / self.dim))


def test_qwens_dynamic_ntk_is_its_released_code():
    from ropelab import extension, scaling

    dim, base, train_len = 128, 10000.0, 4096
    qwen = _QwenTranscription(dim, base, train_len)
    lengths = np.array([100, 4096, 4097, 6000, 8192, 8193, 12288, 16384, 20000, 65536, 10**6])
    data = extension.dynamic_ntk_comparison(lengths, dim, base, train_len, factor=2.0)
    for t, alpha, multiplier, angle in zip(
        lengths, data["alpha"], data["qwen"], data["angle_qwen"], strict=True
    ):
        theirs = qwen.inv_freq(int(t)).numpy()
        assert alpha == qwen.get_ntk_alpha(int(t)) == extension.qwen_ntk_alpha(int(t), train_len)
        ours = inv_freq_of(base * multiplier, dim)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
        assert extension.qwen_ntk_base(base, dim, alpha) == pytest.approx(base * multiplier)
        # Qwen divides the slowest frequency by exactly alpha_t; its angle never exceeds training's
        assert theirs[-1] == pytest.approx(inv_freq_of(base, dim)[-1] / alpha, rel=1e-12)
        assert angle == pytest.approx(t * theirs[-1] / (train_len * inv_freq_of(base, dim)[-1]))
    assert np.all(data["angle_qwen"][lengths >= train_len] <= 1.0)
    # the paper's eq. 20 (beta * alpha_t, no exponent) is not Qwen's formula
    assert not np.allclose(data["qwen"][lengths > train_len], data["alpha"][lengths > train_len])
    # Qwen's floating-point logarithm agrees with the exact ceiling up to absurd lengths
    for k in range(29):
        t = train_len * 2**k
        assert extension.qwen_ntk_alpha(t, train_len) == scaling.dynamic_ntk_alpha(t, train_len)


def inv_freq_of(base: float, dim: int) -> np.ndarray:
    return 1.0 / base ** (np.arange(0, dim, 2) / dim)


def test_yarn_paper_ramp_is_linear_in_the_turns_and_differs_inside_the_band():
    from ropelab.rope_config import yarn_paper_ramp, yarn_ramp

    dim, base, length = 128, 10000.0, 4096
    turns = length * inv_freq_of(base, dim) / (2 * math.pi)  # r_i = L / lambda_i
    gamma = np.clip((turns - 1.0) / (32.0 - 1.0), 0.0, 1.0)  # the paper's eq. 18, alpha 1, beta 32
    paper = yarn_paper_ramp(dim, base, length)
    np.testing.assert_allclose(paper, 1.0 - gamma, rtol=0, atol=1e-15)
    code = yarn_ramp(dim, base, length)
    # transformers' ramp: linear in i between floor(i(32)) = 20 and ceil(i(1)) = 46
    i = np.arange(64)
    np.testing.assert_allclose(code, np.clip((i - 20) / (46 - 20), 0, 1), atol=1e-15)
    # the same at the band edges, up to 0.37 apart inside it (plane 30)
    assert np.all(paper[:20] == 0) and np.all(code[:20] == 0)
    assert np.all(paper[46:] == 1) and np.all(code[46:] == 1)
    gap = np.abs(paper - code)
    assert int(np.argmax(gap)) == 30 and 0.36 < gap.max() < 0.38
    # which is 1.73x in the frequency of plane 34 at s = 4 and 2.30x at s = 8
    theta = inv_freq_of(base, dim)
    for s, ratio in ((4.0, 1.7326), (8.0, 2.3048)):
        by_code = (1 - code) * theta + code * theta / s
        by_paper = (1 - paper) * theta + paper * theta / s
        assert np.max(by_code / by_paper) == pytest.approx(ratio, abs=1e-4)
    with pytest.raises(ValueError, match="beta_fast"):
        yarn_paper_ramp(dim, base, length, beta_fast=1.0, beta_slow=1.0)
