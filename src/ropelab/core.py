r"""Rotary position embedding itself: frequencies, rotation matrices and the fast form.

Conventions used everywhere in :mod:`ropelab` (chapter 3 explains them):

* ``dim`` is the rotary dimension *d*, a positive even integer; there are d/2 planes.
* Plane *i* (``i = 0 .. d/2 - 1``) turns by the angle :math:`m\theta_i` at position *m*,
  with :math:`\theta_i = \beta^{-2i/d}` (RoFormer, eq. 15; the sources' ``get_theta``).
* ``layout="interleaved"`` pairs coordinates ``(2i, 2i+1)``: adjacent pairs, as in the
  RoFormer paper and Meta's original Llama code.
* ``layout="half"`` pairs coordinates ``(i, i + d/2)``: the two halves, as in GPT-NeoX and
  Hugging Face transformers (``rotate_half``).

Both layouts describe the same rotation; :func:`interleaved_to_half` is the permutation
between them.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ._checks import (
    check_base,
    check_dim,
    check_finite_array,
    check_layout,
    check_positive,
)

__all__ = [
    "apply_rope",
    "apply_rope_complex",
    "block_matrix_data",
    "coordinate_planes",
    "half_to_interleaved",
    "interleaved_to_half",
    "inv_freq",
    "layout_permutation",
    "plane_coordinates",
    "plane_slices",
    "rotate_pairs",
    "rotation_matrix",
    "wavelengths",
]


def inv_freq(dim: int, base: float = 10000.0) -> np.ndarray:
    r"""The rotation frequencies :math:`\theta_i = \beta^{-2i/d}`, ``i = 0 .. d/2 - 1``.

    .. math:: \theta_i = \mathrm{base}^{-2i/d}

    Source: RoFormer (Su et al., 2021), eq. 15, which borrows the geometric spectrum of the
    sinusoidal encoding of *Attention Is All You Need*. Chapter 4 studies this spectrum.

    Args:
        dim: rotary dimension *d*, a positive even integer.
        base: :math:`\beta > 0`. ``base = 1`` gives every :math:`\theta_i = 1`
            (the sources' first decay experiment, chapter 5).

    Returns:
        float64 array of shape ``(dim // 2,)``, decreasing from 1.
    """
    dim = check_dim(dim)
    base = check_base(base)
    exponents = np.arange(0, dim, 2, dtype=np.float64) / dim
    return base ** (-exponents)


def wavelengths(dim: int, base: float = 10000.0) -> np.ndarray:
    r"""The wavelength (period in tokens) of every plane: :math:`\lambda_i = 2\pi/\theta_i = 2\pi\beta^{2i/d}`.

    Chapter 4 draws them against the training length; chapter 6 compares them with
    :math:`T_\text{train}` and :math:`T_\text{extra}`. float64 array of shape ``(dim // 2,)``.
    """
    return 2.0 * np.pi / inv_freq(dim, base)


def _frequencies(dim: int | None, base: float, inv_freq_: Any) -> np.ndarray:
    """The θ vector to use: ``inv_freq_`` if given (checked), else :func:`inv_freq`."""
    if inv_freq_ is None:
        if dim is None:
            raise ValueError("dim is required when inv_freq is not given")
        return inv_freq(dim, base)
    theta = check_finite_array(_to_numpy(inv_freq_), "inv_freq")
    if theta.ndim != 1 or theta.size == 0:
        raise ValueError(f"inv_freq must be a non-empty 1-D array, got shape {theta.shape}")
    if dim is not None and 2 * theta.size != check_dim(dim):
        raise ValueError(f"inv_freq has {theta.size} entries but dim={dim} needs {dim // 2}")
    return theta


def rotation_matrix(
    position: Any,
    dim: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    *,
    inv_freq: Any = None,
) -> np.ndarray:
    r"""The dense block-diagonal rotation :math:`R^d_{\Theta,m}` (RoFormer eq. 15; chapter 3).

    .. math::
        R^d_{\Theta,m} = \operatorname{diag}\big(R(m\theta_0), \dots, R(m\theta_{d/2-1})\big),
        \qquad R(\phi) = \begin{pmatrix}\cos\phi & -\sin\phi\\ \sin\phi & \cos\phi\end{pmatrix}

    With ``layout="half"`` the same planes are laid out on coordinates ``(i, i + d/2)``, so the
    result is :math:`P R_{\text{interleaved}} P^\top` with *P* from :func:`layout_permutation`.
    This matrix is for teaching and checking; :func:`apply_rope` never builds it.

    Args:
        position: the position *m* (a scalar or an array of positions).
        dim: rotary dimension *d*.
        base: :math:`\beta` of :func:`inv_freq`.
        layout: ``"interleaved"`` or ``"half"``.
        inv_freq: optional frequencies overriding ``base``.

    Returns:
        float64 array of shape ``position.shape + (dim, dim)``.
    """
    layout = check_layout(layout)
    theta = _frequencies(dim, base, inv_freq)
    m = check_finite_array(position, "position")
    angles = m[..., None] * theta  # (..., d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    half = theta.size
    first, second = plane_coordinates(2 * half, layout)
    matrix = np.zeros((*m.shape, 2 * half, 2 * half))
    matrix[..., first, first] = cos
    matrix[..., first, second] = -sin
    matrix[..., second, first] = sin
    matrix[..., second, second] = cos
    return matrix


def block_matrix_data(dim: int, base: float, position: int, layout: str) -> dict[str, Any]:
    r"""The data of chapter 3's interactive figure: :math:`R^d_{\Theta,m}` and its frequencies.

    Returns ``dim``, ``base``, ``position``, ``layout``, ``theta`` (:func:`inv_freq`) and
    ``matrix`` (:func:`rotation_matrix` at ``position``, shape ``(d, d)``).
    """
    layout = check_layout(layout)
    return {
        "dim": check_dim(dim),
        "base": float(base),
        "position": position,
        "layout": layout,
        "theta": inv_freq(dim, base),
        "matrix": rotation_matrix(float(position), dim, base, layout),
    }


def plane_slices(dim: int, layout: str) -> tuple[slice, slice]:
    """The coordinates ``(a, b)`` of every plane of a *d*-dimensional vector, as two slices.

    The one definition of the pairing (chapter 3): plane *i* sits on coordinates
    ``(2i, 2i + 1)`` in the ``"interleaved"`` layout (RoFormer, Meta's Llama code) and on
    ``(i, i + d/2)`` in the ``"half"`` layout (GPT-NeoX, transformers' ``rotate_half``).
    ``x[..., a]`` and ``x[..., b]`` are views, which the fast kernels use;
    :func:`plane_coordinates` gives the same pairs as index arrays.
    """
    dim = check_dim(dim)
    if check_layout(layout) == "half":
        return slice(0, dim // 2), slice(dim // 2, dim)
    return slice(0, dim, 2), slice(1, dim, 2)


def plane_coordinates(dim: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """The coordinates ``(a_i, b_i)`` of every plane *i* as two int64 arrays of length d/2.

    ``(2i, 2i + 1)`` (``"interleaved"``) or ``(i, i + d/2)`` (``"half"``): the index form of
    :func:`plane_slices`. Chapter 3.
    """
    first, second = plane_slices(dim, layout)
    coordinates = np.arange(dim, dtype=np.int64)
    return coordinates[first], coordinates[second]


def coordinate_planes(dim: int, layout: str) -> np.ndarray:
    """The plane of every coordinate, an int64 array of length *d*: the inverse of
    :func:`plane_coordinates` (``c // 2`` interleaved, ``c mod d/2`` half). Chapter 3."""
    first, second = plane_coordinates(dim, layout)
    planes = np.empty(dim, dtype=np.int64)
    planes[first] = planes[second] = np.arange(first.size)
    return planes


def layout_permutation(dim: int) -> np.ndarray:
    r"""The permutation matrix *P* with ``x_half = P @ x_interleaved`` (chapter 3).

    Row *i* of *P* picks coordinate ``2i`` and row ``i + d/2`` picks ``2i + 1``, so that
    :math:`R_{\text{half}} = P R_{\text{interleaved}} P^\top`.
    """
    first, second = plane_coordinates(dim, "interleaved")
    rows = np.concatenate([first, second])
    matrix = np.zeros((dim, dim))
    matrix[np.arange(dim), rows] = 1.0
    return matrix


def _is_torch(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "torch"


def _to_numpy(x: Any) -> Any:
    if _is_torch(x):
        return x.detach().cpu().numpy()
    return x


def _check_last_axis_even(x: Any, name: str = "x") -> int:
    dim = x.shape[-1] if getattr(x, "ndim", 0) else 0
    if dim == 0 or dim % 2:
        raise ValueError(f"the last axis of {name} must have positive even length, got {dim}")
    return dim


def interleaved_to_half(x: Any) -> Any:
    r"""Reorder the last axis from the interleaved pairing to the half-split pairing.

    ``(x0, x1, x2, x3, ..., x_{d-2}, x_{d-1})`` becomes
    ``(x0, x2, ..., x_{d-2}, x1, x3, ..., x_{d-1})``: plane *i*, stored at ``(2i, 2i+1)``,
    moves to ``(i, i + d/2)``. Applied to the output rows of :math:`W_q` and :math:`W_k`
    of each head, this is the permutation that converting Meta's Llama checkpoints to
    transformers performs (chapter 3). Works on numpy arrays and torch tensors.
    """
    first, second = plane_slices(_check_last_axis_even(x), "interleaved")
    if _is_torch(x):
        import torch

        return torch.cat((x[..., first], x[..., second]), dim=-1)
    x = np.asarray(x)
    return np.concatenate((x[..., first], x[..., second]), axis=-1)


def half_to_interleaved(x: Any) -> Any:
    """The inverse of :func:`interleaved_to_half`: coordinates ``(i, i + d/2)`` go to ``(2i, 2i+1)``."""
    dim = _check_last_axis_even(x)
    half = dim // 2
    if _is_torch(x):
        import torch

        return torch.stack((x[..., :half], x[..., half:]), dim=-1).flatten(-2)
    x = np.asarray(x)
    return np.stack((x[..., :half], x[..., half:]), axis=-1).reshape(x.shape)


def rope_angles(positions: Any, theta: np.ndarray) -> np.ndarray:
    r"""The angles :math:`m\theta_i` in float64, shape ``positions.shape + (d/2,)``."""
    m = check_finite_array(_to_numpy(positions), "positions")
    return m[..., None] * theta


def apply_rope(
    x: Any,
    positions: Any,
    *,
    base: float = 10000.0,
    inv_freq: Any = None,
    layout: str = "interleaved",
    attention_factor: float = 1.0,
) -> Any:
    r"""Rotate ``x`` by RoPE with the fast elementwise form (RoFormer eq. 34; chapter 3).

    For each plane *i* with coordinates ``(a, b)`` (see :mod:`ropelab.core` for the layouts):

    .. math::
        \begin{aligned}
        y_a &= s\,(x_a\cos m\theta_i - x_b\sin m\theta_i)\\
        y_b &= s\,(x_b\cos m\theta_i + x_a\sin m\theta_i)
        \end{aligned}

    i.e. :math:`y = s\,(x \otimes \cos + \mathrm{rotate}(x) \otimes \sin)`, where *s* is
    ``attention_factor`` (YaRN and LongRoPE scale cos and sin by it, as transformers does).
    No d×d matrix is built: the cost is O(d) per vector instead of O(d²).

    The angles :math:`m\theta_i` are computed in float64 whatever the dtype of ``x`` and only
    cos and sin are rounded to it, so a float32 result at position :math:`2^{20}` is within
    1e-5 of the exact rotation. transformers' Llama rotary embedding forms the angles in
    float32 and is about 2e-2 off at that position.

    If ``inv_freq`` has fewer than ``x.shape[-1] / 2`` entries, only the first
    ``2 * len(inv_freq)`` coordinates are rotated and the rest pass through unchanged
    (partial rotary embedding, as in GPT-NeoX and Phi).

    Args:
        x: numpy array or torch tensor; the last axis is the head dimension and the
            second-to-last is the sequence axis. ``x`` itself is not scanned for NaN.
        positions: positions *m* broadcasting against the second-to-last axis of ``x``
            (for example shape ``(seq,)`` or ``(batch, 1, seq)``); finite, may be fractional.
        base: :math:`\beta` used when ``inv_freq`` is not given.
        inv_freq: the frequencies :math:`\theta_i` (overrides ``base``), e.g. from
            :func:`ropelab.frequencies_from_config`.
        layout: ``"interleaved"`` (pairs ``(2i, 2i+1)``) or ``"half"`` (pairs ``(i, i+d/2)``).
        attention_factor: finite scale *s* > 0 applied to cos and sin.

    Returns:
        The rotated array: numpy in, numpy out (float dtypes kept, integers promoted to
        float64); torch in, torch out with the same dtype and device.
    """
    layout = check_layout(layout)
    scale = check_positive(attention_factor, "attention_factor")
    head_dim = _check_last_axis_even(x)
    if inv_freq is None:
        theta = _frequencies(head_dim, base, None)
    else:
        theta = _frequencies(None, base, inv_freq)
        if 2 * theta.size > head_dim:
            raise ValueError(
                f"inv_freq has {theta.size} entries, more than x's last axis ({head_dim}) allows"
            )
    angles = rope_angles(positions, theta)  # (..., seq, d_rot/2), float64
    cos, sin = np.cos(angles), np.sin(angles)
    if scale != 1.0:
        cos *= scale
        sin *= scale
    if _is_torch(x):
        return _rotate_torch(x, cos, sin, layout)
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    return rotate_pairs(x, cos.astype(x.dtype, copy=False), sin.astype(x.dtype, copy=False), layout)


#: The kernels of :func:`rotate_pairs` walk the sequence axis in chunks of about this many bytes
#: of ``x``, so that their several passes over one chunk read it from the L2 cache rather than
#: from main memory. numpy runs on one core; torch splits each operation across the cores (and
#: waits for them at the end of each), so its chunks are larger. ``benchmarks/README.md`` has
#: the measurements behind both numbers (``benchmarks/run.py --parts chunks``).
NUMPY_CHUNK_BYTES = 256 * 1024
TORCH_CHUNK_BYTES = 1024 * 1024


def rotate_pairs(x: Any, cos: Any, sin: Any, layout: str, *, out: Any = None) -> Any:
    r"""The elementwise rotation of RoFormer eq. 34 given per-plane cos and sin (chapter 3).

    For plane *i* with coordinates ``(a, b)`` (``(2i, 2i+1)`` interleaved, ``(i, i+r)`` half):

    .. math:: y_a = x_a\cos_i - x_b\sin_i, \qquad y_b = x_b\cos_i + x_a\sin_i

    Written for numpy arrays and torch tensors; the result is written once, into a new array
    (or into ``out``), and apart from a complex table of cos and sin no temporary is larger
    than a chunk of ``x`` (chunks of the sequence axis sized for the L2 cache):

    * numpy: as complex multiplication, :math:`x_a + \mathrm{i}\,x_b \mapsto
      (x_a + \mathrm{i}\,x_b)(\cos_i + \mathrm{i}\sin_i)` (RoFormer eq. 12-13; chapter 2). The
      interleaved pairs of a float32 or float64 array already are complex numbers in memory;
      otherwise each chunk is packed into a complex buffer and unpacked after the product.
      (numpy's complex product may fuse a multiply and an add: the last bit can differ from
      the formula above.)
    * torch: the interleaved layout as the same complex product on a complex view of ``x``;
      the half layout (or pairs that cannot be viewed as complex) with the formula above,
      chunk by chunk, each product rounded before the sum (no fused multiply-add), so that the
      result is the one transformers' ``apply_rotary_pos_emb`` computes from the same tables,
      to the last bit (chapter 3). Autograd flows to ``x``, ``cos`` and ``sin``; the gradient
      with respect to ``x`` is the rotation by :math:`-m\theta_i`, the transpose.

    Args:
        x: array or tensor ``(..., seq, head_dim)``.
        cos, sin: ``(..., seq, r)`` in ``x``'s dtype, broadcasting against ``x``, already
            scaled by any attention factor; ``2r <= head_dim``. Coordinates past ``2r``
            (partial rotary embedding) are copied unchanged.
        layout: ``"interleaved"`` or ``"half"``.
        out: optional array or tensor of ``x``'s shape and dtype to write the result into (it
            must not overlap ``x``; not for tensors that autograd records).

    Returns:
        A new array or tensor of ``x``'s shape (``out`` when given).
    """
    layout = check_layout(layout)
    if getattr(cos, "shape", None) != getattr(sin, "shape", None) or not getattr(cos, "ndim", 0):
        raise ValueError(
            f"cos and sin must be arrays of the same shape (..., seq, r), got "
            f"{getattr(cos, 'shape', type(cos).__name__)} and "
            f"{getattr(sin, 'shape', type(sin).__name__)}"
        )
    head_dim = _check_last_axis_even(x)
    r = cos.shape[-1]
    if r == 0 or 2 * r > head_dim:
        raise ValueError(f"cos and sin must have 1 to {head_dim // 2} planes, got {r}")
    if tuple(np.broadcast_shapes(x.shape[:-1], cos.shape[:-1])) != tuple(x.shape[:-1]):
        raise ValueError(
            f"cos and sin of shape {tuple(cos.shape)} must broadcast to x's shape {tuple(x.shape)}"
        )
    if out is not None and (tuple(out.shape) != tuple(x.shape) or out.dtype != x.dtype):
        raise ValueError(
            f"out must have x's shape {tuple(x.shape)} and dtype {x.dtype}, "
            f"got {tuple(out.shape)} and {out.dtype}"
        )
    if _is_torch(x):
        return _rotate_pairs_torch(x, cos, sin, layout, out)
    return _rotate_pairs_numpy(np.asarray(x), np.asarray(cos), np.asarray(sin), layout, out)


def _pair_views(t: Any, r: int, layout: str) -> tuple[Any, Any]:
    """The coordinates ``(a, b)`` of every plane as two views of ``t``'s last axis."""
    first, second = plane_slices(2 * r, layout)
    return t[..., first], t[..., second]


def _row_chunks(x: Any, cos: Any, chunk_bytes: int) -> list[tuple[Any, Any]]:
    """``(index into x, index into cos)`` for each chunk of about ``chunk_bytes`` of ``x``.

    The chunks split the sequence axis (``-2``); ``cos`` is split with it unless it has a
    single row there (broadcast over the sequence). ``...`` indexes a whole array.
    """
    rows = x.shape[-2] if x.ndim >= 2 else 1
    row_bytes = x.dtype.itemsize * x.shape[-1] * math.prod(x.shape[:-2])
    step = max(1, chunk_bytes // max(row_bytes, 1))
    if step >= rows:
        return [(Ellipsis, Ellipsis)]
    per_row = cos.ndim >= 2 and cos.shape[-2] == rows
    chunks = []
    for start in range(0, rows, step):
        index = (Ellipsis, slice(start, start + step), slice(None))
        chunks.append((index, index if per_row else Ellipsis))
    return chunks


# ---------------------------------------------------------------------------------- numpy


def _rotate_pairs_numpy(
    x: np.ndarray, cos: np.ndarray, sin: np.ndarray, layout: str, out: Any
) -> np.ndarray:
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    if out is None:
        out = np.empty_like(x)
    elif np.may_share_memory(out, x):
        raise ValueError("out must not overlap x")
    r = cos.shape[-1]
    if 2 * r < x.shape[-1]:  # partial rotary embedding: the tail passes through
        out[..., 2 * r :] = x[..., 2 * r :]
    # e^{i mθ} = cos + i sin, one complex number per plane and position
    rotation = np.empty(cos.shape, dtype=np.result_type(x.dtype, np.complex64))
    rotation.real, rotation.imag = cos, sin
    pairs, pairs_out = x[..., : 2 * r], out[..., : 2 * r]
    if layout == "interleaved" and _numpy_complex_view_ok(pairs, pairs_out, rotation.dtype):
        # z_i = x_2i + i x_2i+1 is already in memory: z_i <- z_i e^{i mθ_i}, one pass over x
        np.multiply(pairs.view(rotation.dtype), rotation, out=pairs_out.view(rotation.dtype))
        return out
    a, b = _pair_views(x, r, layout)
    out_a, out_b = _pair_views(out, r, layout)
    chunks = _row_chunks(x, cos, NUMPY_CHUNK_BYTES)
    buffer = np.empty(out_a[chunks[0][0]].shape, rotation.dtype)  # reused by every chunk
    for rows, cos_rows in chunks:
        z = buffer if buffer.shape == out_a[rows].shape else buffer[..., : out_a[rows].shape[-2], :]
        # z = x_a + i x_b;  z <- z e^{i mθ};  y_a = Re z, y_b = Im z
        z.real, z.imag = a[rows], b[rows]
        np.multiply(z, rotation[cos_rows], out=z)
        out_a[rows], out_b[rows] = z.real, z.imag
    return out


def _numpy_complex_view_ok(x: np.ndarray, out: np.ndarray, dtype: np.dtype) -> bool:
    """Whether the pairs of ``x`` and ``out`` can be viewed as complex numbers of ``dtype``."""
    return all(2 * a.itemsize == dtype.itemsize and a.strides[-1] == a.itemsize for a in (x, out))


# ---------------------------------------------------------------------------------- torch


def _rotate_pairs_torch(x: Any, cos: Any, sin: Any, layout: str, out: Any) -> Any:
    import torch

    if x.is_floating_point() and cos.dtype != x.dtype:
        cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    if torch.is_grad_enabled() and (x.requires_grad or cos.requires_grad or sin.requires_grad):
        if out is not None:
            raise ValueError("out is not supported when autograd records x, cos or sin")
        return _rotate_function().apply(x, cos, sin, layout)
    return _rotate_into_torch(x, cos, sin, layout, out)


def _rotate_into_torch(x: Any, cos: Any, sin: Any, layout: str, out: Any) -> Any:
    """The kernel: writes the rotation of ``x`` into ``out`` (a new tensor when ``None``)."""
    import torch

    if out is None:
        out = torch.empty_like(x)
    elif _torch_overlap(out, x):
        raise ValueError("out must not overlap x")
    r = cos.shape[-1]
    if 2 * r < x.shape[-1]:  # partial rotary embedding: the tail passes through
        out[..., 2 * r :].copy_(x[..., 2 * r :])
    pairs, pairs_out = x[..., : 2 * r], out[..., : 2 * r]
    if layout == "interleaved" and _torch_pairs_adjacent(pairs, pairs_out):
        # z_i = x_2i + i x_2i+1  ->  z_i (cos_i + i sin_i): one pass over x
        z = torch.view_as_complex(pairs.unflatten(-1, (r, 2)))
        z_out = torch.view_as_complex(pairs_out.unflatten(-1, (r, 2)))
        torch.mul(z, torch.complex(cos, sin), out=z_out)
        return out
    a, b = _pair_views(x, r, layout)
    out_a, out_b = _pair_views(out, r, layout)
    chunks = _row_chunks(x, cos, TORCH_CHUNK_BYTES)
    buffer = torch.empty(out_a[chunks[0][0]].shape, dtype=out.dtype, device=out.device)
    for rows, cos_rows in chunks:
        c, s, ya, yb = cos[cos_rows], sin[cos_rows], out_a[rows], out_b[rows]
        t = buffer if buffer.shape == ya.shape else buffer[..., : ya.shape[-2], :]
        # y_a = x_a cos − x_b sin
        torch.mul(a[rows], c, out=ya)
        torch.mul(b[rows], s, out=t)
        ya.sub_(t)
        # y_b = x_b cos + x_a sin
        torch.mul(b[rows], c, out=yb)
        torch.mul(a[rows], s, out=t)
        yb.add_(t)
    return out


def _torch_pairs_adjacent(*tensors: Any) -> bool:
    """Whether each tensor can be viewed as complex pairs (float32/64, last axis contiguous)."""
    import torch

    return all(
        t.dtype in (torch.float32, torch.float64)
        and t.stride(-1) == 1
        and t.storage_offset() % 2 == 0
        and all(stride % 2 == 0 for stride in t.stride()[:-1])
        for t in tensors
    )


def _torch_overlap(a: Any, b: Any) -> bool:
    """Whether two tensors' memory ranges intersect (a conservative test)."""
    if a.device != b.device or a.numel() == 0 or b.numel() == 0:
        return False

    def span(t: Any) -> tuple[int, int]:
        extent = sum(
            (size - 1) * abs(stride) for size, stride in zip(t.shape, t.stride(), strict=True)
        )
        start = t.data_ptr()
        return start, start + (extent + 1) * t.element_size()

    (a0, a1), (b0, b1) = span(a), span(b)
    return a0 < b1 and b0 < a1


@functools.cache
def _rotate_function() -> Any:
    """The autograd Function around :func:`_rotate_into_torch` (built on first use: torch is
    imported lazily)."""
    import torch

    class RotatePairs(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, cos: Any, sin: Any, layout: str) -> Any:
            ctx.layout = layout
            needs_x = ctx.needs_input_grad[1] or ctx.needs_input_grad[2]  # for ∂L/∂cos, ∂L/∂sin
            ctx.save_for_backward(x if needs_x else None, cos, sin)
            return _rotate_into_torch(x, cos, sin, layout, None)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> tuple[Any, ...]:
            x, cos, sin = ctx.saved_tensors
            grad_x = grad_cos = grad_sin = None
            if ctx.needs_input_grad[0]:
                # R(mθ) is orthogonal: ∂L/∂x = R(mθ)ᵀ ∂L/∂y = R(−mθ) ∂L/∂y
                grad_x = rotate_pairs(grad, cos, -sin, ctx.layout)
            if ctx.needs_input_grad[1] or ctx.needs_input_grad[2]:
                r = cos.shape[-1]
                a, b = _pair_views(x, r, ctx.layout)
                ga, gb = _pair_views(grad, r, ctx.layout)
                # ∂y_a/∂cos = x_a, ∂y_b/∂cos = x_b; ∂y_a/∂sin = −x_b, ∂y_b/∂sin = x_a
                grad_cos = (ga * a + gb * b).sum_to_size(cos.shape)
                grad_sin = (gb * a - ga * b).sum_to_size(sin.shape)
            return grad_x, grad_cos, grad_sin, None

    return RotatePairs


def _rotate_torch(x: Any, cos: np.ndarray, sin: np.ndarray, layout: str) -> Any:
    import torch

    cos_t = torch.from_numpy(cos).to(device=x.device, dtype=x.dtype)
    sin_t = torch.from_numpy(sin).to(device=x.device, dtype=x.dtype)
    return rotate_pairs(x, cos_t, sin_t, layout)


def apply_rope_complex(
    x: Any, positions: Any, *, base: float = 10000.0, inv_freq: Any = None
) -> np.ndarray:
    r"""RoPE as complex multiplication (RoFormer eq. 12-13; chapter 2).

    Plane *i* of the interleaved layout is read as the complex number
    :math:`z_i = x_{2i} + \mathrm{i}\,x_{2i+1}` and multiplied by :math:`e^{\mathrm{i} m\theta_i}`:

    .. math:: z_i \mapsto z_i\, e^{\mathrm{i} m \theta_i}

    This is the derivation's form, kept as an independent check on :func:`apply_rope`.
    Returns a float64 numpy array in the interleaved layout.
    """
    values = np.asarray(_to_numpy(x), dtype=np.float64)
    head_dim = _check_last_axis_even(values)
    theta = _frequencies(head_dim, base, inv_freq)
    first, second = plane_slices(head_dim, "interleaved")
    z = values[..., first] + 1j * values[..., second]
    rotated = z * np.exp(1j * rope_angles(positions, theta))
    out = np.empty(np.broadcast_shapes(values.shape, (*rotated.shape[:-1], head_dim)))
    out[..., first] = rotated.real
    out[..., second] = rotated.imag
    return out
