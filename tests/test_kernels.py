"""ropelab.core.rotate_pairs: the fast kernels agree with the plain formula in every code path.

The kernels write into one output with in-place multiply-adds, chunk by chunk along the
sequence axis; the interleaved layout of float32/float64 data is one complex multiplication;
torch gets a custom autograd Function. The references here are the plain formula written out
with slices (the implementation the kernels replaced) and the dense block-diagonal matrix.
Timings are in ``benchmarks/``, not here.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ropelab import core
from ropelab.core import rotate_pairs, rotation_matrix
from ropelab.torch_modules import AttentionConfig, CausalSelfAttention

LAYOUTS = ["interleaved", "half"]


def reference_rotate(x, cos, sin, layout):  # type: ignore[no-untyped-def]
    """y_a = x_a cos − x_b sin, y_b = x_b cos + x_a sin, written with slices into a copy."""
    r = cos.shape[-1]
    out = x.copy() if isinstance(x, np.ndarray) else x.clone()
    if layout == "half":
        a, b, ia, ib = x[..., :r], x[..., r : 2 * r], slice(0, r), slice(r, 2 * r)
    else:
        a, b = x[..., 0 : 2 * r : 2], x[..., 1 : 2 * r : 2]
        ia, ib = slice(0, 2 * r, 2), slice(1, 2 * r, 2)
    out[..., ia] = a * cos - b * sin
    out[..., ib] = b * cos + a * sin
    return out


def tables(shape: tuple[int, ...], seed: int, dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    """cos and sin of random angles, of the given shape."""
    angles = np.random.default_rng(seed).uniform(-np.pi, np.pi, shape)
    return np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 3 rows of a (2, 3, 20, 16) float64 array: several chunks and a ragged last one."""
    monkeypatch.setattr(core, "NUMPY_CHUNK_BYTES", 3 * 2 * 3 * 16 * 8)
    monkeypatch.setattr(core, "TORCH_CHUNK_BYTES", 3 * 2 * 3 * 16 * 8)


@pytest.mark.usefixtures("small_chunks")
def test_small_chunks_split_the_sequence_axis():
    x, cos = np.zeros((2, 3, 20, 16)), np.zeros((20, 8))
    chunks = core._row_chunks(x, cos, core.NUMPY_CHUNK_BYTES)
    covered = np.concatenate([np.arange(20)[index[1]] for index, _ in chunks])
    assert len(chunks) == 7 and covered.tolist() == list(range(20))
    assert [index for _, index in chunks] == [index for index, _ in chunks]
    assert all(c is Ellipsis for _, c in core._row_chunks(x, np.zeros((1, 8)), 2304))


# (x shape, cos shape, planes r): full and partial rotary, broadcasting over batch and heads,
# per-batch tables, tables shared by every position, one vector.
CASES = [
    ((2, 3, 20, 16), (20, 8), 8),
    ((2, 3, 20, 16), (20, 5), 5),
    ((2, 3, 20, 16), (2, 1, 20, 8), 8),
    ((2, 3, 20, 16), (1, 8), 8),
    ((20, 12), (20, 4), 4),
    ((16,), (8,), 8),
]


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("x_shape", "cos_shape", "r"), CASES)
def test_numpy_matches_the_plain_formula(layout, dtype, x_shape, cos_shape, r):  # type: ignore[no-untyped-def]
    x = np.random.default_rng(1).standard_normal(x_shape).astype(dtype)
    cos, sin = tables(cos_shape, 2, dtype)
    assert cos.shape[-1] == r
    out = rotate_pairs(x, cos, sin, layout)
    assert out.dtype == dtype and out.shape == x.shape
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(out, reference_rotate(x, cos, sin, layout), rtol=0, atol=tol)
    np.testing.assert_array_equal(out[..., 2 * r :], x[..., 2 * r :])


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(("x_shape", "cos_shape", "r"), CASES)
def test_torch_matches_the_plain_formula(layout, dtype, x_shape, cos_shape, r):  # type: ignore[no-untyped-def]
    x = torch.from_numpy(np.random.default_rng(3).standard_normal(x_shape)).to(dtype)
    cos, sin = (torch.from_numpy(t).to(dtype) for t in tables(cos_shape, 4))
    out = rotate_pairs(x, cos, sin, layout)
    assert out.dtype == dtype and out.shape == x.shape
    tol = 1e-6 if dtype == torch.float32 else 1e-14
    expected = reference_rotate(x, cos, sin, layout)
    torch.testing.assert_close(out, expected, rtol=0, atol=tol)
    assert torch.equal(out[..., 2 * r :], x[..., 2 * r :])


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_half_layout_is_transformers_to_the_last_bit(dtype):
    """Chapter 3's claim: on the same tables, rotate_pairs and apply_rotary_pos_emb agree exactly
    (each product is rounded before the sum, as in q * cos + rotate_half(q) * sin)."""
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    x = torch.from_numpy(np.random.default_rng(19).standard_normal((2, 3, 20, 16))).to(dtype)
    cos, sin = (torch.from_numpy(t).to(dtype) for t in tables((20, 8), 20))
    full_cos, full_sin = torch.cat((cos, cos), -1), torch.cat((sin, sin), -1)  # (seq, d)
    expected, _ = apply_rotary_pos_emb(x, x, full_cos[None], full_sin[None])
    assert torch.equal(rotate_pairs(x, cos, sin, "half"), expected)
    assert torch.equal(rotate_pairs(x, cos, sin, "half"), reference_rotate(x, cos, sin, "half"))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rotation_equals_the_dense_matrix(layout):  # type: ignore[no-untyped-def]
    """Independent of the slice formula: R^d_{Θ,m} x, the block-diagonal matrix (RoFormer eq. 15)."""
    dim, positions = 10, np.arange(7.0) * 3.5
    x = np.random.default_rng(5).standard_normal((7, dim))
    theta = core.inv_freq(dim, 100.0)
    cos, sin = np.cos(positions[:, None] * theta), np.sin(positions[:, None] * theta)
    dense = np.einsum("sij,sj->si", rotation_matrix(positions, dim, 100.0, layout), x)
    np.testing.assert_allclose(rotate_pairs(x, cos, sin, layout), dense, atol=1e-13)
    xt = torch.from_numpy(x)
    np.testing.assert_allclose(
        rotate_pairs(xt, torch.from_numpy(cos), torch.from_numpy(sin), layout).numpy(),
        dense,
        atol=1e-13,
    )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_strided_inputs_take_the_pairwise_path_and_agree(layout):  # type: ignore[no-untyped-def]
    """A transposed (B, T, H, D) -> (B, H, T, D) tensor, a tensor whose last axis is strided
    (no complex view), and a numpy array with an odd start all give the plain formula."""
    base = torch.randn(2, 9, 3, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(6))
    cos, sin = (torch.from_numpy(t) for t in tables((9, 8), 7))
    for x in (base.transpose(1, 2), base.transpose(1, 2)[..., ::1].contiguous()):
        torch.testing.assert_close(
            rotate_pairs(x, cos, sin, layout), reference_rotate(x, cos, sin, layout)
        )
    strided = torch.randn(4, 9, 32, dtype=torch.float64)[..., ::2]  # last-axis stride 2
    assert core._torch_pairs_adjacent(base.transpose(1, 2))
    assert not core._torch_pairs_adjacent(strided)
    assert not core._torch_pairs_adjacent(base.float().half())
    torch.testing.assert_close(
        rotate_pairs(strided, cos, sin, layout), reference_rotate(strided, cos, sin, layout)
    )
    odd = np.random.default_rng(8).standard_normal((9, 17))[:, 1:]  # starts one float in
    wide = np.dtype(np.complex128)
    assert core._numpy_complex_view_ok(odd, odd, wide)
    assert not core._numpy_complex_view_ok(odd[:, ::2], odd, wide)
    np.testing.assert_allclose(
        rotate_pairs(odd, cos.numpy(), sin.numpy(), layout),
        reference_rotate(odd, cos.numpy(), sin.numpy(), layout),
        atol=1e-14,
    )


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_tensors(layout, dtype):  # type: ignore[no-untyped-def]
    """float16 and bfloat16 take the pairwise path: the plain formula in that dtype, exactly."""
    x64 = torch.randn(2, 4, 12, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(9))
    cos, sin = (torch.from_numpy(t) for t in tables((12, 8), 10))
    x, c, s = x64.to(dtype), cos.to(dtype), sin.to(dtype)
    out = rotate_pairs(x, c, s, layout)
    assert out.dtype == dtype
    assert torch.equal(out, reference_rotate(x, c, s, layout))
    tol = 5e-2 if dtype == torch.bfloat16 else 5e-3
    torch.testing.assert_close(
        out.double(), reference_rotate(x64, cos, sin, layout), rtol=0, atol=tol
    )


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_numpy_float16_is_computed_in_complex64(layout):  # type: ignore[no-untyped-def]
    x = np.random.default_rng(17).standard_normal((2, 3, 20, 16))
    cos, sin = tables((20, 8), 18)
    out = rotate_pairs(x.astype(np.float16), cos.astype(np.float16), sin.astype(np.float16), layout)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out, reference_rotate(x, cos, sin, layout), rtol=0, atol=1e-2)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_out_argument_numpy_and_torch(layout):  # type: ignore[no-untyped-def]
    x = np.random.default_rng(11).standard_normal((3, 6, 12))
    cos, sin = tables((6, 5), 12)
    out = np.full_like(x, np.nan)
    assert rotate_pairs(x, cos, sin, layout, out=out) is out
    np.testing.assert_allclose(out, reference_rotate(x, cos, sin, layout), atol=1e-14)
    xt, ct, st = torch.from_numpy(x), torch.from_numpy(cos), torch.from_numpy(sin)
    out_t = torch.full_like(xt, float("nan"))
    assert rotate_pairs(xt, ct, st, layout, out=out_t) is out_t
    torch.testing.assert_close(out_t, reference_rotate(xt, ct, st, layout))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_autograd_gradcheck(layout):  # type: ignore[no-untyped-def]
    """Gradients to x, cos and sin (partial rotary, cos broadcast over heads), and second order."""
    gen = torch.Generator().manual_seed(13)
    x = torch.randn(2, 3, 5, 10, dtype=torch.float64, generator=gen, requires_grad=True)
    cos = torch.randn(5, 4, dtype=torch.float64, generator=gen, requires_grad=True)
    sin = torch.randn(5, 4, dtype=torch.float64, generator=gen, requires_grad=True)
    assert torch.autograd.gradcheck(lambda *t: rotate_pairs(*t, layout), (x, cos, sin))
    assert torch.autograd.gradgradcheck(lambda *t: rotate_pairs(*t, layout), (x, cos, sin))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gradient_is_the_inverse_rotation(layout):  # type: ignore[no-untyped-def]
    """∂L/∂x = R(−mθ) ∂L/∂y, the same gradient autograd finds through the plain formula."""
    gen = torch.Generator().manual_seed(14)
    x = torch.randn(2, 7, 12, generator=gen, requires_grad=True)
    weight = torch.randn(2, 7, 12, generator=gen)
    cos, sin = (torch.from_numpy(t).float() for t in tables((7, 6), 15, np.float32))
    (rotate_pairs(x, cos, sin, layout) * weight).sum().backward()
    x_ref = x.detach().clone().requires_grad_(True)
    (reference_rotate(x_ref, cos, sin, layout) * weight).sum().backward()
    torch.testing.assert_close(x.grad, x_ref.grad)
    torch.testing.assert_close(x.grad, reference_rotate(weight, cos, -sin, layout))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_attention_trains_as_with_the_plain_formula(layout, monkeypatch):  # type: ignore[no-untyped-def]
    """Three SGD steps of CausalSelfAttention: the same losses and weights as the plain formula."""

    def train(rotate) -> tuple[list[float], torch.Tensor]:  # type: ignore[no-untyped-def]
        monkeypatch.setattr("ropelab.torch_modules.rotate_pairs", rotate)
        torch.manual_seed(16)
        layer = CausalSelfAttention(AttentionConfig(d_model=32, n_heads=4, layout=layout))
        x, target = torch.randn(2, 11, 32), torch.randn(2, 11, 32)
        optimiser = torch.optim.SGD(layer.parameters(), lr=0.1)
        losses = []
        for _ in range(3):
            optimiser.zero_grad()
            loss = (layer(x) - target).square().mean()
            loss.backward()
            optimiser.step()
            losses.append(loss.item())
        return losses, layer.q_proj.weight.detach().clone()

    losses, weight = train(rotate_pairs)
    ref_losses, ref_weight = train(reference_rotate)
    assert losses[-1] < losses[0]
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    torch.testing.assert_close(weight, ref_weight, rtol=1e-5, atol=1e-6)


def test_numpy_integers_are_promoted():
    out = rotate_pairs(np.ones((3, 4), dtype=np.int64), np.ones((3, 2)), np.zeros((3, 2)), "half")
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, np.ones((3, 4)))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: rotate_pairs(np.ones((3, 8)), np.ones((3, 4)), np.ones((3, 3)), "half"), "same shape"),
        (lambda: rotate_pairs(np.ones((3, 8)), np.ones((3, 5)), np.ones((3, 5)), "half"), "1 to 4 planes"),
        (lambda: rotate_pairs(np.ones((3, 8)), np.ones((2, 3, 4)), np.ones((2, 3, 4)), "half"), "must broadcast"),
        (lambda: rotate_pairs(np.ones((3, 8)), np.ones((3, 4)), np.ones((3, 4)), "pairs"), "layout must be one of"),
        (lambda: rotate_pairs(np.ones((3, 7)), np.ones((3, 3)), np.ones((3, 3)), "half"), "positive even"),
        (lambda: rotate_pairs(np.ones((3, 8)), np.ones((3, 4)), np.ones((3, 4)), "half", out=np.ones((3, 6))), "out must have"),
    ],
)  # fmt: skip
def test_bad_arguments_raise_value_error(call, match):  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=match):
        call()


def test_out_must_not_overlap_x_or_be_recorded():
    x = np.ones((3, 8))
    cos, sin = np.ones((3, 4)), np.zeros((3, 4))
    with pytest.raises(ValueError, match="overlap"):
        rotate_pairs(x, cos, sin, "half", out=x)
    xt = torch.ones(3, 8)
    with pytest.raises(ValueError, match="overlap"):
        rotate_pairs(xt, torch.ones(3, 4), torch.zeros(3, 4), "interleaved", out=xt)
    leaf = torch.ones(3, 8, requires_grad=True)
    with pytest.raises(ValueError, match="autograd"):
        rotate_pairs(leaf, torch.ones(3, 4), torch.zeros(3, 4), "half", out=torch.empty(3, 8))
