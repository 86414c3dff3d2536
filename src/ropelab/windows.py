r"""Attention-limiting methods for long contexts: masks, biases and decay factors (chapter 6).

The first family of extrapolation methods leaves RoPE's angles alone and limits what a query
may attend to, or how much a distant key may count. Every function here returns the matrix
over (query position *t*, key position *s*) that one of these methods applies, so that the
book can draw it and the tests can check it entry by entry:

* :func:`causal_mask`, :func:`sliding_window_mask` (Longformer's local window, causal),
  :func:`lambda_mask` (Λ-shaped: a few "sink" tokens at the start plus a local window, as in
  LM-Infinite and StreamingLLM), :func:`blockwise_causal_mask` (xPos's BCA) and
  :func:`parallel_context_windows` (PCW): boolean masks, ``True`` where the query attends.
* :func:`alibi_slopes` and :func:`alibi_bias`: ALiBi's per-head linear penalty on distance.
* :func:`xpos_scales` and :func:`xpos_factor_matrix`: xPos's per-plane exponential decay,
  built from :func:`ropelab.scaling.xpos_zeta`.

Rows are queries and columns are keys, ``mask[t, s]``, as in an attention matrix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._checks import check_count, check_finite_array, check_positive
from .scaling import xpos_decay, xpos_zeta

__all__ = [
    "alibi_bias",
    "alibi_slopes",
    "blockwise_causal_mask",
    "causal_mask",
    "lambda_mask",
    "parallel_context_windows",
    "sliding_window_mask",
    "xpos_factor_matrix",
    "xpos_scales",
]


def _grid(seq_len: int) -> tuple[np.ndarray, np.ndarray]:
    """Query positions as a column and key positions as a row."""
    positions = np.arange(seq_len)
    return positions[:, None], positions[None, :]


def causal_mask(seq_len: int) -> np.ndarray:
    r"""The causal mask of a decoder: query *t* attends to every key :math:`s \le t`.

    .. math:: M_{t,s} = [\, s \le t \,]

    The reference that every other mask of chapter 6 restricts.

    Returns:
        bool array of shape ``(seq_len, seq_len)``.
    """
    t, s = _grid(check_count(seq_len, "seq_len"))
    return s <= t


def sliding_window_mask(seq_len: int, window: int) -> np.ndarray:
    r"""A causal sliding window: query *t* attends to its ``window`` most recent keys.

    .. math:: M_{t,s} = [\, 0 \le t - s < w \,]

    The query itself counts, so every row has :math:`\min(t + 1, w)` keys and no relative
    distance reaches *w*: with :math:`w \le T_\text{train}` the model never meets a distance
    it did not train on. Source: the local attention of Longformer (Beltagy et al., 2020),
    here in its causal form. Explained in chapter 6 of the book.

    Returns:
        bool array of shape ``(seq_len, seq_len)``.
    """
    seq_len = check_count(seq_len, "seq_len")
    window = check_count(window, "window")
    t, s = _grid(seq_len)
    return (s <= t) & (t - s < window)


def lambda_mask(seq_len: int, window: int, sinks: int) -> np.ndarray:
    r"""The Λ-shaped mask: the first ``sinks`` tokens plus a causal local window.

    .. math:: M_{t,s} = [\, s \le t \,]\;\big([\, t - s < w \,] \lor [\, s < g \,]\big)

    with *w* the window and *g* the number of global "sink" tokens at the start. The two arms
    of the Λ are the diagonal band and the first columns. Sources: LM-Infinite (Han et al.,
    2023) and StreamingLLM (Xiao et al., 2023), which explains the first tokens as attention
    sinks. Explained in chapter 6 of the book.

    Returns:
        bool array of shape ``(seq_len, seq_len)``.
    """
    seq_len = check_count(seq_len, "seq_len")
    window = check_count(window, "window")
    sinks = check_count(sinks, "sinks", minimum=0)
    t, s = _grid(seq_len)
    return (s <= t) & ((t - s < window) | (s < sinks))


def blockwise_causal_mask(seq_len: int, block: int) -> np.ndarray:
    r"""xPos's blockwise causal attention (BCA): a query sees its own block and the previous one.

    The sequence is cut into blocks of *b* tokens; query *t* (in block :math:`\lfloor t/b \rfloor`)
    attends causally to the keys of its block and of the block before:

    .. math:: M_{t,s} = [\, s \le t \,]\;\big[\, \lfloor s/b \rfloor \ge \lfloor t/b \rfloor - 1 \,\big]

    With :math:`b = T_\text{train}/2`, a query past the first block sees between
    :math:`T_\text{train}/2 + 1` and :math:`T_\text{train}` keys, so no distance exceeds
    the training length. Source: Sun et al. 2023, "A Length-Extrapolatable Transformer"
    (xPos), used at inference. Explained in chapter 6 of the book.

    Returns:
        bool array of shape ``(seq_len, seq_len)``.
    """
    seq_len = check_count(seq_len, "seq_len")
    block = check_count(block, "block")
    t, s = _grid(seq_len)
    return (s <= t) & (s // block >= t // block - 1)


def parallel_context_windows(
    window_lengths: Sequence[int], task_len: int
) -> tuple[np.ndarray, np.ndarray]:
    r"""Parallel context windows (PCW): the mask and the position ids.

    The input is laid out as the context windows one after another, then the task tokens.
    Within a window, attention is causal; windows do not see each other; each task token sees
    every context token and, causally, the task tokens before it. Every window reuses the
    same positions: a window of :math:`L_j` tokens gets positions
    :math:`C - L_j, \dots, C - 1` with :math:`C = \max_j L_j`, so that all windows end at the
    same position (they look as if each stood alone right before the task), and the task
    tokens get :math:`C, C + 1, \dots`. The largest position is :math:`C + \text{task\_len} - 1`
    however many windows there are. With equal windows this is PCW's layout.

    Source: Ratner et al. 2023, "Parallel Context Windows for Large Language Models".
    Explained in chapter 6 of the book.

    Args:
        window_lengths: the length of each context window (at least one window, each >= 1).
        task_len: the number of task tokens, >= 0.

    Returns:
        ``(mask, positions)``: a bool array of shape ``(n, n)`` and an int64 array of shape
        ``(n,)``, with :math:`n = \sum_j L_j + \text{task\_len}`.
    """
    if isinstance(window_lengths, str | bytes) or not hasattr(window_lengths, "__len__"):
        raise ValueError(f"window_lengths must be a list of integers >= 1, got {window_lengths!r}")
    lengths = [check_count(length, "window_lengths[j]") for length in window_lengths]
    if not lengths:
        raise ValueError("window_lengths must name at least one window, got an empty list")
    task_len = check_count(task_len, "task_len", minimum=0)
    longest = max(lengths)
    window_of = np.concatenate(
        [np.full(length, j) for j, length in enumerate(lengths)] + [np.full(task_len, -1)]
    )
    positions = np.concatenate(
        [np.arange(longest - length, longest) for length in lengths]
        + [np.arange(longest, longest + task_len)]
    ).astype(np.int64)
    n = window_of.size
    t, s = _grid(n)
    same_window = window_of[:, None] == window_of[None, :]
    task_query = (window_of == -1)[:, None]
    mask = (s <= t) & (same_window | task_query)
    return mask, positions


def alibi_slopes(num_heads: int) -> np.ndarray:
    r"""ALiBi's head-specific slopes :math:`m_h`.

    For *n* heads with *n* a power of two, a geometric sequence:

    .. math:: m_h = 2^{-8h/n}, \qquad h = 1, \dots, n

    (8 heads: 1/2, 1/4, ..., 1/256). For other *n*, ALiBi's reference code takes the slopes of
    the largest power of two :math:`p < n` and adds every other slope of the sequence for
    :math:`2p` (its odd-numbered terms, :math:`2^{-4h/p}` for :math:`h = 1, 3, 5, \dots`)
    until there are *n*.

    Source: Press et al. 2022, "Train Short, Test Long: Attention with Linear Biases"
    (ALiBi), section 3. Explained in chapter 6 of the book.

    Returns:
        float64 array of shape ``(num_heads,)``, decreasing, in (0, 1).
    """
    num_heads = check_count(num_heads, "num_heads")

    def power_of_two_slopes(n: int) -> np.ndarray:
        return 2.0 ** (-8.0 * np.arange(1, n + 1) / n)

    closest = 2 ** math.floor(math.log2(num_heads))
    slopes = power_of_two_slopes(closest)
    if closest < num_heads:
        extra = power_of_two_slopes(2 * closest)[0::2][: num_heads - closest]
        slopes = np.concatenate([slopes, extra])
    return slopes


def alibi_bias(seq_len: int, num_heads: int) -> np.ndarray:
    r"""ALiBi's additive bias on the attention logits, per head, with the causal mask.

    .. math:: B_{h,t,s} = -m_h\,(t - s) \quad (s \le t), \qquad B_{h,t,s} = -\infty \quad (s > t)

    with :math:`m_h` from :func:`alibi_slopes`. The logit of query *t* and key *s* in head *h*
    is :math:`q_t^\top k_s + B_{h,t,s}`: a soft window whose width :math:`\sim 1/m_h` differs
    per head. Source: Press et al. 2022 (ALiBi), eq. in section 3. Explained in chapter 6 of
    the book.

    Returns:
        float64 array of shape ``(num_heads, seq_len, seq_len)``; ``-inf`` above the diagonal.
    """
    seq_len = check_count(seq_len, "seq_len")
    slopes = alibi_slopes(num_heads)
    t, s = _grid(seq_len)
    distance = (t - s).astype(np.float64)
    bias = -slopes[:, None, None] * distance
    return np.where(s <= t, bias, -np.inf)


def xpos_scales(
    positions: Any, dim: int, scale_len: float = 512.0, gamma: float = 0.4
) -> tuple[np.ndarray, np.ndarray]:
    r"""The factors by which xPos scales each plane of a query and of a key.

    .. math:: q_t \mapsto \zeta_n^{\,t/T}\, q_t, \qquad k_s \mapsto \zeta_n^{-s/T}\, k_s,
        \qquad \zeta_n = \frac{\gamma + 2n/d}{1 + \gamma}

    so that their product in the score is :math:`\zeta_n^{(t-s)/T}`, a function of the
    distance only: the decay is *separable* into a query part and a key part, like RoPE's
    rotation. :math:`\zeta_n` is :func:`ropelab.scaling.xpos_zeta`; xPos uses *T* = 512,
    the scaling-laws paper :math:`T_\text{extra}`.

    Source: Sun et al. 2023, "A Length-Extrapolatable Transformer" (xPos), eq. 5 of the
    scaling-laws explainer. Explained in chapter 6 of the book.

    Returns:
        ``(query_scale, key_scale)``, float64 arrays of shape ``positions.shape + (dim // 2,)``.
    """
    t = check_finite_array(positions, "positions")
    scale_len = check_positive(scale_len, "scale_len")
    zeta = xpos_zeta(dim, gamma)
    exponent = t[..., None] / scale_len
    return zeta**exponent, zeta ** (-exponent)


def xpos_factor_matrix(
    seq_len: int, dim: int, scale_len: float = 512.0, gamma: float = 0.4
) -> np.ndarray:
    r"""xPos's decay factor of every plane for every causal (query, key) pair.

    .. math:: F_{n,t,s} = \zeta_n^{(t-s)/T} \quad (s \le t), \qquad
        F_{n,t,s} = \text{NaN} \quad (s > t,\ \text{masked})

    Plane *n* of the score :math:`q_t^\top k_s` is multiplied by :math:`F_{n,t,s}`
    (:func:`ropelab.scaling.xpos_decay` at distance *t − s*). Fast planes (small *n*, small
    :math:`\zeta_n`) decay within a few multiples of *T*; the slowest stay near 1.
    Explained in chapter 6 of the book.

    Returns:
        float64 array of shape ``(dim // 2, seq_len, seq_len)``.
    """
    seq_len = check_count(seq_len, "seq_len")
    t, s = _grid(seq_len)
    factor = xpos_decay(np.maximum(t - s, 0), dim, scale_len, gamma)  # (seq, seq, d/2)
    factor = np.moveaxis(factor, -1, 0)
    return np.where(s <= t, factor, np.nan)
