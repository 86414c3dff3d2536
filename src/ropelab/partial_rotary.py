r"""Partial rotary embedding: which coordinates of a head rotate, and at which frequencies.

Many released models rotate only a fraction *p* of each query/key head and leave the rest
without any position signal (chapter 9). Two conventions are in use, and they differ in
both the coordinates they rotate and the frequencies:

* **Rotary dimension** (GPT-NeoX and Pythia's ``rotary_pct``, transformers'
  ``partial_rotary_factor`` for every rope type except ``proportional``): the first
  :math:`r = \lfloor p\,d_\text{head}\rfloor` coordinates rotate, paired as
  ``(i, i + r/2)`` (the half layout *inside* that slice), with

  .. math:: \theta_i = \beta^{-2i/r}, \qquad i = 0, \dots, r/2 - 1 .

  The denominator is the rotary dimension *r*: the spectrum still runs from 1 down to
  about :math:`1/\beta`, compressed into fewer planes.

* **Proportional**, or **p-RoPE** (Barbero et al., 2024, *Round and Round We Go*;
  transformers' rope type ``proportional``, used by Gemma 4's global layers): the head keeps
  its :math:`d_\text{head}/2` planes in the half layout ``(i, i + d_\text{head}/2)``; the
  first :math:`n = \lfloor p\,d_\text{head}/2\rfloor` planes rotate with the frequencies
  plain RoPE gives them, and the other planes get frequency 0:

  .. math:: \theta_i = \begin{cases}\beta^{-2i/d_\text{head}} & i < n\\ 0 & i \ge n\end{cases}

  The denominator is the head dimension: the fastest planes are exactly RoPE's, and the
  lowest frequencies are *removed*, not compressed.

Both have the same number of rotating planes when :math:`p\,d_\text{head}` is even, and
for ``p < 1`` every rotating plane but plane 0 turns faster in the rotary-dimension
convention. Sources: transformers 5.23, ``modeling_rope_utils.py``
(``_compute_linear_scaling_rope_parameters``'s ``dim = int(head_dim *
partial_rotary_factor)`` and ``_compute_proportional_rope_parameters``), GPT-NeoX's
``apply_rotary_pos_emb`` (``q[..., :rotary_dim]``), and Barbero et al.'s ``apply_p_rope``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_base, check_dim, check_finite_array, check_positive
from .core import apply_rope

__all__ = [
    "CONVENTIONS",
    "p_rope_frequencies",
    "partial_frequencies",
    "partial_rope",
    "rotary_dim",
    "rotated_coordinates",
    "rotated_planes",
    "rotation_pairs",
]

#: The two conventions: ``"rotary_dim"`` (GPT-NeoX, transformers' default) and
#: ``"proportional"`` (p-RoPE, transformers' ``proportional`` type).
CONVENTIONS = ("rotary_dim", "proportional")


def _check_fraction(fraction: Any, name: str = "partial_rotary_factor") -> float:
    value = check_finite_array(fraction, name)
    if value.ndim != 0 or not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {fraction!r}")
    return float(value)


def _check_convention(convention: Any) -> str:
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    return convention


def rotary_dim(head_dim: int, partial_rotary_factor: float) -> int:
    r"""The rotary dimension :math:`r = \lfloor p\,d_\text{head}\rfloor`, as transformers computes it.

    ``int(head_dim * partial_rotary_factor)`` (GPT-NeoX's ``rotary_ndims``). GPT-NeoX-20B:
    head 96, :math:`p = 0.25`, so 24 coordinates (12 planes) rotate. Chapter 9.

    Raises:
        ValueError: ``head_dim`` not a positive even integer, the factor outside (0, 1], or a
            result that is zero or odd (no whole number of planes).
    """
    head_dim = check_dim(head_dim, "head_dim")
    factor = _check_fraction(partial_rotary_factor)
    if factor == 0.0:
        raise ValueError("partial_rotary_factor must be in (0, 1] for a rotary dimension, got 0")
    dim = int(head_dim * factor)
    if dim == 0 or dim % 2:
        raise ValueError(
            f"int(head_dim * partial_rotary_factor) = int({head_dim} * {factor:g}) = {dim} "
            "must be a positive even integer"
        )
    return dim


def rotated_planes(head_dim: int, fraction: float) -> int:
    r"""How many planes p-RoPE rotates: :math:`n = \lfloor p\,d_\text{head}/2\rfloor`.

    Barbero et al.'s ``rope_angles = int(rope_percentage * head_dim // 2)`` and transformers'
    ``proportional`` type. ``fraction = 0`` gives 0 (no position signal: NoPE), 1 gives
    every plane (plain RoPE). Chapter 9.
    """
    head_dim = check_dim(head_dim, "head_dim")
    fraction = _check_fraction(fraction, "fraction")
    return int(fraction * head_dim // 2)


def partial_frequencies(
    head_dim: int, partial_rotary_factor: float, base: float = 10000.0
) -> np.ndarray:
    r"""GPT-NeoX's frequencies: :math:`\theta_i = \beta^{-2i/r}`, ``i < r/2``, with *r* from :func:`rotary_dim`.

    The denominator is the rotary dimension, not the head dimension (transformers' default
    rotary embedding with ``partial_rotary_factor``). float64, shape ``(r/2,)``.
    """
    dim = rotary_dim(head_dim, partial_rotary_factor)
    base = check_base(base)
    return base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)


def p_rope_frequencies(
    head_dim: int, fraction: float, base: float = 10000.0, *, factor: float = 1.0
) -> np.ndarray:
    r"""p-RoPE's frequencies (transformers' ``proportional`` type), one per plane of the head.

    .. math:: \theta_i = \begin{cases}\beta^{-2i/d_\text{head}}/s & i < n\\ 0 & i \ge n\end{cases},
        \qquad n = \lfloor p\,d_\text{head}/2\rfloor

    Source: Barbero et al. (2024), ``apply_p_rope``; transformers'
    ``_compute_proportional_rope_parameters`` (which also divides by the linear ``factor``
    *s*). A zero frequency leaves its plane unrotated at every position. Chapter 9.

    Args:
        head_dim: the head dimension (even).
        fraction: *p* in [0, 1] (``partial_rotary_factor``).
        base: :math:`\beta > 0`.
        factor: linear scaling *s* > 0 (1: none).

    Returns:
        float64 array of shape ``(head_dim // 2,)``; the last ``head_dim // 2 - n`` are 0.
    """
    head_dim = check_dim(head_dim, "head_dim")
    base = check_base(base)
    factor = check_positive(factor, "factor")
    planes = rotated_planes(head_dim, fraction)
    theta = np.zeros(head_dim // 2)
    theta[:planes] = base ** (-np.arange(0, 2 * planes, 2, dtype=np.float64) / head_dim)
    return theta / factor


def rotation_pairs(head_dim: int, fraction: float, convention: str = "rotary_dim") -> np.ndarray:
    r"""The coordinate pairs ``(a, b)`` of the rotating planes, an int64 array of shape ``(n, 2)``.

    * ``"rotary_dim"``: ``(i, i + r/2)`` for ``i < r/2``; all inside the first *r*
      coordinates (transformers' ``q[..., :rotary_dim]`` and ``rotate_half`` on it).
    * ``"proportional"``: ``(i, i + d_head/2)`` for ``i < n``; the two halves of the head.

    Chapter 9 draws both.
    """
    convention = _check_convention(convention)
    head_dim = check_dim(head_dim, "head_dim")
    if convention == "rotary_dim":
        half = rotary_dim(head_dim, fraction) // 2
        first = np.arange(half)
        return np.stack([first, first + half], axis=1)
    planes = rotated_planes(head_dim, fraction)
    first = np.arange(planes)
    return np.stack([first, first + head_dim // 2], axis=1)


def rotated_coordinates(
    head_dim: int, fraction: float, convention: str = "rotary_dim"
) -> np.ndarray:
    """A boolean mask of the head's coordinates that rotate (shape ``(head_dim,)``). Chapter 9."""
    mask = np.zeros(check_dim(head_dim, "head_dim"), dtype=bool)
    mask[rotation_pairs(head_dim, fraction, convention).ravel()] = True
    return mask


def partial_rope(
    x: Any,
    positions: Any,
    fraction: float,
    *,
    base: float = 10000.0,
    convention: str = "rotary_dim",
) -> Any:
    r"""Rotate the partial-rotary part of ``x`` (queries or keys), leaving the rest unchanged.

    * ``"rotary_dim"``: :func:`ropelab.core.apply_rope` with :func:`partial_frequencies`
      (``r/2`` of them), which rotates the first *r* coordinates in the half layout, exactly
      GPT-NeoX's ``apply_rotary_pos_emb``.
    * ``"proportional"``: :func:`ropelab.core.apply_rope` with :func:`p_rope_frequencies`
      over the whole head, half layout: the zero frequencies leave their planes unchanged.

    Args:
        x: numpy array or torch tensor ``(..., seq, head_dim)``.
        positions: positions broadcasting against the sequence axis.
        fraction: *p* (``partial_rotary_factor``).
        base: :math:`\beta`.
        convention: ``"rotary_dim"`` or ``"proportional"``.

    Returns:
        The rotated array or tensor (see :func:`ropelab.core.apply_rope`).
    """
    convention = _check_convention(convention)
    head_dim = x.shape[-1] if getattr(x, "ndim", 0) else 0
    head_dim = check_dim(head_dim, "the last axis of x")
    if convention == "rotary_dim":
        theta = partial_frequencies(head_dim, fraction, base)
    else:
        theta = p_rope_frequencies(head_dim, fraction, base)
    return apply_rope(x, positions, inv_freq=theta, layout="half")
