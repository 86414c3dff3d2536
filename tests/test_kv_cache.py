"""ropelab.kv_cache: cached decoding equals recomputation, except under dynamic NTK scaling.

The equalities are asserted to 1e-12 (float64); the breakage is asserted as a difference
of order 0.01 or more that starts exactly at the first length past
max_position_embeddings. The dynamic-NTK frequencies are checked against transformers.
"""

from __future__ import annotations

import numpy as np
import pytest
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

from ropelab.kv_cache import (
    KVCache,
    cached_logits,
    decode_step,
    dynamic_ntk_frequencies,
    fixed_frequencies,
    recomputed_logits,
)
from ropelab.toy_decoder import ToyDecoder, ToyDecoderConfig

MAX_POS = 16  # max_position_embeddings of the dynamic-NTK examples
TOL = 1e-12


def tokens(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 48, n)


def model(layers: int = 2) -> ToyDecoder:
    return ToyDecoder(ToyDecoderConfig(num_layers=layers, seed=11))


@pytest.mark.parametrize("rotated", [True, False])
def test_cache_equals_recomputation_with_fixed_frequencies(rotated):
    m = model(3)
    toks = tokens(30)
    freqs = fixed_frequencies(m.default_theta())
    cached = cached_logits(m, toks, 5, freqs, rotated=rotated)
    full = recomputed_logits(m, toks, 5, freqs)
    assert cached.shape == (26, 48)
    np.testing.assert_allclose(cached, full, rtol=0, atol=TOL * np.abs(full).max())
    # the last row is also the last row of a single pass over everything
    np.testing.assert_allclose(cached[-1], m.logits(toks)[-1], rtol=0, atol=TOL * 10)


def test_static_yarn_like_scaling_with_attention_factor_is_cache_safe():
    m = model(2)
    toks = tokens(20, 1)
    theta = m.default_theta() / np.linspace(1, 4, 4)
    freqs = fixed_frequencies(theta, attention_factor=1.2)
    np.testing.assert_allclose(
        cached_logits(m, toks, 3, freqs), recomputed_logits(m, toks, 3, freqs), rtol=0, atol=1e-11
    )


@pytest.mark.parametrize("length", [1, 16, 17, 40, 1000])
def test_dynamic_frequencies_match_transformers(length):
    freqs = dynamic_ntk_frequencies(8, 10000.0, 4.0, MAX_POS)
    config = LlamaConfig(
        hidden_size=32,
        num_attention_heads=4,
        head_dim=8,
        max_position_embeddings=MAX_POS,
        rope_parameters={"rope_type": "dynamic", "factor": 4.0, "rope_theta": 10000.0},
    )
    theirs, _ = ROPE_INIT_FUNCTIONS["dynamic"](config, seq_len=length)
    ours, factor = freqs(length)
    assert factor == 1.0
    np.testing.assert_allclose(ours, theirs.double().numpy(), rtol=2e-6)


def test_dynamic_ntk_breaks_a_rotated_cache_past_max_position_embeddings():
    m = model(2)
    toks = tokens(40, 2)
    prompt = 6
    freqs = dynamic_ntk_frequencies(8, 10000.0, 4.0, MAX_POS)
    diff = np.abs(cached_logits(m, toks, prompt, freqs) - recomputed_logits(m, toks, prompt, freqs))
    per_row = diff.max(axis=1)
    lengths = np.arange(prompt, 41)
    assert per_row[lengths <= MAX_POS].max() < TOL * 100
    assert per_row[lengths == MAX_POS + 1][0] > 1e-2
    assert per_row[lengths > MAX_POS].min() > 1e-3


def test_unrotated_cache_is_exact_for_one_layer_and_not_for_more():
    toks = tokens(40, 3)
    freqs = dynamic_ntk_frequencies(8, 10000.0, 4.0, MAX_POS)
    one = model(1)
    exact = cached_logits(one, toks, 6, freqs, rotated=False)
    np.testing.assert_allclose(exact, recomputed_logits(one, toks, 6, freqs), rtol=0, atol=1e-11)
    # deeper layers cache keys and values computed from hidden states that saw older bases
    two = model(2)
    unrotated = cached_logits(two, toks, 6, freqs, rotated=False)
    rotated = cached_logits(two, toks, 6, freqs, rotated=True)
    full = recomputed_logits(two, toks, 6, freqs)
    gap_unrotated = np.abs(unrotated - full).max(axis=1)[-10:]
    gap_rotated = np.abs(rotated - full).max(axis=1)[-10:]
    assert gap_unrotated.min() > 1e-3
    assert gap_unrotated.mean() < gap_rotated.mean()


def test_fixed_scaling_is_the_other_fix():
    m = model(2)
    toks = tokens(40, 4)
    # dynamic NTK frozen at the longest length: the same frequencies at every step
    theta, _ = dynamic_ntk_frequencies(8, 10000.0, 4.0, MAX_POS)(40)
    freqs = fixed_frequencies(theta)
    np.testing.assert_allclose(
        cached_logits(m, toks, 6, freqs), recomputed_logits(m, toks, 6, freqs), rtol=0, atol=1e-11
    )


def test_cache_bookkeeping_and_errors():
    m = model(1)
    cache = KVCache(1)
    decode_step(m, [1, 2, 3], [0, 1, 2], cache, theta=m.default_theta())
    decode_step(m, [4], [3], cache, theta=m.default_theta())
    assert len(cache) == 4
    np.testing.assert_array_equal(cache.positions[0], [0, 1, 2, 3])
    assert cache.keys[0].shape == (m.config.num_kv_heads, 4, m.config.head_dim)
    with pytest.raises(ValueError, match="prompt_len must be <="):
        cached_logits(m, [1, 2], 3, fixed_frequencies(m.default_theta()))
    with pytest.raises(ValueError, match="num_layers must be an integer >= 1"):
        KVCache(0)
    with pytest.raises(ValueError, match="attention_factor must be > 0"):
        fixed_frequencies(m.default_theta(), 0.0)
