"""A zoo of RoPE implementations for tests/test_diagnose.py: correct ones and broken ones.

Every function has the signature ``fn(x, positions, base=10000.0)`` that
:func:`ropelab.diagnose_rope` calls (``x`` float64 ``(seq, d)``, ``positions`` int64
``(seq,)``); ``d`` is read from ``x``. None of them uses ropelab: the correct ones are written
independently (numpy pairwise, numpy and torch rotate_half, numpy and torch complex form), and
each broken one carries one bug class from the public record, named in its docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

BASE = 10000.0


def _theta(d: int, base: float) -> np.ndarray:
    return base ** (-np.arange(0, d, 2, dtype=np.float64) / d)


# ----------------------------------------------------------------------------- correct


def numpy_pairwise(x, positions, base=BASE):
    """Interleaved: plane i is (x_2i, x_2i+1), written out pair by pair (RoFormer eq. 34)."""
    angle = positions[:, None] * _theta(x.shape[-1], base)
    cos, sin = np.cos(angle), np.sin(angle)
    even, odd = x[:, 0::2], x[:, 1::2]
    out = np.empty_like(x)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = odd * cos + even * sin
    return out


def numpy_rotate_half(x, positions, base=BASE):
    """Half split: x·cos + rotate_half(x)·sin with a table of two equal halves."""
    half = x.shape[-1] // 2
    angle = positions[:, None] * _theta(x.shape[-1], base)
    table = np.concatenate([angle, angle], axis=-1)
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
    return x * np.cos(table) + rotated * np.sin(table)


def numpy_complex(x, positions, base=BASE):
    """Interleaved, as complex numbers z_i = x_2i + i x_2i+1 times e^(i m θ_i)."""
    z = x[:, 0::2] + 1j * x[:, 1::2]
    z = z * np.exp(1j * positions[:, None] * _theta(x.shape[-1], base))
    return np.stack([z.real, z.imag], axis=-1).reshape(x.shape)


def numpy_dense(x, positions, base=BASE, layout="half"):
    """The block-diagonal matrix of every position, built entry by entry (chapter 3)."""
    d = x.shape[-1]
    if layout == "half":
        pairs = [(i, i + d // 2) for i in range(d // 2)]
    else:
        pairs = [(2 * i, 2 * i + 1) for i in range(d // 2)]
    out = np.empty_like(x)
    for row, m in enumerate(positions):
        matrix = np.zeros((d, d))
        for (a, b), theta in zip(pairs, _theta(d, base), strict=True):
            c, s = np.cos(m * theta), np.sin(m * theta)
            matrix[a, a], matrix[a, b], matrix[b, a], matrix[b, b] = c, -s, s, c
        out[row] = matrix @ x[row]
    return out


def _torch_inv_freq(d: int, base: float, dtype=torch.float64) -> torch.Tensor:
    return 1.0 / base ** (torch.arange(0, d, 2, dtype=dtype) / d)


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def torch_rotate_half(x, positions, base=BASE):
    """Half split in torch, transformers' formula with float64 angles."""
    x = torch.from_numpy(x)
    freqs = torch.from_numpy(positions).double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos() + _rotate_half(x) * emb.sin()


def torch_complex(x, positions, base=BASE):
    """Interleaved, as Meta's Llama code: view_as_complex times polar(1, mθ)."""
    x = torch.from_numpy(x)
    freqs = torch.outer(torch.from_numpy(positions).double(), _torch_inv_freq(x.shape[-1], base))
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(pairs * freqs_cis).flatten(-2)


# ----------------------------------------------------------------------------- broken


def numpy_complex_unconverted(x, positions, base=BASE):
    """shape: returns the complex numbers, never turned back into pairs of reals."""
    z = x[:, 0::2] + 1j * x[:, 1::2]
    return z * np.exp(1j * positions[:, None] * _theta(x.shape[-1], base))


def torch_stack_unflattened(x, positions, base=BASE):
    """shape: stacks the two halves of each pair but forgets to flatten them."""
    x = torch.from_numpy(x)
    freqs = torch.from_numpy(positions).double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    even, odd = x[:, 0::2], x[:, 1::2]
    return torch.stack(
        (even * freqs.cos() - odd * freqs.sin(), odd * freqs.cos() + even * freqs.sin()), dim=-1
    )


def numpy_returns_input(x, positions, base=BASE):
    """identity: computes the rotation into q_rot and returns q (a variable mix-up)."""
    q = x
    angle = positions[:, None] * _theta(x.shape[-1], base)
    table = np.concatenate([angle, angle], axis=-1)
    half = x.shape[-1] // 2
    q_rot = q * np.cos(table) + np.concatenate([-q[:, half:], q[:, :half]], -1) * np.sin(table)
    assert q_rot.shape == q.shape
    return q


def torch_zero_positions(x, positions, base=BASE):
    """identity: the position tensor is created with zeros_like instead of from the input."""
    x = torch.from_numpy(x)
    position_ids = torch.zeros_like(torch.from_numpy(positions))
    freqs = position_ids.double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos() + _rotate_half(x) * emb.sin()


def torch_seed003(x, positions, base=BASE):
    """table_mismatch: a half-split table cat(mθ, mθ) with an adjacent-pair rotation
    (-x_2i+1, x_2i) (the PyTorch module of the book's source 003), declared half."""
    x = torch.from_numpy(x)
    freqs = torch.from_numpy(positions).double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    angles = torch.cat((freqs, freqs), dim=-1)
    rotated = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)
    return x * angles.cos() + rotated * angles.sin()


def numpy_repeat_table_rotate_half(x, positions, base=BASE):
    """table_mismatch: an interleaved table repeat(mθ, 2) with rotate_half, declared half."""
    half = x.shape[-1] // 2
    angle = np.repeat(positions[:, None] * _theta(x.shape[-1], base), 2, axis=-1)
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
    return x * np.cos(angle) + rotated * np.sin(angle)


def numpy_rotate_half_wrong_sign(x, positions, base=BASE):
    """direction: rotate_half written as (x2, -x1)."""
    half = x.shape[-1] // 2
    angle = positions[:, None] * _theta(x.shape[-1], base)
    table = np.concatenate([angle, angle], axis=-1)
    rotated = np.concatenate([x[:, half:], -x[:, :half]], axis=-1)
    return x * np.cos(table) + rotated * np.sin(table)


def torch_complex_conjugate(x, positions, base=BASE):
    """direction: multiplies by the conjugate of freqs_cis (e^(-imθ))."""
    x = torch.from_numpy(x)
    freqs = torch.outer(torch.from_numpy(positions).double(), _torch_inv_freq(x.shape[-1], base))
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(pairs * freqs_cis.conj()).flatten(-2)


def numpy_exponent_i_over_d(x, positions, base=BASE):
    """frequencies: θ_i = base^(-i/d), np.arange(d // 2) / d instead of np.arange(0, d, 2) / d
    (the same θ as a rotary dimension d with the head dimension 2d in the denominator)."""
    d = x.shape[-1]
    theta = base ** (-np.arange(d // 2) / d)
    angle = np.repeat(positions[:, None] * theta, 2, axis=-1)
    rotated = np.stack([-x[:, 1::2], x[:, 0::2]], axis=-1).reshape(x.shape)
    return x * np.cos(angle) + rotated * np.sin(angle)


def torch_missing_minus(x, positions, base=BASE):
    """frequencies: inv_freq = base ** (arange(0, d, 2) / d), the reciprocal forgotten."""
    x = torch.from_numpy(x)
    d = x.shape[-1]
    inv_freq = base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    freqs = torch.from_numpy(positions).double()[:, None] * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos() + _rotate_half(x) * emb.sin()


def numpy_linspace_exponents(x, positions, base=BASE):
    """frequencies: exponents np.linspace(0, 1, d // 2), which reach 1: denominator d - 2."""
    d = x.shape[-1]
    theta = base ** (-np.linspace(0.0, 1.0, d // 2))
    angle = positions[:, None] * theta
    table = np.concatenate([angle, angle], axis=-1)
    rotated = np.concatenate([-x[:, d // 2 :], x[:, : d // 2]], axis=-1)
    return x * np.cos(table) + rotated * np.sin(table)


def torch_wrong_base(x, positions, base=BASE):
    """frequencies: rope_theta 500000 (Llama 3) where the model declares 10000 (Llama 2)."""
    return torch_rotate_half(x, positions, base=500000.0)


def numpy_row_index_positions(x, positions, base=BASE):
    """positions: ignores the positions, rotates row k as position k (np.arange(seq))."""
    return numpy_rotate_half(x, np.arange(len(x)), base)


def torch_one_based(x, positions, base=BASE):
    """positions: counts positions from 1 (position_ids + 1)."""
    return torch_rotate_half(x, positions + 1, base)


def numpy_clamped_cache(x, positions, base=BASE, cache=4096):
    """positions: a cos/sin cache of 4096 positions read with np.take(mode="clip"), which
    clamps a position past the end to the last entry (as jax.numpy indexing does)."""
    half = x.shape[-1] // 2
    angle = np.arange(cache)[:, None] * _theta(x.shape[-1], base)
    table = np.concatenate([angle, angle], axis=-1)
    cos = np.take(np.cos(table), positions, axis=0, mode="clip")
    sin = np.take(np.sin(table), positions, axis=0, mode="clip")
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
    return x * cos + rotated * sin


def torch_bf16_angles(x, positions, base=BASE):
    """precision: inv_freq and positions in bfloat16 after model.to(torch.bfloat16), the
    angles multiplied there (GPT-NeoX issue 1003)."""
    x = torch.from_numpy(x)
    inv_freq = _torch_inv_freq(x.shape[-1], base, torch.float32).to(torch.bfloat16)
    t = torch.from_numpy(positions).to(torch.bfloat16)
    freqs = torch.outer(t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1).double()
    return x * emb.cos() + _rotate_half(x) * emb.sin()


def numpy_fp16_angles(x, positions, base=BASE):
    """precision: positions and θ cast to float16 and multiplied there."""
    d = x.shape[-1]
    theta = _theta(d, base).astype(np.float16)
    angle = positions.astype(np.float16)[:, None] * theta
    angle = np.repeat(angle.astype(np.float64), 2, axis=-1)
    rotated = np.stack([-x[:, 1::2], x[:, 0::2]], axis=-1).reshape(x.shape)
    return x * np.cos(angle) + rotated * np.sin(angle)


def torch_fp32_angles(x, positions, base=BASE):
    """precision: θ, angles, cos and sin in float32, as transformers' rotary embedding."""
    x = torch.from_numpy(x)
    inv_freq = _torch_inv_freq(x.shape[-1], base, torch.float32)
    freqs = torch.from_numpy(positions).float()[:, None] * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos().double() + _rotate_half(x) * emb.sin().double()


def numpy_in_place(x, positions, base=BASE):
    """not_orthogonal: updates the first half in place, then reads it for the second half."""
    half = x.shape[-1] // 2
    angle = positions[:, None] * _theta(x.shape[-1], base)
    cos, sin = np.cos(angle), np.sin(angle)
    x1, x2 = x[:, :half], x[:, half:]  # views into x
    x1[...] = x1 * cos - x2 * sin
    x2[...] = x2 * cos + x1 * sin  # x1 is already rotated here
    return x


def torch_in_place(x, positions, base=BASE):
    """not_orthogonal: the same in-place slip on a clone, adjacent pairs."""
    x = torch.from_numpy(x).clone()
    freqs = torch.from_numpy(positions).double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    cos, sin = freqs.cos(), freqs.sin()
    even, odd = x[:, 0::2], x[:, 1::2]
    even.copy_(even * cos - odd * sin)
    odd.copy_(odd * cos + even * sin)
    return x


def numpy_dynamic_base(x, positions, base=BASE, trained=4096, factor=2.0):
    """not_relative: a dynamic NTK base computed from the largest position of each call,
    so a key cached in an earlier call was rotated with another base."""
    d = x.shape[-1]
    length = int(positions.max()) + 1
    if length > trained:
        base = base * ((factor * length / trained) - (factor - 1)) ** (d / (d - 2))
    return numpy_rotate_half(x, positions, base)


def torch_dynamic_base(x, positions, base=BASE, trained=2048, factor=4.0):
    """not_relative: the same dynamic base in torch, interleaved pairs."""
    d = x.shape[-1]
    length = int(torch.from_numpy(positions).max()) + 1
    if length > trained:
        base = base * ((factor * length / trained) - (factor - 1)) ** (d / (d - 2))
    return torch_complex(x, positions, base)


def numpy_short_cache(x, positions, base=BASE, cache=4096):
    """exception: a cache of 4096 positions indexed directly: IndexError past its end."""
    angle = np.arange(cache)[:, None] * _theta(x.shape[-1], base)
    cos, sin = np.cos(angle)[positions], np.sin(angle)[positions]
    even, odd = x[:, 0::2], x[:, 1::2]
    out = np.empty_like(x)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = odd * cos + even * sin
    return out


def torch_numpy_positions(x, positions, base=BASE):
    """exception: calls a tensor method on the numpy positions (positions.float())."""
    x = torch.from_numpy(x)
    freqs = positions.float()[:, None] * _torch_inv_freq(x.shape[-1], base)
    return x * freqs.cos()


# ----------------------------------------------------------------------------- correct, other styles


def numpy_einsum_blocks(x, positions, base=BASE):
    """Interleaved: the 2x2 block of every plane and position, applied with one einsum."""
    angle = positions[:, None] * _theta(x.shape[-1], base)
    cos, sin = np.cos(angle), np.sin(angle)
    blocks = np.stack([np.stack([cos, -sin], -1), np.stack([sin, cos], -1)], -2)
    pairs = x.reshape(len(x), -1, 2)  # (seq, d/2, 2): plane i is (x_2i, x_2i+1)
    return np.einsum("spij,spj->spi", blocks, pairs).reshape(x.shape)


def _rotate_every_two(x: torch.Tensor) -> torch.Tensor:
    # GPT-J: (x0, x1, x2, x3, ...) -> (-x1, x0, -x3, x2, ...)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def torch_gptj_rotate_every_two(x, positions, base=BASE):
    """Interleaved, as GPT-J: sin and cos of every plane repeated twice in place
    (repeat_interleave), then x·cos + rotate_every_two(x)·sin."""
    x = torch.from_numpy(x)
    freqs = torch.from_numpy(positions).double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    sin = freqs.sin().repeat_interleave(2, dim=-1)
    cos = freqs.cos().repeat_interleave(2, dim=-1)
    return x * cos + _rotate_every_two(x) * sin


class GrowingCache:
    """Half split with a cache of the angles mθ_i that grows on demand: a position past its
    end extends the cache with the rows of the new positions, arange(old, new) (state kept
    across calls, as a model's rotary module keeps it). ``reset()`` frees the cache."""

    __name__ = "numpy_growing_cache"

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.key = None
        self.angle = np.empty((0, 0))

    def extend(self, stop: int, d: int, base: float) -> None:
        start = len(self.angle)
        angle = self.new_positions(start, stop)[:, None] * _theta(d, base)
        self.angle = np.concatenate([self.angle, angle])

    def new_positions(self, start: int, stop: int) -> np.ndarray:
        return np.arange(start, stop)

    def rows(self, x, positions, base):
        d = x.shape[-1]
        if self.key != (d, base):  # a new model: a new, empty cache
            self.key = (d, base)
            self.angle = np.empty((0, d // 2))
        needed = int(positions.max()) + 1
        if needed > len(self.angle):
            self.extend(needed, d, base)
        return self.angle[positions]

    def __call__(self, x, positions, base=BASE):
        angle = self.rows(x, positions, base)
        table = np.concatenate([angle, angle], axis=-1)
        half = x.shape[-1] // 2
        rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
        return x * np.cos(table) + rotated * np.sin(table)


def _hf_inv_freq(d: int, base: float) -> torch.Tensor:
    return 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)


def torch_batched_rotate_half(x, positions, base=BASE):
    """Half split on q of shape (batch, heads, seq, d) with position_ids (batch, seq), as
    transformers: the (batch, seq, d) table gets a head axis at 1 (unsqueeze_dim=1)."""
    q = torch.from_numpy(x)
    freqs = torch.from_numpy(positions).double()[..., None] * _hf_inv_freq(x.shape[-1], base)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().unsqueeze(1), emb.sin().unsqueeze(1)
    return q * cos + _rotate_half(q) * sin


class HFStyleRotary(torch.nn.Module):
    """A transformers-style cos/sin producer: forward(x, position_ids) -> (cos, sin), each
    (batch, seq, d), with the frequencies computed in float64 for x's last dimension."""

    def __init__(self, base: float = BASE) -> None:
        super().__init__()
        self.base = base

    def forward(self, x, position_ids):
        inv_freq = _hf_inv_freq(x.shape[-1], self.base)
        freqs = position_ids.double()[..., None] * inv_freq
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def hf_style_apply(q, k, cos, sin, unsqueeze_dim=1):
    """transformers-style apply_rotary_pos_emb(q, k, cos, sin): a head axis is inserted into
    the (batch, seq, d) table at ``unsqueeze_dim`` (1 for q of shape (batch, heads, seq, d))."""
    cos, sin = cos.unsqueeze(unsqueeze_dim), sin.unsqueeze(unsqueeze_dim)
    return q * cos + _rotate_half(q) * sin, k * cos + _rotate_half(k) * sin


# ----------------------------------------------------------------------------- broken, as written


def numpy_decode_step_from_start(x, positions, base=BASE):
    """positions (one-token calls): a generate loop's rotary. The prompt (several rows) takes
    the table rows of its positions, cos[positions]; the decode branch (one new token) takes
    the first seq_len rows, cos[:seq_len], as the prompt code did for a prompt at positions
    0 .. seq_len - 1: every generated token is rotated as position 0."""
    d = x.shape[-1]
    seq_len = x.shape[0]
    rows = positions if seq_len > 1 else np.arange(seq_len)  # the rows of the table taken
    angle = rows[:, None] * _theta(d, base)
    table = np.concatenate([angle, angle], axis=-1)
    rotated = np.concatenate([-x[:, d // 2 :], x[:, : d // 2]], axis=-1)
    return x * np.cos(table) + rotated * np.sin(table)


def torch_start_pos_slice(x, positions, base=BASE):
    """positions (positions not contiguous): Meta's slice freqs_cis[start_pos : start_pos +
    seqlen] with start_pos = positions[0]: right while a call's positions count up from
    its first one, wrong for packed, padded or reordered positions."""
    x = torch.from_numpy(x)
    d, seq = x.shape[-1], x.shape[0]
    start = int(positions[0])
    table = torch.outer(torch.arange(start + seq, dtype=torch.float64), _torch_inv_freq(d, base))
    freqs = table[start : start + seq]
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
    pairs = torch.view_as_complex(x.reshape(seq, -1, 2))
    return torch.view_as_real(pairs * freqs_cis).flatten(-2)


class GrowingCacheFromZero(GrowingCache):
    """positions (a cache that grows): the cache is extended with np.arange(new - old), the
    rows of positions 0 .. new - old - 1, instead of arange(old, new): every position past
    the first call's cache is rotated as a smaller one."""

    __name__ = "numpy_growing_cache_from_zero"

    def new_positions(self, start: int, stop: int) -> np.ndarray:
        return np.arange(stop - start)


def numpy_per_coordinate_table(x, positions, base=BASE):
    """table_mismatch: one frequency per coordinate, base ** (-np.arange(0, d) / d), where a
    plane needs one per pair repeated (np.arange(0, d, 2)), used with rotate_half."""
    d = x.shape[-1]
    theta = base ** (-np.arange(0, d) / d)
    table = positions[:, None] * theta
    rotated = np.concatenate([-x[:, d // 2 :], x[:, : d // 2]], axis=-1)
    return x * np.cos(table) + rotated * np.sin(table)


def torch_rotate_half_dropped_minus(x, positions, base=BASE):
    """direction (one coordinate of each pair): rotate_half returns cat((x2, x1)), the minus
    sign of -x2 dropped: the first half turns backwards, the second forwards."""
    x = torch.from_numpy(x)
    freqs = torch.from_numpy(positions).double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    emb = torch.cat((freqs, freqs), dim=-1)
    x1, x2 = x.chunk(2, dim=-1)
    return x * emb.cos() + torch.cat((x2, x1), dim=-1) * emb.sin()


def torch_factor_on_cos_only(x, positions, base=BASE, attention_scaling=1.1386):
    """scale (cos only): YaRN's attention factor multiplied into cos and forgotten on sin
    (cos = emb.cos() * attention_scaling; sin = emb.sin())."""
    x = torch.from_numpy(x)
    freqs = torch.from_numpy(positions).double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos() * attention_scaling, emb.sin()
    return x * cos + _rotate_half(x) * sin


def numpy_scaled_output(x, positions, base=BASE, mscale=1.01):
    """scale: an attention temperature folded into the rotation: returns 1.01 times the
    rotated vector (YaRN's 0.1·ln(s) + 1 for s = 1.105, applied to q and k)."""
    return mscale * numpy_rotate_half(x, positions, base)


def torch_fp16_positions(x, positions, base=BASE):
    """precision (positions): position_ids.to(x.dtype) with the model in float16, the rest
    in float64: positions round to float16 (exact up to 2048, none past 65504)."""
    t = torch.from_numpy(positions).to(torch.float16).double()
    return torch_rotate_half(x, t.numpy(), base)


def numpy_partial_by_accident(x, positions, base=BASE, partial_rotary_factor=0.5):
    """frequencies (planes that never turn): inv_freq computed for a rotary dimension
    d·partial_rotary_factor and zero-padded to d/2 planes so that the table fits the head:
    planes d/4 .. d/2 - 1 keep the frequency 0 in a model that rotates the whole head."""
    d = x.shape[-1]
    rot = int(d * partial_rotary_factor)
    theta = np.pad(base ** (-np.arange(0, rot, 2) / d), (0, d // 2 - rot // 2))
    angle = np.repeat(positions[:, None] * theta, 2, axis=-1)
    rotated = np.stack([-x[:, 1::2], x[:, 0::2]], axis=-1).reshape(x.shape)
    return x * np.cos(angle) + rotated * np.sin(angle)


def torch_first_sequence_positions(x, positions, base=BASE):
    """positions (batch axes): q (batch, heads, seq, d), position_ids (batch, seq); the
    table is built from position_ids[0] alone, as if every sequence of the batch started
    where the first one does (wrong with left padding or packed batches)."""
    q = torch.from_numpy(x)
    pos = torch.from_numpy(positions)[0]
    freqs = pos.double()[:, None] * _hf_inv_freq(x.shape[-1], base)
    emb = torch.cat((freqs, freqs), dim=-1)
    return q * emb.cos() + _rotate_half(q) * emb.sin()


class DynamicCacheRebuilt(GrowingCache):
    """not_relative (state kept between calls): a dynamic NTK cache that, when a position
    passes the trained length, rebuilds the whole cache of angles with the larger base, so
    the positions already used (the keys in a KV cache) change their angles."""

    __name__ = "numpy_dynamic_cache_rebuilt"
    trained, factor = 4096, 2.0

    def rows(self, x, positions, base):
        d = x.shape[-1]
        needed = int(positions.max()) + 1
        if self.key != (d, base) or needed > len(self.angle):
            self.key = (d, base)
            if needed > self.trained:  # the base for the new length, for every position
                scale = (self.factor * needed / self.trained) - (self.factor - 1)
                base = base * scale ** (d / (d - 2))
            self.angle = np.empty((0, d // 2))
            self.extend(needed, d, base)
        return self.angle[positions]


def numpy_sin_off_by_one(x, positions, base=BASE):
    """not_orthogonal (no specific cause): cos read at positions and sin at positions + 1,
    an off-by-one in one of two cache lookups."""
    half = x.shape[-1] // 2
    theta = _theta(x.shape[-1], base)
    cos = np.cos(np.concatenate([positions[:, None] * theta] * 2, axis=-1))
    sin = np.sin(np.concatenate([(positions[:, None] + 1) * theta] * 2, axis=-1))
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
    return x * cos + rotated * sin


def torch_cos_sin_from_two_sources(x, positions, base=BASE):
    """not_orthogonal (no specific cause): cos from a degree table, sin from radians: sin
    of mθ_i, cos of mθ_i·180/π (torch.deg2rad applied to one table and not the other)."""
    x = torch.from_numpy(x)
    freqs = torch.from_numpy(positions).double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * torch.rad2deg(emb).cos() + _rotate_half(x) * emb.sin()


def _from_cos_sin(name: str, unsqueeze_dim: int, base: float = BASE):
    """A transformers-style producer and apply, joined as fn(x, positions) by ropelab's
    adapter (the one piece of ropelab in the zoo: the adapter is what chapter 3A shows).
    ``fn.with_base(b)`` is the same pair for another base."""
    from ropelab.diagnose import from_cos_sin

    rotary = HFStyleRotary(base)

    def apply(q, k, cos, sin):
        return hf_style_apply(q, k, cos, sin, unsqueeze_dim=unsqueeze_dim)

    fn = from_cos_sin(rotary, apply)
    fn.__name__ = name
    fn.with_base = lambda other: _from_cos_sin(name, unsqueeze_dim, other)
    return fn


#: transformers' pieces written out: right (unsqueeze_dim=1) and with the head axis
#: inserted after the sequence axis (unsqueeze_dim=2, the value for (batch, seq, heads, d)).
HF_STYLE = _from_cos_sin("hf_style_rotary_and_apply", 1)
HF_STYLE_UNSQUEEZE_2 = _from_cos_sin("hf_style_unsqueeze_dim_2", 2)


# ----------------------------------------------------------------------------- issue 38


def numpy_rotate_half_float32(x, positions, base=BASE):
    """Right in float32 (checked with dtype="float32"): the angles formed in float64, cos,
    sin and x cast to float32, the products in float32, a float32 array returned."""
    half = x.shape[-1] // 2
    angle = positions[:, None] * _theta(x.shape[-1], base)
    table = np.concatenate([angle, angle], axis=-1)
    cos, sin = np.cos(table).astype(np.float32), np.sin(table).astype(np.float32)
    x = x.astype(np.float32)
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
    return x * cos + rotated * sin


def torch_gptj_float32(x, positions, base=BASE):
    """Right in float32 (checked with dtype="float32"): GPT-J's rotate_every_two on a
    float32 tensor, sin and cos taken from float64 angles and cast to float32."""
    x = torch.from_numpy(x).float()
    freqs = torch.from_numpy(positions).double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    sin = freqs.sin().float().repeat_interleave(2, dim=-1)
    cos = freqs.cos().float().repeat_interleave(2, dim=-1)
    return x * cos + _rotate_every_two(x) * sin


def numpy_float32_input(x, positions, base=BASE):
    """unexplained: the input rounded to float32 (q.float() before the rotation), the rest
    in float64: every random row is off by about 2^-25, the unit vectors not at all."""
    return numpy_rotate_half(x.astype(np.float32).astype(np.float64), positions, base)


def torch_bf16_decode_cache(x, positions, base=BASE):
    """unexplained: the prompt path rotates in float64; the decode path (one row) reads a
    cos/sin cache stored in bfloat16 (a cache built with model.to(torch.bfloat16)), so a
    generated token is off by about 1e-3 and the prompt is exact."""
    t = torch.from_numpy(x)
    freqs = torch.from_numpy(positions).double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    if len(x) == 1:  # the decode step's cache lookup
        cos, sin = cos.to(torch.bfloat16).double(), sin.to(torch.bfloat16).double()
    return t * cos + _rotate_half(t) * sin


def torch_gptj_cos_sin_swapped(x, positions, base=BASE):
    """direction (cos and sin swapped): GPT-J's form with the two tables exchanged,
    x·sin + rotate_every_two(x)·cos: plane i turns by π/2 - mθ_i."""
    x = torch.from_numpy(x)
    freqs = torch.from_numpy(positions).double()[:, None] * _torch_inv_freq(x.shape[-1], base)
    sin = freqs.sin().repeat_interleave(2, dim=-1)
    cos = freqs.cos().repeat_interleave(2, dim=-1)
    return x * sin + _rotate_every_two(x) * cos


def numpy_rotate_half_cos_sin_swapped(x, positions, base=BASE):
    """direction (cos and sin swapped): x·sin + rotate_half(x)·cos."""
    half = x.shape[-1] // 2
    angle = positions[:, None] * _theta(x.shape[-1], base)
    table = np.concatenate([angle, angle], axis=-1)
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
    return x * np.sin(table) + rotated * np.cos(table)


def _k_from_q_apply(q, k, cos, sin):
    """apply_rotary_pos_emb with a typo: k's sin term rotates q, rotate_half(q)."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + _rotate_half(q) * sin, k * cos + _rotate_half(q) * sin


def _k_from_q(base: float = BASE):
    """pairing (not a rotation): the keys of ``_k_from_q_apply`` through ropelab's adapter,
    which gives q the input with its last axis reversed: coordinate r of k mixes with
    coordinate 31 - r, and the map's singular values run from near 0 to √2."""
    from ropelab.diagnose import from_cos_sin

    fn = from_cos_sin(HFStyleRotary(base), _k_from_q_apply, which="k")
    fn.__name__ = "hf_style_keys_from_rotated_query"
    fn.with_base = _k_from_q
    return fn


HF_STYLE_K_FROM_Q = _k_from_q()


# ----------------------------------------------------------------------------- the zoo


@dataclass(frozen=True)
class Case:
    """An implementation, the layout it declares, and the code it must get (None: OK)."""

    fn: Any
    layout: str
    code: str | None
    library: str
    batched: bool = False  # fn takes (batch, heads, seq, d) and positions (batch, seq)
    new: bool = False  # added for issue 24 (the calls and shapes of real code)
    dtype: str = "float64"  # what fn computes in: diagnose_rope(..., dtype=dtype)

    @property
    def name(self) -> str:
        return self.fn.__name__


CORRECT = [
    Case(numpy_pairwise, "interleaved", None, "numpy"),
    Case(numpy_rotate_half, "half", None, "numpy"),
    Case(numpy_complex, "interleaved", None, "numpy"),
    Case(numpy_dense, "half", None, "numpy"),
    Case(torch_rotate_half, "half", None, "torch"),
    Case(torch_complex, "interleaved", None, "torch"),
    Case(numpy_einsum_blocks, "interleaved", None, "numpy", new=True),
    Case(torch_gptj_rotate_every_two, "interleaved", None, "torch", new=True),
    Case(GrowingCache(), "half", None, "numpy", new=True),
    Case(torch_batched_rotate_half, "half", None, "torch", batched=True, new=True),
    Case(HF_STYLE, "half", None, "torch", batched=True, new=True),
    # issue 38: right in float32, checked at the float32 tolerance
    Case(numpy_rotate_half_float32, "half", None, "numpy", dtype="float32"),
    Case(torch_gptj_float32, "interleaved", None, "torch", dtype="float32"),
]

BROKEN = [
    Case(numpy_complex_unconverted, "interleaved", "shape", "numpy"),
    Case(torch_stack_unflattened, "interleaved", "shape", "torch"),
    Case(numpy_returns_input, "half", "identity", "numpy"),
    Case(torch_zero_positions, "half", "identity", "torch"),
    Case(numpy_pairwise, "half", "pairing", "numpy"),
    Case(torch_rotate_half, "interleaved", "pairing", "torch"),
    Case(torch_seed003, "half", "table_mismatch", "torch"),
    Case(numpy_repeat_table_rotate_half, "half", "table_mismatch", "numpy"),
    Case(numpy_rotate_half_wrong_sign, "half", "direction", "numpy"),
    Case(torch_complex_conjugate, "interleaved", "direction", "torch"),
    Case(numpy_exponent_i_over_d, "interleaved", "frequencies", "numpy"),
    Case(torch_missing_minus, "half", "frequencies", "torch"),
    Case(numpy_linspace_exponents, "half", "frequencies", "numpy"),
    Case(torch_wrong_base, "half", "frequencies", "torch"),
    Case(numpy_row_index_positions, "half", "positions", "numpy"),
    Case(torch_one_based, "half", "positions", "torch"),
    Case(numpy_clamped_cache, "half", "positions", "numpy"),
    Case(torch_bf16_angles, "half", "precision", "torch"),
    Case(numpy_fp16_angles, "interleaved", "precision", "numpy"),
    Case(torch_fp32_angles, "half", "precision", "torch"),
    Case(numpy_in_place, "half", "in_place", "numpy"),
    Case(torch_in_place, "interleaved", "in_place", "torch"),
    Case(numpy_dynamic_base, "half", "not_relative", "numpy"),
    Case(torch_dynamic_base, "interleaved", "not_relative", "torch"),
    Case(numpy_short_cache, "interleaved", "exception", "numpy"),
    Case(torch_numpy_positions, "half", "exception", "torch"),
    # issue 24: the calls, shapes and slips of code people write
    Case(numpy_decode_step_from_start, "half", "positions", "numpy", new=True),
    Case(torch_start_pos_slice, "interleaved", "positions", "torch", new=True),
    Case(GrowingCacheFromZero(), "half", "positions", "numpy", new=True),
    Case(torch_first_sequence_positions, "half", "positions", "torch", batched=True, new=True),
    Case(HF_STYLE_UNSQUEEZE_2, "half", "shape", "torch", batched=True, new=True),
    Case(numpy_per_coordinate_table, "half", "table_mismatch", "numpy", new=True),
    Case(torch_rotate_half_dropped_minus, "half", "direction", "torch", new=True),
    Case(torch_factor_on_cos_only, "half", "scale", "torch", new=True),
    Case(numpy_scaled_output, "half", "scale", "numpy", new=True),
    Case(torch_fp16_positions, "half", "precision", "torch", new=True),
    Case(numpy_partial_by_accident, "interleaved", "frequencies", "numpy", new=True),
    Case(DynamicCacheRebuilt(), "half", "not_relative", "numpy", new=True),
    Case(numpy_sin_off_by_one, "half", "not_orthogonal", "numpy", new=True),
    Case(torch_cos_sin_from_two_sources, "half", "not_orthogonal", "torch", new=True),
    # issue 38: a report never contradicts itself
    Case(numpy_float32_input, "half", "unexplained", "numpy"),
    Case(torch_bf16_decode_cache, "half", "unexplained", "torch"),
    Case(torch_gptj_cos_sin_swapped, "interleaved", "direction", "torch"),
    Case(numpy_rotate_half_cos_sin_swapped, "half", "direction", "numpy"),
    Case(HF_STYLE_K_FROM_Q, "half", "pairing", "torch", batched=True),
]
