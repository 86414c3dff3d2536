r"""Position ids and masks for padded batches and packed sequences (chapter 8).

**Left padding.** A batch of prompts of different lengths is padded on the left so that
every row ends at the same column and generation appends to all rows at once. The pad
tokens are hidden by the attention mask, and the real tokens get the positions they would
have alone, counted from the attention mask (as transformers' ``generate`` does):

.. math:: p_j = \Big(\sum_{j' \le j} a_{j'}\Big) - 1 \quad (a_j = 1),
          \qquad p_j = 0 \quad (a_j = 0,\ \text{a pad; never attended to}).

RoPE scores depend only on position *differences*, so for plain RoPE the positions
``0 .. T-1`` give the same scores among the real tokens; they go wrong where the
frequencies depend on the largest position (dynamic NTK, LongRoPE's switch), and with any
absolute position signal.

**Packing.** Several documents share one row to avoid padding. Each document's positions
restart at 0 and a block-diagonal causal *document mask* keeps every token inside its own
document:

.. math:: M_{ij} = [\,\mathrm{doc}(i) = \mathrm{doc}(j)\ \text{and}\ j \le i\,].

Restarting the positions alone is not enough: with a plain causal mask a token still
attends to the documents before it. Explained in chapter 8 of the book.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_count

__all__ = [
    "document_ids",
    "document_mask",
    "left_pad",
    "packed_position_ids",
    "padding_mask",
    "position_ids_from_attention_mask",
]


def _check_attention_mask(attention_mask: Any) -> np.ndarray:
    mask = np.asarray(attention_mask)
    if mask.ndim not in (1, 2) or mask.size == 0:
        raise ValueError(
            f"attention_mask must be a non-empty (seq,) or (batch, seq) array, got shape {mask.shape}"
        )
    if not np.all((mask == 0) | (mask == 1)):
        raise ValueError("attention_mask must contain only 0 (pad) and 1 (token)")
    return mask.astype(np.int64)


def position_ids_from_attention_mask(attention_mask: Any, pad_value: int = 0) -> np.ndarray:
    """Positions counted over real tokens only: ``cumsum(mask) - 1``, pads set to ``pad_value``.

    The same rule as transformers 5's ``generate`` (``attention_mask.cumsum(-1) - 1`` with the
    pads filled by 0; earlier versions filled them with 1). Works on ``(seq,)`` or
    ``(batch, seq)`` masks of 0 and 1.
    """
    mask = _check_attention_mask(attention_mask)
    positions = np.cumsum(mask, axis=-1) - 1
    return np.where(mask == 1, positions, pad_value)


def left_pad(tokens: Any, length: int, pad_id: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``tokens`` padded on the left to ``length``; returns ``(padded, attention_mask)``."""
    tokens = np.asarray(tokens)
    length = check_count(length, "length")
    if tokens.ndim != 1 or len(tokens) > length:
        raise ValueError(
            f"tokens must be a 1-d sequence of at most length = {length} ids, got shape "
            f"{tokens.shape}"
        )
    pads = length - len(tokens)
    padded = np.concatenate([np.full(pads, pad_id, dtype=tokens.dtype), tokens])
    mask = np.concatenate([np.zeros(pads, dtype=np.int64), np.ones(len(tokens), dtype=np.int64)])
    return padded, mask


def padding_mask(attention_mask: Any) -> np.ndarray:
    """``(seq, seq)`` causal mask of one padded row that hides the pad keys.

    Row *i* may attend to column *j* when ``j <= i`` and *j* is a real token; a pad row
    attends only to itself, so that its (unused) softmax stays finite.
    """
    mask = _check_attention_mask(attention_mask)
    if mask.ndim != 1:
        raise ValueError(f"attention_mask must be one row (seq,), got shape {mask.shape}")
    seq = len(mask)
    causal = np.tril(np.ones((seq, seq), dtype=bool))
    allowed = causal & (mask[None, :] == 1)
    return allowed | np.eye(seq, dtype=bool)


def _check_lengths(lengths: Any) -> np.ndarray:
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0:
        raise ValueError(f"lengths must be a non-empty 1-d list of counts, got {lengths!r}")
    for n in lengths:
        check_count(n, "each document length")
    return lengths.astype(np.int64)


def document_ids(lengths: Any) -> np.ndarray:
    """The document index of every column of a packed row: ``[0]*n0 + [1]*n1 + ...``."""
    lengths = _check_lengths(lengths)
    return np.repeat(np.arange(len(lengths)), lengths)


def packed_position_ids(lengths: Any) -> np.ndarray:
    """Positions that restart at 0 in every document: ``0..n0-1, 0..n1-1, ...``."""
    lengths = _check_lengths(lengths)
    return np.concatenate([np.arange(n) for n in lengths])


def document_mask(lengths: Any) -> np.ndarray:
    """Block-diagonal causal mask ``(T, T)``: same document and key at or before the query."""
    docs = document_ids(lengths)
    seq = len(docs)
    return (docs[:, None] == docs[None, :]) & np.tril(np.ones((seq, seq), dtype=bool))
