r"""Complex numbers as rotations: the figures of chapter 1A (the primer).

:func:`plot_euler` draws :math:`e^{\mathrm{i}\varphi}` on the unit circle with its cosine
and sine; :func:`draw_complex_pair` is the static view of the primer's interactive figure
(kind ``"complex_pair"``): two complex numbers *z* and *w*, their product :math:`zw` and the
product with the conjugate :math:`z\bar w`. Each draws only the numbers it is given or that
:mod:`ropelab.complex_primer` computes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..complex_primer import polar
from ..rotation2d import _scalar
from .rotation import _BELOW, _arc, _arrow, _circle, _plane
from .style import ACCENT, KEY, NEUTRAL, QUERY, new_figure

__all__ = ["CONJUGATE", "draw_complex_pair", "plot_euler"]

#: The colour of the product with the conjugate, z·conj(w).
CONJUGATE = "#9467bd"


def plot_euler(angle: float = 0.9) -> Figure:
    r"""The point :math:`e^{\mathrm{i}\varphi} = \cos\varphi + \mathrm{i}\sin\varphi` on the
    unit circle (chapter 1A): the arrow, its angle, and its cosine and sine as the two
    coordinates.

    Args:
        angle: :math:`\varphi` in radians.
    """
    phi = _scalar(angle, "angle")
    point = polar(1.0, phi)
    tip = np.array([point.real, point.imag])
    fig, ax = new_figure(width=6.4, height=4.4)
    _circle(ax, 1.0, color=NEUTRAL, linewidth=1.0, alpha=0.6)
    _arrow(ax, tip, QUERY, r"$e^{i\varphi}$")
    ax.plot([tip[0], tip[0]], [0.0, tip[1]], "--", color=KEY, linewidth=1.4)
    ax.plot([0.0, tip[0]], [0.0, 0.0], "-", color=ACCENT, linewidth=3.0)
    ax.plot([], [], "-", color=ACCENT, linewidth=3.0, label=rf"$\cos\varphi = {tip[0]:.3f}$")
    ax.plot([], [], "--", color=KEY, linewidth=1.4, label=rf"$\sin\varphi = {tip[1]:.3f}$")
    _arc(ax, 0.0, phi, 0.3, NEUTRAL, r"$\varphi$")
    _plane(ax, 1.25, "real part", "imaginary part")
    ax.set_title(rf"$\varphi = {phi:.2f}$ rad: a point of the unit circle", fontsize="medium")
    # the legend beside the circle: a figure wider than tall fills a 16:9 slide
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    return fig


def draw_complex_pair(data: dict[str, Any]) -> Figure:
    r"""The primer's interactive figure drawn from
    :func:`ropelab.complex_primer.complex_pair_data`.

    The complex plane with the unit circle, :math:`z` and :math:`w`, the conjugate
    :math:`\bar w` (dashed), the product :math:`zw` (lengths multiply, angles add) and
    :math:`z\bar w` (the angle difference).
    """
    z, w = np.asarray(data["z"]), np.asarray(data["w"])
    conj_w = np.asarray(data["conj_w"])
    product, conj_product = np.asarray(data["product"]), np.asarray(data["conj_product"])
    fig, ax = new_figure(width=5.2, height=5.4)
    limit = 1.15 * max(1.0, *(float(np.hypot(*v)) for v in (z, w, product, conj_product)))
    _circle(ax, 1.0, color=NEUTRAL, linewidth=0.8, alpha=0.5)
    _arrow(ax, z, QUERY, "$z$")
    _arrow(ax, w, KEY, "$w$")
    _arrow(ax, conj_w, KEY, r"$\bar w$ (conjugate)", linestyle="--", alpha=0.5, linewidth=1.2)
    _arrow(ax, product, ACCENT, r"$z\,w$: angles add", linewidth=2.6)
    _arrow(ax, conj_product, CONJUGATE, r"$z\,\bar w$: angles subtract", linewidth=2.6)
    _plane(ax, limit, "real part", "imaginary part")
    ax.set_title(
        f"|z| = {data['z_abs']:.2f}, arg z = {data['z_arg']:.2f}; "
        f"|w| = {data['w_abs']:.2f}, arg w = {data['w_arg']:.2f}",
        fontsize="medium",
    )
    ax.legend(**{**_BELOW, "bbox_to_anchor": (0.5, -0.14), "ncol": 2})
    return fig
