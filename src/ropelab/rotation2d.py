r"""Rotations in the plane and in the complex plane: the computations of chapters 1 and 2.

Chapter 1 (the 2D rotation) turns a vector by :math:`\varphi` (the worked example
:math:`(1, 0)` turned by :math:`\pi/4`), a query and a key by their positions, and compares
the attention score when both positions move together. Chapter 2 (the complex derivation)
follows :math:`q\,e^{\mathrm{i}m\theta}` as the position *m* grows and shows what goes wrong
when the phase is not linear in the position.

Conventions follow :mod:`ropelab.core`: a 2D vector :math:`(q_0, q_1)` is the complex number
:math:`q_0 + \mathrm{i}q_1`, the position *m* turns it by :math:`m\theta`, and

.. math:: R(\varphi) = \begin{pmatrix}\cos\varphi & -\sin\varphi\\
          \sin\varphi & \cos\varphi\end{pmatrix}, \qquad R_m = R(m\theta).

Every function calls :mod:`ropelab.core`; the figures of :mod:`ropelab.plots.rotation` draw
what these functions return; :func:`relative_rotation_data` and :func:`complex_score_data` are
the data of the interactive figures of chapters 1 and 2 (:mod:`ropelab.interactive`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._checks import check_finite_array
from .core import apply_rope, apply_rope_complex, rotation_matrix

__all__ = [
    "DEFAULT_K",
    "DEFAULT_Q",
    "as_complex",
    "as_vector_2d",
    "complex_score_data",
    "relative_rotation_data",
    "relative_score_2d",
    "rope_orbit",
    "rope_polar_parts",
    "rope_score_2d",
    "rotate_2d",
    "rotation_2d",
    "score_with_phase",
    "shifted_scores",
]

#: The query and key of chapter 1's figures before rotation (2D vectors).
DEFAULT_Q = (1.0, 0.4)
DEFAULT_K = (0.6, 0.9)


# --------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------

Phase = Callable[[np.ndarray], np.ndarray]


def as_vector_2d(value: Any, name: str = "vector") -> np.ndarray:
    r"""``value`` as a float64 vector of shape ``(2,)``.

    Accepts two real numbers or one complex number :math:`a + \mathrm{i}b`, read as
    :math:`(a, b)` (chapter 1: a complex number is a 2D vector and back).
    """
    if isinstance(value, complex | np.complexfloating):
        value = (value.real, value.imag)
    vector = check_finite_array(value, name)
    if vector.shape != (2,):
        raise ValueError(f"{name} must be a 2D vector (two real numbers), got shape {vector.shape}")
    return vector


def as_complex(value: Any, name: str = "z") -> complex:
    r"""``value`` as a Python complex number; a 2D vector :math:`(a, b)` becomes :math:`a + \mathrm{i}b`."""
    if isinstance(value, complex | np.complexfloating):
        if not np.isfinite(value):
            raise ValueError(f"{name} must be finite (no NaN or infinity), got {value!r}")
        return complex(value)
    if np.ndim(value) == 0:
        return complex(float(check_finite_array(value, name)), 0.0)
    vector = as_vector_2d(value, name)
    return complex(vector[0], vector[1])


def _scalar(value: Any, name: str) -> float:
    """A finite real scalar (an angle, a position, a coefficient)."""
    array = check_finite_array(value, name)
    if array.ndim != 0:
        raise ValueError(f"{name} must be a single real number, got shape {array.shape}")
    return float(array)


def _positions(value: Any, name: str) -> np.ndarray:
    return check_finite_array(value, name)


def _count(value: Any, name: str, minimum: int) -> int:
    """An integer count of at least ``minimum`` (a float such as 32.0 is accepted)."""
    ok = not isinstance(value, bool) and isinstance(value, int | float | np.integer | np.floating)
    if not ok or not np.isfinite(value) or not float(value).is_integer() or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _shift_range(max_shift: Any) -> np.ndarray:
    return np.arange(_count(max_shift, "max_shift", 1) + 1, dtype=np.float64)


def rotation_2d(angle: float) -> np.ndarray:
    r"""The 2×2 rotation matrix :math:`R(\varphi)` (RoFormer eq. 13; chapter 1).

    .. math:: R(\varphi) = \begin{pmatrix}\cos\varphi & -\sin\varphi\\
              \sin\varphi & \cos\varphi\end{pmatrix}

    Built by :func:`ropelab.core.rotation_matrix` with *d* = 2, one frequency
    :math:`\theta = \varphi` and position 1.

    Args:
        angle: the angle :math:`\varphi` in radians, any finite real number.
    """
    phi = _scalar(angle, "angle")
    return rotation_matrix(1.0, 2, inv_freq=np.array([phi]))


def rotate_2d(vector: Any, angle: float) -> np.ndarray:
    r"""The vector turned counter-clockwise by :math:`\varphi`: :math:`R(\varphi)\,x` (chapter 1).

    .. math:: R(\varphi)\begin{pmatrix}x_0\\ x_1\end{pmatrix}
              = \begin{pmatrix}x_0\cos\varphi - x_1\sin\varphi\\
                x_0\sin\varphi + x_1\cos\varphi\end{pmatrix}

    Source: the polar-form derivation of the rotation matrix (source article 004; RoFormer
    eq. 13). Computed with :func:`ropelab.core.apply_rope` on a 2D vector at position 1 with
    frequency :math:`\varphi`. The worked example of chapter 1: ``rotate_2d((1, 0), pi/4)``
    is :math:`(\sqrt2/2, \sqrt2/2)`.

    Args:
        vector: two real numbers (or a complex number).
        angle: :math:`\varphi` in radians.

    Returns:
        float64 array of shape ``(2,)``.
    """
    x = as_vector_2d(vector)
    phi = _scalar(angle, "angle")
    return apply_rope(x[None, :], np.array([1.0]), inv_freq=np.array([phi]))[0]


def rope_score_2d(q: Any, k: Any, m: Any, n: Any, theta: float) -> np.ndarray:
    r"""The 2D RoPE attention score :math:`(R_m q)^\top (R_n k)` with :math:`R_m = R(m\theta)`.

    Source: RoFormer eq. 16 with *d* = 2; chapter 1. The rotated vectors come from
    :func:`ropelab.core.apply_rope`; *m* and *n* broadcast against each other.

    Args:
        q, k: the query and key before rotation, 2D vectors.
        m, n: positions of the query and the key (scalars or arrays, finite).
        theta: the frequency :math:`\theta` in radians per position.

    Returns:
        float64 array of the broadcast shape of *m* and *n* (0-d for scalars).
    """
    qv, kv = as_vector_2d(q, "q"), as_vector_2d(k, "k")
    m_arr, n_arr = np.broadcast_arrays(_positions(m, "m"), _positions(n, "n"))
    freq = np.array([_scalar(theta, "theta")])
    flat_m, flat_n = m_arr.reshape(-1), n_arr.reshape(-1)
    rotated_q = apply_rope(np.tile(qv, (flat_m.size, 1)), flat_m, inv_freq=freq)
    rotated_k = apply_rope(np.tile(kv, (flat_n.size, 1)), flat_n, inv_freq=freq)
    return np.sum(rotated_q * rotated_k, axis=-1).reshape(m_arr.shape)


def relative_score_2d(q: Any, k: Any, offset: Any, theta: float) -> np.ndarray:
    r"""The score written with the relative rotation only: :math:`q^\top R_{n-m}\, k`.

    .. math:: (R_m q)^\top (R_n k) = q^\top R_m^\top R_n k = q^\top R_{n-m}\, k

    Source: RoFormer eq. 16 (*d* = 2); chapter 1. ``offset`` is :math:`n - m`; the matrix
    comes from :func:`ropelab.core.rotation_matrix`.
    """
    qv, kv = as_vector_2d(q, "q"), as_vector_2d(k, "k")
    r = _positions(offset, "offset")
    matrices = rotation_matrix(r, 2, inv_freq=np.array([_scalar(theta, "theta")]))
    return np.einsum("i,...ij,j->...", qv, matrices, kv)


def shifted_scores(
    q: Any, k: Any, m: float, n: float, theta: float, shifts: Any
) -> dict[str, np.ndarray]:
    r"""Scores when both positions shift by *s*, and when only the key does (chapter 1).

    .. math::
        \text{both}(s) = (R_{m+s}\,q)^\top (R_{n+s}\,k) = q^\top R_{n-m}\,k, \qquad
        \text{key only}(s) = (R_m q)^\top (R_{n+s}\,k) = q^\top R_{n+s-m}\,k

    The first is the same for every *s* (RoFormer eq. 16); the second changes with *s*
    because the distance changes.

    Returns:
        ``{"shifts": s, "both": ..., "key_only": ...}``, float64 arrays of ``shifts``' shape.
    """
    s = _positions(shifts, "shifts")
    m_, n_ = _scalar(m, "m"), _scalar(n, "n")
    return {
        "shifts": s,
        "both": rope_score_2d(q, k, m_ + s, n_ + s, theta),
        "key_only": rope_score_2d(q, k, m_, n_ + s, theta),
    }


def rope_orbit(q: Any, theta: float, positions: Any) -> np.ndarray:
    r"""The rotated query :math:`f_q(q, m) = q\,e^{\mathrm{i}m\theta}` for each position (chapter 2).

    Source: RoFormer eq. 12, computed by :func:`ropelab.core.apply_rope_complex` (the
    complex form) and returned as complex numbers.

    Args:
        q: the query, a complex number or a 2D vector.
        theta: :math:`\theta` in radians per position.
        positions: the positions *m* (finite).
    """
    z = as_complex(q, "q")
    m = _positions(positions, "positions")
    x = np.tile([z.real, z.imag], (m.size, 1))
    out = apply_rope_complex(x, m.reshape(-1), inv_freq=np.array([_scalar(theta, "theta")]))
    return (out[:, 0] + 1j * out[:, 1]).reshape(m.shape)


def rope_polar_parts(q: Any, theta: float, positions: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""The radial part and the position phase of RoPE's solution (chapter 2).

    Writing :math:`f_q(q, m) = R_q(m)\,e^{\mathrm{i}\Theta_q(m)}`, returns the modulus
    :math:`R_q(m) = |f_q(q, m)|` and the phase :math:`\varphi(m) = \Theta_q(m) - \arg q`,
    unwrapped along the positions (so it is :math:`m\theta` rather than its value modulo
    :math:`2\pi`; the unwrapping needs consecutive positions and :math:`|\theta| < \pi`).
    The derivation of RoFormer section 3.4.1 predicts :math:`R_q(m) = |q|` and
    :math:`\varphi(m) = m\theta`.
    """
    z = as_complex(q, "q")
    if z == 0:
        raise ValueError("q must be non-zero: the angle of 0 is undefined")
    f = rope_orbit(z, theta, positions)
    return np.abs(f), np.unwrap(np.angle(f / z))


def score_with_phase(q: Any, k: Any, m: Any, n: Any, phase: Phase) -> np.ndarray:
    r"""The score of a rotation whose angle is any function :math:`\varphi` of the position.

    .. math:: \operatorname{Re}\!\left[q\,\overline{k}\,e^{\mathrm{i}(\varphi(m) - \varphi(n))}\right]
              = \big\langle q\,e^{\mathrm{i}\varphi(m)},\; k\,e^{\mathrm{i}\varphi(n)}\big\rangle

    With :math:`\varphi(m) = m\theta` this is RoFormer's *g* (eq. 12). Chapter 2 uses other
    phases to show that only a linear one (:math:`m\theta + \gamma`) makes the score a
    function of :math:`m - n`.

    Args:
        q, k: complex numbers or 2D vectors.
        m, n: positions, broadcasting against each other.
        phase: a function from an array of positions to an array of angles.
    """
    zq, zk = as_complex(q, "q"), as_complex(k, "k")
    m_arr, n_arr = np.broadcast_arrays(_positions(m, "m"), _positions(n, "n"))
    angles = np.asarray(phase(m_arr), dtype=np.float64) - np.asarray(phase(n_arr), dtype=np.float64)
    return np.real(zq * np.conj(zk) * np.exp(1j * angles))


# --------------------------------------------------------------------------------------
# Chapter 1's interactive figure
# --------------------------------------------------------------------------------------


def relative_rotation_data(
    m: int,
    n: int,
    theta: float,
    shift: int,
    q: Any = DEFAULT_Q,
    k: Any = DEFAULT_K,
    max_shift: int = 64,
) -> dict[str, Any]:
    r"""Everything chapter 1's interactive figure draws for one setting of its controls.

    The query and the key turned by their positions and by a shift *s* of both, the four
    scores of RoFormer eq. 16 with *d* = 2,

    .. math::
        (R_m q)^\top(R_n k) = (R_{m+s} q)^\top(R_{n+s} k) = q^\top R_{n-m}\,k
        \ne (R_m q)^\top(R_{n+s} k)\ \text{(in general)},

    and the score against the shift for :math:`s = 0, \dots,` ``max_shift``
    (:func:`shifted_scores`).

    Returns:
        ``m``, ``n``, ``theta``, ``shift``; ``q``, ``k``; ``rotated_q`` = :math:`R_m q`,
        ``rotated_k`` = :math:`R_n k`, ``shifted_q``, ``shifted_k``; ``score``,
        ``shifted_score``, ``relative_score``, ``key_only_score``; ``shifts``, ``both``,
        ``key_only``.
    """
    qv, kv = as_vector_2d(q, "q"), as_vector_2d(k, "k")
    scores = shifted_scores(qv, kv, m, n, theta, np.arange(_count(max_shift, "max_shift", 1) + 1))
    return {
        "m": m,
        "n": n,
        "theta": theta,
        "shift": shift,
        "q": qv,
        "k": kv,
        "rotated_q": rotate_2d(qv, m * theta),
        "rotated_k": rotate_2d(kv, n * theta),
        "shifted_q": rotate_2d(qv, (m + shift) * theta),
        "shifted_k": rotate_2d(kv, (n + shift) * theta),
        "score": float(rope_score_2d(qv, kv, m, n, theta)),
        "shifted_score": float(rope_score_2d(qv, kv, m + shift, n + shift, theta)),
        "relative_score": float(relative_score_2d(qv, kv, n - m, theta)),
        "key_only_score": float(rope_score_2d(qv, kv, m, n + shift, theta)),
        "shifts": scores["shifts"],
        "both": scores["both"],
        "key_only": scores["key_only"],
    }


# --------------------------------------------------------------------------------------
# Chapter 2's interactive figure
# --------------------------------------------------------------------------------------


def complex_score_data(
    q_abs: float,
    q_arg: float,
    k_abs: float,
    k_arg: float,
    m: int,
    n: int,
    theta: float,
) -> dict[str, Any]:
    r"""Everything chapter 2's interactive figure draws: the score as a complex product.

    With :math:`q = |q|e^{\mathrm{i}\arg q}` and :math:`k = |k|e^{\mathrm{i}\arg k}`,

    .. math::
        f_q = q\,e^{\mathrm{i}m\theta},\qquad f_k = k\,e^{\mathrm{i}n\theta},\qquad
        f_q\,\overline{f_k} = q\,\bar k\,e^{\mathrm{i}(m-n)\theta},\qquad
        \operatorname{Re}\big[q\,\bar k\,e^{\mathrm{i}(m-n)\theta}\big]
        = (R_m q)^\top (R_n k)

    (RoFormer eq. 12 and the identity proved in chapter 2). The product's real part is the
    attention score; its angle is :math:`\arg q - \arg k + (m - n)\theta`, so it depends on the
    positions only through :math:`m - n`.

    Returns:
        the inputs; ``q``, ``k``, ``rotated_q`` (:math:`f_q`), ``rotated_k`` (:math:`f_k`) and
        ``product`` (:math:`f_q\overline{f_k}`) as ``[re, im]``; ``score`` (its real part),
        ``dot`` (:math:`(R_m q)^\top(R_n k)`, from :func:`rope_score_2d`) and ``angle``
        (:math:`(m - n)\theta`).
    """
    q = complex(_scalar(q_abs, "q_abs") * np.exp(1j * _scalar(q_arg, "q_arg")))
    k = complex(_scalar(k_abs, "k_abs") * np.exp(1j * _scalar(k_arg, "k_arg")))
    rotated_q = complex(rope_orbit(q, theta, [m])[0])
    rotated_k = complex(rope_orbit(k, theta, [n])[0])
    product = rotated_q * rotated_k.conjugate()
    return {
        "q_abs": q_abs,
        "q_arg": q_arg,
        "k_abs": k_abs,
        "k_arg": k_arg,
        "m": m,
        "n": n,
        "theta": theta,
        "q": np.array([q.real, q.imag]),
        "k": np.array([k.real, k.imag]),
        "rotated_q": np.array([rotated_q.real, rotated_q.imag]),
        "rotated_k": np.array([rotated_k.real, rotated_k.imag]),
        "product": np.array([product.real, product.imag]),
        "score": float(product.real),
        "dot": float(rope_score_2d((q.real, q.imag), (k.real, k.imag), m, n, theta)),
        "angle": float((m - n) * theta),
    }
