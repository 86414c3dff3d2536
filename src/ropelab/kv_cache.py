r"""The KV cache under RoPE, and why dynamic NTK scaling breaks it (chapter 8).

A decoder generating token :math:`t` needs the keys and values of tokens :math:`0..t-1`.
They do not change from one step to the next, so inference engines compute each once and
*cache* it. Under RoPE the cached key of token *n* is usually stored already rotated,
:math:`R_{\Theta,n} k_n`, so that a new query only needs its own rotation
:math:`R_{\Theta,t} q_t`:

.. math::
    (R_{\Theta,t} q_t)^\top (R_{\Theta,n} k_n) = q_t^\top R_{\Theta,n-t}\, k_n .

That is exact as long as :math:`\Theta` is the same at every step. Dynamic NTK scaling
changes it: the base grows with the current length *L* once *L* exceeds
``max_position_embeddings`` (:func:`ropelab.rope_config.dynamic_ntk_base`). Recomputing the
whole sequence rotates every key with :math:`\Theta(L)`; a cache holds keys rotated with
the :math:`\Theta` of the step that wrote them, so cached decoding and recomputation give
different logits (transformers issue #25104). Two fixes restore the equality: cache the
keys *unrotated* and rotate them with the current :math:`\Theta` at every step (the fix
GPT-NeoX adopted, at the cost of rotating the whole cache each step), or use a *fixed*
scaling whose frequencies do not depend on the length (as vLLM does for dynamic NTK).

Everything here runs on :class:`ropelab.toy_decoder.ToyDecoder` in float64. Explained in
chapter 8 of the book.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._checks import check_count, check_positive
from .core import inv_freq
from .rope_config import dynamic_ntk_base
from .toy_decoder import ToyDecoder, causal_mask_from_positions, rms_norm

__all__ = [
    "Frequencies",
    "KVCache",
    "cached_logits",
    "decode_step",
    "dynamic_ntk_frequencies",
    "fixed_frequencies",
    "recomputed_logits",
]

#: A rule giving the rotation frequencies and attention factor at a sequence length.
Frequencies = Callable[[int], tuple[np.ndarray, float]]


def fixed_frequencies(theta: Any, attention_factor: float = 1.0) -> Frequencies:
    """Frequencies that do not depend on the length (plain RoPE or any static scaling)."""
    theta = np.asarray(theta, dtype=np.float64)
    factor = check_positive(attention_factor, "attention_factor")
    return lambda length: (theta, factor)


def dynamic_ntk_frequencies(
    rotary_dim: int, base: float, factor: float, max_position_embeddings: int
) -> Frequencies:
    r"""Dynamic NTK frequencies at length *L*: base :math:`\beta'(L)` of
    :func:`ropelab.rope_config.dynamic_ntk_base`, unchanged up to ``max_position_embeddings``.

    transformers evaluates the rule at ``L = max(position_ids) + 1`` in every forward pass;
    the returned function does the same for the length it is given.
    """
    check_count(max_position_embeddings, "max_position_embeddings")

    def frequencies(length: int) -> tuple[np.ndarray, float]:
        new_base = dynamic_ntk_base(base, rotary_dim, factor, length, max_position_embeddings)
        return inv_freq(rotary_dim, new_base), 1.0

    return frequencies


class KVCache:
    """Keys, values and positions of every layer, stored rotated or unrotated.

    Attributes:
        rotated: True to store keys already rotated (with the frequencies of the step that
            wrote them); False to store them unrotated and rotate all of them with the
            current frequencies whenever they are read.
        keys, values: per layer, ``(kv_heads, n, head_dim)`` arrays (``None`` when empty).
        positions: per layer, ``(n,)`` positions of the cached tokens.
    """

    def __init__(self, num_layers: int, *, rotated: bool = True) -> None:
        num_layers = check_count(num_layers, "num_layers")
        self.rotated = bool(rotated)
        self.keys: list[np.ndarray | None] = [None] * num_layers
        self.values: list[np.ndarray | None] = [None] * num_layers
        self.positions: list[np.ndarray] = [np.zeros(0) for _ in range(num_layers)]

    def __len__(self) -> int:
        return len(self.positions[0])

    def append(self, layer: int, k: np.ndarray, v: np.ndarray, positions: np.ndarray) -> None:
        """Add the keys ``k``, values ``v`` ``(kv_heads, n, d)`` of tokens at ``positions``."""
        if self.keys[layer] is None:
            self.keys[layer], self.values[layer] = k, v
        else:
            self.keys[layer] = np.concatenate([self.keys[layer], k], axis=1)
            self.values[layer] = np.concatenate([self.values[layer], v], axis=1)
        self.positions[layer] = np.concatenate([self.positions[layer], positions])


def decode_step(
    model: ToyDecoder,
    tokens: Any,
    positions: Any,
    cache: KVCache,
    *,
    theta: np.ndarray,
    attention_factor: float = 1.0,
) -> np.ndarray:
    """Run new tokens through the model against the cache, and add them to it.

    The new queries (and, for a rotated cache, the new keys) are rotated with ``theta``.
    An unrotated cache rotates *all* its keys with ``theta`` at their stored positions.
    Each new token attends to cached tokens and to new tokens at or before its position.

    Returns:
        logits ``(len(tokens), vocab)`` of the new tokens.
    """
    x = model.embed(tokens)
    positions = np.asarray(positions, dtype=np.float64)
    theta = np.asarray(theta, dtype=np.float64)
    for layer in range(model.config.num_layers):
        q, k, v = model.qkv(rms_norm(x), layer)
        q = model.rotate(q, positions, theta, attention_factor)
        if cache.rotated:
            cache.append(layer, model.rotate(k, positions, theta, attention_factor), v, positions)
            keys = cache.keys[layer]
        else:
            cache.append(layer, k, v, positions)
            keys = model.rotate(cache.keys[layer], cache.positions[layer], theta, attention_factor)
        mask = causal_mask_from_positions(positions, cache.positions[layer])
        x = x + model.attend(q, keys, cache.values[layer], mask, layer)
        x = x + model.mlp(rms_norm(x), layer)
    return model.unembed(x)


def _check_prompt(tokens: Any, prompt_len: Any) -> tuple[np.ndarray, int]:
    tokens = np.asarray(tokens)
    prompt_len = check_count(prompt_len, "prompt_len")
    if prompt_len > len(tokens):
        raise ValueError(
            f"prompt_len must be <= the number of tokens ({len(tokens)}), got {prompt_len}"
        )
    return tokens, prompt_len


def cached_logits(
    model: ToyDecoder,
    tokens: Any,
    prompt_len: int,
    frequencies: Frequencies,
    *,
    rotated: bool = True,
) -> np.ndarray:
    """Logits of decoding ``tokens`` with a KV cache, given the continuation (teacher forcing).

    The first ``prompt_len`` tokens are processed in one pass (the prefill); every later
    token is one :func:`decode_step`. At each step the frequencies are
    ``frequencies(L)`` for the sequence length *L* reached at that step.

    Returns:
        ``(len(tokens) - prompt_len + 1, vocab)``: the logits at positions
        ``prompt_len - 1, ..., len(tokens) - 1``.
    """
    tokens, prompt_len = _check_prompt(tokens, prompt_len)
    cache = KVCache(model.config.num_layers, rotated=rotated)
    theta, factor = frequencies(prompt_len)
    rows = [
        decode_step(
            model,
            tokens[:prompt_len],
            np.arange(prompt_len),
            cache,
            theta=theta,
            attention_factor=factor,
        )[-1]
    ]
    for t in range(prompt_len, len(tokens)):
        theta, factor = frequencies(t + 1)
        rows.append(
            decode_step(model, tokens[t : t + 1], [t], cache, theta=theta, attention_factor=factor)[
                0
            ]
        )
    return np.stack(rows)


def recomputed_logits(
    model: ToyDecoder, tokens: Any, prompt_len: int, frequencies: Frequencies
) -> np.ndarray:
    """The same rows as :func:`cached_logits`, each from a full pass over the prefix.

    Row *j* is the last row of ``model.logits(tokens[:L], theta=frequencies(L))`` with
    ``L = prompt_len + j``: what generation without a cache computes.
    """
    tokens, prompt_len = _check_prompt(tokens, prompt_len)
    rows = []
    for length in range(prompt_len, len(tokens) + 1):
        theta, factor = frequencies(length)
        rows.append(model.logits(tokens[:length], theta=theta, attention_factor=factor)[-1])
    return np.stack(rows)
