r"""A tiny RoPE decoder in NumPy float64, with random weights, for chapter 8's demonstrations.

Questions such as "does the KV cache give the same logits as recomputing everything?" or
"do left padding and packing change the logits?" have exact answers that need no trained
model: the identities hold for every weight, so random ones (seeded) are enough, and in
float64 an identity shows as a difference of about 1e-15 while a real mismatch is of order
one.

The model is a standard pre-norm decoder:

.. math::
    \begin{aligned}
    x &\leftarrow x + \mathrm{Attn}(\mathrm{norm}(x)), \qquad
    x \leftarrow x + W_2\,\mathrm{silu}(W_1\,\mathrm{norm}(x)),\\
    \mathrm{logits} &= W_{\text{out}}\,\mathrm{norm}(x),
    \end{aligned}

with RMS normalisation without weights, grouped-query attention (``num_kv_heads`` key/value
heads shared by ``num_heads`` query heads) and RoPE on the queries and keys only. Scores
are :math:`q^\top k\,/\sqrt{d_h}`; masked entries get the most negative float64 (as
transformers does), so they receive exactly zero weight. Vectors are rows:
``x @ w.T`` applies :math:`W`.

The rotation is :func:`ropelab.core.apply_rope` with frequencies given by the caller, so the
same model runs plain RoPE, any context-extension method, or the frequencies of a cache
that was filled at another length. :mod:`ropelab.kv_cache`, :mod:`ropelab.packing` and
:mod:`ropelab.streaming` build on it. Explained in chapter 8 of the book.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_count, check_layout, check_positive
from .core import apply_rope, inv_freq

__all__ = [
    "NEG",
    "ToyDecoder",
    "ToyDecoderConfig",
    "attention_scores",
    "causal_mask_from_positions",
    "masked_softmax",
    "rms_norm",
]

#: The value added to masked scores: exp(NEG - max) underflows to exactly 0.
NEG = float(np.finfo(np.float64).min)


def rms_norm(x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    r""":math:`x / \sqrt{\overline{x^2} + \varepsilon}` over the last axis (no learned weight)."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)


def masked_softmax(scores: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """Softmax over the last axis; where ``mask`` is False the score is replaced by :data:`NEG`."""
    if mask is not None:
        scores = np.where(mask, scores, NEG)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    return weights / weights.sum(axis=-1, keepdims=True)


def causal_mask_from_positions(query_positions: Any, key_positions: Any) -> np.ndarray:
    """``mask[i, j] = key_positions[j] <= query_positions[i]``: a key at or before the query."""
    q = np.asarray(query_positions, dtype=np.float64)
    k = np.asarray(key_positions, dtype=np.float64)
    return k[None, :] <= q[:, None]


@dataclass(frozen=True)
class ToyDecoderConfig:
    """Sizes of a :class:`ToyDecoder`.

    Attributes:
        vocab_size: number of token ids.
        hidden_size: width of the residual stream.
        num_heads: query heads per layer.
        num_kv_heads: key/value heads per layer (divides ``num_heads``).
        head_dim: size of each head, even.
        num_layers: decoder layers.
        rotary_dim: rotated coordinates per head (partial rotary); ``None`` means all.
        base: the RoPE base used when the caller gives no frequencies.
        layout: ``"half"`` (transformers) or ``"interleaved"`` (RoFormer, Meta's Llama).
        seed: seed of the random weights.
    """

    vocab_size: int = 48
    hidden_size: int = 32
    num_heads: int = 4
    num_kv_heads: int = 2
    head_dim: int = 8
    num_layers: int = 2
    rotary_dim: int | None = None
    base: float = 10000.0
    layout: str = "half"
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("vocab_size", "hidden_size", "num_heads", "num_kv_heads", "num_layers"):
            check_count(getattr(self, name), name)
        head_dim = check_count(self.head_dim, "head_dim", minimum=2)
        if head_dim % 2:
            raise ValueError(f"head_dim must be even, got {head_dim}")
        if self.num_heads % self.num_kv_heads:
            raise ValueError(
                f"num_kv_heads must divide num_heads, got {self.num_kv_heads} and {self.num_heads}"
            )
        if self.rotary_dim is not None:
            rotary = check_count(self.rotary_dim, "rotary_dim", minimum=2)
            if rotary % 2 or rotary > head_dim:
                raise ValueError(
                    f"rotary_dim must be an even integer in [2, head_dim = {head_dim}], "
                    f"got {rotary}"
                )
        check_positive(self.base, "base")
        check_layout(self.layout)

    @property
    def rotary(self) -> int:
        """The rotated dimension: ``rotary_dim`` or ``head_dim``."""
        return self.head_dim if self.rotary_dim is None else self.rotary_dim


def attention_scores(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    num_heads: int,
    num_kv_heads: int,
    positions: Any,
    *,
    theta: np.ndarray,
    layout: str,
) -> np.ndarray:
    r"""Pre-softmax scores :math:`(R_m W_q x_m)^\top (R_n W_k x_n) / \sqrt{d_h}` of every head.

    Args:
        x: inputs ``(seq, hidden)``.
        w_q, w_k: projections ``(num_heads * d_h, hidden)`` and ``(num_kv_heads * d_h, hidden)``.
        num_heads, num_kv_heads: head counts (grouped-query attention when they differ).
        positions: ``(seq,)`` positions of the rows of ``x``.
        theta: rotation frequencies (``len(theta) * 2`` coordinates of each head rotate).
        layout: ``"half"`` or ``"interleaved"``.

    Returns:
        ``(num_heads, seq, seq)`` scores, no mask applied.
    """
    x = np.asarray(x, dtype=np.float64)
    head_dim = w_q.shape[0] // num_heads
    q = (x @ w_q.T).reshape(len(x), num_heads, head_dim).transpose(1, 0, 2)
    k = (x @ w_k.T).reshape(len(x), num_kv_heads, head_dim).transpose(1, 0, 2)
    q = apply_rope(q, positions, inv_freq=theta, layout=layout)
    k = apply_rope(k, positions, inv_freq=theta, layout=layout)
    k = np.repeat(k, num_heads // num_kv_heads, axis=0)
    return q @ k.transpose(0, 2, 1) / np.sqrt(head_dim)


class ToyDecoder:
    """A seeded random-weight RoPE decoder (see the module docstring).

    The weights live in :attr:`weights`: ``embed`` ``(V, H)``, ``out`` ``(V, H)`` and, per
    layer, ``wq``, ``wk``, ``wv``, ``wo``, ``w1``, ``w2``. They are drawn with standard
    deviation :math:`1/\\sqrt{\\text{fan-in}}` (queries and keys three times larger, so that
    attention is far from uniform and position matters).
    """

    def __init__(self, config: ToyDecoderConfig | None = None) -> None:
        self.config = config = config or ToyDecoderConfig()
        rng = np.random.default_rng(config.seed)
        h, d = config.hidden_size, config.head_dim

        def draw(rows: int, cols: int, scale: float = 1.0) -> np.ndarray:
            return rng.standard_normal((rows, cols)) * scale / np.sqrt(cols)

        self.weights: dict[str, Any] = {
            "embed": rng.standard_normal((config.vocab_size, h)),
            "out": draw(config.vocab_size, h),
            "layers": [
                {
                    "wq": draw(config.num_heads * d, h, 3.0),
                    "wk": draw(config.num_kv_heads * d, h, 3.0),
                    "wv": draw(config.num_kv_heads * d, h),
                    "wo": draw(h, config.num_heads * d),
                    "w1": draw(4 * h, h),
                    "w2": draw(h, 4 * h),
                }
                for _ in range(config.num_layers)
            ],
        }

    # -- pieces ------------------------------------------------------------------------------

    def default_theta(self) -> np.ndarray:
        """Plain RoPE frequencies for the rotated part of a head."""
        return inv_freq(self.config.rotary, self.config.base)

    def _split(self, y: np.ndarray, heads: int) -> np.ndarray:
        """``(seq, heads * d)`` -> ``(heads, seq, d)``."""
        return y.reshape(len(y), heads, self.config.head_dim).transpose(1, 0, 2)

    def qkv(self, h: np.ndarray, layer: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unrotated ``q (heads, seq, d)``, ``k`` and ``v`` ``(kv_heads, seq, d)`` of a layer."""
        w = self.weights["layers"][layer]
        c = self.config
        return (
            self._split(h @ w["wq"].T, c.num_heads),
            self._split(h @ w["wk"].T, c.num_kv_heads),
            self._split(h @ w["wv"].T, c.num_kv_heads),
        )

    def rotate(
        self, x: np.ndarray, positions: Any, theta: np.ndarray, attention_factor: float = 1.0
    ) -> np.ndarray:
        """RoPE on ``(heads, seq, d)`` at ``positions`` ``(seq,)`` with frequencies ``theta``."""
        return apply_rope(
            x,
            positions,
            inv_freq=theta,
            layout=self.config.layout,
            attention_factor=attention_factor,
        )

    def attend(
        self,
        q: np.ndarray,
        k: np.ndarray,
        v: np.ndarray,
        mask: np.ndarray | None,
        layer: int,
        *,
        return_weights: bool = False,
    ) -> Any:
        """Attention of rotated ``q`` over rotated ``k`` and ``v``, projected by ``wo``.

        ``mask`` is ``(q_len, k_len)`` (True: may attend). Returns ``(q_len, hidden)``, and
        the weights ``(heads, q_len, k_len)`` too if ``return_weights``.
        """
        c = self.config
        group = c.num_heads // c.num_kv_heads
        k = np.repeat(k, group, axis=0)
        v = np.repeat(v, group, axis=0)
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(c.head_dim)
        weights = masked_softmax(scores, None if mask is None else mask[None])
        out = (weights @ v).transpose(1, 0, 2).reshape(q.shape[1], -1)
        out = out @ self.weights["layers"][layer]["wo"].T
        return (out, weights) if return_weights else out

    def mlp(self, x: np.ndarray, layer: int) -> np.ndarray:
        """The feed-forward block :math:`W_2\\,\\mathrm{silu}(W_1 x)`."""
        w = self.weights["layers"][layer]
        a = x @ w["w1"].T
        return (a / (1.0 + np.exp(-a))) @ w["w2"].T

    def embed(self, tokens: Any) -> np.ndarray:
        tokens = np.asarray(tokens)
        if tokens.ndim != 1 or tokens.size == 0:
            raise ValueError(f"tokens must be a non-empty 1-d sequence, got shape {tokens.shape}")
        if tokens.min() < 0 or tokens.max() >= self.config.vocab_size:
            raise ValueError(
                f"tokens must be ids in [0, {self.config.vocab_size - 1}], got "
                f"{tokens.min()}..{tokens.max()}"
            )
        return self.weights["embed"][tokens].astype(np.float64)

    def unembed(self, x: np.ndarray) -> np.ndarray:
        return rms_norm(x) @ self.weights["out"].T

    # -- full forward ------------------------------------------------------------------------

    def logits(
        self,
        tokens: Any,
        position_ids: Any = None,
        mask: np.ndarray | None = None,
        *,
        theta: np.ndarray | None = None,
        attention_factor: float = 1.0,
    ) -> np.ndarray:
        """Logits ``(seq, vocab)`` of one sequence, every position at once (no cache).

        Args:
            tokens: ``(seq,)`` token ids.
            position_ids: ``(seq,)`` positions; default ``0 .. seq-1``.
            mask: ``(seq, seq)`` booleans, True where query *i* may attend to key *j*;
                default causal by position (:func:`causal_mask_from_positions`).
            theta: rotation frequencies; default :meth:`default_theta`.
            attention_factor: scale of cos and sin (YaRN, LongRoPE).
        """
        x = self.embed(tokens)
        seq = len(x)
        positions = np.arange(seq) if position_ids is None else np.asarray(position_ids)
        if positions.shape != (seq,):
            raise ValueError(f"position_ids must have shape ({seq},), got {positions.shape}")
        if mask is None:
            mask = causal_mask_from_positions(positions, positions)
        elif np.shape(mask) != (seq, seq):
            raise ValueError(f"mask must have shape ({seq}, {seq}), got {np.shape(mask)}")
        theta = self.default_theta() if theta is None else np.asarray(theta, dtype=np.float64)
        for layer in range(self.config.num_layers):
            q, k, v = self.qkv(rms_norm(x), layer)
            q = self.rotate(q, positions, theta, attention_factor)
            k = self.rotate(k, positions, theta, attention_factor)
            x = x + self.attend(q, k, v, mask, layer)
            x = x + self.mlp(rms_norm(x), layer)
        return self.unembed(x)
