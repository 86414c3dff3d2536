"""ropelab.streaming: attention sinks with positions taken as indices within the cache."""

from __future__ import annotations

import numpy as np
import pytest

from ropelab.streaming import SinkCache, stream, streaming_step
from ropelab.toy_decoder import ToyDecoder, ToyDecoderConfig

TOL = 1e-12


def tokens(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 48, n)


def test_distances_stay_below_the_cache_size():
    model = ToyDecoder(ToyDecoderConfig(num_layers=2, seed=31))
    toks = tokens(60)
    by_cache = stream(model, toks, num_sinks=4, window=12)
    by_stream = stream(model, toks, num_sinks=4, window=12, positions="stream")
    np.testing.assert_array_equal(by_cache.max_distance, np.minimum(np.arange(60), 15))
    np.testing.assert_array_equal(by_stream.max_distance, np.arange(60))
    # identical until the first eviction, different after it
    np.testing.assert_allclose(by_cache.logits[:16], by_stream.logits[:16], rtol=0, atol=TOL * 10)
    assert np.abs(by_cache.logits[16:] - by_stream.logits[16:]).max(axis=1).min() > 1e-4


def test_before_eviction_streaming_is_ordinary_decoding():
    model = ToyDecoder(ToyDecoderConfig(num_layers=3, seed=32))
    toks = tokens(10, 1)
    result = stream(model, toks, num_sinks=2, window=20)
    full = model.logits(toks)
    np.testing.assert_allclose(result.logits, full, rtol=0, atol=TOL * np.abs(full).max())


def test_one_layer_stream_equals_a_fresh_pass_over_the_kept_tokens():
    """With one layer, cached keys depend only on their tokens, so every step must equal a
    pass over [sinks + window] at positions 0..n-1, the re-rotation StreamingLLM prescribes."""
    model = ToyDecoder(ToyDecoderConfig(num_layers=1, seed=33))
    toks = tokens(40, 2)
    sinks, window = 3, 8
    result = stream(model, toks, num_sinks=sinks, window=window)
    for t in range(len(toks)):
        kept = list(range(t + 1))
        if len(kept) > sinks + window:
            kept = kept[:sinks] + kept[-window:]
        fresh = model.logits(toks[kept])[-1]
        np.testing.assert_allclose(result.logits[t], fresh, rtol=0, atol=TOL * np.abs(fresh).max())


def test_cache_keeps_the_sinks_and_the_window():
    model = ToyDecoder(ToyDecoderConfig(num_layers=1, seed=34))
    cache = SinkCache(1, num_sinks=2, window=3)
    for t, token in enumerate(tokens(9, 3)):
        streaming_step(model, int(token), t, cache, theta=model.default_theta())
    np.testing.assert_array_equal(cache.stream_positions, [0, 1, 6, 7, 8])
    assert cache.keys[0].shape[1] == cache.capacity == 5


def test_bad_input_names_the_argument():
    model = ToyDecoder()
    with pytest.raises(ValueError, match="positions must be one of"):
        stream(model, [1, 2], 1, 2, positions="absolute")
    with pytest.raises(ValueError, match="num_sinks must be an integer >= 0"):
        SinkCache(1, -1, 4)
    with pytest.raises(ValueError, match="window must be an integer >= 1"):
        SinkCache(1, 1, 0)
