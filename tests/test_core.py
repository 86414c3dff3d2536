"""ropelab.core: the four forms of RoPE agree, and the rotation behaves as a rotation must.

The references here are written independently of the code under test: a dense matrix built
plane by plane with explicit 2x2 blocks, complex multiplication, and transformers' Llama code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, rotate_half

from ropelab.core import (
    apply_rope,
    apply_rope_complex,
    half_to_interleaved,
    interleaved_to_half,
    inv_freq,
    layout_permutation,
    rotation_matrix,
)

dims = st.integers(min_value=1, max_value=24).map(lambda n: 2 * n)
bases = st.floats(min_value=0.5, max_value=1e6, allow_nan=False)
positions_st = st.lists(
    st.floats(min_value=-5000, max_value=5000, allow_nan=False), min_size=1, max_size=6
)


def reference_matrix(m: float, theta: np.ndarray, layout: str) -> np.ndarray:
    """R_{Θ,m} assembled block by block from the 2x2 rotation (RoFormer eq. 15)."""
    d = 2 * theta.size
    matrix = np.zeros((d, d))
    for i, t in enumerate(theta):
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)
        c, s = math.cos(m * t), math.sin(m * t)
        matrix[a, a], matrix[a, b], matrix[b, a], matrix[b, b] = c, -s, s, c
    return matrix


def test_inv_freq_formula():
    theta = inv_freq(8, 10000.0)
    np.testing.assert_allclose(theta, [1.0, 10000**-0.25, 10000**-0.5, 10000**-0.75], rtol=1e-15)
    assert theta.dtype == np.float64
    np.testing.assert_array_equal(inv_freq(6, 1.0), np.ones(3))


@settings(max_examples=60, deadline=None)
@given(
    dim=dims, base=bases, positions=positions_st, layout=st.sampled_from(["interleaved", "half"])
)
def test_dense_and_elementwise_agree(dim, base, positions, layout):
    rng = np.random.default_rng(dim)
    x = rng.standard_normal((len(positions), dim))
    theta = inv_freq(dim, base)
    expected = np.stack(
        [reference_matrix(m, theta, layout) @ row for m, row in zip(positions, x, strict=True)]
    )
    fast = apply_rope(x, np.array(positions), base=base, layout=layout)
    dense = np.einsum("sij,sj->si", rotation_matrix(np.array(positions), dim, base, layout), x)
    np.testing.assert_allclose(fast, expected, atol=1e-9)
    np.testing.assert_allclose(dense, expected, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    dim=dims, base=bases, positions=positions_st, layout=st.sampled_from(["interleaved", "half"])
)
def test_numpy_float32_matches_the_float64_dense_form(dim, base, positions, layout):
    x = np.random.default_rng(dim + 3).standard_normal((len(positions), dim))
    m = np.array(positions)
    dense = np.einsum("sij,sj->si", rotation_matrix(m, dim, base, layout), x)
    fast32 = apply_rope(x.astype(np.float32), m, base=base, layout=layout)
    assert fast32.dtype == np.float32
    np.testing.assert_allclose(fast32, dense, atol=1e-5)


@settings(max_examples=60, deadline=None)
@given(dim=dims, base=bases, positions=positions_st)
def test_complex_form_agrees(dim, base, positions):
    x = np.random.default_rng(dim + 1).standard_normal((len(positions), dim))
    m = np.array(positions)
    np.testing.assert_allclose(
        apply_rope_complex(x, m, base=base), apply_rope(x, m, base=base), atol=1e-9
    )
    # the half layout is the same rotation after the permutation
    np.testing.assert_allclose(
        interleaved_to_half(apply_rope_complex(x, m, base=base)),
        apply_rope(interleaved_to_half(x), m, base=base, layout="half"),
        atol=1e-9,
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
@settings(max_examples=25, deadline=None)
@given(dim=dims, base=bases, positions=positions_st)
def test_torch_matches_numpy(dtype, layout, dim, base, positions):
    x = np.random.default_rng(dim + 2).standard_normal((2, len(positions), dim))
    m = np.array(positions)
    expected = apply_rope(x, m, base=base, layout=layout)
    tensor = torch.tensor(x, dtype=dtype)
    out = apply_rope(tensor, torch.tensor(m), base=base, layout=layout)
    assert isinstance(out, torch.Tensor)
    assert out.dtype == dtype and out.device == tensor.device
    atol = 1e-5 if dtype == torch.float32 else 1e-12
    np.testing.assert_allclose(out.numpy(), expected, atol=atol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numpy_dtype_kept_and_ints_promoted(dtype):
    x = np.ones((3, 4), dtype=dtype)
    assert apply_rope(x, np.arange(3)).dtype == dtype
    assert apply_rope(np.ones((3, 4), dtype=np.int64), np.arange(3)).dtype == np.float64


@settings(max_examples=50, deadline=None)
@given(
    dim=dims,
    base=bases,
    m=st.integers(-(10**6), 10**6),
    n=st.integers(-(10**6), 10**6),
    shift=st.integers(-(10**6), 10**6),
)
def test_score_depends_only_on_relative_position(dim, base, m, n, shift):
    rng = np.random.default_rng(abs(m) % 1000)
    q, k = rng.standard_normal((2, dim))
    score = apply_rope(q, m, base=base) @ apply_rope(k, n, base=base)
    shifted = apply_rope(q, m + shift, base=base) @ apply_rope(k, n + shift, base=base)
    relative = q @ reference_matrix(n - m, inv_freq(dim, base), "interleaved") @ k
    assert score == pytest.approx(shifted, abs=1e-6 * dim)
    assert score == pytest.approx(relative, abs=1e-6 * dim)


@settings(max_examples=50, deadline=None)
@given(
    dim=dims, base=bases, m=st.floats(-1e5, 1e5), layout=st.sampled_from(["interleaved", "half"])
)
def test_rotation_is_orthogonal_and_keeps_norms(dim, base, m, layout):
    matrix = rotation_matrix(m, dim, base, layout)
    np.testing.assert_allclose(matrix.T @ matrix, np.eye(dim), atol=1e-12)
    x = np.random.default_rng(dim).standard_normal(dim)
    y = apply_rope(x, m, base=base, layout=layout)
    assert np.linalg.norm(y) == pytest.approx(np.linalg.norm(x), rel=1e-12)


@given(dim=dims, m=st.floats(-1e4, 1e4))
@settings(max_examples=30, deadline=None)
def test_layout_permutation_conjugates_the_rotation(dim, m):
    p = layout_permutation(dim)
    np.testing.assert_array_equal(p @ p.T, np.eye(dim))
    np.testing.assert_allclose(
        p @ rotation_matrix(m, dim) @ p.T, rotation_matrix(m, dim, layout="half"), atol=1e-15
    )
    x = np.arange(dim, dtype=float)
    np.testing.assert_array_equal(interleaved_to_half(x), p @ x)
    np.testing.assert_array_equal(half_to_interleaved(interleaved_to_half(x)), x)


def test_layout_permutation_on_a_small_example():
    x = np.array([0, 1, 2, 3, 4, 5])
    np.testing.assert_array_equal(interleaved_to_half(x), [0, 2, 4, 1, 3, 5])
    np.testing.assert_array_equal(half_to_interleaved(np.array([0, 2, 4, 1, 3, 5])), x)
    t = torch.arange(6.0).reshape(1, 6)
    assert interleaved_to_half(t).tolist() == [[0, 2, 4, 1, 3, 5]]
    assert half_to_interleaved(interleaved_to_half(t)).tolist() == [[0, 1, 2, 3, 4, 5]]


@pytest.mark.parametrize("head_dim", [32, 64, 128])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_half_layout_equals_transformers_llama(head_dim, base):
    torch.manual_seed(0)
    q = torch.randn(2, 4, 33, head_dim, dtype=torch.float64)
    k = torch.randn(2, 4, 33, head_dim, dtype=torch.float64)
    positions = torch.arange(33) + 100
    theta = torch.tensor(inv_freq(head_dim, base))
    freqs = positions[:, None].double() * theta  # (seq, d/2)
    emb = torch.cat((freqs, freqs), dim=-1)[None]  # (1, seq, d)
    q_ref, k_ref = apply_rotary_pos_emb(q, k, emb.cos(), emb.sin())
    torch.testing.assert_close(apply_rope(q, positions, base=base, layout="half"), q_ref)
    torch.testing.assert_close(apply_rope(k, positions, base=base, layout="half"), k_ref)
    # transformers' rotate_half is our half layout's 90-degree turn: a rotation by π/2 per plane
    np.testing.assert_allclose(
        rotate_half(q).numpy(),
        apply_rope(
            q.numpy(), np.ones(33), inv_freq=np.full(head_dim // 2, math.pi / 2), layout="half"
        ),
        atol=1e-12,
    )


def test_float32_at_large_positions_is_within_1e_5():
    position = 2**20
    dim = 128
    x = np.random.default_rng(0).standard_normal((1, dim))
    exact = reference_matrix(position, inv_freq(dim), "half") @ x[0]
    ours = apply_rope(torch.tensor(x, dtype=torch.float32), torch.tensor([position]), layout="half")
    assert np.abs(ours.numpy()[0] - exact).max() < 1e-5
    # transformers forms the angles in float32; at this position that alone is ~1e-2 off
    angles32 = torch.tensor([float(position)])[:, None] * torch.tensor(
        inv_freq(dim), dtype=torch.float32
    )
    emb = torch.cat((angles32, angles32), dim=-1)
    theirs = apply_rotary_pos_emb(
        torch.tensor(x, dtype=torch.float32),
        torch.tensor(x, dtype=torch.float32),
        emb.cos(),
        emb.sin(),
        0,
    )[0]
    assert np.abs(theirs.numpy()[0] - exact).max() > 1e-3


def test_attention_factor_scales_the_output():
    x = np.random.default_rng(3).standard_normal((5, 16))
    np.testing.assert_allclose(
        apply_rope(x, np.arange(5), attention_factor=1.25), 1.25 * apply_rope(x, np.arange(5))
    )


def test_partial_rotary_leaves_the_tail_alone():
    x = np.random.default_rng(4).standard_normal((5, 16))
    theta = inv_freq(8)
    out = apply_rope(x, np.arange(5), inv_freq=theta, layout="half")
    np.testing.assert_array_equal(out[:, 8:], x[:, 8:])
    np.testing.assert_allclose(out[:, :8], apply_rope(x[:, :8], np.arange(5), layout="half"))


def test_positions_broadcast_over_batch_and_heads():
    x = np.random.default_rng(5).standard_normal((2, 3, 7, 8))
    per_batch = np.stack([np.arange(7), np.arange(7) + 10])[:, None, :]  # (B, 1, T)
    out = apply_rope(x, per_batch)
    np.testing.assert_allclose(out[1], apply_rope(x[1], np.arange(7) + 10))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: inv_freq(7), "dim must be a positive even integer"),
        (lambda: inv_freq(0), "dim must be a positive even integer"),
        (lambda: inv_freq(-4), "dim must be a positive even integer"),
        (lambda: inv_freq(8.5), "dim must be a positive even integer"),
        (lambda: inv_freq(8, 0.0), "base must be > 0"),
        (lambda: inv_freq(8, -1.0), "base must be > 0"),
        (lambda: inv_freq(8, float("nan")), "base must be a finite real number"),
        (lambda: inv_freq(8, float("inf")), "base must be a finite real number"),
        (lambda: rotation_matrix(1, 8, layout="pairs"), "layout must be one of"),
        (lambda: rotation_matrix(float("nan"), 8), "position must be finite"),
        (lambda: apply_rope(np.ones((2, 7)), [0, 1]), "last axis of x must have positive even"),
        (lambda: apply_rope(np.ones((2, 8)), [0, np.inf]), "positions must be finite"),
        (lambda: apply_rope(np.ones((2, 8)), [0, 1], attention_factor=0), "attention_factor"),
        (
            lambda: apply_rope(np.ones((2, 8)), [0, 1], inv_freq=[1.0, np.nan]),
            "inv_freq must be finite",
        ),
        (
            lambda: apply_rope(np.ones((2, 4)), [0, 1], inv_freq=np.ones(3)),
            "inv_freq has 3 entries",
        ),
        (lambda: interleaved_to_half(np.ones(5)), "positive even"),
    ],
)
def test_bad_input_raises_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()
