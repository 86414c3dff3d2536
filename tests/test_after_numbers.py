"""Chapter 10's remaining reproduced numbers, each against the value its source states."""

from __future__ import annotations

import math

import numpy as np

from ropelab import mla, scaling
from ropelab.core import inv_freq
from ropelab.partial_rotary import p_rope_frequencies


def test_longrope2_llama3_numbers():
    """LongRoPE2 (arXiv:2502.20082, abstract): LLaMA3-8B to 128K with 10B tokens, '80x fewer
    than Meta's approach' (the Llama 3 paper's long-context stage: about 800B tokens). The
    critical dimension of LLaMA3-8B (d = 128, base 500,000, 8,192 tokens) by chapter 6's
    formula 2 ceil(d/2 log_beta(T / 2 pi))."""
    independent = 2 * math.ceil(64 * math.log(8192 / (2 * math.pi)) / math.log(500000.0))
    assert scaling.critical_dim(128, 8192, 500000.0) == independent == 70


def test_mha2mla_reduction_is_five_sixty_fourths():
    """MHA2MLA (arXiv:2502.14837, abstract): Llama2-7B's KV cache 'reduced by 92.19%'; the
    cache of 32 heads of 128 is 8,192 elements, and 1 - 640/8192 rounds to 92.19 %."""
    total = mla.mha_cache_elements(32, 128)
    assert total == 8192
    assert round(100 * (1 - 640 / total), 2) == 92.19
    assert round(100 * (1 - 639 / total), 2) != 92.19
    assert round(100 * (1 - 641 / total), 2) != 92.19


def test_zeroing_untrained_frequencies_is_p_rope_at_the_critical_dimension():
    """The cleaning chapter 10 attributes to FoPE and HoPE (frequencies whose wavelength
    exceeds the training length set to 0) equals p-RoPE with p = d_extra / d: 18 of LLaMA 2's
    64 planes (d = 128, base 10,000, 4,096 tokens)."""
    theta = inv_freq(128, 10000.0)
    cleaned = np.where(2 * np.pi / theta <= 4096, theta, 0.0)
    p = scaling.critical_dim(128, 4096, 10000.0) / 128
    np.testing.assert_array_equal(cleaned, p_rope_frequencies(128, p, 10000.0))
    assert int((cleaned == 0).sum()) == 18


def vllm_fope_kept_frequencies(theta: np.ndarray, max_positions: int) -> np.ndarray:
    """vLLM's FoPE keeps the frequencies above 2 pi / max_position_embeddings when the config
    gives no num_inv_freq (vllm-project/vllm, vllm/model_executor/layers/rotary_embedding/
    fope.py at commit 151a2c74, FourierRotaryEmbedding._compute_inv_freq; restated here)."""
    return theta[theta > 2 * np.pi / max_positions]


def test_vllm_fope_keeps_the_planes_that_p_rope_keeps():
    """Chapter 10: vLLM's FoPE layer rotates the planes whose wavelength fits in the context
    and passes the rest through unrotated: p-RoPE at the critical dimension again."""
    theta = inv_freq(128, 10000.0)
    kept = vllm_fope_kept_frequencies(theta, 4096)
    p_rope = p_rope_frequencies(128, scaling.critical_dim(128, 4096, 10000.0) / 128, 10000.0)
    np.testing.assert_array_equal(kept, p_rope[p_rope > 0])
    assert kept.size == 64 - 18
