"""ropelab.windows: masks and biases of the attention-limiting methods (chapter 6).

Each mask is checked entry by entry against a loop over (query, key) pairs written from the
method's definition, the ALiBi slopes against transformers' BLOOM implementation, and the xPos
factors against the paper's formula.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.models.bloom.modeling_bloom import _get_alibi_slopes, build_alibi_tensor

from ropelab import scaling, windows


def brute_force(seq_len: int, attends) -> np.ndarray:
    return np.array([[attends(t, s) for s in range(seq_len)] for t in range(seq_len)])


# --- masks ------------------------------------------------------------------------------------


def test_causal_mask_is_the_lower_triangle():
    assert np.array_equal(windows.causal_mask(7), np.tril(np.ones((7, 7), dtype=bool)))


@settings(max_examples=60, deadline=None)
@given(seq_len=st.integers(1, 40), window=st.integers(1, 45), sinks=st.integers(0, 45))
def test_window_masks_match_their_definitions(seq_len, window, sinks):
    sliding = windows.sliding_window_mask(seq_len, window)
    assert np.array_equal(sliding, brute_force(seq_len, lambda t, s: s <= t and t - s < window))
    lam = windows.lambda_mask(seq_len, window, sinks)
    expected = brute_force(seq_len, lambda t, s: s <= t and (t - s < window or s < sinks))
    assert np.array_equal(lam, expected)
    # every row keeps min(t + 1, w) recent keys; no distance reaches w
    assert np.array_equal(sliding.sum(axis=1), np.minimum(np.arange(seq_len) + 1, window))
    t, s = np.nonzero(sliding)
    assert np.max(t - s) < window


def test_lambda_mask_reduces_to_its_parts():
    assert np.array_equal(windows.lambda_mask(20, 5, 0), windows.sliding_window_mask(20, 5))
    assert np.array_equal(windows.lambda_mask(20, 20, 3), windows.causal_mask(20))
    # the two arms: the first 3 columns are fully kept below the diagonal
    mask = windows.lambda_mask(20, 5, 3)
    assert mask[19, :3].all() and not mask[19, 3:15].any() and mask[19, 15:].all()


@settings(max_examples=60, deadline=None)
@given(seq_len=st.integers(1, 48), block=st.integers(1, 12))
def test_blockwise_causal_mask_matches_its_definition(seq_len, block):
    mask = windows.blockwise_causal_mask(seq_len, block)
    expected = brute_force(seq_len, lambda t, s: s <= t and s // block >= t // block - 1)
    assert np.array_equal(mask, expected)


def test_bca_with_half_the_training_length_sees_between_half_and_all_of_it():
    train_len = 32
    block = train_len // 2
    mask = windows.blockwise_causal_mask(8 * train_len, block)
    keys = mask.sum(axis=1)[block:]
    assert keys.min() == block + 1 and keys.max() == train_len
    t, s = np.nonzero(mask)
    assert np.max(t - s) == train_len - 1  # no distance reaches T_train


def test_parallel_context_windows_by_hand():
    mask, positions = windows.parallel_context_windows([2, 3], task_len=2)
    # tokens: a0 a1 | b0 b1 b2 | task0 task1 ; windows right-aligned to end at position 2
    expected = np.array(
        [
            [1, 0, 0, 0, 0, 0, 0],
            [1, 1, 0, 0, 0, 0, 0],
            [0, 0, 1, 0, 0, 0, 0],
            [0, 0, 1, 1, 0, 0, 0],
            [0, 0, 1, 1, 1, 0, 0],
            [1, 1, 1, 1, 1, 1, 0],
            [1, 1, 1, 1, 1, 1, 1],
        ],
        dtype=bool,
    )
    assert np.array_equal(mask, expected)
    assert positions.tolist() == [1, 2, 0, 1, 2, 3, 4]


def test_parallel_context_windows_largest_position_does_not_grow_with_windows():
    for count in (1, 3, 10):
        _, positions = windows.parallel_context_windows([50] * count, task_len=7)
        assert positions.max() == 50 + 7 - 1


# --- ALiBi -----------------------------------------------------------------------------------


def test_alibi_slopes_for_eight_heads_are_powers_of_one_half():
    assert windows.alibi_slopes(8).tolist() == [2.0**-k for k in range(1, 9)]


@pytest.mark.parametrize("num_heads", [*range(1, 41), 64, 96])
def test_alibi_slopes_match_transformers_bloom(num_heads):
    theirs = _get_alibi_slopes(num_heads, torch.device("cpu")).double().numpy()
    np.testing.assert_allclose(windows.alibi_slopes(num_heads), theirs, rtol=1e-6)


@pytest.mark.parametrize("num_heads", [4, 16, 32])
def test_alibi_slopes_power_of_two_formula(num_heads):
    expected = [2 ** (-8 * h / num_heads) for h in range(1, num_heads + 1)]
    np.testing.assert_allclose(windows.alibi_slopes(num_heads), expected, rtol=1e-15)


def test_alibi_bias_agrees_with_transformers_up_to_the_row_constant():
    seq_len, heads = 9, 6
    bias = windows.alibi_bias(seq_len, heads)
    # BLOOM adds m_h * s to every row: softmax cannot tell it from -m_h (t - s) (a row constant)
    theirs = build_alibi_tensor(torch.ones(1, seq_len), heads, torch.float64)[:, 0, :].numpy()
    for t in range(seq_len):
        np.testing.assert_allclose(
            bias[:, t, : t + 1], theirs[:, : t + 1] - theirs[:, t : t + 1], atol=1e-6
        )
        assert np.all(np.isneginf(bias[:, t, t + 1 :]))
    slopes = windows.alibi_slopes(heads)
    assert bias[2, 8, 3] == pytest.approx(-slopes[2] * 5)


# --- xPos ------------------------------------------------------------------------------------


def test_xpos_scales_are_separable_and_follow_the_paper():
    dim, scale_len, gamma = 16, 512.0, 0.4
    t, s = 900.0, 250.0
    q_scale, k_scale = windows.xpos_scales(np.array([t, s]), dim, scale_len, gamma)
    zeta = np.array([(gamma + 2 * n / dim) / (1 + gamma) for n in range(dim // 2)])
    np.testing.assert_allclose(q_scale[0], zeta ** (t / scale_len), rtol=1e-13)
    np.testing.assert_allclose(k_scale[1], zeta ** (-s / scale_len), rtol=1e-13)
    np.testing.assert_allclose(q_scale[0] * k_scale[1], zeta ** ((t - s) / scale_len), rtol=1e-12)


def test_xpos_factor_matrix_entries():
    dim, seq_len, scale_len = 8, 12, 4.0
    factor = windows.xpos_factor_matrix(seq_len, dim, scale_len)
    zeta = scaling.xpos_zeta(dim)
    assert factor.shape == (dim // 2, seq_len, seq_len)
    for n in range(dim // 2):
        for t in range(seq_len):
            for s in range(seq_len):
                if s <= t:
                    assert factor[n, t, s] == pytest.approx(zeta[n] ** ((t - s) / scale_len))
                else:
                    assert math.isnan(factor[n, t, s])
    assert np.all(factor[:, np.arange(seq_len), np.arange(seq_len)] == 1.0)


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: windows.causal_mask(0), "seq_len"),
        (lambda: windows.sliding_window_mask(8, 0), "window"),
        (lambda: windows.sliding_window_mask(8.5, 2), "seq_len"),
        (lambda: windows.lambda_mask(8, 2, -1), "sinks"),
        (lambda: windows.blockwise_causal_mask(8, True), "block"),
        (lambda: windows.parallel_context_windows([], 2), "window_lengths"),
        (lambda: windows.parallel_context_windows("abc", 2), "window_lengths"),
        (lambda: windows.parallel_context_windows([3, 0], 2), "window_lengths"),
        (lambda: windows.parallel_context_windows([3], -1), "task_len"),
        (lambda: windows.alibi_slopes(0), "num_heads"),
        (lambda: windows.alibi_bias(4, 0), "num_heads"),
        (lambda: windows.xpos_scales([1.0, np.nan], 8), "positions"),
        (lambda: windows.xpos_scales([1.0], 7), "dim"),
        (lambda: windows.xpos_factor_matrix(4, 8, scale_len=0.0), "scale_len"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
