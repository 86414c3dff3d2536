"""ropelab.packing: left padding and packing give the logits of the unpadded, separate runs.

Equalities are asserted to 1e-12 in float64 on ropelab.toy_decoder; the position-id rule is
checked against transformers' own (generation/utils.py), transcribed in torch.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ropelab import packing as K
from ropelab.kv_cache import dynamic_ntk_frequencies
from ropelab.toy_decoder import ToyDecoder, ToyDecoderConfig, causal_mask_from_positions

TOL = 1e-12


def hf_position_ids(attention_mask: torch.Tensor) -> torch.Tensor:
    """transformers 5.23, GenerationMixin._prepare_position_ids (transcribed)."""
    position_ids = attention_mask.long().cumsum(-1) - 1
    return position_ids.masked_fill(attention_mask == 0, 0)


@pytest.fixture(scope="module")
def model() -> ToyDecoder:
    return ToyDecoder(ToyDecoderConfig(num_layers=2, seed=21))


def test_position_ids_follow_transformers():
    mask = np.array([[0, 0, 0, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1]])
    expected = hf_position_ids(torch.from_numpy(mask)).numpy()
    np.testing.assert_array_equal(K.position_ids_from_attention_mask(mask), expected)
    np.testing.assert_array_equal(
        K.position_ids_from_attention_mask(mask[0]), [0, 0, 0, 0, 1, 2, 3]
    )


def test_left_padded_rows_give_the_unpadded_logits(model):
    rng = np.random.default_rng(0)
    prompts = [rng.integers(1, 48, n) for n in (3, 9, 12)]
    width = 12
    for prompt in prompts:
        padded, mask = K.left_pad(prompt, width)
        logits = model.logits(
            padded, K.position_ids_from_attention_mask(mask), K.padding_mask(mask)
        )
        alone = model.logits(prompt)
        np.testing.assert_allclose(logits[mask == 1], alone, rtol=0, atol=TOL * np.abs(alone).max())


def test_positions_0_to_T_minus_1_only_matter_where_frequencies_see_the_largest_position(model):
    prompt = np.random.default_rng(1).integers(1, 48, 5)
    padded, mask = K.left_pad(prompt, 14)
    attend = K.padding_mask(mask)
    naive = np.arange(14)
    alone = model.logits(prompt)
    # plain RoPE only sees differences: a constant shift changes nothing (up to rounding)
    shifted = model.logits(padded, naive, attend)[mask == 1]
    np.testing.assert_allclose(shifted, alone, rtol=0, atol=1e-10 * np.abs(alone).max())
    # dynamic NTK computes its base from max(position_ids) + 1 (here max_position 8)
    freqs = dynamic_ntk_frequencies(8, 10000.0, 4.0, 8)
    right = model.logits(
        padded, K.position_ids_from_attention_mask(mask), attend, theta=freqs(5)[0]
    )
    wrong = model.logits(padded, naive, attend, theta=freqs(14)[0])
    reference = model.logits(prompt, theta=freqs(5)[0])
    np.testing.assert_allclose(right[mask == 1], reference, rtol=0, atol=TOL * 10)
    assert np.abs(wrong[mask == 1] - reference).max() > 1e-2


def test_packed_documents_equal_separate_runs(model):
    rng = np.random.default_rng(2)
    lengths = [4, 7, 3, 6]
    docs = [rng.integers(0, 48, n) for n in lengths]
    row = np.concatenate(docs)
    separate = np.concatenate([model.logits(d) for d in docs])
    packed = model.logits(row, K.packed_position_ids(lengths), K.document_mask(lengths))
    np.testing.assert_allclose(packed, separate, rtol=0, atol=TOL * np.abs(separate).max())

    # resetting the positions alone lets every document see the ones before it
    positions = K.packed_position_ids(lengths)
    leaky = model.logits(row, positions, np.tril(np.ones((len(row), len(row)), dtype=bool)))
    starts = np.cumsum([0, *lengths[:-1]])
    np.testing.assert_allclose(leaky[: lengths[0]], separate[: lengths[0]], atol=TOL * 100)
    for start, n in zip(starts[1:], lengths[1:], strict=True):
        assert np.abs(leaky[start : start + n] - separate[start : start + n]).max() > 1e-2

    # the mask alone, with positions running on, also works for plain RoPE (differences only)
    running = model.logits(row, np.arange(len(row)), K.document_mask(lengths))
    np.testing.assert_allclose(running, separate, rtol=0, atol=1e-10 * np.abs(separate).max())


def test_mask_and_id_helpers():
    np.testing.assert_array_equal(K.document_ids([2, 3]), [0, 0, 1, 1, 1])
    np.testing.assert_array_equal(K.packed_position_ids([2, 3]), [0, 1, 0, 1, 2])
    expected = np.array(
        [
            [1, 0, 0, 0, 0],
            [1, 1, 0, 0, 0],
            [0, 0, 1, 0, 0],
            [0, 0, 1, 1, 0],
            [0, 0, 1, 1, 1],
        ],
        dtype=bool,
    )
    np.testing.assert_array_equal(K.document_mask([2, 3]), expected)
    padded, mask = K.left_pad(np.array([7, 8]), 4)
    np.testing.assert_array_equal(padded, [0, 0, 7, 8])
    attend = K.padding_mask(mask)
    np.testing.assert_array_equal(attend[3], [False, False, True, True])
    np.testing.assert_array_equal(attend[0], [True, False, False, False])  # a pad sees itself
    np.testing.assert_array_equal(
        causal_mask_from_positions([0, 1], [0, 1, 2]), [[True, False, False], [True, True, False]]
    )


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: K.position_ids_from_attention_mask([0, 2]), "only 0 \\(pad\\) and 1"),
        (lambda: K.position_ids_from_attention_mask(np.zeros((1, 1, 2))), "attention_mask must be"),
        (lambda: K.left_pad([1, 2, 3], 2), "at most length = 2"),
        (lambda: K.packed_position_ids([3, 0]), "each document length must be an integer >= 1"),
        (lambda: K.padding_mask(np.ones((2, 3))), "one row"),
    ],
)
def test_bad_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()
