r"""Streaming generation with attention sinks, StreamingLLM-style (chapter 8).

A model trained on :math:`L` tokens can generate for ever with a fixed-size cache if it keeps
the first :math:`g` tokens (the *attention sinks*, which receive large attention weights
whatever their content) and a rolling window of the :math:`w` most recent ones
(Xiao et al. 2023, "Efficient Streaming Language Models with Attention Sinks", arXiv
2309.17453). The positions RoPE sees are the *indices within the cache*,
not the positions in the stream: the cached tokens get positions :math:`0, \dots, n-1` and
the new query :math:`n - 1`, so no relative distance ever exceeds :math:`g + w - 1`, inside
the trained range when :math:`g + w \le L`.

When a token leaves the window, every later token moves one index down, so a key stored
rotated would carry a stale position. StreamingLLM therefore caches keys *unrotated* and
rotates them at their current index at every step (the ``SinkCache`` of transformers 4
did the same by re-rotating rotated keys by the shift). The alternative, rotating each key once at its
position in the stream, lets the distance between the query and the sinks grow without
bound.

Runs on :class:`ropelab.toy_decoder.ToyDecoder`. Explained in chapter 8 of the book.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_count
from .toy_decoder import ToyDecoder, rms_norm

__all__ = ["SinkCache", "StreamResult", "stream", "streaming_step"]

_POSITION_RULES = ("cache", "stream")


class SinkCache:
    """Unrotated keys and values of the sinks and the window, with their stream positions.

    Attributes:
        num_sinks: tokens kept from the start of the stream (*g*).
        window: most recent tokens kept (*w*), the new one included.
        keys, values: per layer ``(kv_heads, n, d)`` arrays, unrotated.
        stream_positions: ``(n,)`` positions in the stream of the cached tokens.
    """

    def __init__(self, num_layers: int, num_sinks: int, window: int) -> None:
        self.num_layers = check_count(num_layers, "num_layers")
        self.num_sinks = check_count(num_sinks, "num_sinks", minimum=0)
        self.window = check_count(window, "window")
        self.keys: list[np.ndarray | None] = [None] * self.num_layers
        self.values: list[np.ndarray | None] = [None] * self.num_layers
        self.stream_positions = np.zeros(0, dtype=np.int64)

    @property
    def capacity(self) -> int:
        """``num_sinks + window``: the most tokens the cache holds."""
        return self.num_sinks + self.window

    def __len__(self) -> int:
        return len(self.stream_positions)

    def _kept(self, n: int) -> np.ndarray:
        """Indices kept out of ``n`` cached entries: the sinks, then the last ``window``."""
        if n <= self.capacity:
            return np.arange(n)
        return np.concatenate([np.arange(self.num_sinks), np.arange(n - self.window, n)])

    def add(self, layer: int, k: np.ndarray, v: np.ndarray) -> None:
        """Append one token's unrotated key and value to a layer, then evict."""
        if self.keys[layer] is None:
            keys, values = k, v
        else:
            keys = np.concatenate([self.keys[layer], k], axis=1)
            values = np.concatenate([self.values[layer], v], axis=1)
        kept = self._kept(keys.shape[1])
        self.keys[layer], self.values[layer] = keys[:, kept], values[:, kept]

    def add_position(self, position: int) -> None:
        """Record the stream position of the token just added to every layer."""
        positions = np.append(self.stream_positions, position)
        self.stream_positions = positions[self._kept(len(positions))]


def streaming_step(
    model: ToyDecoder,
    token: int,
    position: int,
    cache: SinkCache,
    *,
    theta: np.ndarray,
    positions: str = "cache",
) -> tuple[np.ndarray, int]:
    """Generate one step: the new token attends to the sinks, the window and itself.

    Args:
        model: the decoder.
        token: the new token id.
        position: its position in the stream.
        cache: the sink cache (updated in place).
        theta: rotation frequencies.
        positions: ``"cache"`` to rotate by the index within the cache (StreamingLLM), or
            ``"stream"`` to rotate by the position in the stream.

    Returns:
        ``(logits (vocab,), largest query-key distance used in this step)``.
    """
    if positions not in _POSITION_RULES:
        raise ValueError(f"positions must be one of {_POSITION_RULES}, got {positions!r}")
    x = model.embed([token])
    cache.add_position(position)
    if positions == "cache":
        key_positions = np.arange(len(cache), dtype=np.float64)
    else:
        key_positions = cache.stream_positions.astype(np.float64)
    query_position = key_positions[-1:]
    for layer in range(model.config.num_layers):
        q, k, v = model.qkv(rms_norm(x), layer)
        cache.add(layer, k, v)
        q = model.rotate(q, query_position, theta)
        keys = model.rotate(cache.keys[layer], key_positions, theta)
        x = x + model.attend(q, keys, cache.values[layer], None, layer)
        x = x + model.mlp(rms_norm(x), layer)
    distance = int(query_position[0] - key_positions.min())
    return model.unembed(x)[0], distance


@dataclass(frozen=True)
class StreamResult:
    """Logits of every step of a stream and the largest distance each step used."""

    logits: np.ndarray
    max_distance: np.ndarray


def stream(
    model: ToyDecoder,
    tokens: Any,
    num_sinks: int,
    window: int,
    *,
    theta: np.ndarray | None = None,
    positions: str = "cache",
) -> StreamResult:
    """Feed ``tokens`` one at a time through a :class:`SinkCache` (see :func:`streaming_step`)."""
    tokens = np.asarray(tokens)
    theta = model.default_theta() if theta is None else np.asarray(theta, dtype=np.float64)
    cache = SinkCache(model.config.num_layers, num_sinks, window)
    logits, distances = [], []
    for t, token in enumerate(tokens):
        row, distance = streaming_step(
            model, int(token), t, cache, theta=theta, positions=positions
        )
        logits.append(row)
        distances.append(distance)
    return StreamResult(np.stack(logits), np.asarray(distances))
