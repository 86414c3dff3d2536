r"""Adapters: implementations written the way models write them, as ``fn(x, positions)``.

transformers splits RoPE into a producer of the cos/sin table and a function that applies
it (chapter 3A):

* ``cos, sin = rotary(x, position_ids)``: ``position_ids`` of shape ``(batch, seq)``,
  ``cos`` and ``sin`` of shape ``(batch, seq, d)`` (``LlamaRotaryEmbedding.forward``);
* ``q_embed, k_embed = apply_rotary_pos_emb(q, k, cos, sin)``: ``q`` and ``k`` of shape
  ``(batch, heads, seq, d)``; the table gets a head axis at ``unsqueeze_dim = 1``.

:func:`from_cos_sin` joins the two into the ``fn(x, positions)`` that
:func:`ropelab.diagnose_rope` checks with ``batched=True`` (``x`` of shape
``(batch, heads, seq, d)``, positions ``(batch, seq)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def from_cos_sin(
    rotary: Callable[[Any, Any], tuple[Any, Any]],
    apply_rotary_pos_emb: Callable[..., tuple[Any, Any]],
    *,
    which: str = "q",
) -> Callable[[np.ndarray, np.ndarray], Any]:
    """``fn(x, positions)`` for :func:`ropelab.diagnose_rope` from a transformers-style pair.

    ``fn`` converts ``x`` (float64, ``(batch, heads, seq, d)``) and ``positions`` (int64,
    ``(batch, seq)``) to torch tensors, calls ``cos, sin = rotary(q, position_ids)`` and
    ``apply_rotary_pos_emb(q, k, cos, sin)``, and returns the rotated ``q`` (``which="q"``)
    or ``k`` (``which="k"``). The other of the two gets another tensor, ``x`` with its last
    axis reversed, so that a function that rotates k with q's numbers is caught. A 2-D ``x``
    ``(seq, d)`` with positions ``(seq,)`` is taken as one sequence of one head.

    Args:
        rotary: the cos/sin producer, called as ``rotary(q, position_ids)``.
        apply_rotary_pos_emb: called as ``apply_rotary_pos_emb(q, k, cos, sin)``.
        which: ``"q"`` or ``"k"``, the output that ``fn`` returns.

    Raises:
        ValueError: ``rotary`` or ``apply_rotary_pos_emb`` is not callable, or ``which`` is
            neither ``"q"`` nor ``"k"``.
    """
    for name, value in (("rotary", rotary), ("apply_rotary_pos_emb", apply_rotary_pos_emb)):
        if not callable(value):
            raise ValueError(f"{name} must be callable, got {type(value).__name__}")
    if which not in ("q", "k"):
        raise ValueError(f"which must be 'q' or 'k', got {which!r}")
    import torch  # the adapter's one use of torch: the pieces it wraps are torch code

    def fn(x: np.ndarray, positions: np.ndarray) -> Any:
        plain = np.ndim(x) == 2
        tensor = torch.from_numpy(np.asarray(x))
        position_ids = torch.from_numpy(np.asarray(positions))
        if plain:
            tensor, position_ids = tensor[None, None], position_ids[None]
        other = tensor.flip(-1)
        cos, sin = rotary(tensor, position_ids)
        if which == "q":
            out = apply_rotary_pos_emb(tensor, other, cos, sin)[0]
        else:
            out = apply_rotary_pos_emb(other, tensor, cos, sin)[1]
        return out[0, 0] if plain and tuple(out.shape[:2]) == (1, 1) else out

    fn.__name__ = f"from_cos_sin({getattr(rotary, '__name__', type(rotary).__name__)})"
    return fn
