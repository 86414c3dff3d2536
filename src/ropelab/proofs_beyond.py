r"""Symbolic proofs of chapter 9's identities: MLA's decoupled RoPE, 2D and multimodal RoPE, Resonance.

Same contract as :mod:`ropelab.proofs`: every proof returns ``left side - right side`` as a
SymPy expression or matrix, held unevaluated, and the identity holds exactly when
:func:`ropelab.proofs.simplifies_to_zero` finds zero. Each true identity has a deliberately
wrong variant (``wrong_*``) that must *not* simplify to zero. Frequencies, positions,
weights and vectors are independent real symbols; only the sizes are numbers.

* **MLA** (DeepSeek-V2, section 2.1.3). With queries :math:`q = W_Q x` and content keys
  :math:`k = W_{UK} c` built from the cached latent *c*, RoPE on both would give
  :math:`(R_m W_Q x)^\top (R_n W_{UK} c) = x^\top W_Q^\top R_{n-m} W_{UK} c`
  (:func:`mla_rotation_between`): the matrix between *x* and *c* changes with the offset, so
  the single absorbed matrix :math:`W_Q^\top W_{UK}` is wrong (:func:`wrong_mla_absorption`).
  Decoupling fixes it: content and RoPE parts add up (:func:`mla_decoupled_score`).
* **Multi-axis RoPE**: with each plane on one position axis, the score depends only on the
  offset vector (:func:`multiaxis_score_depends_on_offset` and its matrix form
  :func:`multiaxis_relative_rotation`: axial 2D and M-RoPE), and with
  equal coordinates :math:`t = h = w = p` M-RoPE is 1D RoPE (:func:`mrope_text_is_rope`).
* **All of them at once** (:func:`linear_angles_relative`): a block-diagonal rotation whose
  plane *i* turns by :math:`\varphi_i(P) = \sum_a \Omega_{ia} P_a`, any frequency matrix
  :math:`\Omega` (planes x axes), satisfies :math:`R_P^\top R_Q = R_{Q-P}`. 1D RoPE (one
  axis), p-RoPE and partial rotation (zero rows), axial 2D and M-RoPE (one non-zero entry per
  row) and RoPE-Mixed (a dense row) are special cases.
* **Resonance RoPE**: with an integer wavelength :math:`\lambda`, the rotation at
  :math:`m + \lambda` equals the one at *m* (:func:`resonance_period`).

Chapter 9 of the book prints each proof and its wrong twin.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sympy

from ._checks import check_count, check_dim, check_layout
from .core import plane_coordinates
from .multimodal import plane_axes_axial, plane_axes_interleaved, plane_axes_sections
from .proofs import position_symbols, symbolic_rotation, theta_symbols, vector_symbols

__all__ = [
    "PROOFS",
    "WRONG_VARIANTS",
    "linear_angle_rotation",
    "linear_angles_relative",
    "matrix_symbols",
    "mla_decoupled_score",
    "mla_rotation_between",
    "mrope_text_is_rope",
    "multiaxis_relative_rotation",
    "multiaxis_score_depends_on_offset",
    "resonance_period",
    "symbolic_multiaxis_rotation",
    "wrong_linear_angles_one_axis",
    "wrong_mla_absorption",
    "wrong_mrope_text",
    "wrong_multiaxis_one_axis",
    "wrong_resonance_period",
]

SymbolicResult = sympy.Expr | sympy.MatrixBase


def _difference(lhs: Any, rhs: Any) -> SymbolicResult:
    """``lhs - rhs`` held unevaluated (entrywise for matrices), so both sides stay visible."""
    if isinstance(lhs, sympy.MatrixBase) or isinstance(rhs, sympy.MatrixBase):
        left, right = sympy.Matrix(lhs), sympy.Matrix(rhs)
        if left.shape != right.shape:
            raise ValueError(f"shapes differ: {left.shape} and {right.shape}")
        return sympy.Matrix(
            left.rows, left.cols, [_difference(a, b) for a, b in zip(left, right, strict=True)]
        )
    if lhs == 0 and rhs == 0:
        return sympy.S.Zero
    return sympy.Add(lhs, -rhs, evaluate=False)


def matrix_symbols(name: str, rows: int, cols: int) -> sympy.Matrix:
    """A ``rows x cols`` matrix of real symbols ``name_{ij}``."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be a non-empty identifier string, got {name!r}")
    rows = check_count(rows, "rows")
    cols = check_count(cols, "cols")
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}_{i}{j}", real=True))


# --------------------------------------------------------------------------------------
# Multi-head latent attention (DeepSeek-V2)
# --------------------------------------------------------------------------------------


def _mla_symbols(dim: int, d_in: int, d_latent: int) -> tuple[sympy.Matrix, sympy.Matrix]:
    dim = check_dim(dim)
    return matrix_symbols("W_Q", dim, check_count(d_in, "d_in")), matrix_symbols(
        "W_UK", dim, check_count(d_latent, "d_latent")
    )


def mla_rotation_between(dim: int = 2, d_in: int = 2, d_latent: int = 2) -> sympy.Matrix:
    r"""RoPE on MLA's content part puts :math:`R_{n-m}` between :math:`W_Q` and :math:`W_{UK}`.

    .. math:: (R_m W_Q)^\top (R_n W_{UK}) - W_Q^\top R_{n-m} W_{UK} = 0

    The score :math:`x_m^\top (R_m W_Q)^\top (R_n W_{UK})\, c_n` therefore reads *x* and *c*
    through a matrix that depends on :math:`n - m`. Symbolic in the weights, *m*, *n* and
    the frequencies; ``dim`` is the rotated head, ``d_in`` the query input, ``d_latent``
    the latent :math:`d_c`.
    """
    w_q, w_uk = _mla_symbols(dim, d_in, d_latent)
    m, n = position_symbols()
    product = (symbolic_rotation(m, dim) * w_q).T * (symbolic_rotation(n, dim) * w_uk)
    return _difference(product, w_q.T * symbolic_rotation(n - m, dim) * w_uk)


def wrong_mla_absorption(dim: int = 2, d_in: int = 2, d_latent: int = 2) -> sympy.Matrix:
    r"""Deliberately wrong: one precomputed matrix :math:`W_Q^\top W_{UK}` would serve every pair.

    .. math:: (R_m W_Q)^\top (R_n W_{UK}) - W_Q^\top W_{UK} \neq 0

    The difference is :math:`W_Q^\top (R_{n-m} - I) W_{UK}`, zero only at offset 0 (or at
    offsets where every plane has turned a whole number of times).
    """
    w_q, w_uk = _mla_symbols(dim, d_in, d_latent)
    m, n = position_symbols()
    product = (symbolic_rotation(m, dim) * w_q).T * (symbolic_rotation(n, dim) * w_uk)
    return _difference(product, w_q.T * w_uk)


def mla_decoupled_score(dim: int = 2, d_in: int = 2, d_latent: int = 2) -> sympy.Expr:
    r"""Decoupled RoPE: the score splits into an absorbable content part and a relative RoPE part.

    .. math::
        \begin{pmatrix} W_Q x\\ R_m q^R\end{pmatrix}^{\!\top}
        \begin{pmatrix} W_{UK} c\\ R_n k^R\end{pmatrix}
        - \Big(x^\top \big(W_Q^\top W_{UK}\big)\, c + {q^R}^\top R_{n-m}\, k^R\Big) = 0

    The content part uses the constant matrix :math:`W_Q^\top W_{UK}`; only the small RoPE
    part (``dim`` coordinates, 64 in DeepSeek-V2/V3) sees the positions, through
    :math:`n - m`. Symbolic in *x*, *c*, :math:`q^R`, :math:`k^R`, the weights, *m*, *n*.
    """
    w_q, w_uk = _mla_symbols(dim, d_in, d_latent)
    m, n = position_symbols()
    x = vector_symbols("x", d_in)
    c = vector_symbols("c", d_latent)
    q_r = vector_symbols("qR", dim)
    k_r = vector_symbols("kR", dim)
    query = (w_q * x).col_join(symbolic_rotation(m, dim) * q_r)
    key = (w_uk * c).col_join(symbolic_rotation(n, dim) * k_r)
    absorbed = (x.T * (w_q.T * w_uk) * c)[0, 0]
    relative = (q_r.T * symbolic_rotation(n - m, dim) * k_r)[0, 0]
    return _difference(query.dot(key), sympy.Add(absorbed, relative, evaluate=False))


# --------------------------------------------------------------------------------------
# Multi-axis RoPE: axial 2D and M-RoPE
# --------------------------------------------------------------------------------------


def _axes_for(allocation: str, sections: Sequence[int]) -> list[int]:
    if allocation == "axial":
        return [int(a) for a in plane_axes_axial(2 * check_count(sections[0], "sections[0]"))]
    if allocation == "sections":
        return [int(a) for a in plane_axes_sections(sections)]
    if allocation == "interleaved":
        return [int(a) for a in plane_axes_interleaved(sections)]
    raise ValueError(f"allocation must be 'axial', 'sections' or 'interleaved', got {allocation!r}")


def symbolic_multiaxis_rotation(
    positions: Sequence[Any],
    axes: Sequence[int],
    layout: str = "half",
    thetas: Sequence[Any] | None = None,
) -> sympy.Matrix:
    r"""Multi-axis RoPE as a block-diagonal SymPy matrix: plane *i* turns by :math:`P_{a(i)}\theta_i`.

    Args:
        positions: the coordinates *P* (SymPy expressions), one per axis.
        axes: the axis :math:`a(i)` of every plane.
        layout: ``"half"`` (transformers, Qwen-VL) or ``"interleaved"``.
        thetas: the per-plane angles; default independent symbols.
    """
    layout = check_layout(layout)
    axes = [int(a) for a in axes]
    if not axes or min(axes) < 0 or max(axes) >= len(positions):
        raise ValueError(f"axes must index positions (0 .. {len(positions) - 1}), got {axes}")
    dim = 2 * len(axes)
    angles = theta_symbols(dim) if thetas is None else tuple(thetas)
    if len(angles) != len(axes):
        raise ValueError(f"thetas must have {len(axes)} entries, got {len(angles)}")
    first, second = plane_coordinates(dim, layout)
    matrix = sympy.zeros(dim, dim)
    for a, b, axis, theta in zip(first, second, axes, angles, strict=True):
        phi = positions[axis] * theta
        matrix[a, a] = sympy.cos(phi)
        matrix[a, b] = -sympy.sin(phi)
        matrix[b, a] = sympy.sin(phi)
        matrix[b, b] = sympy.cos(phi)
    return matrix


def _axis_positions(name: str, count: int) -> list[sympy.Symbol]:
    return [sympy.Symbol(f"{name}_{a}", real=True) for a in range(count)]


def multiaxis_score_depends_on_offset(
    allocation: str = "axial", sections: Sequence[int] = (1,), layout: str = "half"
) -> sympy.Expr:
    r"""The multi-axis RoPE score depends on the positions only through their offset vector.

    .. math:: (R_P\, q)^\top (R_Q\, k) - q^\top R_{Q-P}\, k = 0

    with *P*, *Q* symbolic 2D positions (``"axial"``: ``sections = (n,)`` gives *n* planes
    per axis) or 3D positions (``"sections"``: Qwen2-VL's contiguous M-RoPE;
    ``"interleaved"``: Qwen3-VL's). Symbolic in the coordinates, frequencies and vectors.
    """
    axes = _axes_for(allocation, sections)
    count = max(axes) + 1
    p = _axis_positions("P", count)
    q_pos = _axis_positions("Q", count)
    offset = [b - a for a, b in zip(p, q_pos, strict=True)]
    dim = 2 * len(axes)
    q = vector_symbols("q", dim)
    k = vector_symbols("k", dim)
    score = (symbolic_multiaxis_rotation(p, axes, layout) * q).dot(
        symbolic_multiaxis_rotation(q_pos, axes, layout) * k
    )
    return _difference(score, (q.T * symbolic_multiaxis_rotation(offset, axes, layout) * k)[0, 0])


def multiaxis_relative_rotation(
    allocation: str = "axial", sections: Sequence[int] = (1,), layout: str = "half"
) -> sympy.Matrix:
    r"""Multi-axis rotations compose into the rotation by the offset vector.

    .. math:: R_P^\top R_Q - R_{Q-P} = 0

    The matrix form of :func:`multiaxis_score_depends_on_offset` (the score is
    :math:`q^\top R_P^\top R_Q\, k`). Same arguments.
    """
    axes = _axes_for(allocation, sections)
    count = max(axes) + 1
    p = _axis_positions("P", count)
    q_pos = _axis_positions("Q", count)
    offset = [b - a for a, b in zip(p, q_pos, strict=True)]
    product = symbolic_multiaxis_rotation(p, axes, layout).T * symbolic_multiaxis_rotation(
        q_pos, axes, layout
    )
    return _difference(product, symbolic_multiaxis_rotation(offset, axes, layout))


def wrong_multiaxis_one_axis(
    allocation: str = "axial", sections: Sequence[int] = (1,), layout: str = "half"
) -> sympy.Matrix:
    r"""Deliberately wrong: only the offset along the *first* axis matters.

    .. math:: R_P^\top R_Q - R_{(Q_0 - P_0,\, 0, \dots)} \neq 0

    The planes of the other axes still turn by their own offsets, so the entries of those
    planes differ.
    """
    axes = _axes_for(allocation, sections)
    count = max(axes) + 1
    p = _axis_positions("P", count)
    q_pos = _axis_positions("Q", count)
    first_only = [q_pos[0] - p[0]] + [sympy.S.Zero] * (count - 1)
    product = symbolic_multiaxis_rotation(p, axes, layout).T * symbolic_multiaxis_rotation(
        q_pos, axes, layout
    )
    return _difference(product, symbolic_multiaxis_rotation(first_only, axes, layout))


def mrope_text_is_rope(
    sections: Sequence[int] = (1, 2, 1), allocation: str = "sections", layout: str = "half"
) -> sympy.Matrix:
    r"""For a text token (:math:`t = h = w = p`), M-RoPE's rotation is 1D RoPE's.

    .. math:: R^{\text{M-RoPE}}_{(p, p, p)} - R^{d}_{\Theta, p} = 0

    for any split of the planes into sections, contiguous or interleaved. Symbolic in *p*
    and the frequencies.
    """
    axes = _axes_for(allocation, sections)
    p = sympy.Symbol("p", real=True)
    dim = 2 * len(axes)
    rotation = symbolic_multiaxis_rotation([p, p, p], axes, layout)
    return _difference(rotation, symbolic_rotation(p, dim, layout))


def wrong_mrope_text(
    sections: Sequence[int] = (1, 2, 1), allocation: str = "sections", layout: str = "half"
) -> sympy.Matrix:
    r"""Deliberately wrong: a token at :math:`(p, p, p + 1)` is rotated like 1D RoPE at *p*.

    .. math:: R^{\text{M-RoPE}}_{(p, p, p+1)} - R^{d}_{\Theta, p} \neq 0
    """
    axes = _axes_for(allocation, sections)
    p = sympy.Symbol("p", real=True)
    dim = 2 * len(axes)
    rotation = symbolic_multiaxis_rotation([p, p, p + 1], axes, layout)
    return _difference(rotation, symbolic_rotation(p, dim, layout))


def linear_angle_rotation(positions: Sequence[Any], frequencies: sympy.Matrix) -> sympy.Matrix:
    r"""Block-diagonal rotation whose plane *i* turns by a linear function of the position.

    .. math::
        R_P = \operatorname{diag}\big(R(\varphi_0(P)), \dots, R(\varphi_{n-1}(P))\big),
        \qquad \varphi_i(P) = \sum_a \Omega_{ia} P_a

    Planes on coordinates :math:`(2i, 2i + 1)`. Its generators :math:`A_a =
    \operatorname{diag}(\Omega_{0a} J, \dots, \Omega_{n-1,a} J)` commute, and
    :math:`R_P = \exp(\sum_a P_a A_a)`.

    Args:
        positions: the coordinates *P*, one per axis (SymPy expressions).
        frequencies: :math:`\Omega`, a SymPy matrix with one row per plane and one column
            per axis.
    """
    omega = sympy.Matrix(frequencies)
    if omega.rows < 1 or omega.cols != len(positions):
        raise ValueError(
            f"frequencies must have one column per position ({len(positions)}), "
            f"got shape {omega.shape}"
        )
    position = sympy.Matrix(list(positions))
    angles = omega * position
    return sympy.diag(*[_rotation_2d(angle) for angle in angles])


def _linear_angles_setup(
    planes: int, axes: int
) -> tuple[sympy.Matrix, list[sympy.Symbol], list[sympy.Symbol]]:
    planes = check_count(planes, "planes")
    axes = check_count(axes, "axes")
    return (
        matrix_symbols("Omega", planes, axes),
        _axis_positions("P", axes),
        _axis_positions("Q", axes),
    )


def linear_angles_relative(planes: int = 3, axes: int = 3) -> sympy.Matrix:
    r"""Every plane angle linear in the position: the rotations compose into the offset's.

    .. math:: R_P^\top R_Q - R_{Q-P} = 0

    for :func:`linear_angle_rotation` with a symbolic frequency matrix :math:`\Omega`
    (``planes x axes`` independent symbols) and symbolic positions *P*, *Q*. The score
    :math:`(R_P q)^\top (R_Q k) = q^\top R_{Q-P} k` depends on the offset vector alone, and
    only on the axes whose column of :math:`\Omega` is not zero. Chapter 9's one proof of
    the relative-position property: 1D RoPE, p-RoPE, partial rotation, MLA's decoupled part,
    axial 2D RoPE, M-RoPE (contiguous or interleaved) and RoPE-Mixed are choices of
    :math:`\Omega`.
    """
    omega, p, q_pos = _linear_angles_setup(planes, axes)
    offset = [b - a for a, b in zip(p, q_pos, strict=True)]
    product = linear_angle_rotation(p, omega).T * linear_angle_rotation(q_pos, omega)
    return _difference(product, linear_angle_rotation(offset, omega))


def wrong_linear_angles_one_axis(planes: int = 3, axes: int = 3) -> sympy.Matrix:
    r"""Deliberately wrong: only the offset along the first axis matters.

    .. math:: R_P^\top R_Q - R_{(Q_0 - P_0,\, 0, \dots)} \neq 0

    With ``axes >= 2`` the planes still turn by the other axes' offsets. (With one axis the
    statement is true, so ``axes`` must be at least 2.)
    """
    axes = check_count(axes, "axes", minimum=2)
    omega, p, q_pos = _linear_angles_setup(planes, axes)
    first_only = [q_pos[0] - p[0]] + [sympy.S.Zero] * (axes - 1)
    product = linear_angle_rotation(p, omega).T * linear_angle_rotation(q_pos, omega)
    return _difference(product, linear_angle_rotation(first_only, omega))


# --------------------------------------------------------------------------------------
# Resonance RoPE
# --------------------------------------------------------------------------------------


def _rotation_2d(angle: sympy.Expr) -> sympy.Matrix:
    return sympy.Matrix(
        [[sympy.cos(angle), -sympy.sin(angle)], [sympy.sin(angle), sympy.cos(angle)]]
    )


def resonance_period() -> sympy.Matrix:
    r"""With an integer wavelength :math:`\lambda`, a plane repeats exactly every :math:`\lambda` tokens.

    .. math:: R\Big(\frac{2\pi}{\lambda}(m + \lambda)\Big) - R\Big(\frac{2\pi}{\lambda} m\Big) = 0

    Resonance RoPE's :math:`\tilde\theta = 2\pi/\lambda`. Symbolic in the position *m* and
    the positive integer :math:`\lambda`.
    """
    m = sympy.Symbol("m", integer=True)
    wavelength = sympy.Symbol("lambda", integer=True, positive=True)
    theta = 2 * sympy.pi / wavelength
    return _difference(_rotation_2d(theta * (m + wavelength)), _rotation_2d(theta * m))


def wrong_resonance_period() -> sympy.Matrix:
    r"""Deliberately wrong: plain RoPE repeats after its *rounded* wavelength.

    .. math:: R\Big(\frac{2\pi}{\lambda + \delta}(m + \lambda)\Big)
        - R\Big(\frac{2\pi}{\lambda + \delta} m\Big) \neq 0

    with :math:`\lambda + \delta` the true (non-integer) wavelength and :math:`\lambda` its
    rounding.
    """
    m = sympy.Symbol("m", integer=True)
    wavelength = sympy.Symbol("lambda", integer=True, positive=True)
    delta = sympy.Symbol("delta", real=True, nonzero=True)
    theta = 2 * sympy.pi / (wavelength + delta)
    return _difference(_rotation_2d(theta * (m + wavelength)), _rotation_2d(theta * m))


PROOFS: dict[str, Callable[[], SymbolicResult]] = {
    "mla_rotation_between": mla_rotation_between,
    "mla_decoupled_score": mla_decoupled_score,
    "axial_score_depends_on_offset": lambda: multiaxis_score_depends_on_offset("axial", (2,)),
    "mrope_score_depends_on_offset": lambda: multiaxis_score_depends_on_offset(
        "sections", (1, 1, 1)
    ),
    "interleaved_mrope_score_depends_on_offset": lambda: multiaxis_score_depends_on_offset(
        "interleaved", (2, 1, 1)
    ),
    "axial_relative_rotation": lambda: multiaxis_relative_rotation("axial", (2,)),
    "mrope_relative_rotation": lambda: multiaxis_relative_rotation("sections", (1, 1, 1)),
    "mrope_text_is_rope": mrope_text_is_rope,
    "interleaved_mrope_text_is_rope": lambda: mrope_text_is_rope((2, 1, 1), "interleaved"),
    "linear_angles_relative": linear_angles_relative,
    "resonance_period": resonance_period,
}
"""Every true identity of this module with small sizes, by name (each simplifies to zero)."""

WRONG_VARIANTS: dict[str, Callable[[], SymbolicResult]] = {
    "mla_rotation_between": wrong_mla_absorption,
    "mla_decoupled_score": wrong_mla_absorption,
    "axial_score_depends_on_offset": lambda: wrong_multiaxis_one_axis("axial", (2,)),
    "mrope_score_depends_on_offset": lambda: wrong_multiaxis_one_axis("sections", (1, 1, 1)),
    "interleaved_mrope_score_depends_on_offset": lambda: wrong_multiaxis_one_axis(
        "interleaved", (2, 1, 1)
    ),
    "axial_relative_rotation": lambda: wrong_multiaxis_one_axis("axial", (2,)),
    "mrope_relative_rotation": lambda: wrong_multiaxis_one_axis("sections", (1, 1, 1)),
    "mrope_text_is_rope": wrong_mrope_text,
    "interleaved_mrope_text_is_rope": lambda: wrong_mrope_text((2, 1, 1), "interleaved"),
    "linear_angles_relative": wrong_linear_angles_one_axis,
    "resonance_period": wrong_resonance_period,
}
"""For each entry of :data:`PROOFS`, a deliberately wrong variant that must not simplify to zero."""
