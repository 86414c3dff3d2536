"""Chapter 9's plane norms of the lab's committed pre-trained model, recomputed by hand.

Before the first attention the residual stream holds only the token embedding, so the first
layer's query of a token is W_q LN(E[v]) for its character v alone. The test builds that
query for every character from the weights (no forward pass), pairs coordinates (i, i + 16)
as the half-split layout does, weights each character by how often it occurs in the
chapter's 16 validation windows, and compares with ``qk_plane_norms``, which runs the model
and measures the rotated queries. It then checks the chapter's reading on these
hand-computed norms: the eight slow planes (wavelengths beyond 600 tokens) hold a small
share of the first layer's query norm, and plane 6 the largest.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ropelab.frequency_usage import qk_plane_norms
from ropelab.lab.corpus import load_corpus
from ropelab.lab.evaluate import window_starts
from ropelab.lab.experiment import full_plan
from ropelab.lab.store import load_compact

WINDOW = 128  # the lab's training length, as in chapter 9
N_WINDOWS = 16


@pytest.fixture(scope="module")
def pretrained():
    torch.set_num_threads(1)
    model = load_compact("pretrain")
    val = torch.from_numpy(load_corpus(full_plan().corpus).val)
    starts = window_starts(val.numel(), WINDOW, N_WINDOWS)
    tokens = torch.stack([val[s : s + WINDOW] for s in starts]).long()
    return model, tokens


def _layer0_query_plane_norms_by_hand(model, tokens) -> np.ndarray:
    """(n_head, 16) mean plane norms of layer 0's queries, from the weights."""
    config = model.config
    block = model.blocks[0]
    emb = model.tok_emb.weight.detach().double().numpy()  # (V, C)
    ln = block.ln1
    mu = emb.mean(axis=1, keepdims=True)
    var = emb.var(axis=1, keepdims=True)
    normed = (emb - mu) / np.sqrt(var + ln.eps)
    normed = normed * ln.weight.detach().double().numpy() + ln.bias.detach().double().numpy()
    w = block.attn.q_proj.weight.detach().double().numpy()  # (H*hd, C)
    q = normed @ w.T  # (V, H*hd)
    if block.attn.q_proj.bias is not None:
        q = q + block.attn.q_proj.bias.detach().double().numpy()
    half = config.head_dim // 2
    q = q.reshape(config.vocab_size, config.n_head, config.head_dim)
    norms = np.sqrt(q[..., :half] ** 2 + q[..., half:] ** 2)  # (V, H, 16)
    counts = np.bincount(tokens.numpy().ravel(), minlength=config.vocab_size)
    return np.tensordot(counts, norms, axes=1) / counts.sum()  # (H, 16)


def test_layer0_query_norms_match_the_running_model(pretrained):
    model, tokens = pretrained
    by_hand = _layer0_query_plane_norms_by_hand(model, tokens)
    measured = qk_plane_norms(model, tokens).q[0]  # (H, 16)
    np.testing.assert_allclose(measured, by_hand, rtol=1e-5, atol=1e-6)


def test_pretrained_model_neglects_its_slow_planes_in_layer0(pretrained):
    model, tokens = pretrained
    mean = _layer0_query_plane_norms_by_hand(model, tokens).mean(axis=0)  # (16,)
    share = mean**2 / np.sum(mean**2)
    wavelengths = 2 * np.pi * model.config.base ** (np.arange(16) / 16)
    slow = wavelengths > 600  # planes 8 to 15
    assert slow.sum() == 8
    # half the planes, about half the norm before training; chapter 9 prints 10.1 %
    assert 0.08 < share[slow].sum() < 0.12
    assert int(np.argmax(share)) == 6
