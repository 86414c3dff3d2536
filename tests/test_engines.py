"""ropelab.engines: flash-attention's rotary arguments and vLLM's static tables, restated in
NumPy, checked against ropelab.apply_rope (the chapter's layouts, offsets, packing and
direction) and transformers' dynamic NTK."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

from ropelab.core import apply_rope, inv_freq
from ropelab.engines import flash_rotary_reference, vllm_cache_length, vllm_dynamic_frequencies
from ropelab.rope_config import frequencies_from_config

RNG = np.random.default_rng(25)


def table(dim: int, rows: int, base: float = 10000.0):
    angles = np.arange(rows)[:, None] * inv_freq(dim, base)[None, :]
    return np.cos(angles), np.sin(angles)


@pytest.mark.parametrize("interleaved", [False, True])
def test_flash_layouts_and_offsets_are_the_chapters(interleaved):
    x = RNG.standard_normal((2, 5, 3, 16))
    cos, sin = table(16, 64)
    offsets = np.array([0, 40])
    ours = flash_rotary_reference(x, cos, sin, seqlen_offsets=offsets, interleaved=interleaved)
    layout = "interleaved" if interleaved else "half"
    for b in range(2):
        positions = np.arange(5) + offsets[b]
        expected = apply_rope(x[b].transpose(1, 0, 2), positions, layout=layout)
        np.testing.assert_allclose(ours[b], expected.transpose(1, 0, 2), atol=1e-12)


def test_flash_conjugate_is_the_inverse_rotation():
    x = RNG.standard_normal((1, 4, 2, 8))
    cos, sin = table(8, 16)
    there = flash_rotary_reference(x, cos, sin, seqlen_offsets=3)
    back = flash_rotary_reference(there, cos, sin, seqlen_offsets=3, conjugate=True)
    np.testing.assert_allclose(back, x, atol=1e-12)
    assert np.max(np.abs(there - x)) > 0.1


def test_flash_packing_restarts_each_document_and_copies_the_unrotated_part():
    x = RNG.standard_normal((7, 2, 12))  # two documents of 3 and 4 tokens, head 12
    cos, sin = table(8, 16)  # only 8 of the 12 coordinates rotate
    ours = flash_rotary_reference(x, cos, sin, cu_seqlens=np.array([0, 3, 7]))
    theta = inv_freq(8, 10000.0)
    for a, b in ((0, 3), (3, 7)):
        doc = x[a:b].transpose(1, 0, 2)
        expected = apply_rope(doc, np.arange(b - a), inv_freq=theta, layout="half")
        np.testing.assert_allclose(ours[a:b], expected.transpose(1, 0, 2), atol=1e-12)
    np.testing.assert_array_equal(ours[..., 8:], x[..., 8:])


def test_vllm_dynamic_is_transformers_at_the_longest_length_only():
    config = LlamaConfig(
        hidden_size=128,
        num_attention_heads=2,
        max_position_embeddings=4096,
        rope_parameters={"rope_type": "dynamic", "factor": 4.0, "rope_theta": 10000.0},
    )
    raw = config.to_dict()
    ours = vllm_dynamic_frequencies(raw)
    longest, _ = ROPE_INIT_FUNCTIONS["dynamic"](config, torch.device("cpu"), seq_len=16384)
    np.testing.assert_allclose(ours, longest.double().numpy(), rtol=2e-6)
    short, _ = frequencies_from_config(raw, seq_len=100)  # transformers: unscaled
    assert np.max(np.abs(ours / short - 1)) > 0.5
    assert vllm_cache_length(raw) == 16384


def test_vllm_yarn_table_covers_original_times_factor():
    raw = {
        "head_dim": 128,
        "max_position_embeddings": 32768,
        "rope_scaling": {
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 32768,
        },
    }
    assert vllm_cache_length(raw) == 131072


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("qwen2.5-7b-instruct-yarn", 32768 * 4),  # YaRN: original x factor
        ("qwen3-30b-a3b-yarn", 32768 * 4),  # the card's block: above the declared 40,960
        ("qwen3-8b", 40960),  # no scaling: the declared length
        ("llama-3.1-8b-instruct", 131072),  # llama3: the declared length, not x factor
        ("phi-3-mini-128k-instruct", 4096),  # LongRoPE: the original length by default
        ("gemma-3-1b-it", 32768),  # Gemma 3: never scaled again
        ("olmo-3-7b", 8192 * 8),  # YaRN on the full-attention group
    ],
)
def test_vllm_max_model_len_follows_its_rule(name, expected):
    from ropelab.configs import load_config
    from ropelab.engines import vllm_max_model_len

    assert vllm_max_model_len(load_config(name)) == expected


def test_vllm_max_model_len_of_linear_and_dynamic_multiplies_the_declared_length():
    from ropelab.engines import vllm_max_model_len

    for kind in ("linear", "dynamic"):
        raw = {
            "head_dim": 64,
            "max_position_embeddings": 4096,
            "rope_scaling": {"rope_type": kind, "factor": 4.0},
        }
        assert vllm_max_model_len(raw) == 16384
