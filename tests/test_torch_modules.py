"""Tests of ropelab.torch_modules: the cached RotaryEmbedding and the attention layers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

from ropelab import torch_modules
from ropelab.core import apply_rope, rotation_matrix
from ropelab.torch_modules import (
    AttentionConfig,
    CausalSelfAttention,
    RotaryEmbedding,
    RotaryLinearAttention,
)

HIDDEN, HEADS, HEAD_DIM = 64, 4, 16

ROPE_PARAMETERS = {
    "default": {"rope_type": "default", "rope_theta": 10000.0},
    "linear": {"rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0},
    "yarn": {
        "rope_type": "yarn",
        "rope_theta": 10000.0,
        "factor": 4.0,
        "original_max_position_embeddings": 128,
    },
    "llama3": {
        "rope_type": "llama3",
        "rope_theta": 500000.0,
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 64,
    },
    "longrope": {
        "rope_type": "longrope",
        "rope_theta": 10000.0,
        "long_factor": [1.0 + 0.5 * i for i in range(HEAD_DIM // 2)],
        "short_factor": [1.0 + 0.05 * i for i in range(HEAD_DIM // 2)],
        "original_max_position_embeddings": 128,
    },
    "dynamic": {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 4.0},
}


def llama_pair(rope_type: str, max_pos: int = 512) -> tuple[LlamaRotaryEmbedding, RotaryEmbedding]:
    """transformers' LlamaRotaryEmbedding and ours, built from the same LlamaConfig."""
    config = LlamaConfig(
        hidden_size=HIDDEN,
        num_attention_heads=HEADS,
        max_position_embeddings=max_pos,
        rope_parameters=dict(ROPE_PARAMETERS[rope_type]),
    )
    ours = RotaryEmbedding.from_config(config.to_dict())
    return LlamaRotaryEmbedding(config), ours


def compare_cos_sin(
    theirs: LlamaRotaryEmbedding, ours: RotaryEmbedding, position_ids: torch.Tensor
) -> None:
    dummy = torch.zeros(1, dtype=torch.float32)
    cos_t, sin_t = theirs(dummy, position_ids)
    cos_o, sin_o = ours(position_ids)
    assert cos_o.shape == cos_t.shape == (*position_ids.shape, HEAD_DIM)
    # transformers forms the angles in float32: ~1e-7 relative error per radian of angle
    torch.testing.assert_close(cos_o, cos_t, atol=5e-5, rtol=0)
    torch.testing.assert_close(sin_o, sin_t, atol=5e-5, rtol=0)


# ------------------------------------------------------------------ RotaryEmbedding


@pytest.mark.parametrize("rope_type", ["default", "linear", "yarn", "llama3"])
def test_cos_sin_match_transformers(rope_type: str) -> None:
    theirs, ours = llama_pair(rope_type)
    assert ours.rope_type == rope_type
    assert ours.attention_factor == pytest.approx(theirs.attention_scaling, rel=1e-12)
    position_ids = torch.stack((torch.arange(200), torch.arange(37, 237)))  # (2, 200)
    compare_cos_sin(theirs, ours, position_ids)


def test_yarn_applies_attention_factor_to_cos_and_sin() -> None:
    _, ours = llama_pair("yarn")
    assert ours.attention_factor > 1.0
    cos, sin = ours(torch.arange(50))
    np.testing.assert_allclose((cos**2 + sin**2).numpy(), ours.attention_factor**2, rtol=1e-6)


def test_longrope_switches_factors_like_transformers() -> None:
    theirs, ours = llama_pair("longrope")
    short = ours.inv_freq.clone()
    for length in (100, 200, 128, 129, 60):  # original_max_position_embeddings = 128
        compare_cos_sin(theirs, ours, torch.arange(length)[None])
        uses_long = length > 128
        assert torch.equal(ours.inv_freq, short) != uses_long
        torch.testing.assert_close(ours.inv_freq.float(), theirs.inv_freq, rtol=1e-6, atol=0)


def test_dynamic_matches_transformers_below_and_above_max_position() -> None:
    theirs, ours = llama_pair("dynamic", max_pos=64)
    original = ours.inv_freq.clone()
    # below, above (recompute), longer (recompute), shorter but above (kept), below (reset)
    for length in (40, 150, 200, 120, 30, 64, 90):
        compare_cos_sin(theirs, ours, torch.arange(length)[None])
        torch.testing.assert_close(ours.inv_freq.float(), theirs.inv_freq, rtol=1e-6, atol=0)
    theirs_fresh, ours_fresh = llama_pair("dynamic", max_pos=64)
    compare_cos_sin(theirs_fresh, ours_fresh, torch.arange(30)[None])
    assert torch.equal(ours_fresh.inv_freq, original)
    ours_fresh(torch.arange(100))
    assert ours_fresh.inv_freq[-1] < original[-1]  # NTK: a larger base, lower frequencies
    ours_fresh(torch.arange(10))
    assert torch.equal(ours_fresh.inv_freq, original)  # reset once back within 64


@pytest.mark.parametrize("rope_type", ["default", "yarn", "llama3"])
def test_rotate_matches_transformers_apply_rotary_pos_emb(rope_type: str) -> None:
    torch.manual_seed(0)
    theirs, ours = llama_pair(rope_type)
    q = torch.randn(2, HEADS, 48, HEAD_DIM)
    k = torch.randn(2, HEADS, 48, HEAD_DIM)
    position_ids = torch.stack((torch.arange(48), torch.arange(100, 148)))  # (2, 48)
    cos, sin = theirs(q, position_ids)
    q_t, k_t = apply_rotary_pos_emb(q, k, cos, sin)
    q_o, k_o = ours.rotate_qk(q, k, position_ids)
    torch.testing.assert_close(q_o, q_t, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(k_o, k_t, atol=1e-4, rtol=1e-4)
    # positions of shape (seq,) broadcast over the batch
    q_1 = ours.rotate(q, position_ids[1])
    q_t1, _ = apply_rotary_pos_emb(q, k, *theirs(q, position_ids[1:].expand(2, -1)))
    torch.testing.assert_close(q_1, q_t1, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_partial_rotary_matches_core_apply_rope(layout: str) -> None:
    torch.manual_seed(1)
    rope = RotaryEmbedding(12, 100.0, layout=layout, rotary_dim=8).double()
    x = torch.randn(2, 3, 20, 12, dtype=torch.float64)
    positions = torch.arange(5, 25)
    got = rope.rotate(x, positions)
    theta = 100.0 ** (-np.arange(0, 8, 2) / 8)
    expected = apply_rope(x.numpy(), positions.numpy(), inv_freq=theta, layout=layout)
    np.testing.assert_allclose(got.numpy(), expected, atol=1e-12)
    assert torch.equal(got[..., 8:], x[..., 8:])  # the tail is not rotated
    # the dense rotation matrix of the rotary part, position by position
    for t in (0, 7, 19):
        matrix = rotation_matrix(int(positions[t]), 8, 100.0, layout)
        np.testing.assert_allclose(got[0, 0, t, :8].numpy(), matrix @ x[0, 0, t, :8].numpy())


def test_forward_layouts_and_fractional_positions() -> None:
    half = RotaryEmbedding(8, layout="half")
    inter = RotaryEmbedding(8, layout="interleaved")
    positions = torch.tensor([0.5, 3.25, 7.0])
    theta = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    angles = positions.double().numpy()[:, None] * theta  # (3, 4)
    cos_h, sin_h = half(positions)
    cos_i, _ = inter(positions)
    np.testing.assert_allclose(
        cos_h.numpy(), np.cos(np.concatenate([angles, angles], -1)), atol=1e-7
    )
    np.testing.assert_allclose(sin_h[:, :4].numpy(), np.sin(angles), atol=1e-7)
    np.testing.assert_allclose(cos_i.numpy(), np.repeat(np.cos(angles), 2, axis=-1), atol=1e-7)
    assert half.cache_len == 0  # fractional positions bypass the cache


def test_float64_angles_at_position_2_pow_20() -> None:
    position = 2**20
    theta = 10000.0 ** (-np.arange(0, 128, 2) / 128)
    exact_cos, exact_sin = np.cos(position * theta), np.sin(position * theta)
    ours = RotaryEmbedding(128)
    cos, sin = ours.cos_sin_planes(torch.tensor([position]))
    assert cos.dtype == torch.float32
    ours_error = max(
        np.abs(cos[0].double().numpy() - exact_cos).max(),
        np.abs(sin[0].double().numpy() - exact_sin).max(),
    )
    assert ours_error < 1e-5
    # transformers forms position * inv_freq in float32: far off at this position
    config = LlamaConfig(
        hidden_size=128 * 2,
        num_attention_heads=2,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
    )
    cos_t, _ = LlamaRotaryEmbedding(config)(torch.zeros(1), torch.tensor([[position]]))
    transformers_error = np.abs(cos_t[0, 0, :64].double().numpy() - exact_cos).max()
    assert transformers_error > 1e-3 > 100 * ours_error
    # rotating a float32 vector at that position stays within 1e-5 of the float64 rotation
    torch.manual_seed(2)
    x = torch.randn(1, 1, 1, 128)
    exact = apply_rope(x.double().numpy(), np.array([position]), layout="half")
    np.testing.assert_allclose(ours.rotate(x, torch.tensor([position])).numpy(), exact, atol=1e-5)


def test_cache_grows_on_demand_without_recomputing(monkeypatch: pytest.MonkeyPatch) -> None:
    computed: list[np.ndarray] = []
    original_angles = torch_modules.rope_angles

    def recording_angles(positions, theta):  # type: ignore[no-untyped-def]
        computed.append(np.asarray(positions).copy())
        return original_angles(positions, theta)

    monkeypatch.setattr(torch_modules, "rope_angles", recording_angles)
    rope = RotaryEmbedding(8, 500.0)
    assert rope.cache_len == 0
    rope(torch.arange(10))
    assert rope.cache_len == 16
    np.testing.assert_array_equal(computed[-1], np.arange(16))
    first = rope.cos_cached.clone()
    cos, sin = rope(torch.tensor([100, 3]))
    assert rope.cache_len == 128  # the next power of two above position 100
    np.testing.assert_array_equal(computed[-1], np.arange(16, 128))  # only the new positions
    assert torch.equal(rope.cos_cached[:16], first)
    theta = 500.0 ** (-np.arange(0, 8, 2) / 8)
    np.testing.assert_allclose(cos[0, :4].numpy(), np.cos(100 * theta), atol=1e-7)
    np.testing.assert_allclose(sin[1, 4:].numpy(), np.sin(3 * theta), atol=1e-7)
    calls = len(computed)
    rope(torch.arange(128))
    rope.rotate(torch.zeros(1, 1, 64, 8))
    assert len(computed) == calls  # everything was cached
    rope(torch.arange(129))
    assert rope.cache_len == 256
    np.testing.assert_array_equal(computed[-1], np.arange(128, 256))


# ------------------------------------------------------------------ CausalSelfAttention


def make_attention(**kwargs: object) -> CausalSelfAttention:
    torch.manual_seed(3)
    settings = {"d_model": 32, "n_heads": 4, "base": 100.0}
    settings.update(kwargs)
    return CausalSelfAttention(AttentionConfig(**settings)).eval()  # type: ignore[arg-type]


def test_attention_is_causal() -> None:
    attention = make_attention()
    torch.manual_seed(4)
    x = torch.randn(2, 12, 32)
    y = attention(x)
    for t in (0, 5, 10):
        changed = x.clone()
        changed[:, t + 1 :] = torch.randn_like(changed[:, t + 1 :])
        y_changed = attention(changed)
        torch.testing.assert_close(y_changed[:, : t + 1], y[:, : t + 1], atol=1e-6, rtol=0)
        assert not torch.allclose(y_changed[:, t + 1 :], y[:, t + 1 :], atol=1e-3)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_attention_is_invariant_to_a_position_shift(layout: str) -> None:
    attention = make_attention(layout=layout)
    torch.manual_seed(5)
    x = torch.randn(2, 16, 32)
    y = attention(x)
    shifted = attention(x, torch.arange(16) + 1000)
    per_batch = attention(x, torch.stack((torch.arange(16) + 7, torch.arange(16) + 4321)))
    torch.testing.assert_close(shifted, y, atol=2e-5, rtol=1e-4)
    torch.testing.assert_close(per_batch, y, atol=2e-5, rtol=1e-4)
    # without RoPE's relative property a shift would change the output: check the test can fail
    q_plain = attention(x, torch.arange(16) * 2)
    assert not torch.allclose(q_plain, y, atol=1e-3)


def test_return_qk_and_gradients() -> None:
    attention = make_attention(bias=True)
    attention.train()
    torch.manual_seed(6)
    x = torch.randn(3, 9, 32, requires_grad=True)
    y, q, k = attention(x, return_qk=True)
    assert y.shape == (3, 9, 32)
    assert q.shape == k.shape == (3, 4, 9, 8)
    (y.square().sum() + q.sum()).backward()
    assert x.grad is not None and torch.isfinite(x.grad).all() and x.grad.abs().sum() > 0
    for name, parameter in attention.named_parameters():
        assert parameter.grad is not None, name
        assert torch.isfinite(parameter.grad).all(), name
        assert parameter.grad.abs().sum() > 0, name


@pytest.mark.parametrize(
    ("layout", "kept"), [("half", [0, 1, 2, 4, 5, 6]), ("interleaved", [0, 1, 2, 3, 4, 5])]
)
def test_keep_planes_zeroes_the_other_planes(layout: str, kept: list[int]) -> None:
    attention = make_attention(layout=layout, keep_planes=3)  # head_dim 8: planes 0..3
    torch.manual_seed(7)
    x = torch.randn(2, 10, 32)
    y, q, k = attention(x, return_qk=True)
    dropped = [c for c in range(8) if c not in kept]
    assert torch.all(q[..., dropped] == 0) and torch.all(k[..., dropped] == 0)
    assert torch.all(q[..., kept] != 0) and torch.all(k[..., kept] != 0)
    # the kept coordinates are the rotated ones, unchanged by the mask
    attention.keep_planes = None
    _, q_full, _ = attention(x, return_qk=True)
    torch.testing.assert_close(q[..., kept], q_full[..., kept])
    # temperature 1/sqrt(2 * keep_planes)
    v = attention.v_proj(x).view(2, 10, 4, 8).transpose(1, 2)  # (B, H, T, hd)
    scores = q @ k.transpose(-1, -2) / math.sqrt(6)  # (B, H, T, T)
    causal = torch.ones(10, 10, dtype=torch.bool).tril()
    weights = scores.masked_fill(~causal, float("-inf")).softmax(-1)
    expected = attention.o_proj((weights @ v).transpose(1, 2).reshape(2, 10, 32))
    torch.testing.assert_close(y, expected, atol=1e-5, rtol=1e-5)


def test_attention_with_yarn_rope_parameters() -> None:
    attention = make_attention(
        rope_parameters={
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 64,
        },
        max_position_embeddings=256,
    )
    assert attention.rotary.rope_type == "yarn"
    assert attention.rotary.attention_factor == pytest.approx(0.1 * math.log(4.0) + 1.0)
    assert attention(torch.randn(1, 5, 32)).shape == (1, 5, 32)


# ------------------------------------------------------------------ RotaryLinearAttention


def naive_rotary_linear_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, positions: np.ndarray, base: float, causal: bool
) -> np.ndarray:
    """RoFormer eq. 19 written out with dense rotation matrices and a double loop."""

    def phi(x: np.ndarray) -> np.ndarray:
        return np.where(x > 0, x + 1.0, np.exp(x))  # elu(x) + 1

    batch, heads, length, dim = q.shape
    out = np.zeros(v.shape)
    for b in range(batch):
        for h in range(heads):
            for m in range(length):
                r_m = rotation_matrix(positions[m], dim, base, "half")
                numerator = np.zeros(v.shape[-1])
                denominator = 0.0
                for n in range(length if not causal else m + 1):
                    r_n = rotation_matrix(positions[n], dim, base, "half")
                    pq, pk = phi(q[b, h, m]), phi(k[b, h, n])
                    numerator += (r_m @ pq) @ (r_n @ pk) * v[b, h, n]
                    denominator += pq @ pk
                out[b, h, m] = numerator / denominator
    return out


@pytest.mark.parametrize("causal", [True, False])
def test_linear_attention_matches_naive_formula(causal: bool) -> None:
    torch.manual_seed(8)
    layer = RotaryLinearAttention(AttentionConfig(16, 2, base=50.0), causal=causal).double()
    q, k, v = (torch.randn(2, 2, 7, 8, dtype=torch.float64) for _ in range(3))
    positions = np.arange(3, 10)
    got = layer.attend(q, k, v, torch.from_numpy(positions))
    expected = naive_rotary_linear_attention(
        q.numpy(), k.numpy(), v.numpy(), positions, 50.0, causal
    )
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)
    # the numerator really is rotated: without RoPE the result differs
    plain = naive_rotary_linear_attention(
        q.numpy(), k.numpy(), v.numpy(), 0 * positions, 50.0, causal
    )
    assert not np.allclose(got.numpy(), plain, atol=1e-3)


@pytest.mark.parametrize("causal", [True, False])
def test_linear_attention_shift_invariance_and_gradients(causal: bool) -> None:
    torch.manual_seed(9)
    layer = RotaryLinearAttention(AttentionConfig(32, 4, base=100.0), causal=causal)
    x = torch.randn(2, 20, 32, requires_grad=True)
    y = layer(x)
    assert y.shape == (2, 20, 32)
    torch.testing.assert_close(layer(x, torch.arange(20) + 5000), y, atol=1e-5, rtol=1e-4)
    y.sum().backward()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in layer.parameters())
    if causal:  # the output at t does not see later tokens
        changed = x.detach().clone()
        changed[:, 10:] += 1.0
        torch.testing.assert_close(layer(changed)[:, :10], y[:, :10].detach())


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda: RotaryEmbedding(15), "head_dim"),
        (lambda: RotaryEmbedding(0), "head_dim"),
        (lambda: RotaryEmbedding(-4), "head_dim"),
        (lambda: RotaryEmbedding(8, 0.0), "base"),
        (lambda: RotaryEmbedding(8, -2.0), "base"),
        (lambda: RotaryEmbedding(8, float("nan")), "base"),
        (lambda: RotaryEmbedding(8, layout="pairs"), "layout"),
        (lambda: RotaryEmbedding(8, rotary_dim=10), "rotary_dim"),
        (lambda: RotaryEmbedding(8, rotary_dim=3), "rotary_dim"),
        (lambda: RotaryEmbedding(8, attention_factor=0.0), "attention_factor"),
        (lambda: RotaryEmbedding(8, inv_freq=[1.0, float("nan")]), "inv_freq"),
        (lambda: RotaryEmbedding(8, max_cache_len=0), "max_cache_len"),
        (lambda: RotaryEmbedding(8)(torch.tensor([0, -1])), "positions"),
        (lambda: RotaryEmbedding(8)(torch.tensor([0.0, float("nan")])), "positions"),
        (lambda: RotaryEmbedding(8).rotate(torch.zeros(1, 1, 4, 6)), "head_dim"),
        (lambda: RotaryEmbedding(8).rotate(torch.zeros(1, 1, 4, 8), torch.arange(5)), "positions"),
        (lambda: AttentionConfig(30, 4), "d_model"),
        (lambda: AttentionConfig(32, 0), "n_heads"),
        (lambda: AttentionConfig(32, 4, head_dim=7), "head_dim"),
        (lambda: AttentionConfig(32, 4, base=0.0), "base"),
        (lambda: AttentionConfig(32, 4, keep_planes=0), "keep_planes"),
        (lambda: AttentionConfig(32, 4, keep_planes=5), "keep_planes"),
        (lambda: AttentionConfig(32, 4, dropout=1.0), "dropout"),
        (lambda: AttentionConfig(32, 4, max_position_embeddings=-1), "max_position_embeddings"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(build, name: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=name):
        build()


def test_keep_planes_setter_validates_range() -> None:
    attention = make_attention()
    with pytest.raises(ValueError, match=r"keep_planes.*\[1, 4\]"):
        attention.keep_planes = 5
    with pytest.raises(ValueError, match="x must have shape"):
        attention(torch.zeros(2, 3, 31))
