"""Planted wrong solution of ps2: rope_half turns by -m theta.

The reference with one mistake a student makes (tests/test_assignments.py
checks that the grader fails it with a message naming the mistake).
"""

from __future__ import annotations

import numpy as np

STUDENT_ID = None  # the reference passes for every sheet


def inv_freq(dim: int, base: float) -> np.ndarray:
    """theta_i = base^(-2i/dim) for i = 0 ... dim/2 - 1, in float64."""
    return 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)


def _angles(positions, dim: int, base: float) -> np.ndarray:
    positions = np.asarray(positions, dtype=np.float64)
    return positions[:, None] * inv_freq(dim, base)[None, :]


def rope_half(x, positions, base: float) -> np.ndarray:
    """Rotate pairs (i, i + d/2) of x (..., seq, d) at ``positions`` (seq,)."""
    x = np.asarray(x, dtype=np.float64)
    half = x.shape[-1] // 2
    angles = _angles(positions, x.shape[-1], base)
    cos, sin = np.cos(angles), np.sin(angles)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos + x2 * sin, x2 * cos - x1 * sin], -1)


def rope_interleaved(x, positions, base: float) -> np.ndarray:
    """Rotate pairs (2i, 2i + 1) of x (..., seq, d) at ``positions``."""
    x = np.asarray(x, dtype=np.float64)
    angles = _angles(positions, x.shape[-1], base)
    cos, sin = np.cos(angles), np.sin(angles)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = x1 * cos - x2 * sin
    out[..., 1::2] = x2 * cos + x1 * sin
    return out


def prefill(k, v, base: float) -> dict[str, np.ndarray]:
    """The cache of a prompt: keys (heads, t, d) rotated at 0 ... t - 1."""
    k = np.asarray(k, dtype=np.float64)
    positions = np.arange(k.shape[-2])
    return {
        "k": rope_half(k, positions, base),
        "v": np.array(v, dtype=np.float64),
    }


def decode_step(q, k, v, cache: dict, base: float):
    """One new token (q, k, v of shape (heads, d)) after ``cache``."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    position = np.array([cache["k"].shape[-2]])  # t tokens: 0 ... t - 1
    q_rot = rope_half(q[:, None, :], position, base)[:, 0, :]
    k_rot = rope_half(k[:, None, :], position, base)
    keys = np.concatenate([cache["k"], k_rot], axis=-2)
    values = np.concatenate([cache["v"], v[:, None, :]], axis=-2)
    scores = np.einsum("hd,htd->ht", q_rot, keys) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    out = np.einsum("ht,htd->hd", weights, values)
    return out, {"k": keys, "v": values}
