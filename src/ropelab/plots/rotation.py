r"""Rotations in the plane and in the complex plane: the figures of chapters 1 and 2.

Chapter 1 (the 2D rotation) draws a vector before and after a rotation (the worked example
:math:`(1, 0)` turned by :math:`\pi/4`), a query and a key turned by their positions, and the
attention score when both positions move together. Chapter 2 (the complex derivation) draws
complex multiplication ("lengths multiply, angles add"), the path of
:math:`q\,e^{\mathrm{i}m\theta}` as the position *m* grows, and what goes wrong when the
phase is not linear in the position.

Conventions follow :mod:`ropelab.core`: a 2D vector :math:`(q_0, q_1)` is the complex number
:math:`q_0 + \mathrm{i}q_1`, the position *m* turns it by :math:`m\theta`, and

.. math:: R(\varphi) = \begin{pmatrix}\cos\varphi & -\sin\varphi\\
          \sin\varphi & \cos\varphi\end{pmatrix}, \qquad R_m = R(m\theta).

Every figure function returns a matplotlib Figure, and the numbers it draws come from a plain
function of this module (``rotate_2d``, ``rope_score_2d``, ``shifted_scores``, ``rope_orbit``,
``rope_polar_parts``, ``score_with_phase``), which in turn calls :mod:`ropelab.core`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D

from .._checks import check_finite_array
from ..core import apply_rope, apply_rope_complex, rotation_matrix
from .style import ACCENT, KEY, NEUTRAL, QUERY, new_figure

__all__ = [
    "as_complex",
    "as_vector_2d",
    "plot_complex_multiplication",
    "plot_phase_counterexample",
    "plot_relative_rotation",
    "plot_rope_orbit",
    "plot_rotation",
    "plot_score_vs_shift",
    "relative_score_2d",
    "rope_orbit",
    "rope_polar_parts",
    "rope_score_2d",
    "rotate_2d",
    "rotation_2d",
    "score_with_phase",
    "shifted_scores",
]

Phase = Callable[[np.ndarray], np.ndarray]

#: Legend placement under an axes (keeps the legend off the curves of a small panel).
_BELOW: dict[str, Any] = {
    "loc": "upper center",
    "bbox_to_anchor": (0.5, -0.2),
    "fontsize": "small",
    "ncol": 1,
    "frameon": False,
    "handlelength": 3.0,
}


# --------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# Chapter 1: data
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# Chapter 1: figures
# --------------------------------------------------------------------------------------


def _arrow(ax: Axes, tip: np.ndarray, color: str, label: str | None, **line: Any) -> Line2D:
    """An arrow from the origin to ``tip``; returns a line for the legend (arrows have none).

    The legend line is added to the axes only when ``label`` is given.
    """
    style = line.pop("linestyle", "-")
    alpha = line.pop("alpha", 1.0)
    width = line.pop("linewidth", 2.0)
    ax.annotate(
        "",
        xy=(float(tip[0]), float(tip[1])),
        xytext=(0.0, 0.0),
        arrowprops={
            "arrowstyle": "-|>",
            "color": color,
            "lw": width,
            "linestyle": style,
            "alpha": alpha,
            "shrinkA": 0,
            "shrinkB": 0,
        },
    )
    handle = Line2D([], [], color=color, linestyle=style, alpha=alpha, linewidth=width)
    if label is not None:
        handle.set_label(label)
        ax.add_line(handle)
    return handle


def _circle(ax: Axes, radius: float, **kwargs: Any) -> None:
    t = np.linspace(0.0, 2.0 * np.pi, 361)
    ax.plot(radius * np.cos(t), radius * np.sin(t), **kwargs)


def _arc(ax: Axes, start: float, stop: float, radius: float, color: str, text: str) -> None:
    """An arc from angle ``start`` to ``stop`` with ``text`` at its middle."""
    t = np.linspace(start, stop, 100)
    ax.plot(radius * np.cos(t), radius * np.sin(t), color=color, linewidth=1.2)
    mid = 0.5 * (start + stop)
    ax.text(
        1.18 * radius * np.cos(mid),
        1.18 * radius * np.sin(mid),
        text,
        color=color,
        ha="center",
        va="center",
    )


def _plane(ax: Axes, limit: float, xlabel: str, ylabel: str) -> None:
    ax.axhline(0.0, color=NEUTRAL, linewidth=0.6)
    ax.axvline(0.0, color=NEUTRAL, linewidth=0.6)
    ax.set_xlim(-limit, limit)
    ax.set_ylim(-limit, limit)
    ax.set_aspect("equal")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def plot_rotation(vector: Any = (1.0, 0.0), angle: float = np.pi / 4) -> Figure:
    r"""A vector and its rotation by :math:`\varphi`, with the circle it stays on (chapter 1).

    Draws :math:`x` and :math:`R(\varphi)\,x` (from :func:`rotate_2d`) as arrows, the arc of
    the angle and the circle of radius :math:`\lVert x\rVert`. The default is the worked
    example of source article 000, eq. 5: :math:`(1, 0)` turned by :math:`\pi/4` gives
    :math:`(\sqrt2/2, \sqrt2/2)`.
    """
    x = as_vector_2d(vector)
    phi = _scalar(angle, "angle")
    rotated = rotate_2d(x, phi)
    radius = float(np.hypot(*x))
    if radius == 0.0:
        raise ValueError("vector must be non-zero to draw its rotation")
    fig, ax = new_figure(width=4.6, height=4.6)
    _circle(ax, radius, color=NEUTRAL, linestyle=":", linewidth=1.0, label="circle of radius ‖x‖")
    _arrow(ax, x, NEUTRAL, f"x = ({x[0]:.3f}, {x[1]:.3f})")
    _arrow(ax, rotated, QUERY, f"R(φ)x = ({rotated[0]:.3f}, {rotated[1]:.3f})")
    start = float(np.arctan2(x[1], x[0]))
    _arc(ax, start, start + phi, 0.3 * radius, ACCENT, "φ")
    _plane(ax, 1.3 * radius, "first coordinate (real part)", "second coordinate (imaginary part)")
    ax.set_title(f"Rotation by φ = {phi:.4f} rad ({np.degrees(phi):.1f}°)")
    ax.legend(loc="lower left", fontsize="small")
    return fig


def _draw_score_vs_shift(
    ax: Axes, q: Any, k: Any, m: float, n: float, theta: float, max_shift: int
) -> dict[str, np.ndarray]:
    data = shifted_scores(q, k, m, n, theta, _shift_range(max_shift))
    s = data["shifts"]
    ax.plot(
        s, data["both"], color=QUERY, linewidth=2.0, label="both moved: $(R_{m+s}q)^⊤(R_{n+s}k)$"
    )
    ax.plot(
        s,
        data["key_only"],
        color=KEY,
        linewidth=1.2,
        marker=".",
        label="key moved only: $(R_m q)^⊤(R_{n+s}k)$",
    )
    ax.set_xlabel("shift s (positions)")
    ax.set_ylabel("attention score")
    ax.set_xlim(0, s[-1])
    ax.grid(alpha=0.3)
    return data


def plot_score_vs_shift(
    q: Any, k: Any, m: float, n: float, theta: float, max_shift: int = 32
) -> Figure:
    r"""The score as both positions shift together, against shifting the key alone (chapter 1).

    Plots :func:`shifted_scores` for :math:`s = 0, 1, \dots,` ``max_shift``: the curve
    :math:`(R_{m+s}q)^\top(R_{n+s}k)` is flat at :math:`q^\top R_{n-m}k` (RoFormer eq. 16),
    while :math:`(R_m q)^\top(R_{n+s}k)` oscillates with period :math:`2\pi/\theta`.
    """
    fig, ax = new_figure(height=3.9)
    _draw_score_vs_shift(ax, q, k, m, n, theta, max_shift)
    ax.set_title(f"Shifting both positions keeps the score (m = {m:g}, n = {n:g}, θ = {theta:g})")
    ax.legend(**{**_BELOW, "fontsize": "small", "ncol": 2, "bbox_to_anchor": (0.5, -0.16)})
    return fig


def plot_relative_rotation(
    q: Any, k: Any, m: int, n: int, theta: float, shift: int, max_shift: int = 64
) -> Figure:
    r"""The picture behind chapter 1's widget: q and k turned by their positions, then shifted.

    Left: :math:`q, k` (position 0, thin), :math:`R_m q` and :math:`R_n k` (solid) and
    :math:`R_{m+s}q`, :math:`R_{n+s}k` (dashed). The shifted pair is the first pair turned
    rigidly by :math:`s\theta`, so the angle between query and key, and with it the score,
    does not change. Right: :func:`shifted_scores` for :math:`s = 0..` ``max_shift`` with
    the current *s* marked. Source: RoFormer eq. 16 with *d* = 2.
    """
    qv, kv = as_vector_2d(q, "q"), as_vector_2d(k, "k")
    theta_ = _scalar(theta, "theta")
    m, n = _scalar(m, "m"), _scalar(n, "n")
    top = _count(max_shift, "max_shift", 1)
    shift = _count(shift, "shift", 0)
    if shift > top:
        raise ValueError(f"shift must be between 0 and max_shift = {top}, got {shift}")
    fig, (left, right) = new_figure(2, width=7.0, height=4.3)
    limit = 1.2 * max(np.hypot(*qv), np.hypot(*kv))
    _circle(left, float(np.hypot(*qv)), color=QUERY, alpha=0.25, linewidth=0.8)
    _circle(left, float(np.hypot(*kv)), color=KEY, alpha=0.25, linewidth=0.8)
    thin = {"linewidth": 1.0, "alpha": 0.35}
    dashed = {"linestyle": "--", "alpha": 0.7}
    shifted_q = rotate_2d(qv, (m + shift) * theta_)
    shifted_k = rotate_2d(kv, (n + shift) * theta_)
    pairs = [
        ((_arrow(left, qv, QUERY, None, **thin), _arrow(left, kv, KEY, None, **thin)), "q, k"),
        (
            (
                _arrow(left, rotate_2d(qv, m * theta_), QUERY, None),
                _arrow(left, rotate_2d(kv, n * theta_), KEY, None),
            ),
            "$R_m q$, $R_n k$",
        ),
        (
            (
                _arrow(left, shifted_q, QUERY, None, **dashed),
                _arrow(left, shifted_k, KEY, None, **dashed),
            ),
            "$R_{m+s} q$, $R_{n+s} k$",
        ),
    ]
    _plane(left, limit, "first coordinate", "second coordinate")
    turn = np.arctan2(shifted_k[1], shifted_k[0]) - np.arctan2(shifted_q[1], shifted_q[0])
    gap = float(np.angle(np.exp(1j * turn)))  # wrapped to (-pi, pi]
    left.set_title(f"angle from query to key: {gap:.3f} rad", fontsize="medium")
    left.legend(
        [handles for handles, _ in pairs],
        [label for _, label in pairs],
        handler_map={tuple: HandlerTuple(ndivide=None)},
        **_BELOW,
    )
    data = _draw_score_vs_shift(right, qv, kv, m, n, theta_, max_shift)
    right.axvline(shift, color=NEUTRAL, linestyle=":", linewidth=1.0)
    right.plot([shift], [data["both"][shift]], "o", color=QUERY, label=f"current s = {shift}")
    right.set_title(f"score(m, n) = {data['both'][0]:.4f}", fontsize="medium")
    right.legend(**_BELOW)
    fig.suptitle(f"m = {m:g}, n = {n:g}, θ = {theta_:.2f} rad, shift s = {shift}")
    return fig


# --------------------------------------------------------------------------------------
# Chapter 2: data
# --------------------------------------------------------------------------------------


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
# Chapter 2: figures
# --------------------------------------------------------------------------------------


def _polar_label(name: str, z: complex) -> str:
    return rf"${name} = {abs(z):.2f}\,e^{{i\,{np.angle(z):.2f}}}$"


def plot_complex_multiplication(z1: Any, z2: Any) -> Figure:
    r"""Complex multiplication in the plane: lengths multiply, angles add (chapter 2).

    .. math:: r_1 e^{\mathrm{i}\alpha_1}\cdot r_2 e^{\mathrm{i}\alpha_2}
              = r_1 r_2\, e^{\mathrm{i}(\alpha_1 + \alpha_2)}

    Source: source article 004 (complex multiplication in polar form). Draws
    :math:`z_1`, :math:`z_2` and :math:`z_1 z_2` with the arc of each angle.
    """
    a, b = as_complex(z1, "z1"), as_complex(z2, "z2")
    if a == 0 or b == 0:
        raise ValueError("z1 and z2 must be non-zero: the angle of 0 is undefined")
    product = a * b
    limit = 1.2 * max(abs(a), abs(b), abs(product))
    fig, ax = new_figure(width=4.6, height=4.6)
    for z, name, color, radius in (
        (a, "z_1", QUERY, 0.22),
        (b, "z_2", KEY, 0.32),
        (product, "z_1 z_2", ACCENT, 0.42),
    ):
        _arrow(ax, np.array([z.real, z.imag]), color, _polar_label(name, z))
        _arc(ax, 0.0, float(np.angle(z)), radius * limit, color, "")
    _plane(ax, limit, "real part", "imaginary part")
    ax.set_title("Multiplying: lengths multiply, angles add")
    ax.legend(loc="lower left", fontsize="small")
    return fig


def plot_rope_orbit(q: Any, theta: float, num_positions: int = 13) -> Figure:
    r"""Where RoPE sends a query as its position grows, in polar parts (chapter 2).

    Left: :math:`f_q(q, m) = q\,e^{\mathrm{i}m\theta}` for :math:`m = 0, \dots,`
    ``num_positions - 1`` (from :func:`rope_orbit`): the points stay on the circle of radius
    :math:`|q|` and advance by the same angle :math:`\theta` at every step. Right: the phase
    :math:`\varphi(m)` (from :func:`rope_polar_parts`) on the line :math:`m\theta`. These are
    the two facts that RoFormer's derivation (section 3.4.1) proves must hold.
    """
    z = as_complex(q, "q")
    theta_ = _scalar(theta, "theta")
    m = np.arange(_count(num_positions, "num_positions", 2), dtype=np.float64)
    orbit = rope_orbit(z, theta_, m)
    _, phase = rope_polar_parts(z, theta_, m)
    fig, (left, right) = new_figure(2, width=7.0, height=3.6)
    _circle(left, abs(z), color=NEUTRAL, linestyle=":", linewidth=1.0)
    left.scatter(orbit.real, orbit.imag, c=m, cmap="viridis", zorder=3, label="$q e^{imθ}$")
    for position, point in zip(m, orbit, strict=True):
        left.annotate(
            f"{int(position)}",
            (point.real, point.imag),
            textcoords="offset points",
            xytext=(6 * np.cos(np.angle(point)), 6 * np.sin(np.angle(point))),
            ha="center",
            va="center",
            fontsize="x-small",
        )
    _arrow(left, np.array([z.real, z.imag]), QUERY, "q (m = 0)")
    _plane(left, 1.35 * abs(z), "real part", "imaginary part")
    left.set_title(f"$q e^{{imθ}}$, θ = {theta_:.2f}, |q| = {abs(z):.2f}", fontsize="medium")
    left.legend(loc="lower left", fontsize="x-small")
    right.plot(m, m * theta_, color=NEUTRAL, linewidth=1.0, label="the line mθ")
    right.plot(m, phase, "o", color=QUERY, label="φ(m) = arg f − arg q")
    right.set_xlabel("position m")
    right.set_ylabel("phase φ(m) (rad)")
    right.set_title("the angle grows linearly in m", fontsize="medium")
    right.grid(alpha=0.3)
    right.legend(loc="upper left", fontsize="x-small")
    return fig


def plot_phase_counterexample(
    q: Any,
    k: Any,
    m: float,
    n: float,
    theta: float,
    *,
    curvature: float = 0.01,
    gamma: float = 1.0,
    max_shift: int = 32,
) -> Figure:
    r"""Only a linear phase keeps the score relative: a counterexample (chapter 2).

    Plots :func:`score_with_phase` at positions :math:`(m + s, n + s)` against the shift
    *s* for three phases: :math:`\varphi(m) = m\theta`, :math:`m\theta + \gamma` (the same
    flat line: :math:`\gamma` cancels in :math:`\varphi(m) - \varphi(n)`) and
    :math:`m\theta + c\,m^2`, whose phase difference
    :math:`(m - n)\theta + c\,(m - n)(m + n)` depends on :math:`m + n` and so on *s*.
    This is the step :math:`\varphi(m) - \varphi(m - 1) = \text{const}` of RoFormer
    section 3.4.1 failing.
    """
    s = _shift_range(max_shift)
    theta_ = _scalar(theta, "theta")
    c = _scalar(curvature, "curvature")
    g = _scalar(gamma, "gamma")
    m_, n_ = _scalar(m, "m"), _scalar(n, "n")
    phases: list[tuple[str, Phase, dict[str, Any]]] = [
        ("φ(m) = mθ", lambda p: theta_ * p, {"color": QUERY, "linewidth": 2.5}),
        (
            f"φ(m) = mθ + γ, γ = {g:g}",
            lambda p: theta_ * p + g,
            {"color": ACCENT, "linestyle": "--", "linewidth": 1.5},
        ),
        (
            f"φ(m) = mθ + c·m², c = {c:g}",
            lambda p: theta_ * p + c * p**2,
            {"color": KEY, "marker": ".", "linewidth": 1.2},
        ),
    ]
    fig, ax = new_figure(height=3.9)
    for label, phase, style in phases:
        ax.plot(s, score_with_phase(q, k, m_ + s, n_ + s, phase), label=label, **style)
    ax.set_xlabel("shift s (both positions move by s)")
    ax.set_ylabel("score at (m + s, n + s)")
    ax.set_title(f"Only a linear phase keeps the score relative (m = {m_:g}, n = {n_:g})")
    ax.set_xlim(0, s[-1])
    ax.grid(alpha=0.3)
    ax.legend(**{**_BELOW, "fontsize": "small", "ncol": 3, "bbox_to_anchor": (0.5, -0.16)})
    return fig
