"""ropelab.toy_decoder: the random-weight RoPE decoder of chapter 8, against a plain loop.

The reference recomputes the logits one query at a time with dense rotation matrices
(ropelab.core.rotation_matrix, itself checked against SymPy and transformers elsewhere) and
an explicit softmax, so that vectorisation, masking, grouped-query attention and partial
rotary embedding are each checked against a second implementation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ropelab.core import rotation_matrix
from ropelab.toy_decoder import (
    ToyDecoder,
    ToyDecoderConfig,
    attention_scores,
    causal_mask_from_positions,
    masked_softmax,
)


def loop_logits(model: ToyDecoder, tokens, positions, mask) -> np.ndarray:
    c = model.config
    w = model.weights
    d, r = c.head_dim, c.rotary
    group = c.num_heads // c.num_kv_heads

    def norm(v):
        return v / math.sqrt(float(np.mean(v * v)) + 1e-6)

    def rot(vec, m):
        out = vec.copy()
        out[:r] = rotation_matrix(m, r, c.base, c.layout) @ vec[:r]
        return out

    x = [w["embed"][t].astype(float) for t in tokens]
    for layer in w["layers"]:
        h = [norm(v) for v in x]
        new = []
        for i in range(len(x)):
            heads = []
            for hq in range(c.num_heads):
                hk = hq // group
                q = rot(layer["wq"][hq * d : (hq + 1) * d] @ h[i], positions[i])
                scores, values = [], []
                for j in range(len(x)):
                    if mask[i][j]:
                        k = rot(layer["wk"][hk * d : (hk + 1) * d] @ h[j], positions[j])
                        scores.append(q @ k / math.sqrt(d))
                        values.append(layer["wv"][hk * d : (hk + 1) * d] @ h[j])
                scores = np.array(scores)
                weights = np.exp(scores - scores.max())
                weights /= weights.sum()
                heads.append(sum(wt * v for wt, v in zip(weights, values, strict=True)))
            new.append(x[i] + layer["wo"] @ np.concatenate(heads))
        x = []
        for v in new:
            a = layer["w1"] @ norm(v)
            x.append(v + layer["w2"] @ (a / (1 + np.exp(-a))))
    return np.array([w["out"] @ norm(v) for v in x])


@pytest.mark.parametrize(
    "config",
    [
        ToyDecoderConfig(num_layers=2, seed=1),
        ToyDecoderConfig(num_layers=1, num_heads=4, num_kv_heads=1, rotary_dim=4, seed=2),
        ToyDecoderConfig(num_layers=1, layout="interleaved", head_dim=6, seed=3),
    ],
    ids=["gqa", "mqa-partial", "interleaved"],
)
def test_logits_match_a_loop_with_rotation_matrices(config):
    model = ToyDecoder(config)
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, config.vocab_size, 7)
    positions = np.array([0, 1, 2, 5, 9, 30, 31])
    mask = causal_mask_from_positions(positions, positions)
    mask[5, 2] = False  # a hole, to exercise an arbitrary mask
    ours = model.logits(tokens, positions, mask)
    theirs = loop_logits(model, tokens, positions, mask)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12 * np.abs(theirs).max())


def test_causal_by_default_and_seeded():
    model = ToyDecoder(ToyDecoderConfig(seed=4))
    tokens = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    changed = tokens.copy()
    changed[-1] = 7
    a, b = model.logits(tokens), model.logits(changed)
    np.testing.assert_array_equal(a[:-1], b[:-1])
    assert np.abs(a[-1] - b[-1]).max() > 1e-3
    np.testing.assert_array_equal(ToyDecoder(ToyDecoderConfig(seed=4)).logits(tokens), a)


def test_masked_entries_get_exactly_zero_weight():
    scores = np.array([[1.0, 50.0, -3.0]])
    weights = masked_softmax(scores, np.array([[True, False, True]]))
    assert weights[0, 1] == 0.0
    np.testing.assert_allclose(weights[0, [0, 2]], np.exp([1.0, -3.0]) / np.exp([1.0, -3.0]).sum())


def test_attention_scores_depend_only_on_position_differences():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((5, 12))
    wq, wk = rng.standard_normal((16, 12)), rng.standard_normal((8, 12))
    theta = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    s0 = attention_scores(x, wq, wk, 2, 1, np.arange(5), theta=theta, layout="half")
    s1 = attention_scores(x, wq, wk, 2, 1, np.arange(5) + 1000, theta=theta, layout="half")
    np.testing.assert_allclose(s1, s0, rtol=0, atol=1e-10 * np.abs(s0).max())
    assert s0.shape == (2, 5, 5)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"head_dim": 7}, "head_dim must be even"),
        ({"num_heads": 4, "num_kv_heads": 3}, "num_kv_heads must divide num_heads"),
        ({"rotary_dim": 10}, "rotary_dim must be an even integer"),
        ({"layout": "split"}, "layout must be one of"),
        ({"vocab_size": 0}, "vocab_size must be an integer >= 1"),
    ],
)
def test_bad_config_names_the_field(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ToyDecoderConfig(**kwargs)


def test_bad_tokens_and_shapes():
    model = ToyDecoder()
    with pytest.raises(ValueError, match="tokens must be ids in"):
        model.logits([0, 99])
    with pytest.raises(ValueError, match="position_ids must have shape"):
        model.logits([0, 1], position_ids=[0])
    with pytest.raises(ValueError, match="mask must have shape"):
        model.logits([0, 1], mask=np.ones((3, 3), dtype=bool))
