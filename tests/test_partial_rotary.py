"""ropelab.partial_rotary against transformers (GPT-NeoX, the ``proportional`` type, Gemma 4's
rotation) and against the formulas written out here.

Numbers from released configs: GPT-NeoX-20B has hidden size 6144, 64 heads and
``rotary_pct`` 0.25 (EleutherAI/gpt-neox-20b config.json, shipped in ropelab.configs), so
int(0.25 * 96) = 24 coordinates rotate; Gemma 4's global layers use ``proportional`` with
``partial_rotary_factor`` 0.25 and ``rope_theta`` 1e6 (transformers' Gemma4TextConfig).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import GPTNeoXConfig, LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.gemma4 import modeling_gemma4
from transformers.models.gpt_neox import modeling_gpt_neox

from ropelab import inv_freq
from ropelab.configs import load_config
from ropelab.partial_rotary import (
    p_rope_frequencies,
    partial_frequencies,
    partial_rope,
    rotary_dim,
    rotated_coordinates,
    rotated_planes,
    rotation_pairs,
)


def test_gpt_neox_20b_rotates_24_of_96_coordinates():
    config = load_config("gpt-neox-20b")
    head_dim = config["hidden_size"] // config["num_attention_heads"]
    assert head_dim == 96
    assert rotary_dim(head_dim, config["rotary_pct"]) == 24
    neox = GPTNeoXConfig(hidden_size=6144, num_attention_heads=64, rotary_pct=0.25)
    attention = modeling_gpt_neox.GPTNeoXAttention(neox, layer_idx=0)
    assert attention.rotary_ndims == 24


@pytest.mark.parametrize("factor", [0.25, 0.5, 1.0])
def test_partial_frequencies_match_gpt_neox(factor):
    config = GPTNeoXConfig(hidden_size=4 * 64, num_attention_heads=4, rotary_pct=factor)
    rotary = modeling_gpt_neox.GPTNeoXRotaryEmbedding(config)
    theirs = rotary.inv_freq.double().numpy()
    ours = partial_frequencies(64, factor, 10000.0)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    dim = int(64 * factor)
    np.testing.assert_allclose(ours, [10000.0 ** (-2 * i / dim) for i in range(dim // 2)])


@pytest.mark.parametrize(("head_dim", "fraction", "factor"), [(256, 0.25, 1.0), (128, 0.5, 4.0)])
def test_p_rope_matches_transformers_proportional(head_dim, fraction, factor):
    config = LlamaConfig(
        hidden_size=head_dim * 2,
        num_attention_heads=2,
        head_dim=head_dim,
        rope_parameters={
            "rope_type": "proportional",
            "rope_theta": 1_000_000.0,
            "partial_rotary_factor": fraction,
            "factor": factor,
        },
    )
    theirs, scaling = ROPE_INIT_FUNCTIONS["proportional"](config)
    assert scaling == 1.0
    ours = p_rope_frequencies(head_dim, fraction, 1_000_000.0, factor=factor)
    np.testing.assert_allclose(ours, theirs.double().numpy(), rtol=1e-6)


def test_p_rope_keeps_the_fastest_planes_and_zeroes_the_rest():
    theta = p_rope_frequencies(128, 0.25, 10000.0)
    n = int(0.25 * 128 // 2)
    assert n == 16 == rotated_planes(128, 0.25)
    np.testing.assert_allclose(theta[:n], inv_freq(128, 10000.0)[:n], rtol=1e-15)
    assert np.all(theta[n:] == 0.0)
    assert np.all(p_rope_frequencies(128, 0.0) == 0.0)
    np.testing.assert_allclose(p_rope_frequencies(128, 1.0), inv_freq(128, 10000.0))


def test_the_two_denominators_differ():
    neox = partial_frequencies(128, 0.25, 10000.0)  # denominator r = 32
    prope = p_rope_frequencies(128, 0.25, 10000.0)[:16]  # denominator 128
    assert neox.shape == prope.shape == (16,)
    assert neox[0] == prope[0] == 1.0
    assert neox[1] == pytest.approx(10000.0 ** (-2 / 32))  # 0.5623
    assert prope[1] == pytest.approx(10000.0 ** (-2 / 128))  # 0.8660
    assert np.all(neox[1:] < prope[1:])
    assert neox[-1] == pytest.approx(10000.0 ** (-30 / 32))
    assert prope[-1] == pytest.approx(10000.0 ** (-30 / 128))


def test_rotation_pairs_of_both_conventions():
    np.testing.assert_array_equal(rotation_pairs(8, 0.5, "rotary_dim"), [[0, 2], [1, 3]])
    np.testing.assert_array_equal(rotation_pairs(8, 0.5, "proportional"), [[0, 4], [1, 5]])
    np.testing.assert_array_equal(
        rotated_coordinates(8, 0.5, "rotary_dim"), [1, 1, 1, 1, 0, 0, 0, 0]
    )
    np.testing.assert_array_equal(
        rotated_coordinates(8, 0.5, "proportional"), [1, 1, 0, 0, 1, 1, 0, 0]
    )


def test_partial_rope_matches_gpt_neox_apply_rotary_pos_emb():
    config = GPTNeoXConfig(hidden_size=4 * 96, num_attention_heads=4, rotary_pct=0.25)
    rotary = modeling_gpt_neox.GPTNeoXRotaryEmbedding(config)
    torch.manual_seed(0)
    q = torch.randn(1, 4, 10, 96, dtype=torch.float64)
    positions = torch.arange(10)[None]
    cos, sin = rotary(q, positions)
    theirs, _ = modeling_gpt_neox.apply_rotary_pos_emb(q, q, cos.double(), sin.double())
    ours = partial_rope(q, np.arange(10), 0.25, base=10000.0, convention="rotary_dim")
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-6)
    torch.testing.assert_close(ours[..., 24:], q[..., 24:], rtol=0, atol=0)


def test_partial_rope_matches_gemma4_proportional_rotation():
    head_dim = 64
    theta = p_rope_frequencies(head_dim, 0.25, 1_000_000.0)
    freqs = np.arange(12)[:, None] * theta  # (T, d/2)
    emb = torch.from_numpy(np.concatenate([freqs, freqs], axis=-1))[None]  # (1, T, d)
    torch.manual_seed(1)
    x = torch.randn(1, 3, 12, head_dim, dtype=torch.float64)
    theirs = modeling_gemma4.apply_rotary_pos_emb(x, emb.cos(), emb.sin(), unsqueeze_dim=1)
    ours = partial_rope(x, np.arange(12), 0.25, base=1_000_000.0, convention="proportional")
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-12)
    still = ~torch.from_numpy(rotated_coordinates(head_dim, 0.25, "proportional"))
    torch.testing.assert_close(ours[..., still], x[..., still], rtol=0, atol=0)


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="partial_rotary_factor must be in"):
        rotary_dim(64, 1.5)
    with pytest.raises(ValueError, match="must be a positive even integer"):
        rotary_dim(10, 0.3)  # int(3.0) = 3 coordinates: not whole planes
    with pytest.raises(ValueError, match="head_dim"):
        p_rope_frequencies(63, 0.5)
    with pytest.raises(ValueError, match="fraction must be in"):
        p_rope_frequencies(64, -0.1)
    with pytest.raises(ValueError, match="convention must be one of"):
        rotation_pairs(64, 0.5, "gemma")
    with pytest.raises(ValueError, match="factor"):
        p_rope_frequencies(64, 0.5, factor=0.0)


def test_gemma4_global_layers_use_p_rope_with_a_quarter():
    from transformers import Gemma4TextConfig

    params = Gemma4TextConfig().rope_parameters
    assert params["full_attention"]["rope_type"] == "proportional"
    assert params["full_attention"]["partial_rotary_factor"] == 0.25
    assert params["full_attention"]["rope_theta"] == 1_000_000.0
    assert params["sliding_attention"] == {"rope_type": "default", "rope_theta": 10_000.0}
