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

Every figure function returns a matplotlib Figure; the numbers it draws come from
:mod:`ropelab.rotation2d` (``rotate_2d``, ``shifted_scores``, ``rope_orbit``,
``rope_polar_parts``, ``score_with_phase``, ``relative_rotation_data``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D

from ..rotation2d import (
    Phase,
    _count,
    _scalar,
    _shift_range,
    as_complex,
    as_vector_2d,
    rope_orbit,
    rope_polar_parts,
    rotate_2d,
    score_with_phase,
    shifted_scores,
)
from .style import ACCENT, KEY, NEUTRAL, QUERY, new_figure

__all__ = [
    "draw_complex_score",
    "draw_relative_rotation",
    "plot_complex_multiplication",
    "plot_phase_counterexample",
    "plot_relative_rotation",
    "plot_rope_orbit",
    "plot_rotation",
    "plot_score_vs_shift",
]


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


def draw_relative_rotation(data: dict[str, Any]) -> Figure:
    """Chapter 1's interactive figure drawn from :func:`ropelab.rotation2d.relative_rotation_data`.

    The static view of the ``"rotation2d"`` figure (:mod:`ropelab.interactive`): the same
    picture as :func:`plot_relative_rotation` for the data's query, key, positions and shift.
    """
    return plot_relative_rotation(
        data["q"],
        data["k"],
        int(data["m"]),
        int(data["n"]),
        float(data["theta"]),
        int(data["shift"]),
        max_shift=int(data["shifts"][-1]),
    )


def draw_complex_score(data: dict[str, Any]) -> Figure:
    r"""Chapter 2's interactive figure drawn from :func:`ropelab.rotation2d.complex_score_data`.

    The complex plane with :math:`q` and :math:`k` (thin), :math:`q\,e^{\mathrm{i}m\theta}` and
    :math:`k\,e^{\mathrm{i}n\theta}` (solid), and their product with the conjugate,
    :math:`q\,\bar k\,e^{\mathrm{i}(m-n)\theta}`, whose real part (dotted down to the real
    axis) is the attention score.
    """
    q, k = np.asarray(data["q"]), np.asarray(data["k"])
    product = np.asarray(data["product"])
    fig, ax = new_figure(width=5.2, height=5.0)
    limit = 1.15 * max(np.hypot(*q), np.hypot(*k), np.hypot(*product), 1e-9)
    _circle(ax, float(np.hypot(*q)), color=QUERY, alpha=0.25, linewidth=0.8)
    _circle(ax, float(np.hypot(*k)), color=KEY, alpha=0.25, linewidth=0.8)
    thin = {"linewidth": 1.0, "alpha": 0.4}
    _arrow(ax, q, QUERY, "$q$", **thin)
    _arrow(ax, k, KEY, "$k$", **thin)
    _arrow(ax, np.asarray(data["rotated_q"]), QUERY, r"$q\,e^{im\theta}$")
    _arrow(ax, np.asarray(data["rotated_k"]), KEY, r"$k\,e^{in\theta}$")
    _arrow(ax, product, ACCENT, r"$q\,\bar k\,e^{i(m-n)\theta}$", linewidth=2.4)
    ax.plot([product[0], product[0]], [product[1], 0.0], ":", color=ACCENT, linewidth=1.2)
    ax.plot([product[0]], [0.0], "o", color=ACCENT, markersize=5)
    _plane(ax, limit, "real part", "imaginary part")
    ax.set_title(
        f"m = {data['m']}, n = {data['n']}, θ = {data['theta']:.2f}: "
        f"score = Re[…] = {data['score']:+.4f}",
        fontsize="medium",
    )
    ax.legend(**_BELOW)
    return fig
