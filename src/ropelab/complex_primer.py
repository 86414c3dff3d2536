r"""Complex numbers as rotations: the computations and proofs of chapter 1A (the primer).

A complex number :math:`z = a + \mathrm{i}b` is the point :math:`(a, b)` of the plane, or
the arrow from the origin to it. In polar form :math:`z = |z|\,e^{\mathrm{i}\arg z}` with

.. math:: e^{\mathrm{i}\varphi} = \cos\varphi + \mathrm{i}\sin\varphi
          \qquad\text{(Euler's formula)},

and the three facts chapter 2 runs on follow:

* multiplying two complex numbers multiplies their lengths and adds their angles,
  :math:`|z|e^{\mathrm{i}\alpha}\,|w|e^{\mathrm{i}\beta} = |z||w|\,e^{\mathrm{i}(\alpha+\beta)}`;
* the conjugate :math:`\bar w = a - \mathrm{i}b` reverses the angle, so
  :math:`z\,\bar w = |z||w|\,e^{\mathrm{i}(\alpha-\beta)}` carries the angle *difference*;
  with :math:`z = q\,e^{\mathrm{i}m\theta}` and :math:`w = k\,e^{\mathrm{i}n\theta}` that is
  RoFormer's :math:`\operatorname{Re}[q\,\bar k\,e^{\mathrm{i}(m-n)\theta}]` (eq. 12), a
  function of :math:`m - n` only;
* multiplying by :math:`e^{\mathrm{i}\varphi}` is the rotation :math:`R(\varphi)` of
  chapter 1 (RoFormer eq. 13).

Source: the complex-number steps of source articles 000 and 004 and RoFormer section 3.4.1
(Su et al., 2021, arXiv:2104.09864), restated for readers new to complex numbers.

The numeric functions return plain floats and ``[re, im]`` pairs;
:func:`complex_pair_data` is the data of the primer's interactive figure
(:mod:`ropelab.interactive`, kind ``"complex_pair"``). The symbolic functions return
``left side - right side`` of one identity, as :mod:`ropelab.proofs` does, for
:func:`ropelab.proofs.simplifies_to_zero` to decide.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy

from ._checks import check_finite_array
from .proofs import symbolic_rotation_2d
from .rotation2d import as_complex, rotate_2d

__all__ = [
    "angle_of",
    "complex_pair_data",
    "conjugate_product_difference",
    "conjugate_reverses_angle",
    "conjugate_score_offset",
    "euler_derivative",
    "euler_series_terms",
    "multiplication_adds_angles",
    "multiplication_is_rotation",
    "multiply_and_rotate",
    "polar",
    "score_shift_difference",
]


def _real(value: Any, name: str) -> float:
    """A finite real number (an angle or a length)."""
    array = check_finite_array(value, name)
    if array.ndim != 0:
        raise ValueError(f"{name} must be a single real number, got shape {array.shape}")
    return float(array)


def _length(value: Any, name: str) -> float:
    """A finite length, at least 0."""
    length = _real(value, name)
    if length < 0:
        raise ValueError(f"{name} must be a length >= 0, got {length!r}")
    return length


def polar(length: float, angle: float) -> complex:
    r"""The complex number of length :math:`r` and angle :math:`\varphi`:
    :math:`r e^{\mathrm{i}\varphi} = r\cos\varphi + \mathrm{i}\,r\sin\varphi` (chapter 1A).

    Args:
        length: :math:`r \ge 0`.
        angle: :math:`\varphi` in radians, any finite real number.

    Raises:
        ValueError: for a negative or non-finite length, or a non-finite angle.
    """
    r = _length(length, "length")
    phi = _real(angle, "angle")
    return complex(r * math.cos(phi), r * math.sin(phi))


def angle_of(z: Any) -> float:
    r"""The angle (argument) of :math:`z \ne 0` in radians, in :math:`(-\pi, \pi]`:
    ``atan2(Im z, Re z)`` (chapter 1A).

    Args:
        z: a complex number or a 2D vector :math:`(a, b)`.

    Raises:
        ValueError: for :math:`z = 0`, whose angle is undefined.
    """
    value = as_complex(z, "z")
    if value == 0:
        raise ValueError("z must be non-zero: the angle of 0 is undefined")
    return math.atan2(value.imag, value.real)


def multiply_and_rotate(z: Any, angle: float) -> dict[str, np.ndarray]:
    r""":math:`z\,e^{\mathrm{i}\varphi}` computed as a complex product and as the rotation
    :math:`R(\varphi)\,(a, b)^\top` of chapter 1 (:func:`ropelab.rotation2d.rotate_2d`).

    The two agree (RoFormer eq. 13; :func:`multiplication_is_rotation` proves it).

    Returns:
        ``{"product": [re, im], "rotated": [x, y]}``, float64 arrays of shape ``(2,)``.
    """
    value = as_complex(z, "z")
    product = value * polar(1.0, angle)
    return {
        "product": np.array([product.real, product.imag]),
        "rotated": rotate_2d((value.real, value.imag), angle),
    }


def _clean(value: float) -> float:
    """0.0 for a value within 1e-12 of zero (rounding noise whose sign no reader needs)."""
    return 0.0 if abs(value) < 1e-12 else float(value)


def _turns(total: float, measured: float) -> int:
    """The whole turns between an angle sum and the measured angle: round((sum - angle)/2π)."""
    return math.floor((total - measured) / (2 * math.pi) + 0.5)


def complex_pair_data(z_abs: float, z_arg: float, w_abs: float, w_arg: float) -> dict[str, Any]:
    r"""Everything the primer's interactive figure draws for two complex numbers.

    With :math:`z = |z|e^{\mathrm{i}\arg z}` and :math:`w = |w|e^{\mathrm{i}\arg w}`,

    .. math::
        z\,w = |z||w|\,e^{\mathrm{i}(\arg z + \arg w)}, \qquad
        z\,\bar w = |z||w|\,e^{\mathrm{i}(\arg z - \arg w)}.

    The measured angles (``atan2``) lie in :math:`(-\pi, \pi]`; the sum and the difference
    of the angles may lie a whole turn :math:`2\pi` away, and ``product_turns`` and
    ``conj_turns`` count those turns (``sum = measured + 2π·turns``).

    Components of the products within 1e-12 of zero are set to 0 (rounding noise, whose
    sign would otherwise pick the measured angle :math:`\pm\pi` or :math:`\pm 0`).

    Args:
        z_abs, w_abs: the lengths, > 0.
        z_arg, w_arg: the angles in radians.

    Returns:
        the inputs; ``z``, ``w``, ``conj_w``, ``product`` (:math:`zw`) and ``conj_product``
        (:math:`z\bar w`) as ``[re, im]``; ``length_product`` (:math:`|z||w|`);
        ``product_abs``, ``product_arg``, ``conj_product_abs``, ``conj_product_arg`` (measured);
        ``angle_sum``, ``angle_difference``; ``product_turns``, ``conj_turns``.

    Raises:
        ValueError: for a length that is not positive, or a non-finite value.
    """
    for name, value in (("z_abs", z_abs), ("w_abs", w_abs)):
        if _length(value, name) == 0:
            raise ValueError(f"{name} must be a length > 0, got {value!r}")
    z = polar(z_abs, z_arg)
    w = polar(w_abs, w_arg)
    conj_w = w.conjugate()
    product = complex(_clean((z * w).real), _clean((z * w).imag))
    conj_product = complex(_clean((z * conj_w).real), _clean((z * conj_w).imag))
    angle_sum = float(z_arg) + float(w_arg)
    angle_difference = float(z_arg) - float(w_arg)
    product_arg = math.atan2(product.imag, product.real)
    conj_product_arg = math.atan2(conj_product.imag, conj_product.real)
    return {
        "z_abs": z_abs,
        "z_arg": z_arg,
        "w_abs": w_abs,
        "w_arg": w_arg,
        "z": np.array([z.real, z.imag]),
        "w": np.array([w.real, w.imag]),
        "conj_w": np.array([conj_w.real, conj_w.imag]),
        "product": np.array([product.real, product.imag]),
        "conj_product": np.array([conj_product.real, conj_product.imag]),
        "length_product": float(z_abs) * float(w_abs),
        "product_abs": math.hypot(product.real, product.imag),
        "product_arg": product_arg,
        "conj_product_abs": math.hypot(conj_product.real, conj_product.imag),
        "conj_product_arg": conj_product_arg,
        "angle_sum": angle_sum,
        "angle_difference": angle_difference,
        "product_turns": _turns(angle_sum, product_arg),
        "conj_turns": _turns(angle_difference, conj_product_arg),
    }


# --------------------------------------------------------------------------------------
# Symbolic proofs (each returns left side - right side)
# --------------------------------------------------------------------------------------


def _symbols(*names: str) -> tuple[sympy.Symbol, ...]:
    return tuple(sympy.Symbol(name, real=True) for name in names)


def _lengths(*names: str) -> tuple[sympy.Symbol, ...]:
    return tuple(sympy.Symbol(name, positive=True) for name in names)


def _cis(angle: sympy.Expr) -> sympy.Expr:
    r""":math:`\cos\varphi + \mathrm{i}\sin\varphi`, written out (no exponential)."""
    return sympy.cos(angle) + sympy.I * sympy.sin(angle)


def euler_derivative() -> dict[str, sympy.Expr]:
    r"""Euler's formula by the derivative argument (chapter 1A).

    Let :math:`f(\varphi) = e^{-\mathrm{i}\varphi}(\cos\varphi + \mathrm{i}\sin\varphi)`. Its
    derivative is zero for every :math:`\varphi` and :math:`f(0) = 1`, so :math:`f = 1`
    everywhere, which is :math:`e^{\mathrm{i}\varphi} = \cos\varphi + \mathrm{i}\sin\varphi`.
    Only the product rule, :math:`(e^{c\varphi})' = c\,e^{c\varphi}` and
    :math:`\mathrm{i}^2 = -1` are used: nothing here already assumes Euler's formula.

    Returns:
        ``{"f": f, "derivative": f' (expanded), "at_zero": f(0) - 1}``; the proof is that
        ``derivative`` and ``at_zero`` simplify to zero.
    """
    (phi,) = _symbols("varphi")
    f = sympy.exp(-sympy.I * phi) * _cis(phi)
    return {
        "f": f,
        "derivative": sympy.expand(sympy.diff(f, phi)),
        "at_zero": sympy.Add(f.subs(phi, 0), -1, evaluate=False),
    }


def euler_series_terms(order: int = 8) -> dict[str, sympy.Expr]:
    r"""The power series of :math:`e^{\mathrm{i}\varphi}`, :math:`\cos\varphi` and
    :math:`\sin\varphi` up to :math:`\varphi^{\text{order}-1}` (chapter 1A).

    Powers of :math:`\mathrm{i}` cycle through :math:`\mathrm{i}, -1, -\mathrm{i}, 1`: the
    even terms of :math:`e^{\mathrm{i}\varphi}` are those of :math:`\cos\varphi`, the odd
    terms :math:`\mathrm{i}` times those of :math:`\sin\varphi`. An illustration of where the
    formula comes from (finitely many terms), not the proof (:func:`euler_derivative`).

    Args:
        order: the number of terms, an integer from 2 to 20.

    Returns:
        ``{"exp": ..., "cos_plus_i_sin": ..., "difference": ...}``, polynomials in
        :math:`\varphi`.
    """
    if isinstance(order, bool) or not isinstance(order, int) or not 2 <= order <= 20:
        raise ValueError(f"order must be an integer from 2 to 20, got {order!r}")
    (phi,) = _symbols("varphi")
    exp_terms = sum((sympy.I * phi) ** j / sympy.factorial(j) for j in range(order))
    cos_terms = sympy.series(sympy.cos(phi), phi, 0, order).removeO()
    sin_terms = sympy.series(sympy.sin(phi), phi, 0, order).removeO()
    exp_poly = sympy.expand(exp_terms)
    trig_poly = sympy.expand(cos_terms + sympy.I * sin_terms)
    return {
        "exp": exp_poly,
        "cos_plus_i_sin": trig_poly,
        "difference": sympy.expand(exp_poly - trig_poly),
    }


def multiplication_adds_angles() -> sympy.Expr:
    r"""Lengths multiply and angles add (chapter 1A):

    .. math::
        r_1(\cos\alpha + \mathrm{i}\sin\alpha)\cdot r_2(\cos\beta + \mathrm{i}\sin\beta)
        - r_1 r_2\big(\cos(\alpha+\beta) + \mathrm{i}\sin(\alpha+\beta)\big) = 0

    Symbolic in the lengths :math:`r_1, r_2 > 0` and the real angles :math:`\alpha, \beta`;
    the proof is the angle-sum formulas.
    """
    r1, r2 = _lengths("r_1", "r_2")
    alpha, beta = _symbols("alpha", "beta")
    left = sympy.expand(r1 * _cis(alpha) * r2 * _cis(beta))
    return sympy.Add(left, -r1 * r2 * _cis(alpha + beta), evaluate=False)


def conjugate_reverses_angle() -> sympy.Expr:
    r"""The conjugate keeps the length and reverses the angle (chapter 1A):

    .. math::
        \overline{r(\cos\alpha + \mathrm{i}\sin\alpha)} - r\,e^{-\mathrm{i}\alpha} = 0

    with :math:`r > 0` and :math:`\alpha` real symbols: flipping the sign of the imaginary
    part is turning by :math:`-\alpha` instead of :math:`\alpha`.
    """
    (r,) = _lengths("r")
    (alpha,) = _symbols("alpha")
    left = sympy.conjugate(r * _cis(alpha))
    return sympy.Add(left, -r * sympy.exp(-sympy.I * alpha), evaluate=False)


def conjugate_product_difference() -> sympy.Expr:
    r"""The product with a conjugate carries the angle difference (chapter 1A):

    .. math::
        r_1(\cos\alpha + \mathrm{i}\sin\alpha)\;
        \overline{r_2(\cos\beta + \mathrm{i}\sin\beta)}
        - r_1 r_2\big(\cos(\alpha-\beta) + \mathrm{i}\sin(\alpha-\beta)\big) = 0

    The proof is the angle-difference formulas.
    """
    r1, r2 = _lengths("r_1", "r_2")
    alpha, beta = _symbols("alpha", "beta")
    left = sympy.expand(r1 * _cis(alpha) * sympy.conjugate(r2 * _cis(beta)))
    return sympy.Add(left, -r1 * r2 * _cis(alpha - beta), evaluate=False)


def _real_part(expr: sympy.Expr) -> sympy.Expr:
    """The real part of an expression in real symbols, written out."""
    return sympy.re(sympy.expand(expr))


def _score(q: sympy.Expr, k: sympy.Expr, m: Any, n: Any, theta: sympy.Expr, conj: bool) -> Any:
    r""":math:`\operatorname{Re}[q e^{\mathrm{i}m\theta}\,\overline{k e^{\mathrm{i}n\theta}}]`,
    written with cosines and sines, or without the conjugate when ``conj`` is False."""
    rotated_k = k * _cis(n * theta)
    partner = sympy.conjugate(rotated_k) if conj else rotated_k
    return _real_part(q * _cis(m * theta) * partner)


def _query_key() -> tuple[sympy.Expr, sympy.Expr]:
    q0, q1, k0, k1 = _symbols("q_0", "q_1", "k_0", "k_1")
    return q0 + sympy.I * q1, k0 + sympy.I * k1


def conjugate_score_offset() -> sympy.Expr:
    r"""RoFormer's score depends on the positions through :math:`m - n` only (chapter 1A):

    .. math::
        \operatorname{Re}\big[q\,e^{\mathrm{i}m\theta}\;\overline{k\,e^{\mathrm{i}n\theta}}\big]
        - \operatorname{Re}\big[q\,\bar k\,e^{\mathrm{i}(m-n)\theta}\big] = 0

    with :math:`q = q_0 + \mathrm{i}q_1`, :math:`k = k_0 + \mathrm{i}k_1` and real symbols
    :math:`m, n, \theta`, every exponential written as :math:`\cos + \mathrm{i}\sin`
    (RoFormer eq. 12; chapter 2 derives it). The left side holds :math:`m\theta` and
    :math:`n\theta`, the right side only :math:`(m - n)\theta`.
    """
    m, n, theta = _symbols("m", "n", "theta")
    q, k = _query_key()
    right = _real_part(q * sympy.conjugate(k) * _cis((m - n) * theta))
    return sympy.Add(_score(q, k, m, n, theta, conj=True), -right, evaluate=False)


def score_shift_difference(conjugate: bool = True) -> sympy.Expr:
    r"""The change of the score when both positions move by *s* (chapter 1A):

    .. math::
        \operatorname{Re}\big[q e^{\mathrm{i}(m+s)\theta}\,
            \overline{k e^{\mathrm{i}(n+s)\theta}}\big]
        - \operatorname{Re}\big[q e^{\mathrm{i}m\theta}\,\overline{k e^{\mathrm{i}n\theta}}\big]

    It simplifies to zero: the score sees only :math:`m - n`. With ``conjugate=False`` (the
    plain product :math:`q e^{\mathrm{i}m\theta}\,k e^{\mathrm{i}n\theta}`, whose angle
    carries :math:`m + n`) it does not: the check can fail.
    """
    m, n, s, theta = _symbols("m", "n", "s", "theta")
    q, k = _query_key()
    moved = _score(q, k, m + s, n + s, theta, conj=conjugate)
    return sympy.Add(moved, -_score(q, k, m, n, theta, conj=conjugate), evaluate=False)


def multiplication_is_rotation() -> sympy.Matrix:
    r"""Multiplying by :math:`e^{\mathrm{i}\varphi}` is the rotation :math:`R(\varphi)` of
    chapter 1 (RoFormer eq. 13; chapter 1A):

    .. math::
        \begin{pmatrix}\operatorname{Re}[(a + \mathrm{i}b)\,e^{\mathrm{i}\varphi}]\\
        \operatorname{Im}[(a + \mathrm{i}b)\,e^{\mathrm{i}\varphi}]\end{pmatrix}
        - R(\varphi)\begin{pmatrix}a\\ b\end{pmatrix} = 0

    Returns:
        the 2×1 difference, unevaluated entry by entry.
    """
    a, b, phi = _symbols("a", "b", "varphi")
    turned = sympy.expand((a + sympy.I * b) * sympy.exp(sympy.I * phi), complex=True)
    matrix = symbolic_rotation_2d(phi) * sympy.Matrix([a, b])
    return sympy.Matrix(
        [
            sympy.Add(sympy.re(turned), -matrix[0], evaluate=False),
            sympy.Add(sympy.im(turned), -matrix[1], evaluate=False),
        ]
    )
