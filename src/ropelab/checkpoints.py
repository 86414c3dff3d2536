r"""Converting attention weights between the two RoPE layouts (chapter 8).

Meta's original Llama code rotates *adjacent* coordinates ``(2i, 2i+1)`` of each head
(the interleaved layout of the RoFormer paper); Hugging Face transformers rotates the two
*halves* ``(i, i + d/2)`` (``rotate_half``). Chapter 3 shows that the two layouts are the
same rotation up to a permutation of coordinates. A checkpoint trained with one layout runs
in code written for the other only if the output rows of :math:`W_q` and :math:`W_k` are
permuted, head by head, so that the pair ``(2i, 2i+1)`` lands on ``(i, i + d/2)``:

.. math::
    W'_{h,\,i} = W_{h,\,2i}, \qquad W'_{h,\,i + d/2} = W_{h,\,2i+1},
    \qquad i = 0, \dots, d/2 - 1,

where :math:`W_{h,j}` is row *j* of head *h*. This is what ``permute`` in transformers'
``convert_llama_weights_to_hf.py`` does (``w.view(n_heads, d/2, 2, hidden).transpose(1,
2)``). Only :math:`W_q` and :math:`W_k` (and their biases, if any) are permuted: the score
:math:`q^\top k` is a sum over coordinates, so the same permutation of both leaves it
unchanged, and :math:`W_v` never meets the rotation.

Two variants matter for real models:

* **Partial rotary embedding** (GPT-NeoX, Phi, GPT-J): only the first ``rotary_dim``
  coordinates of each head rotate; only they are permuted, the rest keep their order.
* **Grouped-query attention**: :math:`W_k` has ``num_key_value_heads`` heads, fewer than
  :math:`W_q`; each matrix is permuted with its own head count.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_count

__all__ = [
    "convert_qk_weights",
    "half_split_row_order",
    "permute_qk_weight",
    "unpermute_qk_weight",
]


def _is_torch(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "torch"


def half_split_row_order(head_dim: int, rotary_dim: int | None = None) -> np.ndarray:
    r"""Row order of one head that turns the interleaved layout into the half-split one.

    Entry *j* of the result is the interleaved row that goes to row *j*: first the even rows
    ``0, 2, ..., r-2`` of the rotary part, then the odd rows ``1, 3, ..., r-1``, then the
    rows ``r .. head_dim-1`` that do not rotate, in order (*r* = ``rotary_dim``).

    Args:
        head_dim: rows per head, an integer >= 2.
        rotary_dim: rotated rows per head, a positive even integer <= ``head_dim``;
            ``None`` means the whole head.

    Returns:
        int64 array of shape ``(head_dim,)``, a permutation of ``0 .. head_dim-1``.
    """
    head_dim = check_count(head_dim, "head_dim", minimum=2)
    rotary = head_dim if rotary_dim is None else check_count(rotary_dim, "rotary_dim")
    if rotary % 2 or rotary > head_dim:
        raise ValueError(
            f"rotary_dim must be a positive even integer <= head_dim = {head_dim}, got {rotary}"
        )
    return np.concatenate(
        [np.arange(0, rotary, 2), np.arange(1, rotary, 2), np.arange(rotary, head_dim)]
    )


def _reorder_rows(w: Any, n_heads: Any, rotary_dim: Any, inverse: bool) -> Any:
    n_heads = check_count(n_heads, "n_heads")
    ndim = getattr(w, "ndim", None)
    if ndim not in (1, 2):
        raise ValueError(
            "w must be a weight of shape (n_heads * head_dim, hidden) or a bias of shape "
            f"(n_heads * head_dim,), got {ndim}-d input"
        )
    rows = int(w.shape[0])
    if rows % n_heads:
        raise ValueError(f"w has {rows} rows, not a multiple of n_heads = {n_heads}")
    head_dim = rows // n_heads
    if head_dim < 2:
        raise ValueError(f"each head must have >= 2 rows, got {rows} rows for {n_heads} heads")
    order = half_split_row_order(head_dim, rotary_dim)
    if inverse:
        order = np.argsort(order)
    index = (np.arange(n_heads)[:, None] * head_dim + order[None, :]).reshape(-1)
    if _is_torch(w):
        import torch

        return w[torch.as_tensor(index, device=w.device)]
    return np.asarray(w)[index]


def permute_qk_weight(w: Any, n_heads: int, *, rotary_dim: int | None = None) -> Any:
    r"""Permute the rows of :math:`W_q` or :math:`W_k` from the interleaved to the half-split layout.

    Within each of the ``n_heads`` blocks of ``head_dim = rows / n_heads`` rows, row
    ``2i`` moves to ``i`` and row ``2i+1`` to ``i + r/2`` for the ``r = rotary_dim``
    rotated rows; the rest stay (:func:`half_split_row_order`). With ``rotary_dim=None``
    this equals transformers' ``permute(w, n_heads)`` in ``convert_llama_weights_to_hf.py``.

    Args:
        w: a weight ``(n_heads * head_dim, hidden)`` or a bias ``(n_heads * head_dim,)``,
            numpy array or torch tensor (returned as the same kind, dtype and device).
        n_heads: number of heads in ``w``: ``num_attention_heads`` for :math:`W_q`,
            ``num_key_value_heads`` for :math:`W_k` under grouped-query attention.
        rotary_dim: rotated rows per head (partial rotary embedding); ``None``: all.

    Returns:
        The permuted weight, a new array or tensor of ``w``'s shape.
    """
    return _reorder_rows(w, n_heads, rotary_dim, inverse=False)


def unpermute_qk_weight(w: Any, n_heads: int, *, rotary_dim: int | None = None) -> Any:
    """The inverse of :func:`permute_qk_weight`: half-split rows back to the interleaved layout.

    Use it to run a transformers (half-split) checkpoint in code that rotates adjacent
    pairs, such as Meta's reference implementation or a ``torch.view_as_complex`` kernel.
    Same arguments as :func:`permute_qk_weight`.
    """
    return _reorder_rows(w, n_heads, rotary_dim, inverse=True)


def convert_qk_weights(
    w_q: Any,
    w_k: Any,
    num_attention_heads: int,
    num_key_value_heads: int | None = None,
    *,
    rotary_dim: int | None = None,
    to: str = "half",
) -> tuple[Any, Any]:
    """Convert both :math:`W_q` and :math:`W_k`, each with its own head count (GQA).

    Args:
        w_q, w_k: weights (or biases) of the query and key projections.
        num_attention_heads: heads of ``w_q``.
        num_key_value_heads: heads of ``w_k``; ``None`` means ``num_attention_heads``.
        rotary_dim: rotated rows per head, or ``None`` for all.
        to: ``"half"`` (interleaved checkpoint to half-split code, as transformers'
            conversion) or ``"interleaved"`` (the way back).

    Returns:
        ``(w_q', w_k')``.
    """
    if to not in ("half", "interleaved"):
        raise ValueError(f"to must be 'half' or 'interleaved', got {to!r}")
    kv_heads = num_attention_heads if num_key_value_heads is None else num_key_value_heads
    convert = permute_qk_weight if to == "half" else unpermute_qk_weight
    return (
        convert(w_q, num_attention_heads, rotary_dim=rotary_dim),
        convert(w_k, kv_heads, rotary_dim=rotary_dim),
    )
