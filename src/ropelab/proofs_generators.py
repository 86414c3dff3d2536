r"""Symbolic proofs of chapter 10: commuting generators (ComRoPE) and Householder products (PaTH).

Same contract as :mod:`ropelab.proofs`: each proof returns ``left side - right side`` and the
identity holds when :func:`ropelab.proofs.simplifies_to_zero` finds zero.

* :func:`commuting_relative`: with the commuting 4x4 generators
  :math:`A_1 = \mathrm{diag}(a_1 J, a_2 J)` and :math:`A_2 = \mathrm{diag}(b_1 J, b_2 J)`
  (:math:`J` the 2D generator), :math:`R(x)^\top R(y) - R(y - x) = 0` for symbolic
  positions :math:`x, y \in \mathbb{R}^2`: the sufficient direction of ComRoPE's theorem.
* :func:`second_order_commutator`: for *any* 4x4 skew-symmetric :math:`A_1, A_2` (twelve
  symbols), the :math:`t^2` coefficient of :math:`e^{-tX} e^{tY} - e^{t(Y - X)}`, with
  :math:`X = x_1 A_1 + x_2 A_2` and :math:`Y = y_1 A_1 + y_2 A_2`, equals
  :math:`-\tfrac12 (x_1 y_2 - x_2 y_1)[A_1, A_2]`. If the relative property holds for all
  positions this coefficient vanishes, so the generators commute: the necessary direction.
  (:func:`wrong_second_order` drops the factor 1/2 and must not simplify to zero.)
* :func:`householder_pair_is_rotation`: two 2D reflections :math:`I - 2uu^\top` with unit
  vectors at angles *a* and *b* multiply to the rotation by :math:`2(a - b)`; PaTH's
  products of Householder matrices contain RoPE's rotations.
"""

from __future__ import annotations

import sympy

from .proofs import symbolic_rotation_2d
from .proofs_beyond import _difference

__all__ = [
    "commuting_relative",
    "householder_pair_is_rotation",
    "second_order_commutator",
    "skew_symbols",
    "wrong_second_order",
]

_J = sympy.Matrix([[0, -1], [1, 0]])


def skew_symbols(name: str, size: int = 4) -> sympy.Matrix:
    """A ``size x size`` skew-symmetric matrix of real symbols ``name_ij`` (i < j)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be an identifier string, got {name!r}")
    if not isinstance(size, int) or size < 2:
        raise ValueError(f"size must be an integer >= 2, got {size!r}")
    out = sympy.zeros(size, size)
    for i in range(size):
        for j in range(i + 1, size):
            s = sympy.Symbol(f"{name}_{i}{j}", real=True)
            out[i, j], out[j, i] = s, -s
    return out


def _block_rotation(angles: tuple[sympy.Expr, sympy.Expr]) -> sympy.Matrix:
    return sympy.diag(symbolic_rotation_2d(angles[0]), symbolic_rotation_2d(angles[1]))


def commuting_relative() -> sympy.Matrix:
    r""":math:`R(x)^\top R(y) - R(y - x)` for :math:`R(x) = \exp(x_1 A_1 + x_2 A_2)` with the
    commuting block generators above; the exponential of :math:`\mathrm{diag}(\phi_1 J,
    \phi_2 J)` is the block rotation by :math:`(\phi_1, \phi_2)`."""
    a1, a2, b1, b2 = sympy.symbols("a_1 a_2 b_1 b_2", real=True)
    x1, x2, y1, y2 = sympy.symbols("x_1 x_2 y_1 y_2", real=True)

    def rotation(p1: sympy.Expr, p2: sympy.Expr) -> sympy.Matrix:
        return _block_rotation((p1 * a1 + p2 * b1, p1 * a2 + p2 * b2))

    return _difference(rotation(x1, x2).T * rotation(y1, y2), rotation(y1 - x1, y2 - x2))


def _second_order(factor: sympy.Expr) -> sympy.Matrix:
    a1, a2 = skew_symbols("A"), skew_symbols("B")
    x1, x2, y1, y2, t = sympy.symbols("x_1 x_2 y_1 y_2 t", real=True)
    x, y = x1 * a1 + x2 * a2, y1 * a1 + y2 * a2
    eye = sympy.eye(4)

    def exp2(m: sympy.Matrix) -> sympy.Matrix:  # exp(m) to second order
        return eye + m + m * m / 2

    product = (exp2(-t * x) * exp2(t * y)).applyfunc(sympy.expand)
    direct = exp2(t * (y - x)).applyfunc(sympy.expand)
    coefficient = (product - direct).applyfunc(lambda e: sympy.expand(e).coeff(t, 2))
    expected = (-factor * (x1 * y2 - x2 * y1) * (a1 * a2 - a2 * a1)).applyfunc(sympy.expand)
    return _difference(coefficient, expected)


def second_order_commutator() -> sympy.Matrix:
    r"""The :math:`t^2` term of :math:`e^{-tX}e^{tY} - e^{t(Y-X)}` minus
    :math:`-\tfrac12 (x_1y_2 - x_2y_1)[A_1, A_2]`, for symbolic skew-symmetric 4x4 generators."""
    return _second_order(sympy.Rational(1, 2))


def wrong_second_order() -> sympy.Matrix:
    """The same with the factor 1 instead of 1/2: must not simplify to zero."""
    return _second_order(sympy.Integer(1))


def householder_pair_is_rotation() -> sympy.Matrix:
    r""":math:`(I - 2uu^\top)(I - 2vv^\top) - R(2(a - b))` with
    :math:`u = (\cos a, \sin a)`, :math:`v = (\cos b, \sin b)`."""
    a, b = sympy.symbols("a b", real=True)
    u = sympy.Matrix([sympy.cos(a), sympy.sin(a)])
    v = sympy.Matrix([sympy.cos(b), sympy.sin(b)])
    eye = sympy.eye(2)
    product = (eye - 2 * u * u.T) * (eye - 2 * v * v.T)
    return _difference(product, symbolic_rotation_2d(2 * (a - b)))
