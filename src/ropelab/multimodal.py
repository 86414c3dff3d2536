r"""RoPE over several position axes: axial 2D RoPE for images and M-RoPE for video (chapter 9).

A token of an image or a video has more than one coordinate: a row and a column, or a
time, a height and a width. Multi-axis RoPE keeps RoPE's planes and frequencies and
assigns every plane to one axis *a(i)*; plane *i* turns by the position along its axis:

.. math:: \phi_i(P) = P_{a(i)}\,\theta_i .

Block by block, :math:`R_P^\top R_Q` turns plane *i* by :math:`(Q - P)_{a(i)}\theta_i`, so
the score depends on the positions only through the offset vector :math:`Q - P`
(:mod:`ropelab.proofs_beyond` proves it for 2D and 3D positions). The schemes differ in the
assignment:

* **Axial 2D** (Heo et al., 2024, RoPE-Axial; the vision encoders of Qwen2-VL and later):
  half of the planes follow the row, half the column, each half a 1D RoPE of dimension
  *d*/2 (:func:`axial_frequencies`, :func:`plane_axes_axial`).
* **M-RoPE** (Qwen2-VL, Wang et al., 2024): the language model's planes are cut into three
  contiguous sections for time, height and width, ``mrope_section`` [16, 24, 24] for head
  dimension 128 (planes 0-15 time, 16-39 height, 40-63 width), with the ordinary 1D
  frequencies :math:`\theta_i = \beta^{-2i/d}` (:func:`plane_axes_sections`).
* **Interleaved M-RoPE** (Qwen3-VL): the axes take turns plane by plane, T H W T H W ...,
  so that each axis has fast and slow planes; ``mrope_section`` [24, 20, 20] puts height on
  planes 1, 4, ..., 58, width on 2, 5, ..., 59 and time on the rest
  (:func:`plane_axes_interleaved`, transformers' ``apply_interleaved_mrope``).

Text tokens get the same value on all three axes, :math:`t = h = w = p`; then every plane
turns by :math:`p\theta_i` whatever its axis, and M-RoPE *is* 1D RoPE. Sources:
transformers 5.23 ``qwen2_vl/modeling_qwen2_vl.py`` (``recomposition_frequencies``,
``get_vision_position_ids``, ``get_rope_index``) and ``qwen3_vl/modeling_qwen3_vl.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import (
    check_base,
    check_count,
    check_dim,
    check_finite_array,
    check_layout,
    check_positive,
)
from .core import _is_torch, inv_freq, rotate_pairs

__all__ = [
    "ALLOCATIONS",
    "AXIS_NAMES",
    "MultiAxisState",
    "apply_multiaxis_rope",
    "axial_frequencies",
    "largest_angle",
    "multiaxis_angles",
    "multiaxis_explorer_data",
    "multiaxis_ones_score",
    "multiaxis_state",
    "plane_axes",
    "plane_axes_axial",
    "plane_axes_interleaved",
    "plane_axes_sections",
    "sequence_position_ids",
    "text_position_ids",
    "vision_position_ids",
]

#: Names of the axes of M-RoPE, in order.
AXIS_NAMES = ("t", "h", "w")
#: The plane-to-axis allocations :func:`plane_axes` knows.
ALLOCATIONS = ("sections", "interleaved", "axial")


def _check_sections(sections: Any, n_planes: int | None = None) -> tuple[int, ...]:
    if isinstance(sections, str | bytes) or not isinstance(sections, Sequence) or not sections:
        raise ValueError(f"sections must be a list of plane counts, got {sections!r}")
    values = tuple(check_count(s, "each entry of sections", minimum=0) for s in sections)
    if sum(values) == 0:
        raise ValueError(f"sections must not all be 0, got {list(values)}")
    if n_planes is not None and sum(values) != n_planes:
        raise ValueError(
            f"sections must add up to head_dim / 2 = {n_planes} planes, "
            f"got {list(values)} (sum {sum(values)})"
        )
    return values


def plane_axes_sections(sections: Sequence[int]) -> np.ndarray:
    """Qwen2-VL's M-RoPE: plane *i* belongs to axis *a* for the *a*-th contiguous block of ``sections``.

    ``[16, 24, 24]`` gives 16 planes of axis 0 (time), then 24 of axis 1 (height), then 24 of
    axis 2 (width). int64 array of length ``sum(sections)``.
    """
    values = _check_sections(sections)
    return np.repeat(np.arange(len(values)), values)


def plane_axes_interleaved(sections: Sequence[int]) -> np.ndarray:
    """Qwen3-VL's interleaved M-RoPE, as transformers' ``apply_interleaved_mrope`` assigns planes.

    Start with every plane on axis 0 (time); plane *j* goes to axis 1 (height) when
    ``j % 3 == 1`` and ``j < 3 * sections[1]``, to axis 2 (width) when ``j % 3 == 2`` and
    ``j < 3 * sections[2]``. With ``[24, 20, 20]`` (64 planes): 20 height planes, 20 width
    planes and 24 time planes, the last four of which (60-63) are all time.
    """
    values = _check_sections(sections)
    if len(values) != 3:
        raise ValueError(f"sections must have 3 entries (t, h, w), got {list(values)}")
    planes = sum(values)
    axes = np.zeros(planes, dtype=np.int64)
    j = np.arange(planes)
    for axis, offset in ((1, 1), (2, 2)):
        axes[(j % 3 == offset) & (j < 3 * values[axis])] = axis
    return axes


def plane_axes_axial(n_planes: int) -> np.ndarray:
    """Axial 2D RoPE: the first half of the planes on axis 0 (row), the second half on axis 1 (column)."""
    n_planes = check_count(n_planes, "n_planes", minimum=2)
    if n_planes % 2:
        raise ValueError(f"n_planes must be even for axial 2D RoPE, got {n_planes}")
    return np.repeat(np.arange(2), n_planes // 2)


def plane_axes(allocation: str, head_dim: int, sections: Sequence[int] | None = None) -> np.ndarray:
    """The axis of every plane of a head, for one of :data:`ALLOCATIONS`.

    ``"sections"`` and ``"interleaved"`` need ``sections`` adding up to ``head_dim / 2``;
    ``"axial"`` ignores them.
    """
    if allocation not in ALLOCATIONS:
        raise ValueError(f"allocation must be one of {ALLOCATIONS}, got {allocation!r}")
    planes = check_dim(head_dim, "head_dim") // 2
    if allocation == "axial":
        return plane_axes_axial(planes)
    values = _check_sections(sections, planes)
    if allocation == "sections":
        return plane_axes_sections(values)
    return plane_axes_interleaved(values)


def axial_frequencies(head_dim: int, base: float = 10000.0) -> np.ndarray:
    r"""Axial 2D RoPE's frequencies: each axis a 1D RoPE of dimension *d*/2, so :math:`\theta_j = \beta^{-4j/d}`.

    Returned for all *d*/2 planes (row planes, then column planes, the same values twice),
    matching :func:`plane_axes_axial`: the layout of Qwen2-VL's vision encoder
    (``VisionRotaryEmbedding(head_dim // 2)`` applied to the row and the column ids).
    """
    head_dim = check_dim(head_dim, "head_dim")
    if head_dim % 4:
        raise ValueError(f"head_dim must be a multiple of 4 for axial 2D RoPE, got {head_dim}")
    half = inv_freq(head_dim // 2, check_base(base))
    return np.concatenate([half, half])


def _positions(positions: Any, n_axes: int) -> np.ndarray:
    pos = check_finite_array(positions, "positions")
    if pos.ndim == 0 or pos.shape[-1] != n_axes:
        raise ValueError(
            f"positions must have a last axis of length {n_axes} (one coordinate per axis), "
            f"got shape {pos.shape}"
        )
    return pos


def multiaxis_angles(
    positions: Any, theta: Any, axes: Any, n_axes: int | None = None
) -> np.ndarray:
    r"""The angle of every plane, :math:`\phi_i(P) = P_{a(i)}\theta_i`.

    Args:
        positions: ``(..., n_axes)``; the coordinates of each token.
        theta: the frequencies, ``(n_planes,)``.
        axes: the axis of every plane, ``(n_planes,)`` (from :func:`plane_axes`).
        n_axes: how many coordinates a position has; by default one more than the largest
            axis a plane uses (give it when an axis may have no plane, as a section of 0).

    Returns:
        float64 ``(..., n_planes)``.
    """
    theta = check_finite_array(theta, "theta")
    axes = np.asarray(axes)
    if theta.ndim != 1 or axes.shape != theta.shape or not np.issubdtype(axes.dtype, np.integer):
        raise ValueError(
            f"theta and axes must be 1-D of equal length, axes integers; got shapes "
            f"{theta.shape} and {axes.shape}"
        )
    if axes.size and axes.min() < 0:
        raise ValueError("axes must be >= 0")
    used = int(axes.max()) + 1 if axes.size else 1
    if n_axes is None:
        n_axes = used
    elif check_count(n_axes, "n_axes") < used:
        raise ValueError(f"n_axes must be at least {used}, the axes the planes use; got {n_axes}")
    pos = _positions(positions, n_axes)
    return pos[..., axes] * theta


def apply_multiaxis_rope(
    x: Any, positions: Any, theta: Any, axes: Any, *, layout: str = "half"
) -> Any:
    """Rotate ``x`` (``(..., seq, head_dim)``) by multi-axis RoPE at ``positions`` (``(seq, n_axes)``).

    The angles of :func:`multiaxis_angles`, applied with the elementwise kernel of chapter 3
    (:func:`ropelab.core.rotate_pairs`). numpy in, numpy out; torch in, torch out.
    """
    layout = check_layout(layout)
    angles = multiaxis_angles(positions, theta, axes)  # (seq, P)
    cos, sin = np.cos(angles), np.sin(angles)
    if _is_torch(x):
        import torch

        return rotate_pairs(
            x,
            torch.from_numpy(cos).to(x.dtype),
            torch.from_numpy(sin).to(x.dtype),
            layout,
        )
    x = np.asarray(x, dtype=np.float64)
    return rotate_pairs(x, cos, sin, layout)


# --------------------------------------------------------------------------------------
# Position ids of a mixed text and image sequence (Qwen2-VL's get_rope_index)
# --------------------------------------------------------------------------------------


def text_position_ids(start: int, length: int) -> np.ndarray:
    """``length`` text tokens from ``start``: the same id on all three axes, shape ``(3, length)``."""
    start = check_count(start, "start", minimum=0)
    length = check_count(length, "length")
    return np.tile(np.arange(start, start + length), (3, 1))


def vision_position_ids(start: int, frames: int, height: int, width: int) -> np.ndarray:
    """The (t, h, w) ids of an image or video grid after the vision merger, offset by ``start``.

    Frames in order, then rows, then columns (transformers' ``get_vision_position_ids`` with
    merged grid sizes and a time interval of 1). Shape ``(3, frames * height * width)``.
    """
    start = check_count(start, "start", minimum=0)
    frames = check_count(frames, "frames")
    height = check_count(height, "height")
    width = check_count(width, "width")
    t, h, w = np.meshgrid(np.arange(frames), np.arange(height), np.arange(width), indexing="ij")
    return np.stack([t.ravel(), h.ravel(), w.ravel()]) + start


def sequence_position_ids(segments: Sequence[tuple]) -> np.ndarray:
    """The M-RoPE position ids of a sequence of text runs and images, shape ``(3, seq)``.

    Each segment is ``("text", length)`` or ``("image", height, width)`` (a merged grid of one
    frame). Text continues after an image at ``start + max(height, width)``, one past the
    largest id the image used (Qwen2-VL's ``get_rope_index``). Chapter 9.
    """
    if isinstance(segments, str | bytes) or not isinstance(segments, Sequence) or not segments:
        raise ValueError("segments must be a non-empty list of ('text', n) or ('image', h, w)")
    parts, start = [], 0
    for segment in segments:
        if not isinstance(segment, tuple) or not segment:
            raise ValueError(f"each segment must be a tuple, got {segment!r}")
        kind = segment[0]
        if kind == "text" and len(segment) == 2:
            parts.append(text_position_ids(start, segment[1]))
            start += parts[-1].shape[1]
        elif kind == "image" and len(segment) == 3:
            height, width = segment[1], segment[2]
            parts.append(vision_position_ids(start, 1, height, width))
            start += max(check_count(height, "height"), check_count(width, "width"))
        else:
            raise ValueError(
                f"each segment must be ('text', length) or ('image', height, width), got {segment!r}"
            )
    return np.concatenate(parts, axis=1)


# --------------------------------------------------------------------------------------
# The data of chapter 9's explorable
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MultiAxisState:
    r"""Everything the 2D/M-RoPE explorer draws for one setting (chapter 9).

    Attributes:
        allocation: ``"sections"``, ``"interleaved"`` or ``"axial"``.
        axis_names: names of the axes (``("t", "h", "w")`` or ``("row", "col")``).
        axes: the axis of each plane, ``(n_planes,)``.
        theta: the frequency of each plane, ``(n_planes,)``.
        position_a, position_b: the two tokens' coordinates, ``(n_axes,)``.
        angle_a, angle_b: each plane's angle at the two positions (radians, not reduced).
        relative_angle: :math:`(b - a)_{a(i)}\theta_i` per plane, the only part the score sees.
        offsets: the offsets drawn on each axis, ``(n_offsets,)``.
        axis_scores: ``(n_axes, n_offsets)``: the all-ones score
            :math:`\sum_i 2\cos(\Delta_{a(i)}\theta_i)` when the offset is ``offsets`` along
            one axis and 0 along the others.
        score: that score at the offset ``b - a`` itself.
    """

    allocation: str
    axis_names: tuple[str, ...]
    axes: np.ndarray
    theta: np.ndarray
    position_a: np.ndarray
    position_b: np.ndarray
    angle_a: np.ndarray
    angle_b: np.ndarray
    relative_angle: np.ndarray
    offsets: np.ndarray
    axis_scores: np.ndarray
    score: float

    def planes_per_axis(self) -> dict[str, int]:
        """How many planes each axis has."""
        return {name: int(np.sum(self.axes == a)) for a, name in enumerate(self.axis_names)}

    def to_dict(self) -> dict[str, Any]:
        """Plain lists and numbers, ready to be written as JSON for a kernel-free figure."""
        out: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            out[key] = value.tolist() if isinstance(value, np.ndarray) else value
        out["axis_names"] = list(self.axis_names)
        return out


def multiaxis_ones_score(
    offsets: Any, theta: Any, axes: Any, n_axes: int | None = None
) -> np.ndarray:
    r"""The all-ones score at offset vectors :math:`\Delta`: :math:`\sum_i 2\cos(\Delta_{a(i)}\theta_i)`.

    Chapter 5's :math:`q = k = \mathbf 1` experiment in several dimensions (each plane
    contributes :math:`2\cos` of its own angle). ``offsets`` has shape ``(..., n_axes)``;
    the result has shape ``offsets.shape[:-1]``.
    """
    return 2.0 * np.cos(multiaxis_angles(offsets, theta, axes, n_axes)).sum(axis=-1)


def multiaxis_state(
    allocation: str = "sections",
    sections: Sequence[int] | None = (16, 24, 24),
    position_a: Sequence[float] = (0, 0, 0),
    position_b: Sequence[float] = (0, 3, 5),
    *,
    head_dim: int = 128,
    base: float = 1_000_000.0,
    max_offset: int = 64,
) -> MultiAxisState:
    r"""The numbers behind the 2D/M-RoPE explorer for one setting (pure function, chapter 9).

    Args:
        allocation: ``"sections"`` (Qwen2-VL), ``"interleaved"`` (Qwen3-VL) or ``"axial"``
            (2D: row and column; positions then have two coordinates and ``sections`` is
            ignored).
        sections: planes per axis (t, h, w), adding up to ``head_dim / 2``.
        position_a, position_b: the coordinates of two tokens (3 for M-RoPE, 2 for axial).
        head_dim: the head dimension (even; a multiple of 4 for axial).
        base: :math:`\beta` (Qwen2-VL uses 1,000,000).
        max_offset: the offsets drawn run over ``-max_offset .. max_offset`` (>= 1).

    Returns:
        A :class:`MultiAxisState`. Frequencies are :math:`\beta^{-2i/d}` for M-RoPE and
        :func:`axial_frequencies` for the axial scheme.
    """
    axes = plane_axes(allocation, head_dim, sections)
    base = check_base(base)
    if allocation == "axial":
        theta, names = axial_frequencies(head_dim, base), ("row", "col")
    else:
        theta, names = inv_freq(head_dim, base), AXIS_NAMES
    n_axes = len(names)
    a = _positions(position_a, n_axes).reshape(n_axes)
    b = _positions(position_b, n_axes).reshape(n_axes)
    max_offset = check_count(max_offset, "max_offset")
    offsets = np.arange(-max_offset, max_offset + 1, dtype=np.float64)
    along = np.zeros((n_axes, offsets.size, n_axes))
    for axis in range(n_axes):
        along[axis, :, axis] = offsets
    return MultiAxisState(
        allocation=allocation,
        axis_names=names,
        axes=axes,
        theta=theta,
        position_a=a,
        position_b=b,
        angle_a=a[axes] * theta,
        angle_b=b[axes] * theta,
        relative_angle=(b - a)[axes] * theta,
        offsets=offsets,
        axis_scores=multiaxis_ones_score(along, theta, axes, n_axes),
        score=float(multiaxis_ones_score(b - a, theta, axes, n_axes)),
    )


def largest_angle(theta: Any, axes: Any, axis: int, extent: float) -> float:
    r"""The largest angle any plane of ``axis`` turns over ``extent`` positions: :math:`\text{extent}\cdot\max\theta_i`.

    For Qwen2-VL's width section (planes 40-63, base :math:`10^6`) and 32 patches it is
    about 0.006 radians: the width planes barely turn across an image.
    """
    theta = check_finite_array(theta, "theta")
    axes = np.asarray(axes)
    extent = check_positive(extent, "extent", inclusive=True)
    chosen = theta[axes == axis]
    if chosen.size == 0:
        raise ValueError(f"axis must have at least one plane, axis {axis} has none")
    return float(extent * chosen.max())


def multiaxis_explorer_data(
    allocation: str,
    t_planes: int,
    h_planes: int,
    t_a: int,
    h_a: int,
    w_a: int,
    t_b: int,
    h_b: int,
    w_b: int,
    head_dim: int = 128,
    base: float = 1_000_000.0,
    max_offset: int = 32,
) -> dict[str, Any]:
    r"""The data of chapter 9's explorer of 2D and multimodal RoPE, from its controls.

    The sections are ``(t_planes, h, w)`` with :math:`h = \min(h_\text{planes}, d/2 - t)` and
    :math:`w = d/2 - t - h` (the three add up to the head's *d*/2 planes; a slider that asks
    for more than is left gets what is left). The two tokens sit at :math:`(t, h, w)` =
    ``(t_a, h_a, w_a)`` and ``(t_b, h_b, w_b)``; the axial scheme reads only the height and
    width as row and column. Everything else is :func:`multiaxis_state`.

    Returns:
        :meth:`MultiAxisState.to_dict` plus ``sections`` (the three counts used) and
        ``planes_per_axis`` (how many planes each axis has under the allocation).
    """
    planes = check_dim(head_dim, "head_dim") // 2
    t = min(check_count(t_planes, "t_planes", minimum=0), planes)
    h = min(check_count(h_planes, "h_planes", minimum=0), planes - t)
    sections = (t, h, planes - t - h)
    if allocation == "axial":
        position_a, position_b = (h_a, w_a), (h_b, w_b)
    else:
        position_a, position_b = (t_a, h_a, w_a), (t_b, h_b, w_b)
    state = multiaxis_state(
        allocation,
        sections,
        position_a,
        position_b,
        head_dim=head_dim,
        base=base,
        max_offset=max_offset,
    )
    data = state.to_dict()
    data["sections"] = list(sections)
    data["planes_per_axis"] = [int(np.sum(state.axes == a)) for a in range(len(state.axis_names))]
    return data
