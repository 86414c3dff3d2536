"""ropelab.checkpoints: the row permutation of W_q and W_k between the two RoPE layouts.

Checked against a direct transcription of ``permute`` in transformers'
``convert_llama_weights_to_hf.py`` (and its inverse), and by its purpose: attention scores
of an interleaved-trained layer equal those of the converted layer in half-split code.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ropelab import checkpoints as C
from ropelab.core import inv_freq
from ropelab.toy_decoder import attention_scores


def hf_permute(w: torch.Tensor, n_heads: int) -> torch.Tensor:
    """transformers' convert_llama_weights_to_hf.permute, transcribed (dim1 = rows)."""
    dim1, dim2 = w.shape
    return w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)


def hf_unpermute(w: torch.Tensor, n_heads: int) -> torch.Tensor:
    """The inverse view: (heads, 2, d/2, hidden) -> (heads, d/2, 2, hidden)."""
    dim1, dim2 = w.shape
    return w.view(n_heads, 2, dim1 // n_heads // 2, dim2).transpose(1, 2).reshape(dim1, dim2)


@pytest.mark.parametrize(("n_heads", "head_dim", "hidden"), [(1, 2, 3), (4, 8, 16), (8, 128, 64)])
def test_permute_equals_transformers_conversion(n_heads, head_dim, hidden):
    w = torch.randn(
        n_heads * head_dim, hidden, dtype=torch.float64, generator=torch.Generator().manual_seed(0)
    )
    expected = hf_permute(w, n_heads)
    assert torch.equal(C.permute_qk_weight(w, n_heads), expected)
    assert np.array_equal(C.permute_qk_weight(w.numpy(), n_heads), expected.numpy())
    back = hf_unpermute(expected, n_heads)
    assert torch.equal(back, w)
    assert torch.equal(C.unpermute_qk_weight(expected, n_heads), back)


def test_grouped_query_attention_uses_each_head_count():
    rng = np.random.default_rng(1)
    hidden, head_dim, n_q, n_kv = 32, 16, 8, 2
    w_q = rng.standard_normal((n_q * head_dim, hidden))
    w_k = rng.standard_normal((n_kv * head_dim, hidden))
    q2, k2 = C.convert_qk_weights(w_q, w_k, n_q, n_kv)
    np.testing.assert_array_equal(q2, hf_permute(torch.from_numpy(w_q), n_q).numpy())
    np.testing.assert_array_equal(k2, hf_permute(torch.from_numpy(w_k), n_kv).numpy())
    # Permuting W_k with the query head count would scramble rows across heads.
    assert not np.array_equal(C.permute_qk_weight(w_k, n_q), k2)
    q3, k3 = C.convert_qk_weights(q2, k2, n_q, n_kv, to="interleaved")
    np.testing.assert_array_equal(q3, w_q)
    np.testing.assert_array_equal(k3, w_k)


def test_row_order_of_one_head():
    np.testing.assert_array_equal(C.half_split_row_order(8), [0, 2, 4, 6, 1, 3, 5, 7])
    np.testing.assert_array_equal(C.half_split_row_order(8, 4), [0, 2, 1, 3, 4, 5, 6, 7])


def test_bias_and_torch_dtype_are_kept():
    b = torch.arange(12, dtype=torch.bfloat16)
    out = C.permute_qk_weight(b, 2)
    assert out.dtype == torch.bfloat16
    assert out.tolist() == [0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11]
    w = torch.randn(12, 5).unsqueeze(0)[0]  # any 2-d tensor
    assert C.permute_qk_weight(w, 3).shape == (12, 5)


def scores(w_q, w_k, n_q, n_kv, x, layout, rotary=None):
    d = w_q.shape[0] // n_q
    theta = inv_freq(d if rotary is None else rotary, 10000.0)
    positions = np.arange(len(x)) * 37.0  # spread the positions so that every plane turns
    return attention_scores(x, w_q, w_k, n_q, n_kv, positions, theta=theta, layout=layout)


@pytest.mark.parametrize("rotary", [None, 8])
def test_converted_weights_give_the_same_scores_in_half_split_code(rotary):
    rng = np.random.default_rng(2)
    hidden, head_dim, n_q, n_kv, seq = 24, 16, 4, 2, 9
    w_q = rng.standard_normal((n_q * head_dim, hidden))
    w_k = rng.standard_normal((n_kv * head_dim, hidden))
    x = rng.standard_normal((seq, hidden))
    trained = scores(w_q, w_k, n_q, n_kv, x, "interleaved", rotary)
    q2, k2 = C.convert_qk_weights(w_q, w_k, n_q, n_kv, rotary_dim=rotary)
    converted = scores(q2, k2, n_q, n_kv, x, "half", rotary)
    np.testing.assert_allclose(converted, trained, rtol=0, atol=1e-12 * np.abs(trained).max())
    unconverted = scores(w_q, w_k, n_q, n_kv, x, "half", rotary)
    assert np.abs(unconverted - trained).max() > 0.1 * np.abs(trained).max()
    # and the way back runs a half-split checkpoint in interleaved code
    q3, k3 = C.convert_qk_weights(q2, k2, n_q, n_kv, rotary_dim=rotary, to="interleaved")
    back = scores(q3, k3, n_q, n_kv, x, "interleaved", rotary)
    np.testing.assert_allclose(back, converted, rtol=0, atol=1e-12 * np.abs(trained).max())


def test_partial_rotary_needs_the_partial_permutation():
    rng = np.random.default_rng(3)
    hidden, head_dim, n, rotary = 16, 16, 2, 8
    w_q = rng.standard_normal((n * head_dim, hidden))
    w_k = rng.standard_normal((n * head_dim, hidden))
    x = rng.standard_normal((7, hidden))
    trained = scores(w_q, w_k, n, n, x, "interleaved", rotary)
    full_perm = scores(
        C.permute_qk_weight(w_q, n), C.permute_qk_weight(w_k, n), n, n, x, "half", rotary
    )
    assert np.abs(full_perm - trained).max() > 0.1 * np.abs(trained).max()


@pytest.mark.parametrize(
    ("w", "n_heads", "rotary", "match"),
    [
        (np.zeros((10, 3)), 4, None, "multiple of n_heads"),
        (np.zeros((8, 3)), 8, None, "each head must have >= 2 rows"),
        (np.zeros((8, 3)), 2, 3, "rotary_dim must be a positive even integer <= head_dim"),
        (np.zeros((8, 3)), 2, 6, "rotary_dim must be a positive even integer <= head_dim"),
        (np.zeros((2, 4, 3)), 2, None, "w must be a weight"),
        (np.zeros((8, 3)), 0, None, "n_heads must be an integer >= 1"),
    ],
)
def test_bad_input_names_the_argument(w, n_heads, rotary, match):
    with pytest.raises(ValueError, match=match):
        C.permute_qk_weight(w, n_heads, rotary_dim=rotary)


def test_convert_rejects_unknown_direction():
    with pytest.raises(ValueError, match="to must be 'half' or 'interleaved'"):
        C.convert_qk_weights(np.zeros((4, 2)), np.zeros((4, 2)), 1, to="meta")
