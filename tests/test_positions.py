"""ropelab.positions (chapter 0): attention, absolute and relative position schemes.

The references are written independently of the code under test: explicit loops over query
and key positions that follow each paper's formula term by term, torch's own attention, and
T5's bucketing as transformers implements it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.models.t5.modeling_t5 import T5Attention

from ropelab import positions as pos
from ropelab.proofs import simplifies_to_zero

SENTENCE = ["the", "dog", "bites", "the", "man"]
SWAP = [0, 4, 2, 3, 1]  # "the man bites the dog"


def vaswani(position: float, dim: int, base: float = 10000.0) -> np.ndarray:
    """PE(pos, 2i) = sin(pos / base^(2i/d)), PE(pos, 2i+1) = cos(pos / base^(2i/d)), by loop."""
    out = np.zeros(dim)
    for i in range(dim // 2):
        angle = position / base ** (2 * i / dim)
        out[2 * i] = math.sin(angle)
        out[2 * i + 1] = math.cos(angle)
    return out


@pytest.fixture(scope="module")
def head() -> pos.ToyHead:
    return pos.toy_head(8, 6, max_len=40, clip=2, num_buckets=8, max_distance=12, seed=3)


@pytest.fixture(scope="module")
def x() -> np.ndarray:
    return np.random.default_rng(11).standard_normal((5, 8))


# --------------------------------------------------------------------------------------
# Attention and the permutation experiment
# --------------------------------------------------------------------------------------


def test_softmax_values_and_masking():
    s = np.array([[0.0, math.log(3.0)], [1000.0, 1000.0]])
    np.testing.assert_allclose(pos.softmax(s), [[0.25, 0.75], [0.5, 0.5]], rtol=1e-15)
    np.testing.assert_allclose(pos.softmax([[2.0, -np.inf, 2.0]]), [[0.5, 0.0, 0.5]])
    with pytest.raises(ValueError, match="at least one score"):
        pos.softmax([[-np.inf, -np.inf]])
    with pytest.raises(ValueError, match="scores"):
        pos.softmax([1.0, np.nan])


@pytest.mark.parametrize("causal", [False, True])
def test_attention_matches_torch(causal):
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((6, 4)), rng.standard_normal((6, 4)), rng.standard_normal((6, 3))
    ours = pos.scaled_dot_product_attention(q, k, v, causal=causal)
    ref = torch.nn.functional.scaled_dot_product_attention(
        *(torch.tensor(a)[None] for a in (q, k, v)), is_causal=causal
    )[0].numpy()
    np.testing.assert_allclose(ours.output, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.scores, q @ k.T / 2.0, rtol=1e-15)
    np.testing.assert_allclose(ours.weights.sum(axis=1), np.ones(6), rtol=1e-15)
    if causal:
        assert np.all(ours.weights[np.triu_indices(6, 1)] == 0.0)


def test_attention_bias_is_added_to_the_logits():
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    bias = rng.standard_normal((3, 3))
    out = pos.scaled_dot_product_attention(q, k, v, bias=bias)
    logits = q @ k.T / math.sqrt(2) + bias
    expected = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True) @ v
    np.testing.assert_allclose(out.output, expected, rtol=1e-12)
    with pytest.raises(ValueError, match="bias must have shape"):
        pos.scaled_dot_product_attention(q, k, v, bias=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="k must have 2 columns"):
        pos.scaled_dot_product_attention(q, np.zeros((3, 3)), v)


def test_toy_embeddings_give_one_vector_per_word():
    x = pos.toy_embeddings(SENTENCE, 4, seed=5)
    table = np.random.default_rng(5).standard_normal((4, 4))  # bites, dog, man, the
    np.testing.assert_array_equal(x[0], table[3])
    np.testing.assert_array_equal(x[0], x[3])
    np.testing.assert_array_equal(x[2], table[0])
    with pytest.raises(ValueError, match="vocabulary must contain every token"):
        pos.toy_embeddings(SENTENCE, 4, vocabulary=["the", "dog"])
    with pytest.raises(ValueError, match="dim must be an integer >= 1"):
        pos.toy_embeddings(SENTENCE, 0)


def test_permutation_matrix():
    order = [2, 0, 3, 1]
    p = pos.permutation_matrix(order)
    values = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(p @ values, values[order])
    np.testing.assert_array_equal(p @ p.T, np.eye(4))
    for bad in ([0, 0, 1], [1, 2, 3], [[0, 1]], [0.0, 1.0]):
        with pytest.raises(ValueError, match="order must be a permutation"):
            pos.permutation_matrix(bad)


def test_swapping_words_moves_the_scores_and_keeps_the_outputs():
    head = pos.toy_head(8)
    x = pos.toy_embeddings(SENTENCE, 8)
    before = pos.self_attention(x, head)
    after = pos.self_attention(x[SWAP], head)
    p = pos.permutation_matrix(SWAP)
    np.testing.assert_allclose(after.scores, p @ before.scores @ p.T, atol=1e-14)
    np.testing.assert_allclose(after.output, p @ before.output, atol=1e-14)
    # "dog" attends to "bites" with the same score in both sentences.
    assert after.scores[4, 2] == pytest.approx(before.scores[1, 2], abs=1e-14)
    # and the scores are an explicit q.k/sqrt(d_h)
    q, k = x @ head.w_q.T, x @ head.w_k.T
    assert before.scores[1, 2] == pytest.approx(q[1] @ k[2] / math.sqrt(8), rel=1e-13)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), length=st.integers(2, 7))
def test_permutation_gaps_vanish_without_positions(seed, length):
    rng = np.random.default_rng(seed)
    head = pos.toy_head(6, seed=seed)
    x = rng.standard_normal((length, 6))
    order = rng.permutation(length)
    score_gap, output_gap = pos.permutation_gaps(x, order, head)
    assert score_gap < 1e-12
    assert output_gap < 1e-12


def test_positions_or_a_causal_mask_break_the_symmetry():
    head = pos.toy_head(8)
    x = pos.toy_embeddings(SENTENCE, 8)
    score_gap, output_gap = pos.permutation_gaps(
        x, SWAP, head, encoding=pos.sinusoidal_encoding(5, 8)
    )
    assert score_gap > 0.1 and output_gap > 0.1
    score_gap, output_gap = pos.permutation_gaps(x, SWAP, head, causal=True)
    assert score_gap < 1e-12  # the logits still move with the tokens ...
    assert output_gap > 0.1  # ... but the mask decides who sees whom


# --------------------------------------------------------------------------------------
# Absolute encodings
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("dim", "base"), [(2, 10000.0), (8, 10000.0), (128, 10000.0), (6, 7.5)])
def test_sinusoid_matches_the_paper_formula(dim, base):
    table = pos.sinusoidal_encoding(50, dim, base)
    expected = np.stack([vaswani(m, dim, base) for m in range(50)])
    np.testing.assert_allclose(table, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(pos.sinusoid([-3.5], dim, base)[0], vaswani(-3.5, dim, base))


def test_sinusoid_matches_the_usual_torch_construction():
    # The construction most code uses: div_term = exp(-(2i) ln(10000)/d), float64 here.
    length, dim = 100, 128
    position = torch.arange(length, dtype=torch.float64)[:, None]
    div_term = torch.exp(torch.arange(0, dim, 2, dtype=torch.float64) * (-math.log(1e4) / dim))
    pe = torch.zeros(length, dim, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    np.testing.assert_allclose(pos.sinusoidal_encoding(length, dim), pe.numpy(), atol=1e-10)


def test_sinusoid_bad_input():
    with pytest.raises(ValueError, match="dim must be a positive even integer"):
        pos.sinusoidal_encoding(4, 5)
    with pytest.raises(ValueError, match="length must be an integer >= 1"):
        pos.sinusoidal_encoding(0, 4)
    with pytest.raises(ValueError, match="base must be > 0"):
        pos.sinusoidal_encoding(4, 4, base=0.0)


@pytest.mark.parametrize("offset", [0, 1, 7, -3, 250.5])
def test_shift_matrix_moves_every_position_by_the_same_rotation(offset):
    dim = 16
    shift = pos.sinusoid_shift_matrix(offset, dim)
    np.testing.assert_allclose(shift @ shift.T, np.eye(dim), atol=1e-14)
    for m in [0.0, 3.0, 41.0, 1000.0]:
        np.testing.assert_allclose(shift @ vaswani(m, dim), vaswani(m + offset, dim), atol=1e-9)


def test_sinusoid_dot_product_depends_on_the_offset_only():
    dim = 32
    theta = 10000.0 ** (-np.arange(0, dim, 2) / dim)
    for m, n in [(0, 5), (17, 22), (100, 3)]:
        expected = np.sum(np.cos((m - n) * theta))
        assert vaswani(m, dim) @ vaswani(n, dim) == pytest.approx(expected, rel=1e-12)
    table = pos.sinusoidal_encoding(40, dim)
    assert pos.diagonal_spread(table @ table.T) < 1e-12


def test_learned_table_has_no_row_beyond_its_length():
    table = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(pos.learned_positions(table, [3, 0]), table[[3, 0]])
    with pytest.raises(ValueError, match=r"positions must be integers in \[0, 3\].*got 4"):
        pos.learned_positions(table, [2, 4])
    with pytest.raises(ValueError, match="positions must be integers"):
        pos.learned_positions(table, [1.5])


def test_diagonal_spread():
    toeplitz = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 2.0], [-1.0, 0.0, 1.0]])
    assert pos.diagonal_spread(toeplitz) == 0.0
    broken = toeplitz.copy()
    broken[2, 2] = 4.0  # main diagonal now 1, 1, 4
    assert pos.diagonal_spread(broken) == 3.0
    with pytest.raises(ValueError, match="matrix must be square"):
        pos.diagonal_spread(np.zeros((2, 3)))


def test_four_terms_add_up_to_the_score():
    rng = np.random.default_rng(2)
    w_q, w_k = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    x_m, x_n, p_m, p_n = rng.standard_normal((4, 4))
    terms = pos.four_term_decomposition(x_m, x_n, p_m, p_n, w_q, w_k)
    assert terms["content-position"] == pytest.approx((w_q @ x_m) @ (w_k @ p_n), rel=1e-12)
    assert terms["position-content"] == pytest.approx((w_q @ p_m) @ (w_k @ x_n), rel=1e-12)
    four = sum(v for name, v in terms.items() if name != "total")
    assert four == pytest.approx(terms["total"], rel=1e-12)
    with pytest.raises(ValueError, match=r"p_n must have shape \(4,\)"):
        pos.four_term_decomposition(x_m, x_n, p_m, p_n[:3], w_q, w_k)


@pytest.mark.parametrize("encoding", ["sinusoidal", "learned", "none"])
def test_absolute_scores_by_loop(head, x, encoding):
    positions = np.array([3, 4, 5, 6, 7])
    scores = pos.absolute_scores(x, head, positions, encoding)
    for i, m in enumerate(positions):
        for j, n in enumerate(positions):
            p = {
                "sinusoidal": lambda t: vaswani(t, 8),
                "learned": lambda t: head.learned[t],
                "none": lambda t: np.zeros(8),
            }[encoding]
            q = head.w_q @ (x[i] + p(m))
            k = head.w_k @ (x[j] + p(n))
            assert scores[i, j] == pytest.approx(q @ k / math.sqrt(6), rel=1e-10, abs=1e-12)
    with pytest.raises(ValueError, match="encoding must be one of"):
        pos.absolute_scores(x, head, positions, "rotary")


# --------------------------------------------------------------------------------------
# Relative encodings
# --------------------------------------------------------------------------------------


def test_shaw_index_and_attention_by_loop(head, x):
    np.testing.assert_array_equal(
        pos.shaw_relative_index([-9, -2, -1, 0, 1, 2, 9], 2), [0, 0, 1, 2, 3, 4, 4]
    )
    positions = np.array([0, 1, 2, 3, 8])
    out = pos.shaw_attention(x, head, positions)
    k = head.clip
    scores = np.zeros((5, 5))
    for i, m in enumerate(positions):
        for j, n in enumerate(positions):
            r = max(-k, min(k, m - n))
            key = head.w_k @ (x[j] + head.shaw_keys[r + k])
            scores[i, j] = (head.w_q @ x[i]) @ key / math.sqrt(6)
    np.testing.assert_allclose(out.scores, scores, rtol=1e-12)
    weights = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    for i, m in enumerate(positions):
        expected = sum(
            weights[i, j] * (head.w_v @ (x[j] + head.shaw_values[max(-k, min(k, m - n)) + k]))
            for j, n in enumerate(positions)
        )
        np.testing.assert_allclose(out.output[i], expected, rtol=1e-12)


def test_transformer_xl_by_loop(head, x):
    positions = np.array([2, 3, 5, 7, 11])
    scores = pos.transformer_xl_scores(x, head, positions)
    w_q, w_k, w_kr = head.w_q, head.w_k, head.w_k_rel
    for i, m in enumerate(positions):
        for j, n in enumerate(positions):
            rel = vaswani(m - n, 8)
            expected = (
                x[i] @ w_q.T @ w_k @ x[j]
                + x[i] @ w_q.T @ w_kr @ rel
                + head.u @ w_q.T @ w_k @ x[j]
                + head.v @ w_q.T @ w_kr @ rel
            ) / math.sqrt(6)
            assert scores[i, j] == pytest.approx(expected, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize(("num_buckets", "max_distance"), [(32, 128), (8, 12), (16, 20)])
def test_t5_buckets_match_transformers(num_buckets, max_distance):
    offsets = np.arange(-400, 401)
    ours = pos.t5_relative_bucket(offsets, num_buckets, max_distance)
    ref = T5Attention._relative_position_bucket(
        torch.tensor(offsets),
        bidirectional=True,
        num_buckets=num_buckets,
        max_distance=max_distance,
    ).numpy()
    np.testing.assert_array_equal(ours, ref)


def test_t5_bucket_facts():
    behind = pos.t5_relative_bucket(-np.arange(0, 300))  # keys before the query: n - m <= 0
    np.testing.assert_array_equal(behind[:8], np.arange(8))  # exact for distances 0..7
    assert set(behind[128:]) == {15}  # every distance from 128 on shares one bucket
    ahead = pos.t5_relative_bucket(np.arange(1, 300))  # keys after the query use buckets 16..31
    np.testing.assert_array_equal(ahead[:7], 16 + np.arange(1, 8))
    assert set(ahead[127:]) == {31}
    assert len(set(behind[8:128])) == 8  # 120 distances share the 8 logarithmic buckets


@pytest.mark.parametrize(("num_buckets", "max_distance"), [(32, 128), (8, 12), (64, 1000)])
def test_t5_last_bucket_starts_before_max_distance(num_buckets, max_distance):
    half, exact = num_buckets // 2, num_buckets // 4
    # closed form: floor(ln(d/E)/ln(D/E) (B-E)) >= B-E-1  <=>  d >= E (D/E)^((B-E-1)/(B-E))
    expected = math.ceil(exact * (max_distance / exact) ** ((half - exact - 1) / (half - exact)))
    assert pos.t5_last_bucket_distance(num_buckets, max_distance) == expected
    ref = T5Attention._relative_position_bucket(
        torch.tensor([-expected + 1, -expected]), True, num_buckets, max_distance
    ).tolist()
    assert ref == [half - 2, half - 1]
    if (num_buckets, max_distance) == (32, 128):
        assert expected == 91
    with pytest.raises(ValueError, match="num_buckets must be an even integer"):
        pos.t5_relative_bucket([1], num_buckets=7)
    with pytest.raises(ValueError, match="max_distance must be an integer >= 9"):
        pos.t5_relative_bucket([1], num_buckets=32, max_distance=8)


def test_t5_scores_by_loop(head, x):
    positions = np.array([0, 4, 9, 20, 30])
    scores = pos.t5_scores(x, head, positions)
    buckets = T5Attention._relative_position_bucket(
        torch.tensor(positions[None, :] - positions[:, None]),
        bidirectional=True,
        num_buckets=8,
        max_distance=12,
    ).numpy()
    for i in range(5):
        for j in range(5):
            content = (head.w_q @ x[i]) @ (head.w_k @ x[j]) / math.sqrt(6)
            assert scores[i, j] == pytest.approx(
                content + head.t5_buckets[buckets[i, j]], rel=1e-12
            )


def test_deberta_index_and_scores_by_loop(head, x):
    k = 3

    def delta(m: int, n: int) -> int:  # He et al. (2021), eq. 3
        if m - n <= -k:
            return 0
        if m - n >= k:
            return 2 * k - 1
        return m - n + k

    offsets = np.arange(-6, 7)
    np.testing.assert_array_equal(
        pos.deberta_relative_index(offsets, k), [delta(int(r), 0) for r in offsets]
    )
    positions = np.array([0, 1, 2, 4, 9])
    scores = pos.deberta_scores(x, head, positions)
    c = head.clip

    def d2(m: int, n: int) -> int:
        return min(max(m - n + c, 0), 2 * c - 1)

    for i, m in enumerate(positions):
        for j, n in enumerate(positions):
            expected = (
                x[i] @ head.w_q.T @ head.w_k @ x[j]
                + x[i] @ head.w_q.T @ head.w_k_rel @ head.deberta[d2(m, n)]
                + head.deberta[d2(n, m)] @ head.w_q_rel.T @ head.w_k @ x[j]
            ) / math.sqrt(6)
            assert scores[i, j] == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_shift_test_separates_absolute_from_relative(head, x):
    shifts = np.arange(0, 60, 3)
    for scheme in ["none", "shaw", "transformer_xl", "t5", "deberta"]:
        np.testing.assert_array_equal(pos.shift_test(scheme, x, head, shifts), 0.0)
    sinusoidal = pos.shift_test("sinusoidal", x, head, shifts)
    assert sinusoidal[0] == 0.0 and np.all(sinusoidal[1:] > 1e-3)
    # an independent Δ(9) for the sinusoidal scheme
    ref = [pos.absolute_scores(x, head, np.arange(5) + s, "sinusoidal") for s in (0, 9)]
    assert sinusoidal[3] == pytest.approx(np.max(np.abs(ref[1] - ref[0])), rel=1e-15)
    learned = pos.shift_test("learned", x, head, shifts)  # 40 rows, 5 tokens: s <= 35 exists
    assert np.all(np.isfinite(learned[shifts <= 35])) and np.all(np.isnan(learned[shifts > 35]))
    with pytest.raises(ValueError, match="scheme must be one of"):
        pos.shift_test("alibi", x, head, shifts)
    with pytest.raises(ValueError, match="shifts must be integers >= 0"):
        pos.shift_test("t5", x, head, [-1])


def test_low_rank_gap():
    rng = np.random.default_rng(6)
    u, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    v, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    matrix = u @ np.diag([4.0, 2.0, 1.0, 0.5, 0.0, 0.0]) @ v.T
    assert pos.low_rank_gap(matrix, 1) == pytest.approx(0.5, rel=1e-12)
    assert pos.low_rank_gap(matrix, 3) == pytest.approx(0.125, rel=1e-12)
    assert pos.low_rank_gap(matrix, 4) < 1e-15
    with pytest.raises(ValueError, match=r"rank must be an integer in \[1, 5\]"):
        pos.low_rank_gap(matrix, 6)


def test_dot_product_scores_have_low_rank_and_relative_ones_do_not():
    x = np.random.default_rng(8).standard_normal((24, 4))
    head = pos.toy_head(4, max_len=40, clip=3, seed=1)
    positions = np.arange(24)
    for scheme in ["none", "learned", "sinusoidal"]:
        scores = pos.scheme_scores(scheme, x, head, positions)
        assert pos.low_rank_gap(scores, 4) < 1e-12
    for scheme in ["shaw", "transformer_xl", "t5", "deberta"]:
        scores = pos.scheme_scores(scheme, x, head, positions)
        assert pos.low_rank_gap(scores, 4) > 1e-3


def test_toy_head_checks():
    head = pos.toy_head(4, 2, max_len=7, clip=3, num_buckets=6, max_distance=9)
    assert (head.dim, head.head_dim, head.max_len) == (4, 2, 7)
    assert head.shaw_keys.shape == (7, 4) and head.deberta.shape == (6, 4)
    assert head.t5_buckets.shape == (6,)
    with pytest.raises(ValueError, match="dim must be a positive even integer"):
        pos.toy_head(5)
    with pytest.raises(ValueError, match="clip must be an integer >= 1"):
        pos.toy_head(4, clip=0)
    with pytest.raises(ValueError, match="positions must have 5 entries"):
        pos.t5_scores(np.zeros((5, 4)), head, [0, 1])


# --------------------------------------------------------------------------------------
# Symbolic identities
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_tokens", "dim", "order"), [(3, 1, None), (3, 2, [1, 2, 0]), (2, 2, [1, 0])]
)
def test_permutation_equivariance_is_an_identity(n_tokens, dim, order):
    difference = pos.permutation_equivariance_identity(n_tokens, dim, order)
    assert difference.shape == (n_tokens, dim)
    assert simplifies_to_zero(difference)
    assert difference.free_symbols  # symbolic, not numbers


def test_a_wrong_permutation_is_not_an_identity():
    # control: permute the inputs with one order and the outputs with another
    q, k, v = (
        sympy.Matrix([[sympy.Symbol(f"{n}_{j}", real=True)] for j in range(3)]) for n in "qkv"
    )
    p1 = sympy.Matrix(pos.permutation_matrix([1, 2, 0]).astype(int))
    p2 = sympy.Matrix(pos.permutation_matrix([2, 0, 1]).astype(int))
    wrong = pos._symbolic_attention_output(
        p1 * q, p1 * k, p1 * v
    ) - p2 * pos._symbolic_attention_output(q, k, v)
    assert not simplifies_to_zero(wrong)


@pytest.mark.parametrize("dim", [2, 4, 6])
def test_sinusoid_identities(dim):
    shift = pos.sinusoid_shift_identity(dim)
    assert shift.shape == (dim, 1)
    assert simplifies_to_zero(shift)
    assert sympy.Symbol("k", real=True) in shift.free_symbols
    assert simplifies_to_zero(pos.sinusoid_dot_identity(dim))
    # control: the sum-of-cosines with m + n instead of m - n is wrong
    m, n = sympy.symbols("m n", real=True)
    theta = sympy.Symbol("theta_0", real=True)
    assert not simplifies_to_zero(
        sympy.sin(m * theta) * sympy.sin(n * theta)
        + sympy.cos(m * theta) * sympy.cos(n * theta)
        - sympy.cos((m + n) * theta)
    )
