r"""Why attention needs positions: the computations of chapter 0.

* Scaled dot-product attention in NumPy and the permutation experiment: without positions,
  reordering the tokens reorders the scores and the outputs and changes nothing else.
* Absolute encodings: the sinusoidal encoding of *Attention Is All You Need* and a learned
  (BERT-style) position table with its hard maximum length.
* Relative encodings, as the RoFormer paper (section 2.3) summarises them: Shaw et al.'s
  clipped relative embeddings, the Transformer-XL / XLNet four-term decomposition, T5's
  bucketed scalar bias and DeBERTa's disentangled attention.
* The shift test: move a whole sequence along the position axis and measure how much its
  score matrix changes (absolute schemes change, relative schemes do not).
* Symbolic identities (SymPy, imported on demand): attention without positions commutes with
  permutations, and the sinusoid at :math:`m + k` is a fixed rotation of the sinusoid at *m*.

Conventions. Vectors are rows in code and columns in the formulas: a projection matrix
:math:`W` has shape ``(head_dim, dim)`` and :math:`q_m = W_q x_m` is ``x @ w_q.T``. Positions
are integers counted from 0; *m* is the query position and *n* the key position. Every score
(logit before the softmax) is divided by :math:`\sqrt{d_h}`, the head dimension, as in
eq. (2) of RoFormer; the original papers differ in this constant (T5 drops it, DeBERTa uses
:math:`\sqrt{3d_h}`), which matters for training but for nothing in this chapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._checks import check_base, check_count, check_dim, check_finite_array
from .core import inv_freq

if TYPE_CHECKING:  # pragma: no cover
    import sympy

__all__ = [
    "SCHEMES",
    "Attention",
    "ToyHead",
    "absolute_scores",
    "deberta_relative_index",
    "deberta_scores",
    "diagonal_spread",
    "four_term_decomposition",
    "learned_positions",
    "low_rank_gap",
    "permutation_equivariance_identity",
    "permutation_gaps",
    "permutation_matrix",
    "scaled_dot_product_attention",
    "scheme_scores",
    "self_attention",
    "shaw_attention",
    "shaw_relative_index",
    "shift_test",
    "sinusoid",
    "sinusoid_data",
    "sinusoid_dot_identity",
    "sinusoid_shift_identity",
    "sinusoid_shift_matrix",
    "sinusoidal_encoding",
    "softmax",
    "t5_bias",
    "t5_last_bucket_distance",
    "t5_relative_bucket",
    "t5_scores",
    "toy_embeddings",
    "toy_head",
    "transformer_xl_scores",
]


# --------------------------------------------------------------------------------------
# Argument checks used only here
# --------------------------------------------------------------------------------------


def _check_matrix(values: Any, name: str, *, cols: int | None = None) -> np.ndarray:
    """A finite 2-D float array, optionally with a given number of columns."""
    array = check_finite_array(values, name)
    if array.ndim != 2 or array.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array, got shape {array.shape}")
    if cols is not None and array.shape[1] != cols:
        raise ValueError(f"{name} must have {cols} columns, got shape {array.shape}")
    return array


def _check_positions(positions: Any, name: str = "positions") -> np.ndarray:
    """A 1-D array of integer positions >= 0."""
    array = check_finite_array(positions, name)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {array.shape}")
    if np.any(array != np.round(array)) or np.any(array < 0):
        raise ValueError(f"{name} must be integers >= 0, got {positions!r}")
    return array.astype(np.int64)


def _check_order(order: Any, length: int) -> np.ndarray:
    """A permutation of ``0 .. length-1``."""
    array = np.asarray(order)
    if (
        array.ndim != 1
        or array.size != length
        or not np.issubdtype(array.dtype, np.integer)
        or sorted(array.tolist()) != list(range(length))
    ):
        raise ValueError(f"order must be a permutation of 0..{length - 1}, got {order!r}")
    return array.astype(np.int64)


# --------------------------------------------------------------------------------------
# Attention
# --------------------------------------------------------------------------------------


def softmax(scores: Any, axis: int = -1) -> np.ndarray:
    r"""The softmax along ``axis``: :math:`a_j = e^{s_j} / \sum_l e^{s_l}`.

    Computed as :math:`e^{s_j - \max_l s_l} / \sum_l e^{s_l - \max_l s_l}`, which is the same
    number without overflow. Entries equal to :math:`-\infty` (masked) get weight 0; a row
    must keep at least one finite entry. Chapter 0.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim == 0:
        raise ValueError("scores must have at least one axis, got a scalar")
    if np.any(np.isnan(s)) or np.any(s == np.inf):
        raise ValueError("scores must be finite or -inf (masked), got NaN or +inf")
    top = np.max(s, axis=axis, keepdims=True)
    if np.any(top == -np.inf):
        raise ValueError("every softmax row needs at least one score that is not -inf")
    e = np.exp(s - top)
    return e / np.sum(e, axis=axis, keepdims=True)


@dataclass(frozen=True)
class Attention:
    """The three stages of one attention head: logits, weights and outputs (chapter 0).

    Attributes:
        scores: ``(N, N)`` logits :math:`s_{m,n}` (row *m* is the query).
        weights: ``(N, N)`` attention weights :math:`a_{m,n}`, each row sums to 1.
        output: ``(N, d_v)`` outputs :math:`o_m = \\sum_n a_{m,n} v_n`.
    """

    scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray


def scaled_dot_product_attention(
    q: Any, k: Any, v: Any, *, bias: Any = None, causal: bool = False
) -> Attention:
    r"""Scaled dot-product attention (Vaswani et al., 2017, eq. 1; RoFormer eq. 2).

    .. math::
        s_{m,n} = \frac{q_m^\top k_n}{\sqrt{d_h}} + b_{m,n}, \qquad
        a_{m,n} = \frac{e^{s_{m,n}}}{\sum_j e^{s_{m,j}}}, \qquad
        o_m = \sum_n a_{m,n} v_n

    Args:
        q: queries, shape ``(N, d_h)``.
        k: keys, shape ``(N, d_h)``.
        v: values, shape ``(N, d_v)``.
        bias: optional ``(N, N)`` matrix :math:`b_{m,n}` added to the logits (T5's bias).
        causal: mask every key after the query (:math:`n > m`), as a decoder does.

    Returns:
        :class:`Attention` with the scores, weights and outputs. Chapter 0.
    """
    q = _check_matrix(q, "q")
    k = _check_matrix(k, "k", cols=q.shape[1])
    v = _check_matrix(v, "v")
    if k.shape[0] != v.shape[0]:
        raise ValueError(f"k and v must have the same number of rows, got {k.shape} and {v.shape}")
    scores = q @ k.T / np.sqrt(q.shape[1])
    if bias is not None:
        bias = check_finite_array(bias, "bias")
        if bias.shape != scores.shape:
            raise ValueError(f"bias must have shape {scores.shape}, got {bias.shape}")
        scores = scores + bias
    masked = scores
    if causal:
        if q.shape[0] != k.shape[0]:
            raise ValueError("causal attention needs as many queries as keys")
        masked = np.where(np.triu(np.ones(scores.shape, dtype=bool), k=1), -np.inf, scores)
    weights = softmax(masked, axis=-1)
    return Attention(scores=scores, weights=weights, output=weights @ v)


@dataclass(frozen=True)
class ToyHead:
    r"""Random (untrained) weights of one attention head and of every position scheme.

    A stand-in for a trained model: the chapter's claims (which schemes notice a shift of
    the whole sequence, which do not) hold for *every* value of these parameters, so random
    ones are enough to show them. Build it with :func:`toy_head`.

    Attributes:
        w_q, w_k, w_v: projections :math:`W_q, W_k, W_v`, shape ``(head_dim, dim)``.
        w_q_rel, w_k_rel: :math:`\widetilde W_q, \widetilde W_k`, projections of position
            vectors (Transformer-XL, DeBERTa), shape ``(head_dim, dim)``.
        u, v: Transformer-XL's global content and position biases, shape ``(dim,)``.
        learned: a learned absolute table (BERT), shape ``(max_len, dim)``.
        shaw_keys, shaw_values: Shaw et al.'s tables :math:`\tilde p^k_r, \tilde p^v_r`,
            shape ``(2 * clip + 1, dim)``, row ``r + clip`` for the clipped offset *r*.
        t5_buckets: T5's scalar bias per bucket, shape ``(num_buckets,)``.
        deberta: DeBERTa's relative position table, shape ``(2 * clip, dim)``.
        clip: the largest offset Shaw et al. and DeBERTa distinguish (*k* in the papers).
        max_distance: the distance from which T5 puts every offset into one bucket.
        base: the base of the sinusoids (Transformer-XL and the absolute sinusoidal scheme).
    """

    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_q_rel: np.ndarray
    w_k_rel: np.ndarray
    u: np.ndarray
    v: np.ndarray
    learned: np.ndarray
    shaw_keys: np.ndarray
    shaw_values: np.ndarray
    t5_buckets: np.ndarray
    deberta: np.ndarray
    clip: int
    max_distance: int
    base: float

    @property
    def dim(self) -> int:
        """The embedding dimension *d*."""
        return int(self.w_q.shape[1])

    @property
    def head_dim(self) -> int:
        """The head dimension :math:`d_h`."""
        return int(self.w_q.shape[0])

    @property
    def max_len(self) -> int:
        """The number of rows of the learned table: positions ``0 .. max_len - 1`` exist."""
        return int(self.learned.shape[0])


def toy_head(
    dim: int = 16,
    head_dim: int | None = None,
    *,
    max_len: int = 128,
    clip: int = 4,
    num_buckets: int = 32,
    max_distance: int = 128,
    base: float = 10000.0,
    seed: int = 0,
) -> ToyHead:
    r"""A :class:`ToyHead` with seeded Gaussian weights (chapter 0).

    Projections have entries :math:`\mathcal N(0, 1/d)`, so that a unit-variance embedding
    gives unit-variance queries and keys; position tables and biases have entries
    :math:`\mathcal N(0, 1)`, the size of an embedding, so that their effect is visible.

    Args:
        dim: embedding dimension *d*, a positive even integer (the sinusoids need pairs).
        head_dim: :math:`d_h`, an integer >= 1; ``None`` means ``dim``.
        max_len: rows of the learned absolute table, >= 1.
        clip: Shaw et al.'s and DeBERTa's *k*, >= 1.
        num_buckets: T5's bucket count, an even integer >= 4.
        max_distance: T5's distance of the last bucket, an integer > num_buckets // 4.
        base: sinusoid base, > 0.
        seed: seed of ``np.random.default_rng``.
    """
    dim = check_dim(dim)
    head_dim = dim if head_dim is None else check_count(head_dim, "head_dim")
    max_len = check_count(max_len, "max_len")
    clip = check_count(clip, "clip")
    num_buckets, max_distance = _check_t5_sizes(num_buckets, max_distance)
    base = check_base(base)
    rng = np.random.default_rng(check_count(seed, "seed", minimum=0))
    scale = 1.0 / np.sqrt(dim)
    w_q, w_k, w_v, w_q_rel, w_k_rel = (
        rng.standard_normal((head_dim, dim)) * scale for _ in range(5)
    )
    return ToyHead(
        w_q=w_q,
        w_k=w_k,
        w_v=w_v,
        w_q_rel=w_q_rel,
        w_k_rel=w_k_rel,
        u=rng.standard_normal(dim),
        v=rng.standard_normal(dim),
        learned=rng.standard_normal((max_len, dim)),
        shaw_keys=rng.standard_normal((2 * clip + 1, dim)),
        shaw_values=rng.standard_normal((2 * clip + 1, dim)),
        t5_buckets=rng.standard_normal(num_buckets),
        deberta=rng.standard_normal((2 * clip, dim)),
        clip=clip,
        max_distance=max_distance,
        base=base,
    )


def toy_embeddings(
    tokens: Sequence[str], dim: int, *, seed: int = 0, vocabulary: Sequence[str] | None = None
) -> np.ndarray:
    r"""Seeded random word embeddings :math:`x_m \sim \mathcal N(0, I_d)`, one row per token.

    The same word always gets the same vector: word *j* of ``vocabulary`` (default: the
    sorted distinct tokens) is row *j* of ``default_rng(seed).standard_normal((V, dim))``.
    These vectors carry no position, which is the point of chapter 0.

    Args:
        tokens: the sequence of words.
        dim: embedding dimension, an integer >= 1.
        seed: seed of the generator.
        vocabulary: the words that own the rows; must contain every token.
    """
    tokens = list(tokens)
    if not tokens or not all(isinstance(t, str) for t in tokens):
        raise ValueError(f"tokens must be a non-empty sequence of strings, got {tokens!r}")
    dim = check_count(dim, "dim")
    words = sorted(set(tokens)) if vocabulary is None else list(vocabulary)
    missing = sorted(set(tokens) - set(words))
    if missing:
        raise ValueError(f"vocabulary must contain every token; missing {missing}")
    table = np.random.default_rng(check_count(seed, "seed", minimum=0)).standard_normal(
        (len(words), dim)
    )
    row = {word: j for j, word in enumerate(words)}
    return table[[row[t] for t in tokens]]


def self_attention(
    x: Any, head: ToyHead, *, encoding: Any = None, causal: bool = False
) -> Attention:
    r"""One head of self-attention on embeddings, with an optional additive position encoding.

    .. math:: q_m = W_q(x_m + p_m),\quad k_n = W_k(x_n + p_n),\quad v_n = W_v(x_n + p_n)

    (RoFormer eq. 3 with the absolute choice of eq. 3; :math:`p = 0` when ``encoding`` is
    ``None``), followed by :func:`scaled_dot_product_attention`. Chapter 0.

    Args:
        x: embeddings, shape ``(N, dim)``.
        head: the weights.
        encoding: ``(N, dim)`` position vectors :math:`p_m` added by slot, or ``None``.
        causal: mask keys after the query.
    """
    x = _check_matrix(x, "x", cols=head.dim)
    if encoding is not None:
        encoding = _check_matrix(encoding, "encoding", cols=head.dim)
        if encoding.shape != x.shape:
            raise ValueError(f"encoding must have shape {x.shape}, got {encoding.shape}")
        x = x + encoding
    return scaled_dot_product_attention(
        x @ head.w_q.T, x @ head.w_k.T, x @ head.w_v.T, causal=causal
    )


def permutation_matrix(order: Any) -> np.ndarray:
    r"""The matrix *P* with :math:`(PX)_i = X_{\pi(i)}`: ``P @ X == X[order]``.

    Row *i* has its single 1 in column ``order[i]``. Chapter 0 uses it to state
    :math:`S(PX) = P\,S(X)\,P^\top` and :math:`O(PX) = P\,O(X)`.

    Args:
        order: a permutation of ``0 .. N-1`` (integers).
    """
    array = np.asarray(order)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"order must be a permutation of 0..N-1 (a 1-D array), got {order!r}")
    order = _check_order(array, int(array.size))
    matrix = np.zeros((order.size, order.size))
    matrix[np.arange(order.size), order] = 1.0
    return matrix


def permutation_gaps(
    x: Any, order: Any, head: ToyHead, *, encoding: Any = None, causal: bool = False
) -> tuple[float, float]:
    r"""How far attention is from commuting with a reordering of the tokens.

    Runs :func:`self_attention` on ``x`` and on the reordered ``x[order]``; the position
    vectors (if any) stay attached to the *slots*, as they are in a model: slot *m* always
    gets :math:`p_m`. Returns

    .. math::
        \Big(\max_{m,n} \big|S(PX)_{m,n} - (P S(X) P^\top)_{m,n}\big|,\;
        \max_{m,j} \big|O(PX)_{m,j} - (P\,O(X))_{m,j}\big|\Big)

    Both are 0 (up to rounding) without positions: the same words swapped give the same
    scores. Chapter 0.
    """
    x = _check_matrix(x, "x", cols=head.dim)
    order = _check_order(order, x.shape[0])
    before = self_attention(x, head, encoding=encoding, causal=causal)
    after = self_attention(x[order], head, encoding=encoding, causal=causal)
    score_gap = np.max(np.abs(after.scores - before.scores[np.ix_(order, order)]))
    output_gap = np.max(np.abs(after.output - before.output[order]))
    return float(score_gap), float(output_gap)


# --------------------------------------------------------------------------------------
# Absolute encodings
# --------------------------------------------------------------------------------------


def sinusoid(positions: Any, dim: int, base: float = 10000.0) -> np.ndarray:
    r"""The sinusoidal position vectors of *Attention Is All You Need* (section 3.5).

    .. math::
        p_{m,2i} = \sin(m\theta_i), \qquad p_{m,2i+1} = \cos(m\theta_i), \qquad
        \theta_i = \mathrm{base}^{-2i/d}, \quad i = 0, \dots, d/2 - 1

    The frequencies are exactly RoPE's :math:`\theta_i` (:func:`ropelab.core.inv_freq`).
    Positions may be any real numbers (negative offsets :math:`m - n` are used by
    Transformer-XL). Chapter 0.

    Args:
        positions: real positions, any shape.
        dim: *d*, a positive even integer.
        base: > 0, 10000 in the paper.

    Returns:
        float64 array of shape ``positions.shape + (dim,)``.
    """
    theta = inv_freq(dim, base)
    m = check_finite_array(positions, "positions")
    angles = m[..., None] * theta
    encoding = np.empty((*m.shape, theta.size * 2))
    encoding[..., 0::2] = np.sin(angles)
    encoding[..., 1::2] = np.cos(angles)
    return encoding


def sinusoidal_encoding(length: int, dim: int, base: float = 10000.0) -> np.ndarray:
    r"""The table :math:`(p_0, \dots, p_{L-1})` of :func:`sinusoid`, shape ``(length, dim)``.

    .. math:: p_{m,2i} = \sin(m\,\mathrm{base}^{-2i/d}), \qquad p_{m,2i+1} = \cos(m\,\mathrm{base}^{-2i/d})

    Source: Vaswani et al. (2017), section 3.5; the heatmap of chapter 0.

    Args:
        length: number of positions *L*, an integer >= 1.
        dim: *d*, a positive even integer.
        base: > 0.
    """
    length = check_count(length, "length")
    return sinusoid(np.arange(length), dim, base)


def sinusoid_data(length: int, dim: int, base: float = 10000.0) -> dict[str, Any]:
    r"""The data of chapter 0's interactive figure: the sinusoidal table and its frequencies.

    Returns ``length``, ``dim``, ``base``, ``encoding`` (:func:`sinusoidal_encoding`, shape
    ``(length, dim)``) and ``theta`` (:func:`ropelab.core.inv_freq`).
    """
    return {
        "length": check_count(length, "length"),
        "dim": check_dim(dim),
        "base": check_base(base),
        "encoding": sinusoidal_encoding(length, dim, base),
        "theta": inv_freq(dim, base),
    }


def sinusoid_shift_matrix(offset: float, dim: int, base: float = 10000.0) -> np.ndarray:
    r"""The fixed matrix :math:`M_k` with :math:`p_{m+k} = M_k\,p_m` for every position *m*.

    Block diagonal, one 2x2 block per pair :math:`(\sin m\theta_i, \cos m\theta_i)`:

    .. math::
        M_k = \operatorname{diag}_i \begin{pmatrix}\cos k\theta_i & \sin k\theta_i\\
        -\sin k\theta_i & \cos k\theta_i\end{pmatrix}

    by :math:`\sin(a+b) = \sin a\cos b + \cos a\sin b` and
    :math:`\cos(a+b) = \cos a\cos b - \sin a\sin b`. This is the property Vaswani et al.
    give for choosing sinusoids ("PE_{pos+k} is a linear function of PE_{pos}"): each pair
    is *rotated* by :math:`k\theta_i`, whatever *m* is. Chapter 0 (and the hint towards
    chapter 1).

    Args:
        offset: the shift *k*, a real number.
        dim: *d*, a positive even integer.
        base: > 0.

    Returns:
        float64 array of shape ``(dim, dim)``.
    """
    theta = inv_freq(dim, base)
    k = float(check_finite_array(offset, "offset"))
    c, s = np.cos(k * theta), np.sin(k * theta)
    matrix = np.zeros((dim, dim))
    even, odd = np.arange(0, dim, 2), np.arange(1, dim, 2)
    matrix[even, even], matrix[even, odd] = c, s
    matrix[odd, even], matrix[odd, odd] = -s, c
    return matrix


def learned_positions(table: Any, positions: Any) -> np.ndarray:
    r"""Look up learned absolute position vectors :math:`p_m` = row *m* of a trained table.

    BERT (Devlin et al., 2019) and GPT-2 train one vector per position, 512 and 1024 of
    them. There is no row for a position at or beyond the table length, so this raises a
    ``ValueError`` there: the maximum-length problem of chapter 0.

    Args:
        table: ``(max_len, dim)`` table.
        positions: integer positions in ``[0, max_len - 1]``.

    Returns:
        ``table[positions]``, shape ``positions.shape + (dim,)``.
    """
    table = _check_matrix(table, "table")
    array = check_finite_array(positions, "positions")
    limit = table.shape[0] - 1
    if np.any(array != np.round(array)) or np.any(array < 0) or np.any(array > limit):
        bad = array[(array != np.round(array)) | (array < 0) | (array > limit)]
        raise ValueError(
            f"positions must be integers in [0, {limit}] (the table has {limit + 1} rows), "
            f"got {bad.flat[0]:g}"
        )
    return table[array.astype(np.int64)]


def diagonal_spread(matrix: Any) -> float:
    r"""The largest range of values along any diagonal of a square matrix.

    .. math:: \max_r \Big(\max_{m-n=r} A_{m,n} - \min_{m-n=r} A_{m,n}\Big)

    It is 0 exactly when :math:`A_{m,n}` depends only on :math:`m - n` (a Toeplitz matrix),
    which is the test of "relative" used in chapter 0.
    """
    a = _check_matrix(matrix, "matrix")
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"matrix must be square, got shape {a.shape}")
    size = a.shape[0]
    return float(max(np.ptp(np.diagonal(a, offset=r)) for r in range(-(size - 1), size)))


def four_term_decomposition(
    x_m: Any, x_n: Any, p_m: Any, p_n: Any, w_q: Any, w_k: Any
) -> dict[str, float]:
    r"""The four terms of :math:`q_m^\top k_n` with additive absolute positions.

    .. math::
        (W_q(x_m + p_m))^\top W_k(x_n + p_n) =
        \underbrace{x_m^\top W_q^\top W_k x_n}_{\text{content-content}}
        + \underbrace{x_m^\top W_q^\top W_k p_n}_{\text{content-position}}
        + \underbrace{p_m^\top W_q^\top W_k x_n}_{\text{position-content}}
        + \underbrace{p_m^\top W_q^\top W_k p_n}_{\text{position-position}}

    Source: Transformer-XL (Dai et al., 2019), section 3.3; RoFormer eq. 6. Unscaled (no
    :math:`1/\sqrt{d_h}`). Chapter 0.

    Returns:
        ``{"content-content", "content-position", "position-content", "position-position",
        "total"}``, where ``total`` is :math:`q_m^\top k_n` computed directly.
    """
    w_q = _check_matrix(w_q, "w_q")
    w_k = _check_matrix(w_k, "w_k", cols=w_q.shape[1])
    vectors = {}
    for name, value in (("x_m", x_m), ("x_n", x_n), ("p_m", p_m), ("p_n", p_n)):
        vec = check_finite_array(value, name)
        if vec.shape != (w_q.shape[1],):
            raise ValueError(f"{name} must have shape ({w_q.shape[1]},), got {vec.shape}")
        vectors[name] = vec
    x_m, x_n, p_m, p_n = (vectors[k] for k in ("x_m", "x_n", "p_m", "p_n"))
    kernel = w_q.T @ w_k
    return {
        "content-content": float(x_m @ kernel @ x_n),
        "content-position": float(x_m @ kernel @ p_n),
        "position-content": float(p_m @ kernel @ x_n),
        "position-position": float(p_m @ kernel @ p_n),
        "total": float((w_q @ (x_m + p_m)) @ (w_k @ (x_n + p_n))),
    }


def absolute_scores(
    x: Any, head: ToyHead, positions: Any, encoding: str = "sinusoidal"
) -> np.ndarray:
    r"""Logits with an additive absolute encoding (RoFormer eq. 3).

    .. math:: s_{m,n} = \frac{(W_q(x_m + p_m))^\top W_k(x_n + p_n)}{\sqrt{d_h}}

    with :math:`p_m` the sinusoid (``encoding="sinusoidal"``, Vaswani et al.) or row *m* of
    the learned table (``encoding="learned"``, BERT), or :math:`p_m = 0` (``"none"``).
    Chapter 0.

    Args:
        x: embeddings ``(N, dim)``.
        head: the weights.
        positions: the *N* integer positions of the tokens.
        encoding: ``"sinusoidal"``, ``"learned"`` or ``"none"``.
    """
    x = _check_matrix(x, "x", cols=head.dim)
    m = _check_positions(positions)
    if m.size != x.shape[0]:
        raise ValueError(f"positions must have {x.shape[0]} entries, got {m.size}")
    if encoding == "sinusoidal":
        x = x + sinusoid(m, head.dim, head.base)
    elif encoding == "learned":
        x = x + learned_positions(head.learned, m)
    elif encoding != "none":
        raise ValueError(
            f"encoding must be one of ('sinusoidal', 'learned', 'none'), got {encoding!r}"
        )
    return (x @ head.w_q.T) @ (x @ head.w_k.T).T / np.sqrt(head.head_dim)


# --------------------------------------------------------------------------------------
# Relative encodings
# --------------------------------------------------------------------------------------


def _offsets(x: np.ndarray, positions: Any) -> np.ndarray:
    """The matrix of offsets :math:`m - n` (row: query *m*, column: key *n*)."""
    m = _check_positions(positions)
    if m.size != x.shape[0]:
        raise ValueError(f"positions must have {x.shape[0]} entries, got {m.size}")
    return m[:, None] - m[None, :]


def shaw_relative_index(offsets: Any, clip: int) -> np.ndarray:
    r"""The table row of Shaw et al. for each offset: :math:`\operatorname{clip}(r, -k, k) + k`.

    Shaw et al. (2018) keep :math:`2k + 1` relative embeddings, for the offsets
    :math:`-k, \dots, k`; every offset beyond *k* uses the embedding of :math:`\pm k`
    ("precise relative position information is not useful beyond a certain distance").
    Chapter 0.

    Args:
        offsets: integer offsets :math:`r = m - n`, any shape.
        clip: *k*, an integer >= 1.

    Returns:
        int64 array of rows in ``[0, 2k]``, same shape as ``offsets``.
    """
    clip = check_count(clip, "clip")
    r = check_finite_array(offsets, "offsets")
    if np.any(r != np.round(r)):
        raise ValueError(f"offsets must be integers, got {offsets!r}")
    return (np.clip(r, -clip, clip) + clip).astype(np.int64)


def shaw_attention(x: Any, head: ToyHead, positions: Any) -> Attention:
    r"""Self-attention with Shaw et al.'s clipped relative embeddings (RoFormer eq. 4-5).

    .. math::
        q_m = W_q x_m, \quad
        k_n^{(m)} = W_k\big(x_n + \tilde p^k_{r}\big), \quad
        v_n^{(m)} = W_v\big(x_n + \tilde p^v_{r}\big), \quad
        r = \operatorname{clip}(m - n, -k, k)

    :math:`s_{m,n} = q_m^\top k_n^{(m)}/\sqrt{d_h}` and :math:`o_m = \sum_n a_{m,n}v_n^{(m)}`.
    The key and value of token *n* depend on the query *m*: they cannot be computed once
    per token. (Shaw et al. add :math:`a^K_{mn}` after the projection; RoFormer writes the
    table before it, which is the same model with :math:`a^K = W_k\tilde p^k`.) Chapter 0.
    """
    x = _check_matrix(x, "x", cols=head.dim)
    rows = shaw_relative_index(_offsets(x, positions), head.clip)  # (N, N)
    keys = (x[None, :, :] + head.shaw_keys[rows]) @ head.w_k.T  # (N, N, d_h): [m, n]
    values = (x[None, :, :] + head.shaw_values[rows]) @ head.w_v.T
    q = x @ head.w_q.T
    scores = np.einsum("md,mnd->mn", q, keys) / np.sqrt(head.head_dim)
    weights = softmax(scores)
    return Attention(
        scores=scores, weights=weights, output=np.einsum("mn,mnd->md", weights, values)
    )


def transformer_xl_scores(x: Any, head: ToyHead, positions: Any) -> np.ndarray:
    r"""Logits of Transformer-XL's relative attention, as RoFormer eq. 7 writes it.

    .. math::
        s_{m,n}\sqrt{d_h} = x_m^\top W_q^\top W_k x_n
        + x_m^\top W_q^\top \widetilde W_k \tilde p_{m-n}
        + u^\top W_q^\top W_k x_n
        + v^\top W_q^\top \widetilde W_k \tilde p_{m-n}

    :math:`\tilde p_{m-n}` is the sinusoid (:func:`sinusoid`) of the offset, :math:`u, v`
    are trained vectors that replace the query's position. Source: Dai et al. (2019), eq. of
    section 3.3; Yang et al. (2019) reuse it in XLNet. Chapter 0.
    """
    x = _check_matrix(x, "x", cols=head.dim)
    rel = sinusoid(_offsets(x, positions), head.dim, head.base)  # (N, N, dim)
    q = x @ head.w_q.T
    k = x @ head.w_k.T
    k_rel = rel @ head.w_k_rel.T  # (N, N, d_h)
    u = head.u @ head.w_q.T
    v = head.v @ head.w_q.T
    scores = q @ k.T + np.einsum("md,mnd->mn", q, k_rel) + (k @ u)[None, :] + k_rel @ v
    return scores / np.sqrt(head.head_dim)


def _check_t5_sizes(num_buckets: Any, max_distance: Any) -> tuple[int, int]:
    num_buckets = check_count(num_buckets, "num_buckets", minimum=4)
    if num_buckets % 2:
        raise ValueError(f"num_buckets must be an even integer >= 4, got {num_buckets}")
    max_exact = num_buckets // 4
    max_distance = check_count(max_distance, "max_distance", minimum=max_exact + 1)
    return num_buckets, max_distance


def t5_relative_bucket(
    relative_position: Any, num_buckets: int = 32, max_distance: int = 128
) -> np.ndarray:
    r"""T5's bucket of a key-minus-query offset :math:`n - m` (bidirectional attention).

    Half of the buckets are for :math:`n - m > 0` and half for :math:`n - m \le 0`. Within a
    half of :math:`B = \text{num\_buckets}/2` buckets, with :math:`E = B/2` and
    :math:`|r| = |n - m|`:

    .. math::
        \text{bucket}(|r|) = \begin{cases}
        |r| & |r| < E \\
        \min\!\Big(B - 1,\; E + \Big\lfloor \frac{\ln(|r|/E)}{\ln(D/E)}\,(B - E)\Big\rfloor\Big)
        & |r| \ge E \end{cases}

    with :math:`D` = ``max_distance``: exact buckets for small distances, logarithmic ones
    up to *D*, and one bucket for every distance from *D* on (in fact from a little before
    *D*, see :func:`t5_last_bucket_distance`). Source: Raffel et al. (2020),
    section 2.1, and ``T5Attention._relative_position_bucket`` in transformers (tested
    against it). Chapter 0.

    Args:
        relative_position: integer offsets :math:`n - m`, any shape.
        num_buckets: even integer >= 4 (32 in T5).
        max_distance: integer > num_buckets // 4 (128 in T5).

    Returns:
        int64 buckets in ``[0, num_buckets - 1]``.
    """
    num_buckets, max_distance = _check_t5_sizes(num_buckets, max_distance)
    r = check_finite_array(relative_position, "relative_position")
    if np.any(r != np.round(r)):
        raise ValueError(f"relative_position must be integers, got {relative_position!r}")
    r = r.astype(np.int64)
    half = num_buckets // 2
    max_exact = half // 2
    distance = np.abs(r)
    safe = np.maximum(distance, max_exact)  # the log branch is only used for distance >= E
    large = max_exact + (
        np.log(safe / max_exact) / np.log(max_distance / max_exact) * (half - max_exact)
    ).astype(np.int64)
    large = np.minimum(large, half - 1)
    bucket = np.where(distance < max_exact, distance, large)
    return (bucket + half * (r > 0)).astype(np.int64)


def t5_last_bucket_distance(num_buckets: int = 32, max_distance: int = 128) -> int:
    r"""The smallest distance :math:`|n - m|` that T5 puts into the last bucket of its half.

    The floor in :func:`t5_relative_bucket` reaches bucket :math:`B - 1` as soon as
    :math:`\ln(|r|/E)/\ln(D/E)\,(B - E) \ge B - E - 1`, that is from
    :math:`|r| \ge E\,(D/E)^{(B-E-1)/(B-E)}` on, before the nominal ``max_distance`` *D*:
    91 for T5's 32 buckets and *D* = 128. Found here by scanning the buckets. Chapter 0.
    """
    num_buckets, max_distance = _check_t5_sizes(num_buckets, max_distance)
    distances = np.arange(max_distance + 1)
    buckets = t5_relative_bucket(-distances, num_buckets, max_distance)
    return int(distances[np.argmax(buckets == num_buckets // 2 - 1)])


def t5_bias(head: ToyHead, positions: Any) -> np.ndarray:
    r"""T5's bias matrix :math:`b_{m,n} = \beta_{\text{bucket}(n - m)}` (one scalar per bucket).

    Source: Raffel et al. (2020), section 2.1. Chapter 0.

    Args:
        head: supplies the bucket values ``t5_buckets`` and ``max_distance``.
        positions: the integer positions of the tokens.
    """
    m = _check_positions(positions)
    buckets = t5_relative_bucket(m[None, :] - m[:, None], head.t5_buckets.size, head.max_distance)
    return head.t5_buckets[buckets]


def t5_scores(x: Any, head: ToyHead, positions: Any) -> np.ndarray:
    r"""Logits of T5 (RoFormer eq. 8): content only, plus a learned scalar per offset bucket.

    .. math:: s_{m,n} = \frac{x_m^\top W_q^\top W_k x_n}{\sqrt{d_h}} + b_{m,n}

    with :math:`b_{m,n}` from :func:`t5_bias`. Chapter 0.
    """
    x = _check_matrix(x, "x", cols=head.dim)
    _offsets(x, positions)  # checks the positions against x
    content = (x @ head.w_q.T) @ (x @ head.w_k.T).T / np.sqrt(head.head_dim)
    return content + t5_bias(head, positions)


def deberta_relative_index(offsets: Any, clip: int) -> np.ndarray:
    r"""DeBERTa's relative distance :math:`\delta(m, n)` for offsets :math:`r = m - n`.

    .. math::
        \delta(m, n) = \begin{cases} 0 & m - n \le -k \\ 2k - 1 & m - n \ge k \\
        m - n + k & \text{otherwise} \end{cases}

    Source: He et al. (2021), eq. 3. Rows of a table with :math:`2k` entries. Chapter 0.

    Args:
        offsets: integer offsets :math:`m - n`, any shape.
        clip: *k*, an integer >= 1.
    """
    clip = check_count(clip, "clip")
    r = check_finite_array(offsets, "offsets")
    if np.any(r != np.round(r)):
        raise ValueError(f"offsets must be integers, got {offsets!r}")
    return np.clip(r + clip, 0, 2 * clip - 1).astype(np.int64)


def deberta_scores(x: Any, head: ToyHead, positions: Any) -> np.ndarray:
    r"""Logits of DeBERTa's disentangled attention (He et al., 2021, eq. 4; RoFormer eq. 10).

    .. math::
        s_{m,n}\sqrt{d_h} = \underbrace{x_m^\top W_q^\top W_k x_n}_{\text{content-to-content}}
        + \underbrace{x_m^\top W_q^\top \widetilde W_k \tilde p_{\delta(m,n)}}_{\text{content-to-position}}
        + \underbrace{\tilde p_{\delta(n,m)}^\top \widetilde W_q^\top W_k x_n}_{\text{position-to-content}}

    :math:`\tilde p` is a learned table of :math:`2k` rows indexed by
    :func:`deberta_relative_index`. The paper divides by :math:`\sqrt{3d_h}`; this module
    uses :math:`\sqrt{d_h}` everywhere. Chapter 0.
    """
    x = _check_matrix(x, "x", cols=head.dim)
    offsets = _offsets(x, positions)
    p_c2p = head.deberta[deberta_relative_index(offsets, head.clip)]  # (N, N, dim)
    p_p2c = head.deberta[deberta_relative_index(-offsets, head.clip)]
    q = x @ head.w_q.T
    k = x @ head.w_k.T
    c2p = np.einsum("md,mnd->mn", q, p_c2p @ head.w_k_rel.T)
    p2c = np.einsum("mnd,nd->mn", p_p2c @ head.w_q_rel.T, k)
    return (q @ k.T + c2p + p2c) / np.sqrt(head.head_dim)


def low_rank_gap(matrix: Any, rank: int) -> float:
    r"""How far a score matrix is from every matrix of rank at most ``rank``, relative to its size.

    .. math:: \frac{\sigma_{r+1}(S)}{\sigma_1(S)} = \min_{\operatorname{rank} B \le r}
              \frac{\lVert S - B \rVert_2}{\lVert S \rVert_2}

    (:math:`\sigma_1 \ge \sigma_2 \ge \dots` the singular values; Eckart-Young-Mirsky).
    A score matrix :math:`S_{m,n} = \langle f_q(x_m, m), f_k(x_n, n)\rangle` built from
    :math:`d_h`-dimensional vectors has rank at most :math:`d_h`, so with ``rank`` =
    :math:`d_h` the ratio is 0 up to rounding; a positive ratio proves that no such
    :math:`d_h`-dimensional vectors produce *S*. Chapter 0.

    Args:
        matrix: a non-zero 2-D array.
        rank: *r*, an integer >= 1, below ``min(matrix.shape)``.
    """
    a = _check_matrix(matrix, "matrix")
    rank = check_count(rank, "rank")
    if rank >= min(a.shape):
        raise ValueError(f"rank must be an integer in [1, {min(a.shape) - 1}], got {rank}")
    sigma = np.linalg.svd(a, compute_uv=False)
    if sigma[0] == 0.0:
        raise ValueError("matrix must not be all zeros")
    return float(sigma[rank] / sigma[0])


#: Every position scheme of chapter 0 by name, each ``(x, head, positions) -> (N, N) logits``.
SCHEMES = {
    "none": lambda x, head, positions: absolute_scores(x, head, positions, "none"),
    "learned": lambda x, head, positions: absolute_scores(x, head, positions, "learned"),
    "sinusoidal": lambda x, head, positions: absolute_scores(x, head, positions, "sinusoidal"),
    "shaw": lambda x, head, positions: shaw_attention(x, head, positions).scores,
    "transformer_xl": transformer_xl_scores,
    "t5": t5_scores,
    "deberta": deberta_scores,
}


def scheme_scores(scheme: str, x: Any, head: ToyHead, positions: Any) -> np.ndarray:
    """The ``(N, N)`` logits of one of :data:`SCHEMES` for tokens at ``positions`` (chapter 0)."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {tuple(SCHEMES)}, got {scheme!r}")
    return SCHEMES[scheme](x, head, positions)


def shift_test(scheme: str, x: Any, head: ToyHead, shifts: Any) -> np.ndarray:
    r"""How much the logits change when the whole sequence moves by *s* positions.

    .. math::
        \Delta(s) = \max_{m,n} \big| S_{m,n}(\text{positions } s, \dots, s+N-1)
        - S_{m,n}(\text{positions } 0, \dots, N-1) \big|

    Every pair keeps its offset :math:`m - n`, so a relative scheme gives exactly
    :math:`\Delta(s) = 0`; an absolute scheme does not. The learned table has no rows beyond
    ``head.max_len - 1``: there :math:`\Delta(s)` is NaN (undefined). Chapter 0.

    Args:
        scheme: a key of :data:`SCHEMES`.
        x: embeddings ``(N, dim)``.
        head: the weights.
        shifts: integer shifts *s* >= 0.

    Returns:
        float64 array of :math:`\Delta(s)`, one per shift.
    """
    x = _check_matrix(x, "x", cols=head.dim)
    s = _check_positions(shifts, "shifts")
    base = np.arange(x.shape[0])
    reference = scheme_scores(scheme, x, head, base)
    deltas = np.full(s.shape, np.nan)
    for j, shift in enumerate(s):
        if scheme == "learned" and shift + x.shape[0] > head.max_len:
            continue
        deltas[j] = np.max(np.abs(scheme_scores(scheme, x, head, base + shift) - reference))
    return deltas


# --------------------------------------------------------------------------------------
# Symbolic identities (SymPy is imported on demand)
# --------------------------------------------------------------------------------------


def _unevaluated_difference(lhs: Any, rhs: Any) -> Any:
    """``lhs - rhs`` held unevaluated entry by entry, so that both sides stay visible."""
    import sympy

    if isinstance(lhs, sympy.MatrixBase):
        return sympy.Matrix(
            lhs.rows,
            lhs.cols,
            [sympy.Add(a, -b, evaluate=False) for a, b in zip(lhs, rhs, strict=True)],
        )
    return sympy.Add(lhs, -rhs, evaluate=False)


def _symbolic_attention_output(q: Any, k: Any, v: Any) -> Any:
    """Softmax attention of symbolic row matrices Q, K, V (scale :math:`1/\\sqrt{d_h}`)."""
    import sympy

    scores = q * k.T / sympy.sqrt(q.cols)
    rows = []
    for i in range(scores.rows):
        exps = [sympy.exp(scores[i, j]) for j in range(scores.cols)]
        total = sympy.Add(*exps)
        rows.append(
            [sympy.Add(*[e * v[j, c] for j, e in enumerate(exps)]) / total for c in range(v.cols)]
        )
    return sympy.Matrix(rows)


def permutation_equivariance_identity(
    n_tokens: int = 3, dim: int = 1, order: Sequence[int] | None = None
) -> sympy.Matrix:
    r"""Attention without positions commutes with reordering the tokens, symbolically.

    With queries, keys and values :math:`q_j, k_j, v_j` computed token by token (rows of
    *Q, K, V*) and *P* the permutation matrix of ``order``:

    .. math:: O(PQ, PK, PV) - P\,O(Q, K, V) = 0, \qquad
              O(Q, K, V) = \operatorname{softmax}\!\Big(\frac{QK^\top}{\sqrt{d_h}}\Big) V

    Returns that difference, unevaluated, with every entry a real symbol (``q_j_c``, ...).
    Chapter 0; :func:`ropelab.proofs.simplifies_to_zero` decides it.

    Args:
        n_tokens: *N*, an integer >= 2.
        dim: :math:`d_h`, an integer >= 1.
        order: a permutation of ``0 .. N-1``; default: the cyclic shift ``(N-1, 0, 1, ...)``.
    """
    import sympy

    n_tokens = check_count(n_tokens, "n_tokens", minimum=2)
    dim = check_count(dim, "dim")
    order = np.roll(np.arange(n_tokens), 1) if order is None else _check_order(order, n_tokens)

    def rows(name: str) -> Any:
        if dim == 1:
            return sympy.Matrix(
                [[sympy.Symbol(f"{name}_{j + 1}", real=True)] for j in range(n_tokens)]
            )
        return sympy.Matrix(
            [
                [sympy.Symbol(f"{name}_{j + 1}{c}", real=True) for c in range(dim)]
                for j in range(n_tokens)
            ]
        )

    q, k, v = rows("q"), rows("k"), rows("v")
    perm = sympy.Matrix(permutation_matrix(order).astype(int))
    permuted = _symbolic_attention_output(perm * q, perm * k, perm * v)
    return _unevaluated_difference(permuted, perm * _symbolic_attention_output(q, k, v))


def _symbolic_sinusoid(position: Any, thetas: Sequence[Any]) -> Any:
    import sympy

    entries = []
    for theta in thetas:
        entries += [sympy.sin(position * theta), sympy.cos(position * theta)]
    return sympy.Matrix(entries)


def sinusoid_shift_identity(dim: int = 4) -> sympy.Matrix:
    r"""The sinusoid at :math:`m + k` is a fixed rotation of the sinusoid at *m*, symbolically.

    .. math:: p_{m+k} - M_k\,p_m = 0

    with :math:`M_k` of :func:`sinusoid_shift_matrix`, symbolic in *m*, *k* and independent
    frequencies :math:`\theta_0, \dots, \theta_{d/2-1}`. Chapter 0.

    Args:
        dim: *d*, a positive even integer.
    """
    import sympy

    from .proofs import theta_symbols

    thetas = theta_symbols(dim)
    m = sympy.Symbol("m", real=True)
    k = sympy.Symbol("k", real=True)
    blocks = [
        sympy.Matrix(
            [
                [sympy.cos(k * theta), sympy.sin(k * theta)],
                [-sympy.sin(k * theta), sympy.cos(k * theta)],
            ]
        )
        for theta in thetas
    ]
    shift = sympy.diag(*blocks)
    return _unevaluated_difference(
        _symbolic_sinusoid(m + k, thetas), shift * _symbolic_sinusoid(m, thetas)
    )


def sinusoid_dot_identity(dim: int = 4) -> sympy.Expr:
    r"""The dot product of two sinusoids depends on the offset only, symbolically.

    .. math:: p_m^\top p_n - \sum_{i=0}^{d/2-1} \cos\big((m - n)\theta_i\big) = 0

    by :math:`\sin a\sin b + \cos a\cos b = \cos(a - b)`. Symbolic in *m*, *n* and the
    :math:`\theta_i`. Chapter 0.

    Args:
        dim: *d*, a positive even integer.
    """
    import sympy

    from .proofs import position_symbols, theta_symbols

    dim = check_dim(dim)
    thetas = theta_symbols(dim)
    m, n = position_symbols()
    dot = (_symbolic_sinusoid(m, thetas).T * _symbolic_sinusoid(n, thetas))[0, 0]
    return _unevaluated_difference(dot, sympy.Add(*[sympy.cos((m - n) * t) for t in thetas]))
