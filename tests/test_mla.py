"""ropelab.mla: MLA's cache arithmetic from the released DeepSeek configs, and the numeric side
of the absorption argument.

Numbers from the sources:
* DeepSeek-V3 config.json (shipped in ropelab.configs): kv_lora_rank 512,
  qk_rope_head_dim 64, qk_nope_head_dim 128, 128 heads, 61 layers.
* DeepSeek-V2 config.json: the same MLA sizes, 60 layers.
* DeepSeek-V2 paper (arXiv 2405.04434), Table 1 and section 2.1.4: MHA caches 2 n_h d_h l
  elements per token, MLA (d_c + d_h^R) l ≈ 9/2 d_h l with d_c = 4 d_h and d_h^R = d_h / 2,
  "equal to GQA with only 2.25 groups".
"""

from __future__ import annotations

import numpy as np
import pytest

from ropelab import rotation_matrix
from ropelab.configs import load_config
from ropelab.mla import (
    absorbed_matrix,
    mha_cache_elements,
    mla_cache,
    offset_dependence,
    rotated_product,
)


@pytest.mark.parametrize(("name", "layers"), [("deepseek-v3", 61), ("deepseek-v2", 60)])
def test_cache_per_token_from_the_released_configs(name, layers):
    cache = mla_cache(load_config(name))
    assert cache.per_layer == 512 + 64 == 576
    assert cache.mha_per_layer == 2 * 128 * 128 == 32768
    assert cache.per_token == 576 * layers
    assert cache.bytes_per_token(2) == 2 * 576 * layers
    assert cache.ratio == pytest.approx(32768 / 576)


def test_the_paper_relations():
    cache = mla_cache(load_config("deepseek-v3"))
    d_h = cache.head_dim
    assert cache.latent_dim == 4 * d_h and cache.rope_dim == d_h // 2
    assert cache.per_layer == 9 * d_h // 2  # (d_c + d_h^R) = 9/2 d_h
    assert cache.gqa_groups == 2.25  # "equal to GQA with only 2.25 groups"
    assert (
        mha_cache_elements(128, 128, n_kv_heads=2)
        < cache.per_layer
        < mha_cache_elements(128, 128, n_kv_heads=3)
    )


def test_mha_and_gqa_elements():
    assert mha_cache_elements(32, 128) == 8192
    assert mha_cache_elements(32, 128, n_kv_heads=8) == 2048  # grouped-query attention
    with pytest.raises(ValueError, match="n_kv_heads"):
        mha_cache_elements(8, 64, n_kv_heads=16)


def _weights(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((8, 6)), rng.standard_normal(
        (8, 5)
    )  # W_Q (d_h x d_q), W_UK (d_h x d_c)


def test_rotated_product_depends_on_the_offset_only():
    w_q, w_uk = _weights()
    for m, n in [(0.0, 5.0), (100.0, 105.0), (7.0, 3.0)]:
        relative = w_q.T @ rotation_matrix(n - m, 8, layout="half") @ w_uk
        np.testing.assert_allclose(rotated_product(w_q, w_uk, m, n), relative, atol=1e-12)
    np.testing.assert_allclose(
        rotated_product(w_q, w_uk, 3.0, 11.0),
        rotated_product(w_q, w_uk, 1003.0, 1011.0),
        atol=1e-10,
    )


def test_no_single_matrix_serves_every_offset():
    w_q, w_uk = _weights()
    np.testing.assert_allclose(absorbed_matrix(w_q, w_uk), w_q.T @ w_uk)
    change = offset_dependence(w_q, w_uk, [0, 1, 2, 10, 100])
    assert change[0] == 0.0
    assert np.all(change[1:] > 0.05)


def test_decoupled_score_splits_into_content_and_relative_parts():
    rng = np.random.default_rng(3)
    w_q, w_uk = _weights(1)
    x, c = rng.standard_normal(6), rng.standard_normal(5)
    q_r, k_r = rng.standard_normal(4), rng.standard_normal(4)
    m, n = 17.0, 4.0
    query = np.concatenate([w_q @ x, rotation_matrix(m, 4, layout="half") @ q_r])
    key = np.concatenate([w_uk @ c, rotation_matrix(n, 4, layout="half") @ k_r])
    split = (
        x @ absorbed_matrix(w_q, w_uk) @ c + q_r @ rotation_matrix(n - m, 4, layout="half") @ k_r
    )
    assert query @ key == pytest.approx(split, rel=1e-12)


def test_bad_inputs():
    with pytest.raises(ValueError, match="missing"):
        mla_cache({"num_attention_heads": 8})
    config = dict(load_config("deepseek-v3"), kv_lora_rank=0)
    with pytest.raises(ValueError, match="kv_lora_rank"):
        mla_cache(config)
    with pytest.raises(ValueError, match="config must be a mapping"):
        mla_cache([1, 2])
    with pytest.raises(ValueError, match="same number of rows"):
        absorbed_matrix(np.ones((4, 2)), np.ones((6, 2)))
    with pytest.raises(ValueError, match="2-D"):
        absorbed_matrix(np.ones(4), np.ones((4, 2)))
