r"""Symbolic proofs of the identities behind RoPE, written with SymPy.

Every proof function returns ``left side - right side`` of one identity as a SymPy
expression or matrix. The identity holds exactly when that difference simplifies to zero,
which :func:`simplifies_to_zero` decides with exact algebra (trigonometric expansion and
reduction modulo :math:`\sin^2 a + \cos^2 a = 1`), never with floating-point numbers.

The proofs are symbolic in everything they talk about: the positions *m* and *n*, the
angles :math:`\theta_0, \dots, \theta_{d/2-1}` (independent real symbols, so a proof holds
for *any* frequencies, not only :math:`\theta_i = \beta^{-2i/d}`) and the entries of the
vectors. Only the dimension *d* is a number, because a SymPy matrix has a concrete size;
the functions take it as ``dim``.

The difference is returned *unevaluated* (``sympy.Add(lhs, -rhs, evaluate=False)``), so
that both sides stay visible when a chapter prints it and the result still carries every
symbol even where the two sides happen to be written identically. SymPy's printers sort
the terms of a sum; pass ``order="none"`` (``sympy.latex(expr, order="none")``) to print
the left side first.

Conventions are those of :mod:`ropelab.core`: plane *i* turns by :math:`m\theta_i`;
``layout="interleaved"`` pairs coordinates ``(2i, 2i+1)`` and ``layout="half"`` pairs
``(i, i + d/2)``; :math:`R(\varphi) = \begin{pmatrix}\cos\varphi & -\sin\varphi\\
\sin\varphi & \cos\varphi\end{pmatrix}`.

Equation numbers refer to RoFormer (Su et al., 2021, arXiv:2104.09864). Chapters: ch. 1 is
the 2D rotation, ch. 2 the complex derivation, ch. 3 the block-diagonal form and layouts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import sympy

from ._checks import LAYOUTS, check_dim, check_layout
from .core import plane_coordinates

__all__ = [
    "PROOFS",
    "complex_multiplication_as_matrix",
    "complex_rotation_as_matrix",
    "complex_rotation_steps",
    "complex_score_vs_real_dot",
    "elementwise_form",
    "layout_permutation_matrix",
    "layout_permutation_vector",
    "mismatched_table_block",
    "norm_preservation",
    "orthogonality",
    "polar_form_rotation",
    "position_symbols",
    "relative_rotation_2d",
    "relative_rotation_2d_steps",
    "relative_rotation_block",
    "score_depends_on_offset",
    "simplifies_to_zero",
    "symbolic_apply_rope",
    "symbolic_cos_sin",
    "symbolic_inv_freq",
    "symbolic_layout_permutation",
    "symbolic_rotate_pairs",
    "symbolic_rotation",
    "symbolic_rotation_2d",
    "theta_symbol",
    "theta_symbols",
    "vector_symbols",
    "wrong_relative_rotation_2d",
]

SymbolicResult = sympy.Expr | sympy.MatrixBase


# --------------------------------------------------------------------------------------
# Symbols and builders
# --------------------------------------------------------------------------------------


def position_symbols() -> tuple[sympy.Symbol, sympy.Symbol]:
    """The real position symbols ``(m, n)``: *m* for the query, *n* for the key."""
    return sympy.Symbol("m", real=True), sympy.Symbol("n", real=True)


def theta_symbol() -> sympy.Symbol:
    r"""The single real angle symbol :math:`\theta` of the 2D proofs (chapters 1 and 2)."""
    return sympy.Symbol("theta", real=True)


def theta_symbols(dim: int) -> tuple[sympy.Symbol, ...]:
    r"""Independent real symbols :math:`\theta_0, \dots, \theta_{d/2-1}`, one per plane.

    Args:
        dim: rotary dimension *d*, a positive even integer.
    """
    dim = check_dim(dim)
    return tuple(sympy.Symbol(f"theta_{i}", real=True) for i in range(dim // 2))


def vector_symbols(name: str, length: int) -> sympy.Matrix:
    """A column vector of real symbols ``name_0, ..., name_{length-1}``.

    Args:
        name: the stem of the symbol names, e.g. ``"q"``.
        length: number of entries, a positive integer.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be a non-empty identifier string, got {name!r}")
    if isinstance(length, bool) or not isinstance(length, int) or length <= 0:
        raise ValueError(f"length must be a positive integer, got {length!r}")
    return sympy.Matrix([sympy.Symbol(f"{name}_{j}", real=True) for j in range(length)])


def _as_sympy(value: Any, name: str) -> sympy.Expr:
    """``value`` as a SymPy expression (numbers and expressions only, never strings)."""
    if isinstance(value, str):
        raise ValueError(f"{name} must be a SymPy expression or a number, got the string {value!r}")
    try:
        expr = sympy.sympify(value, strict=True)
    except (sympy.SympifyError, TypeError) as error:
        raise ValueError(f"{name} must be a SymPy expression or a number, got {value!r}") from error
    if not isinstance(expr, sympy.Expr):
        raise ValueError(f"{name} must be a scalar SymPy expression, got {value!r}")
    return expr


def _thetas(dim: int, thetas: Sequence[Any] | None) -> tuple[sympy.Expr, ...]:
    """The per-plane angles: ``thetas`` if given (checked), else :func:`theta_symbols`."""
    dim = check_dim(dim)
    if thetas is None:
        return theta_symbols(dim)
    values = tuple(_as_sympy(theta, "thetas") for theta in thetas)
    if len(values) != dim // 2:
        raise ValueError(
            f"thetas must have dim/2 = {dim // 2} entries for dim={dim}, got {len(values)}"
        )
    return values


def _pairs(dim: int, layout: str) -> list[tuple[int, int]]:
    """Coordinates ``(a, b)`` of each plane *i* (:func:`ropelab.core.plane_coordinates`)."""
    first, second = plane_coordinates(dim, layout)
    return [(int(a), int(b)) for a, b in zip(first, second, strict=True)]


def symbolic_rotation_2d(angle: Any) -> sympy.Matrix:
    r"""The 2D rotation matrix :math:`R(\varphi)` (chapter 1; RoFormer eq. 13).

    .. math:: R(\varphi) = \begin{pmatrix}\cos\varphi & -\sin\varphi\\
              \sin\varphi & \cos\varphi\end{pmatrix}

    Args:
        angle: the angle :math:`\varphi`, a SymPy expression such as ``m * theta``.
    """
    phi = _as_sympy(angle, "angle")
    return sympy.Matrix([[sympy.cos(phi), -sympy.sin(phi)], [sympy.sin(phi), sympy.cos(phi)]])


def symbolic_rotation(
    position: Any,
    dim: int,
    layout: str = "interleaved",
    thetas: Sequence[Any] | None = None,
) -> sympy.Matrix:
    r"""The block-diagonal rotation :math:`R^d_{\Theta,m}` as a SymPy matrix (chapter 3).

    .. math::
        R^d_{\Theta,m} = \operatorname{diag}\big(R(m\theta_0), \dots,
        R(m\theta_{d/2-1})\big)

    Source: RoFormer eq. 15. With ``layout="half"`` plane *i* sits on coordinates
    ``(i, i + d/2)`` instead of ``(2i, 2i+1)``. This is the symbolic twin of
    :func:`ropelab.core.rotation_matrix`.

    Args:
        position: the position, a SymPy expression (``m``, ``n - m``) or a number.
        dim: rotary dimension *d*, a positive even integer.
        layout: ``"interleaved"`` or ``"half"``.
        thetas: the *d/2* angles; default the independent symbols of :func:`theta_symbols`.

    Returns:
        A ``dim x dim`` SymPy matrix.
    """
    dim = check_dim(dim)
    layout = check_layout(layout)
    pos = _as_sympy(position, "position")
    angles = _thetas(dim, thetas)
    matrix = sympy.zeros(dim, dim)
    for (a, b), theta in zip(_pairs(dim, layout), angles, strict=True):
        phi = pos * theta
        matrix[a, a] = sympy.cos(phi)
        matrix[a, b] = -sympy.sin(phi)
        matrix[b, a] = sympy.sin(phi)
        matrix[b, b] = sympy.cos(phi)
    return matrix


def symbolic_inv_freq(dim: int, base: Any = None) -> tuple[sympy.Expr, ...]:
    r"""The frequencies :math:`\theta_i = \beta^{-2i/d}` with a symbolic base (RoFormer eq. 15).

    Args:
        dim: rotary dimension *d*, a positive even integer.
        base: :math:`\beta`; default the positive symbol ``beta``.
    """
    dim = check_dim(dim)
    beta = sympy.Symbol("beta", positive=True) if base is None else _as_sympy(base, "base")
    return tuple(beta ** sympy.Rational(-2 * i, dim) for i in range(dim // 2))


def symbolic_layout_permutation(dim: int) -> sympy.Matrix:
    r"""The permutation *P* with :math:`x_{\text{half}} = P x_{\text{interleaved}}` (chapter 3).

    Row *i* picks coordinate ``2i`` and row ``i + d/2`` picks ``2i + 1``; the SymPy twin of
    :func:`ropelab.core.layout_permutation`.
    """
    dim = check_dim(dim)
    half = dim // 2
    matrix = sympy.zeros(dim, dim)
    for i in range(half):
        matrix[i, 2 * i] = 1
        matrix[i + half, 2 * i + 1] = 1
    return matrix


def _check_vector(x: Any, name: str = "x") -> sympy.Matrix:
    """``x`` as a SymPy column vector of positive even length."""
    vector = sympy.Matrix(x)
    if vector.cols != 1 and vector.rows == 1:
        vector = vector.T
    if vector.cols != 1 or vector.rows == 0 or vector.rows % 2:
        raise ValueError(
            f"{name} must be a vector of positive even length, got shape {vector.shape}"
        )
    return vector


def symbolic_rotate_pairs(x: Any, layout: str = "interleaved") -> sympy.Matrix:
    r"""The "rotate" of the fast form: each plane's pair :math:`(x_a, x_b) \mapsto (-x_b, x_a)`.

    Interleaved: :math:`(-x_1, x_0, -x_3, x_2, \dots)` (RoFormer eq. 34). Half:
    :math:`(-x_{d/2}, \dots, -x_{d-1}, x_0, \dots, x_{d/2-1})`, transformers' ``rotate_half``.
    """
    layout = check_layout(layout)
    vector = _check_vector(x)
    out = sympy.zeros(vector.rows, 1)
    for a, b in _pairs(vector.rows, layout):
        out[a] = -vector[b]
        out[b] = vector[a]
    return out


def symbolic_cos_sin(
    position: Any,
    dim: int,
    layout: str = "interleaved",
    thetas: Sequence[Any] | None = None,
) -> tuple[sympy.Matrix, sympy.Matrix]:
    r"""The per-coordinate tables :math:`\cos(m\theta_{i(j)})` and :math:`\sin(m\theta_{i(j)})`.

    Coordinate *j* belongs to plane *i(j)*: ``j // 2`` when interleaved, ``j mod d/2`` in the
    half layout. These are the ``cos`` and ``sin`` vectors of RoFormer eq. 34.
    """
    dim = check_dim(dim)
    layout = check_layout(layout)
    pos = _as_sympy(position, "position")
    angles = _thetas(dim, thetas)
    cos = sympy.zeros(dim, 1)
    sin = sympy.zeros(dim, 1)
    for (a, b), theta in zip(_pairs(dim, layout), angles, strict=True):
        for j in (a, b):
            cos[j] = sympy.cos(pos * theta)
            sin[j] = sympy.sin(pos * theta)
    return cos, sin


def symbolic_apply_rope(
    x: Any,
    position: Any,
    layout: str = "interleaved",
    thetas: Sequence[Any] | None = None,
) -> sympy.Matrix:
    r"""The fast elementwise form :math:`x \otimes \cos + \mathrm{rotate}(x) \otimes \sin`.

    .. math:: \mathrm{RoPE}(x, m) = x \otimes \cos(m\Theta) + \mathrm{rotate}(x) \otimes
              \sin(m\Theta)

    Source: RoFormer eq. 34 (interleaved); chapter 3. The SymPy twin of
    :func:`ropelab.core.apply_rope` for one vector.
    """
    vector = _check_vector(x)
    cos, sin = symbolic_cos_sin(position, vector.rows, layout, thetas)
    rotated = symbolic_rotate_pairs(vector, layout)
    return vector.multiply_elementwise(cos) + rotated.multiply_elementwise(sin)


def _difference(lhs: Any, rhs: Any) -> SymbolicResult:
    """``lhs - rhs`` held unevaluated (entrywise for matrices), so both sides stay visible."""
    if isinstance(lhs, sympy.MatrixBase) or isinstance(rhs, sympy.MatrixBase):
        left, right = sympy.Matrix(lhs), sympy.Matrix(rhs)
        if left.shape != right.shape:
            raise ValueError(f"shapes differ: {left.shape} and {right.shape}")
        return sympy.Matrix(
            left.rows,
            left.cols,
            [_difference(a, b) for a, b in zip(left, right, strict=True)],
        )
    if lhs == 0 and rhs == 0:
        return sympy.S.Zero
    return sympy.Add(lhs, -rhs, evaluate=False)


# --------------------------------------------------------------------------------------
# Deciding "= 0" exactly
# --------------------------------------------------------------------------------------


def _reduce_pythagorean(expr: sympy.Expr) -> sympy.Expr:
    r"""Reduce a polynomial in sines and cosines modulo :math:`\sin^2 a + \cos^2 a - 1`.

    Each :math:`\sin a`, :math:`\cos a` becomes a fresh variable :math:`s_a, c_a`. The
    relations :math:`s_a^2 + c_a^2 - 1` have pairwise coprime leading terms :math:`s_a^2`
    (lex order, *s* first), so they form a Gröbner basis and the remainder is a canonical
    form: it is zero exactly when the polynomial lies in the ideal, which proves that the
    trigonometric expression vanishes identically. Expressions that are not polynomial in
    these variables come back unchanged.
    """
    trig_args = sorted({atom.args[0] for atom in expr.atoms(sympy.sin, sympy.cos)}, key=str)
    if not trig_args:
        return expr
    sines = [sympy.Dummy(f"s{k}") for k in range(len(trig_args))]
    cosines = [sympy.Dummy(f"c{k}") for k in range(len(trig_args))]
    replacements: dict[sympy.Expr, sympy.Expr] = {}
    for arg, s, c in zip(trig_args, sines, cosines, strict=True):
        replacements[sympy.sin(arg)] = s
        replacements[sympy.cos(arg)] = c
    numerator = sympy.together(expr.xreplace(replacements)).as_numer_denom()[0]
    if numerator.atoms(sympy.sin, sympy.cos):
        return expr  # nested trigonometric functions: not a polynomial in s, c
    gens = [g for pair in zip(sines, cosines, strict=True) for g in pair]
    relations = [s**2 + c**2 - 1 for s, c in zip(sines, cosines, strict=True)]
    try:
        _, remainder = sympy.reduced(sympy.expand(numerator), relations, *gens, order="lex")
    except (sympy.PolynomialError, sympy.polys.polyerrors.PolificationFailed):
        return expr
    return sympy.expand(remainder)


def _is_zero_entry(expr: sympy.Expr) -> bool:
    """Exact zero test of one scalar expression, cheapest transformations first."""
    if expr == 0:
        return True
    expr = expr.doit()  # evaluates the unevaluated differences built by the proofs
    if expr == 0:
        return True
    expanded = sympy.expand(expr, trig=True)
    if expanded == 0:
        return True
    if _reduce_pythagorean(expanded) == 0:
        return True
    if expanded.has(sympy.I, sympy.exp, sympy.re, sympy.im, sympy.conjugate):
        complex_expanded = sympy.expand(sympy.expand_complex(expanded), trig=True)
        if complex_expanded == 0 or _reduce_pythagorean(complex_expanded) == 0:
            return True
    if sympy.trigsimp(expanded) == 0:
        return True
    return sympy.simplify(expr) == 0


def simplifies_to_zero(expr: Any) -> bool:
    r"""Whether a SymPy expression or matrix is identically zero, decided exactly.

    Tries, per entry: the expression as it is; full expansion including trigonometric
    expansion (:math:`\cos(a \pm b)`, :math:`\sin(a \pm b)`, multiple angles); reduction of
    the resulting polynomial in sines and cosines modulo :math:`\sin^2 a + \cos^2 a = 1`;
    expansion of complex exponentials into cosines and sines; ``trigsimp`` and finally
    ``simplify``. Every step is an exact rewriting, so ``True`` is a proof. ``False`` means
    that no step found zero. For polynomials in the sines and cosines of angles such as
    :math:`m\theta_i`, :math:`n\theta_i` (products of independent symbols, which is all
    this module builds) the reduction is complete, so there ``False`` means the identity
    fails.

    Args:
        expr: a SymPy expression, a SymPy matrix, or anything :func:`sympy.sympify` accepts
            without parsing strings.
    """
    if isinstance(expr, sympy.MatrixBase):
        return all(_is_zero_entry(entry) for entry in expr)
    return _is_zero_entry(_as_sympy(expr, "expr"))


# --------------------------------------------------------------------------------------
# Chapter 1: the 2D rotation
# --------------------------------------------------------------------------------------


def relative_rotation_2d() -> sympy.Matrix:
    r"""Rotations compose into the relative rotation (chapter 1).

    .. math:: R(m\theta)^\top R(n\theta) - R\big((n-m)\theta\big) = 0

    Source: RoFormer eq. 16 with *d* = 2 (eq. 13 gives :math:`R(m\theta)`). Symbolic in
    *m*, *n* and :math:`\theta`.
    """
    m, n = position_symbols()
    theta = theta_symbol()
    product = symbolic_rotation_2d(m * theta).T * symbolic_rotation_2d(n * theta)
    return _difference(product, symbolic_rotation_2d((n - m) * theta))


def wrong_relative_rotation_2d() -> sympy.Matrix:
    r"""A deliberately *wrong* identity, a control for the checker (chapter 1).

    .. math:: R(m\theta)^\top R(n\theta) - R\big((m-n)\theta\big) \neq 0

    The sign of the offset is flipped: the off-diagonal entries are
    :math:`\pm 2\sin((n-m)\theta)`, so this must **not** simplify to zero.
    """
    m, n = position_symbols()
    theta = theta_symbol()
    product = symbolic_rotation_2d(m * theta).T * symbolic_rotation_2d(n * theta)
    return _difference(product, symbolic_rotation_2d((m - n) * theta))


def relative_rotation_2d_steps() -> dict[str, sympy.Matrix]:
    r"""The 2D derivation of chapter 1, step by step, for display.

    Returns a dict with

    * ``"product"``: :math:`R(m\theta)^\top R(n\theta)` multiplied out, entries such as
      :math:`\cos m\theta\cos n\theta + \sin m\theta\sin n\theta`;
    * ``"simplified"``: the same after ``trigsimp`` (angle-difference formulas);
    * ``"target"``: :math:`R((n-m)\theta)`;
    * ``"difference"``: ``simplified - target`` evaluated, the zero matrix.
    """
    m, n = position_symbols()
    theta = theta_symbol()
    product = symbolic_rotation_2d(m * theta).T * symbolic_rotation_2d(n * theta)
    simplified = product.applyfunc(sympy.trigsimp)
    target = symbolic_rotation_2d((n - m) * theta)
    difference = (simplified - target).applyfunc(lambda e: sympy.expand(e, trig=True))
    return {
        "product": product,
        "simplified": simplified,
        "target": target,
        "difference": difference,
    }


# --------------------------------------------------------------------------------------
# Chapter 2: the complex derivation
# --------------------------------------------------------------------------------------


def _complex_pair(name: str) -> tuple[sympy.Expr, sympy.Symbol, sympy.Symbol]:
    """``(z, z0, z1)`` with ``z = z0 + i z1`` and real ``z0, z1``."""
    first = sympy.Symbol(f"{name}_0", real=True)
    second = sympy.Symbol(f"{name}_1", real=True)
    return first + sympy.I * second, first, second


def complex_score_vs_real_dot() -> sympy.Expr:
    r"""The complex score equals the real dot product of the rotated vectors (chapter 2).

    .. math::
        \operatorname{Re}\!\left[q\,\overline{k}\,e^{\mathrm{i}(m-n)\theta}\right]
        - \big(R(m\theta)\,\mathbf{q}\big)\cdot\big(R(n\theta)\,\mathbf{k}\big) = 0,
        \qquad q = q_0 + \mathrm{i} q_1,\; k = k_0 + \mathrm{i} k_1

    Source: RoFormer eq. 12 (the function *g*) and eq. 13 (its matrix form); it is eq. 11,
    :math:`\langle f_q(x_m, m), f_k(x_n, n)\rangle = g(x_m, x_n, m-n)`, solved in 2D.
    Symbolic in *m*, *n*, :math:`\theta` and the real symbols :math:`q_0, q_1, k_0, k_1`.
    """
    m, n = position_symbols()
    theta = theta_symbol()
    q, q0, q1 = _complex_pair("q")
    k, k0, k1 = _complex_pair("k")
    score = sympy.re(q * sympy.conjugate(k) * sympy.exp(sympy.I * (m - n) * theta))
    rotated_q = symbolic_rotation_2d(m * theta) * sympy.Matrix([q0, q1])
    rotated_k = symbolic_rotation_2d(n * theta) * sympy.Matrix([k0, k1])
    return _difference(score, rotated_q.dot(rotated_k))


def complex_rotation_as_matrix() -> sympy.Matrix:
    r"""Multiplying by :math:`e^{\mathrm{i}m\theta}` is the rotation :math:`R(m\theta)` (chapter 2).

    .. math::
        \begin{pmatrix}\operatorname{Re}(q e^{\mathrm{i}m\theta})\\
        \operatorname{Im}(q e^{\mathrm{i}m\theta})\end{pmatrix}
        - R(m\theta)\begin{pmatrix}q_0\\ q_1\end{pmatrix} = 0,
        \qquad q = q_0 + \mathrm{i} q_1

    Euler's formula :math:`e^{\mathrm{i}\varphi} = \cos\varphi + \mathrm{i}\sin\varphi`
    turns :math:`f_q = q e^{\mathrm{i}m\theta}` (RoFormer eq. 12) into the matrix form of
    eq. 13. Symbolic in *m*, :math:`\theta`, :math:`q_0`, :math:`q_1`.
    """
    m, _ = position_symbols()
    theta = theta_symbol()
    q, q0, q1 = _complex_pair("q")
    f_q = q * sympy.exp(sympy.I * m * theta)
    as_vector = sympy.Matrix([sympy.re(f_q), sympy.im(f_q)])
    return _difference(as_vector, symbolic_rotation_2d(m * theta) * sympy.Matrix([q0, q1]))


def polar_form_rotation() -> sympy.Matrix:
    r"""The rotation matrix derived from the polar form (chapter 2).

    With :math:`q = r e^{\mathrm{i}\varphi}`, the solution
    :math:`f_q = q e^{\mathrm{i}m\theta} = r e^{\mathrm{i}(\varphi + m\theta)}` keeps the
    length and adds :math:`m\theta` to the angle. As a real vector:

    .. math::
        r\begin{pmatrix}\cos(\varphi + m\theta)\\ \sin(\varphi + m\theta)\end{pmatrix}
        - R(m\theta)\, r\begin{pmatrix}\cos\varphi\\ \sin\varphi\end{pmatrix} = 0

    Source: RoFormer section 3.4.1 (the derivation of RoPE in 2D, which finds that the
    norm does not depend on the position and the angle is linear in it). Symbolic in *m*,
    :math:`\theta`, *r* and :math:`\varphi`.
    """
    m, _ = position_symbols()
    theta = theta_symbol()
    r = sympy.Symbol("r", nonnegative=True)
    phi = sympy.Symbol("varphi", real=True)
    polar = r * sympy.exp(sympy.I * (phi + m * theta))
    as_vector = sympy.Matrix([sympy.re(polar), sympy.im(polar)])
    start = sympy.Matrix([r * sympy.cos(phi), r * sympy.sin(phi)])
    return _difference(as_vector, symbolic_rotation_2d(m * theta) * start)


def complex_multiplication_as_matrix() -> sympy.Matrix:
    r"""Complex multiplication is a 2×2 matrix acting on the real pair (chapter 2).

    .. math::
        \begin{pmatrix}\operatorname{Re}[(a+\mathrm{i}b)(c+\mathrm{i}d)]\\
        \operatorname{Im}[(a+\mathrm{i}b)(c+\mathrm{i}d)]\end{pmatrix}
        - \begin{pmatrix}a & -b\\ b & a\end{pmatrix}\begin{pmatrix}c\\ d\end{pmatrix} = 0

    With :math:`a + \mathrm{i}b = e^{\mathrm{i}m\theta}` the matrix is :math:`R(m\theta)`,
    which is how RoFormer passes from eq. 12 to eq. 13. Symbolic in real *a, b, c, d*.
    """
    a, b, c, d = sympy.symbols("a b c d", real=True)
    product = (a + sympy.I * b) * (c + sympy.I * d)
    as_vector = sympy.Matrix([sympy.re(product), sympy.im(product)])
    return _difference(as_vector, sympy.Matrix([[a, -b], [b, a]]) * sympy.Matrix([c, d]))


def complex_rotation_steps() -> dict[str, sympy.Expr | sympy.Matrix]:
    r"""The steps from :math:`q e^{\mathrm{i}m\theta}` to :math:`R(m\theta)\,\mathbf{q}`, for display.

    Returns a dict with ``"complex"`` (:math:`(q_0 + \mathrm{i}q_1)e^{\mathrm{i}m\theta}`),
    ``"euler"`` (the exponential written with cosine and sine), ``"expanded"`` (real part
    plus :math:`\mathrm{i}` times imaginary part), ``"real_vector"`` (that pair as a column)
    and ``"matrix"`` (:math:`R(m\theta)`, with ``"matrix_times_q"`` its product with
    :math:`(q_0, q_1)`).
    """
    m, _ = position_symbols()
    theta = theta_symbol()
    q, q0, q1 = _complex_pair("q")
    complex_form = q * sympy.exp(sympy.I * m * theta)
    euler = q * (sympy.cos(m * theta) + sympy.I * sympy.sin(m * theta))
    real, imag = sympy.expand(euler).as_real_imag()
    matrix = symbolic_rotation_2d(m * theta)
    return {
        "complex": complex_form,
        "euler": euler,
        "expanded": real + sympy.I * imag,
        "real_vector": sympy.Matrix([real, imag]),
        "matrix": matrix,
        "matrix_times_q": matrix * sympy.Matrix([q0, q1]),
    }


# --------------------------------------------------------------------------------------
# Chapter 3: the block-diagonal form, the fast form and the layouts
# --------------------------------------------------------------------------------------


def relative_rotation_block(dim: int = 4, layout: str = "interleaved") -> sympy.Matrix:
    r"""The block-diagonal rotations compose into the relative rotation (chapter 3).

    .. math:: \big(R^d_{\Theta,m}\big)^\top R^d_{\Theta,n} - R^d_{\Theta,n-m} = 0

    Source: RoFormer eq. 16 (with :math:`R^d_{\Theta,m}` of eq. 15). Symbolic in *m*, *n*
    and independent :math:`\theta_0, \dots, \theta_{d/2-1}`.

    Args:
        dim: rotary dimension *d*, a positive even integer.
        layout: ``"interleaved"`` or ``"half"``.
    """
    dim = check_dim(dim)
    layout = check_layout(layout)
    m, n = position_symbols()
    product = symbolic_rotation(m, dim, layout).T * symbolic_rotation(n, dim, layout)
    return _difference(product, symbolic_rotation(n - m, dim, layout))


def score_depends_on_offset(dim: int = 4, layout: str = "interleaved") -> sympy.Expr:
    r"""The attention score depends on the positions only through *n − m* (chapters 1 and 3).

    .. math::
        \big(R^d_{\Theta,m}\,q\big)^\top\big(R^d_{\Theta,n}\,k\big)
        - q^\top R^d_{\Theta,n-m}\,k = 0

    Source: RoFormer eq. 16. Symbolic in *m*, *n*, the :math:`\theta_i` and the entries of
    *q* and *k*.

    Args:
        dim: rotary dimension *d*, a positive even integer.
        layout: ``"interleaved"`` or ``"half"``.
    """
    dim = check_dim(dim)
    layout = check_layout(layout)
    m, n = position_symbols()
    q = vector_symbols("q", dim)
    k = vector_symbols("k", dim)
    score = (symbolic_rotation(m, dim, layout) * q).dot(symbolic_rotation(n, dim, layout) * k)
    relative = q.dot(symbolic_rotation(n - m, dim, layout) * k)
    return _difference(score, relative)


def elementwise_form(dim: int = 4, layout: str = "interleaved") -> sympy.Matrix:
    r"""The fast elementwise form equals the matrix form (chapter 3).

    .. math::
        x \otimes \cos(m\Theta) + \mathrm{rotate}(x) \otimes \sin(m\Theta)
        - R^d_{\Theta,m}\, x = 0

    Source: RoFormer eq. 34 (interleaved; the half layout is transformers'
    ``rotate_half``). Symbolic in *m*, the :math:`\theta_i` and the entries of *x*.

    Args:
        dim: rotary dimension *d*, a positive even integer.
        layout: ``"interleaved"`` or ``"half"``.
    """
    dim = check_dim(dim)
    layout = check_layout(layout)
    m, _ = position_symbols()
    x = vector_symbols("x", dim)
    fast = symbolic_apply_rope(x, m, layout)
    return _difference(fast, symbolic_rotation(m, dim, layout) * x)


def orthogonality(dim: int = 4, layout: str = "interleaved") -> sympy.Matrix:
    r"""The rotation is orthogonal (chapter 1 for *d* = 2, chapter 3 in general).

    .. math:: \big(R^d_{\Theta,m}\big)^\top R^d_{\Theta,m} - I_d = 0

    Source: RoFormer section 3.2, after eq. 16 ("orthogonal matrix, which ensures
    stability"). Symbolic in *m* and the :math:`\theta_i`.

    Args:
        dim: rotary dimension *d*, a positive even integer (2 gives the 2D case).
        layout: ``"interleaved"`` or ``"half"``.
    """
    dim = check_dim(dim)
    layout = check_layout(layout)
    m, _ = position_symbols()
    rotation = symbolic_rotation(m, dim, layout)
    return _difference(rotation.T * rotation, sympy.eye(dim))


def norm_preservation(dim: int = 4, layout: str = "interleaved") -> sympy.Expr:
    r"""The rotation keeps the length of every vector (chapters 1 and 3).

    .. math:: \big\lVert R^d_{\Theta,m}\, x \big\rVert^2 - \lVert x \rVert^2 = 0

    Source: consequence of the orthogonality noted in RoFormer section 3.2 (after eq. 16).
    Symbolic in *m*, the :math:`\theta_i` and the entries of *x*.

    Args:
        dim: rotary dimension *d*, a positive even integer (2 gives the 2D case).
        layout: ``"interleaved"`` or ``"half"``.
    """
    dim = check_dim(dim)
    layout = check_layout(layout)
    m, _ = position_symbols()
    x = vector_symbols("x", dim)
    rotated = symbolic_rotation(m, dim, layout) * x
    return _difference(rotated.dot(rotated), x.dot(x))


def layout_permutation_matrix(dim: int = 4) -> sympy.Matrix:
    r"""The two layouts are the same rotation, conjugated by *P* (chapter 3).

    .. math:: P\, R^{\text{interleaved}}_{\Theta,m} P^\top - R^{\text{half}}_{\Theta,m} = 0

    with *P* from :func:`symbolic_layout_permutation`. This is why converting Meta's Llama
    checkpoints to transformers only permutes rows of :math:`W_q` and :math:`W_k`.
    Symbolic in *m* and the :math:`\theta_i`.

    Args:
        dim: rotary dimension *d*, a positive even integer.
    """
    dim = check_dim(dim)
    m, _ = position_symbols()
    perm = symbolic_layout_permutation(dim)
    conjugated = perm * symbolic_rotation(m, dim, "interleaved") * perm.T
    return _difference(conjugated, symbolic_rotation(m, dim, "half"))


def layout_permutation_vector(dim: int = 4) -> sympy.Matrix:
    r"""Permuting, then rotating in the half layout = rotating, then permuting (chapter 3).

    .. math:: R^{\text{half}}_{\Theta,m}\,(P x) - P\,\big(R^{\text{interleaved}}_{\Theta,m}\,x\big) = 0

    Symbolic in *m*, the :math:`\theta_i` and the entries of *x*.

    Args:
        dim: rotary dimension *d*, a positive even integer.
    """
    dim = check_dim(dim)
    m, _ = position_symbols()
    perm = symbolic_layout_permutation(dim)
    x = vector_symbols("x", dim)
    left = symbolic_rotation(m, dim, "half") * (perm * x)
    right = perm * (symbolic_rotation(m, dim, "interleaved") * x)
    return _difference(left, right)


def mismatched_table_block() -> dict[str, sympy.Expr | sympy.Matrix]:
    r"""The map one pair gets when the cos/sin table and the rotation pair differently (chapter 3).

    A table laid out for the half split, ``cat(mθ, mθ)``, gives coordinate *j* the angle
    :math:`m\theta_{j \bmod d/2}`; a quarter turn of adjacent pairs,
    :math:`(-x_1, x_0, -x_3, x_2, \dots)`, then mixes the pair :math:`(2i, 2i+1)` with two
    different angles, :math:`a = m\theta_{2i \bmod d/2}` for the first coordinate and
    :math:`b = m\theta_{(2i+1) \bmod d/2}` for the second:

    .. math::
        B = \begin{pmatrix}\cos a & -\sin a\\ \sin b & \cos b\end{pmatrix},
        \qquad \det B = \cos(a - b), \qquad \operatorname{tr}(B^\top B) = 2,

    so the eigenvalues of :math:`B^\top B` are :math:`1 \pm |\sin(a - b)|`: the pair's length
    is scaled by a factor between :math:`\sqrt{1 - |\sin(a - b)|}` and
    :math:`\sqrt{1 + |\sin(a - b)|}`, and *B* is a rotation only where :math:`a = b`
    (modulo :math:`2\pi`). The bug class of the PyTorch module of the book's source article
    003, in our own reconstruction; :func:`ropelab.diagnose_rope` reports it as
    ``table_mismatch`` (chapter 3A).

    Returns a dict, symbolic in the position *m* and the two frequencies
    :math:`\theta_a, \theta_b` (``a = m θ_a``, ``b = m θ_b``):

    * ``"block"``: *B*;
    * ``"orthogonality"``: :math:`B^\top B - I`, which does **not** simplify to zero (it does
      when :math:`\theta_a = \theta_b`);
    * ``"determinant"``: :math:`\det B - \cos\big(m(\theta_a - \theta_b)\big)`, zero;
    * ``"trace"``: :math:`\operatorname{tr}(B^\top B) - 2`, zero.
    """
    m, _ = position_symbols()
    theta_a = sympy.Symbol("theta_a", real=True)
    theta_b = sympy.Symbol("theta_b", real=True)
    a, b = m * theta_a, m * theta_b
    block = sympy.Matrix([[sympy.cos(a), -sympy.sin(a)], [sympy.sin(b), sympy.cos(b)]])
    gram = block.T * block
    return {
        "block": block,
        "orthogonality": _difference(gram, sympy.eye(2)),
        "determinant": _difference(block.det(), sympy.cos(m * (theta_a - theta_b))),
        "trace": _difference(gram.trace(), sympy.Integer(2)),
    }


def _per_layout(
    prefix: str, proof: Callable[..., SymbolicResult], dim: int, layouts: Iterable[str] = LAYOUTS
) -> dict[str, Callable[[], SymbolicResult]]:
    """Registry entries ``prefix_<layout>`` calling ``proof(dim, layout)``."""
    return {f"{prefix}_{layout}": (lambda layout=layout: proof(dim, layout)) for layout in layouts}


PROOFS: dict[str, Callable[[], SymbolicResult]] = {
    "relative_rotation_2d": relative_rotation_2d,
    **_per_layout("relative_rotation_block", relative_rotation_block, 4),
    "complex_score_vs_real_dot": complex_score_vs_real_dot,
    "complex_rotation_as_matrix": complex_rotation_as_matrix,
    "polar_form_rotation": polar_form_rotation,
    "complex_multiplication_as_matrix": complex_multiplication_as_matrix,
    **_per_layout("elementwise_form", elementwise_form, 4),
    "orthogonality_2d": lambda: orthogonality(2),
    **_per_layout("orthogonality", orthogonality, 6),
    "norm_preservation_2d": lambda: norm_preservation(2),
    **_per_layout("norm_preservation", norm_preservation, 6),
    "layout_permutation_matrix": layout_permutation_matrix,
    "layout_permutation_vector": layout_permutation_vector,
    **_per_layout("score_depends_on_offset", score_depends_on_offset, 4),
}
"""Every true identity of this module, with small default dimensions, by name.

Each value takes no argument and returns a difference that :func:`simplifies_to_zero`.
The deliberately wrong :func:`wrong_relative_rotation_2d` is not in it.
"""
