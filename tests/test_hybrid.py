"""ropelab.hybrid against transformers' Llama 4 and Cohere2 code and the released Llama 4 config.

Sources: transformers 5.23 ``Llama4TextAttention`` (temperature
``log1p(floor((pos + 1) / floor_scale)) * attn_scale + 1`` on the queries of NoPE layers;
``no_rope_layer_interval`` 4) and ``Cohere2`` (``sliding_window_pattern`` 4, RoPE only in
sliding-window layers); meta-llama/Llama-4-Scout-17B-16E-Instruct config.json (48 layers,
``no_rope_layers`` 1,1,1,0 repeated, ``attention_chunk_size`` 8192, ``attn_scale`` 0.1,
``floor_scale`` 8192), shipped in ropelab.configs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from transformers import Cohere2Config, Llama4TextConfig
from transformers.models.cohere2 import modeling_cohere2
from transformers.models.llama4 import modeling_llama4

from ropelab.configs import load_config
from ropelab.hybrid import (
    layer_pattern,
    llama4_temperature,
    max_rope_distance,
    nope_position_signal,
    pattern_from_no_rope_layers,
)


def test_llama4_pattern_matches_transformers_and_the_released_config():
    ours = layer_pattern(48, "llama4")
    theirs = Llama4TextConfig(num_hidden_layers=48).no_rope_layers
    assert [int(layer.rope) for layer in ours] == theirs
    released = pattern_from_no_rope_layers(load_config("llama-4-scout-17b-16e-instruct"))
    assert released == ours
    assert [i for i, layer in enumerate(ours) if not layer.rope] == list(range(3, 48, 4))
    assert max_rope_distance(ours) == 8191


def test_command_pattern_matches_cohere2():
    ours = layer_pattern(8, "command")
    theirs = Cohere2Config(num_hidden_layers=8).layer_types
    assert [layer.rope for layer in ours] == [t == "sliding_attention" for t in theirs]
    assert {layer.span for layer in ours if layer.rope} == {4096}
    assert max_rope_distance(ours) == 4095
    assert max_rope_distance(layer_pattern(4, period=1)) == 0  # all NoPE


def _cohere2_layer(layer_idx: int) -> modeling_cohere2.Cohere2Attention:
    config = Cohere2Config(
        hidden_size=32,
        num_attention_heads=2,
        num_key_value_heads=2,
        num_hidden_layers=4,
        sliding_window=16,
    )
    config._attn_implementation = "eager"
    torch.manual_seed(0)
    return modeling_cohere2.Cohere2Attention(config, layer_idx=layer_idx).double()


@pytest.mark.parametrize(("layer_idx", "uses_positions"), [(0, True), (3, False)])
def test_cohere2_global_layer_ignores_positions(layer_idx, uses_positions):
    assert layer_pattern(4, "command")[layer_idx].rope is uses_positions
    attention = _cohere2_layer(layer_idx)
    torch.manual_seed(1)
    x = torch.randn(1, 6, 32, dtype=torch.float64)
    angles = torch.rand(1, 6, 16, dtype=torch.float64) * 10
    one = attention(
        x,
        (torch.ones(1, 6, 16, dtype=torch.float64), torch.zeros(1, 6, 16, dtype=torch.float64)),
        None,
    )[0]
    other = attention(x, (angles.cos(), angles.sin()), None)[0]
    assert (not torch.allclose(one, other)) is uses_positions


def test_temperature_values():
    t = llama4_temperature([0, 8190, 8191, 16382, 16383, 131071, 10485759])
    expected = [1, 1, 1 + 0.1 * math.log(2), 1 + 0.1 * math.log(2), 1 + 0.1 * math.log(3)]
    expected += [1 + 0.1 * math.log(17), 1 + 0.1 * math.log(1281)]
    np.testing.assert_allclose(t, expected, rtol=1e-15)


def test_temperature_matches_llama4_attention():
    config = Llama4TextConfig(
        hidden_size=16,
        num_attention_heads=2,
        num_key_value_heads=2,
        head_dim=8,
        num_hidden_layers=4,
        floor_scale=3,
        attn_scale=0.1,
        attn_temperature_tuning=True,
    )
    config._attn_implementation = "eager"
    torch.manual_seed(0)
    layer = modeling_llama4.Llama4TextAttention(config, layer_idx=3).double()  # a NoPE layer
    assert not layer.use_rope
    T = 10
    x = torch.randn(1, T, 16, dtype=torch.float64)
    mask = torch.full((T, T), float("-inf"), dtype=torch.float64).triu(1)[None, None]
    dummy = torch.zeros(1, T, 4, dtype=torch.complex128)
    theirs = layer(x, dummy, mask)[0]
    q = layer.q_proj(x).view(1, T, 2, 8).transpose(1, 2)
    k = layer.k_proj(x).view(1, T, 2, 8).transpose(1, 2)
    v = layer.v_proj(x).view(1, T, 2, 8).transpose(1, 2)
    tau = torch.from_numpy(llama4_temperature(np.arange(T), attn_scale=0.1, floor_scale=3))

    def attend(scale: torch.Tensor) -> torch.Tensor:
        scores = (q * scale[:, None]) @ k.transpose(-1, -2) / math.sqrt(8) + mask
        return layer.o_proj((scores.softmax(-1) @ v).transpose(1, 2).reshape(1, T, 16))

    # transformers forms the temperature in float32: agreement to float32 rounding
    torch.testing.assert_close(attend(tau), theirs, rtol=1e-6, atol=1e-7)
    assert (attend(torch.ones(T, dtype=torch.float64)) - theirs).abs().max() > 1e-3


def test_nope_reads_the_position_from_the_causal_mask():
    np.testing.assert_allclose(nope_position_signal(6), 1.0 / np.arange(1, 7), rtol=1e-15)


def test_bad_inputs():
    with pytest.raises(ValueError, match="design must be one of"):
        layer_pattern(4, "mistral")
    with pytest.raises(ValueError, match="n_layers"):
        layer_pattern(0)
    with pytest.raises(ValueError, match="positions must be >= 0"):
        llama4_temperature([-1.0])
    with pytest.raises(ValueError, match="floor_scale"):
        llama4_temperature([1.0], floor_scale=0)
    with pytest.raises(ValueError, match="no_rope_layers"):
        pattern_from_no_rope_layers({"no_rope_layers": [1, 2]})


def test_needle_weight_against_a_softmax():
    from ropelab.hybrid import needle_weight

    for gap, n, tau in [(8.0, 10, 1.0), (3.0, 1000, 1.2833), (0.0, 5, 2.0)]:
        logits = np.zeros(n)
        logits[0] = gap
        weights = np.exp(tau * logits) / np.exp(tau * logits).sum()
        assert needle_weight(gap, n, tau) == pytest.approx(weights[0], rel=1e-12)
    assert needle_weight(1.0, 1) == 1.0
    with pytest.raises(ValueError, match="n_keys"):
        needle_weight(1.0, 0.5)
    with pytest.raises(ValueError, match="temperature"):
        needle_weight(1.0, 10, 0.0)
