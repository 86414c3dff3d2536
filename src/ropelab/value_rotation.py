r"""Why RoPE rotates only queries and keys: what rotating the values would do (chapter 8).

Attention's output at position *m* is a weighted sum of values,
:math:`o_m = \sum_n a_{mn} v_n` with :math:`a_{mn} = \mathrm{softmax}_n(s_{mn})`. RoPE puts
position into the scores, :math:`s_{mn} = (R_m q_m)^\top (R_n k_n)/\sqrt d
= q_m^\top R_{n-m} k_n/\sqrt d`, which depend on :math:`n - m` only. Rotating the values
too, :math:`o_m = \sum_n a_{mn} R_n v_n`, leaves every score and weight unchanged but mixes
*absolutely* positioned vectors: shift the whole sequence by *t* and each term turns by
:math:`R_t`, so the output changes. Turning the output back by :math:`R_{-m}` restores a
relative result, :math:`o_m = \sum_n a_{mn} R_{n-m} v_n` (the idea of applying RoPE to
values and outputs), at the price of an extra rotation per token. Explained in chapter 8 of
the book.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_finite_array, check_layout
from .core import apply_rope
from .toy_decoder import causal_mask_from_positions, masked_softmax

__all__ = ["ValueRotationResult", "attention_with_rotated_values", "shift_gap"]

_VALUE_MODES = ("none", "values", "values+output")


@dataclass(frozen=True)
class ValueRotationResult:
    """Scores ``(seq, seq)``, weights ``(seq, seq)`` and outputs ``(seq, d)`` of one head."""

    scores: np.ndarray
    weights: np.ndarray
    outputs: np.ndarray


def attention_with_rotated_values(
    q: Any,
    k: Any,
    v: Any,
    positions: Any,
    theta: Any,
    *,
    values: str = "none",
    layout: str = "half",
) -> ValueRotationResult:
    r"""Causal single-head attention with RoPE on q and k, and optionally on the values.

    Args:
        q, k, v: ``(seq, d)`` unrotated queries, keys and values.
        positions: ``(seq,)`` positions.
        theta: rotation frequencies (``2 * len(theta) <= d``).
        values: ``"none"`` (RoPE as published), ``"values"`` (also :math:`v_n \to R_n v_n`)
            or ``"values+output"`` (also :math:`o_m \to R_{-m} o_m`).
        layout: ``"half"`` or ``"interleaved"``.
    """
    if values not in _VALUE_MODES:
        raise ValueError(f"values must be one of {_VALUE_MODES}, got {values!r}")
    layout = check_layout(layout)
    q, k, v = (check_finite_array(a, name) for a, name in ((q, "q"), (k, "k"), (v, "v")))
    if not (q.shape == k.shape == v.shape) or q.ndim != 2:
        raise ValueError(
            f"q, k and v must be (seq, d) arrays of one shape, got {q.shape}, {k.shape}, {v.shape}"
        )
    m = check_finite_array(positions, "positions")
    theta = check_finite_array(theta, "theta")

    def rot(x: np.ndarray, at: np.ndarray) -> np.ndarray:
        return apply_rope(x, at, inv_freq=theta, layout=layout)

    scores = rot(q, m) @ rot(k, m).T / np.sqrt(q.shape[1])
    weights = masked_softmax(scores, causal_mask_from_positions(m, m))
    mixed = rot(v, m) if values != "none" else v
    outputs = weights @ mixed
    if values == "values+output":
        outputs = rot(outputs, -m)
    return ValueRotationResult(scores, weights, outputs)


def shift_gap(
    q: Any,
    k: Any,
    v: Any,
    positions: Any,
    theta: Any,
    shift: float,
    *,
    values: str = "none",
    layout: str = "half",
) -> float:
    """Largest change of the outputs when every position moves by ``shift``.

    0 (up to rounding) means the head sees relative positions only.
    """
    m = check_finite_array(positions, "positions")
    before = attention_with_rotated_values(q, k, v, m, theta, values=values, layout=layout)
    after = attention_with_rotated_values(q, k, v, m + shift, theta, values=values, layout=layout)
    return float(np.abs(after.outputs - before.outputs).max())
