r"""Figures and numbers of chapter 4: the frequency spectrum :math:`\theta_i = \beta^{-2i/d}`.

* :func:`plot_theta_spectrum`: :math:`\theta_i` against *i* for several bases, on a linear and
  a logarithmic axis (RoFormer eq. 15).
* :func:`plot_wavelengths` and :func:`plot_spectrum_state`: wavelengths
  :math:`\lambda_i = 2\pi/\theta_i` against a training length, the planes that complete a
  full period marked; :func:`plot_spectrum_state` is the picture the chapter's widget redraws,
  drawn from :func:`ropelab.widgets.spectrum.spectrum_data`.
* :func:`plot_period_picture`: the scaling-laws paper's Figure 5 (d = 32, base 500 against
  base 1 000 000, :math:`T_\text{train}` = 4096) as wavelength bars.
* :func:`plane_scales`, :func:`wrapped_angle`, :func:`closest_return` and
  :func:`plot_plane_signals`: how far a plane turns per token, and which distances it confuses.
* :func:`compare_bases` and :func:`plot_base_comparison`: base 10 000 against base 100 000
  plane by plane (the sources' ``get_theta`` comparison).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .._checks import (
    check_base,
    check_dim,
    check_finite_array,
    check_positive,
)
from ..core import inv_freq
from ..widgets.spectrum import spectrum_data
from .style import ACCENT, KEY, NEUTRAL, QUERY, WIDTH, new_figure

__all__ = [
    "closest_return",
    "compare_bases",
    "difference_peak",
    "plane_scales",
    "plot_base_comparison",
    "plot_period_picture",
    "plot_plane_signals",
    "plot_spectrum_state",
    "plot_theta_spectrum",
    "plot_wavelengths",
    "wrapped_angle",
]

TWO_PI = 2.0 * math.pi
#: Colours of the two kinds of plane: a full period within T_train, or not.
FULL = ACCENT
PARTIAL = KEY


def _base_label(base: float) -> str:
    return f"{base:,.0f}" if base >= 1 else f"{base:g}"


def _base_colours(count: int) -> list[Any]:
    return [plt.get_cmap("viridis")(x) for x in np.linspace(0.0, 0.85, max(count, 1))]


# --------------------------------------------------------------------------------------
# θ_i against i
# --------------------------------------------------------------------------------------


def plot_theta_spectrum(
    dim: int = 128, bases: Sequence[float] = (500.0, 10000.0, 500000.0, 1e6)
) -> Figure:
    r"""The frequencies :math:`\theta_i = \beta^{-2i/d}` against the plane index *i*, one line per base.

    Left: linear axis (an exponential decay from :math:`\theta_0 = 1`). Right: logarithmic axis,
    where each base is a straight line of slope :math:`-\tfrac{2}{d}\log_{10}\beta` decades per
    plane, because :math:`\log\theta_i = -\tfrac{2i}{d}\log\beta`. Source: RoFormer eq. 15;
    chapter 4. The plotted values are :func:`ropelab.core.inv_freq`.
    """
    dim = check_dim(dim)
    if len(bases) == 0:
        raise ValueError("bases must name at least one base")
    bases = [check_base(b, "bases") for b in bases]
    fig, (lin, log) = new_figure(2, height=3.4)
    planes = np.arange(dim // 2)
    for base, colour in zip(bases, _base_colours(len(bases)), strict=True):
        theta = inv_freq(dim, base)
        for ax in (lin, log):
            ax.plot(planes, theta, "o-", ms=2.5, lw=1.2, color=colour, label=_base_label(base))
    lin.set_title(r"linear axis: exponential decay")
    log.set_title(r"log axis: straight lines")
    log.set_yscale("log")
    for ax in (lin, log):
        ax.set_xlabel("plane index $i$")
        ax.set_ylabel(r"$\theta_i$ (radians per token)")
        ax.grid(alpha=0.3)
    log.legend(title="base β", fontsize=8, title_fontsize=8, loc="lower left")
    fig.suptitle(rf"$\theta_i = \beta^{{-2i/d}}$ for $d = {dim}$ ({dim // 2} planes)")
    return fig


# --------------------------------------------------------------------------------------
# Wavelengths against the training length
# --------------------------------------------------------------------------------------


def _plane_colours(full: np.ndarray) -> list[str]:
    return [FULL if f else PARTIAL for f in full]


def _draw_wavelengths(ax: Axes, data: dict[str, Any]) -> None:
    planes, wavelength, full = data["plane"], data["wavelength"], data["full_period"]
    ax.scatter(planes, wavelength, s=12, c=_plane_colours(full), zorder=3)
    ax.axhline(data["train_len"], color=NEUTRAL, ls="--", lw=1.2)
    ax.text(
        0.02,
        data["train_len"],
        rf" $T_\mathrm{{train}}$ = {data['train_len']:,.0f}",
        transform=ax.get_yaxis_transform(),
        va="bottom",
        fontsize=8,
        color=NEUTRAL,
    )
    if 0 < data["n_full"] < data["n_planes"]:
        ax.axvline(data["n_full"] - 0.5, color=NEUTRAL, ls=":", lw=1)
    ax.set_yscale("log")
    ax.set_xlabel("plane index $i$")
    ax.set_ylabel(r"wavelength $\lambda_i = 2\pi/\theta_i$ (tokens)")
    ax.grid(alpha=0.3)
    ax.legend(
        handles=[
            Line2D([], [], ls="", marker="o", color=FULL, label=f"full period: {data['n_full']}"),
            Line2D(
                [],
                [],
                ls="",
                marker="o",
                color=PARTIAL,
                label=f"no full period: {data['n_partial']}",
            ),
        ],
        loc="lower right",
        fontsize=8,
    )


def plot_wavelengths(
    dim: int = 128, base: float = 10000.0, train_len: float = 4096.0, *, ax: Axes | None = None
) -> Figure:
    r"""Wavelengths :math:`\lambda_i = 2\pi\beta^{2i/d}` against :math:`T_\text{train}` (chapter 4).

    Green points complete a full period within the training length
    (:math:`\lambda_i \le T_\text{train}`), red ones do not; the dotted line separates them
    (the critical dimension of Liu et al., section 3.2). The data is
    :func:`ropelab.widgets.spectrum.spectrum_data`.
    """
    data = spectrum_data(dim, base, train_len)
    if ax is None:
        fig, ax = new_figure(height=3.4)
    else:
        fig = ax.figure
    _draw_wavelengths(ax, data)
    ax.set_title(
        rf"$d = {data['dim']}$, β = {_base_label(data['base'])}: {data['n_full']} of "
        rf"{data['n_planes']} planes complete a period within $T_\mathrm{{train}}$"
    )
    return fig


def plot_spectrum_state(
    dim: int, base: float, train_len: float, *, reference_base: float | None = 10000.0
) -> Figure:
    r"""The picture the chapter-4 widget redraws, a plain function of the three slider values.

    Left: :math:`\theta_i` (log axis) with the threshold :math:`2\pi/T_\text{train}` (planes
    above it complete a period) and, dashed, the spectrum of ``reference_base`` for comparison.
    Right: the wavelengths against :math:`T_\text{train}` as in :func:`plot_wavelengths`.
    Everything drawn comes from :func:`ropelab.widgets.spectrum.spectrum_data`.
    """
    data = spectrum_data(dim, base, train_len)
    fig, (left, right) = new_figure(2, height=3.4)
    planes = data["plane"]
    if reference_base is not None:
        reference = inv_freq(data["dim"], check_base(reference_base, "reference_base"))
        left.plot(
            planes, reference, "--", color=NEUTRAL, lw=1, label=f"β = {_base_label(reference_base)}"
        )
    left.scatter(
        planes,
        data["theta"],
        s=12,
        c=_plane_colours(data["full_period"]),
        zorder=3,
        label=f"β = {_base_label(data['base'])}",
    )
    left.axhline(data["theta_threshold"], color=NEUTRAL, ls=":", lw=1.2)
    left.text(
        0.98,
        data["theta_threshold"],
        r"$2\pi/T_\mathrm{train}$",
        transform=left.get_yaxis_transform(),
        ha="right",
        va="bottom",
        fontsize=8,
        color=NEUTRAL,
    )
    left.set_yscale("log")
    left.set_xlabel("plane index $i$")
    left.set_ylabel(r"$\theta_i$ (radians per token)")
    left.set_title(r"frequencies $\theta_i = \beta^{-2i/d}$")
    left.grid(alpha=0.3)
    left.legend(fontsize=8, loc="lower left")
    _draw_wavelengths(right, data)
    right.set_title(r"wavelengths against $T_\mathrm{train}$")
    fig.suptitle(
        rf"$d = {data['dim']}$, β = {_base_label(data['base'])}, "
        rf"$T_\mathrm{{train}}$ = {data['train_len']:,.0f}:  {data['n_full']} of "
        rf"{data['n_planes']} planes complete a period ($d_\mathrm{{extra}}$ = {data['critical_dim']})",
        fontsize=11,
    )
    return fig


def plot_period_picture(
    dim: int = 32, bases: Sequence[float] = (500.0, 1e6), train_len: float = 4096.0
) -> Figure:
    r"""The scaling-laws paper's Figure 5: each plane's period against the training length.

    One panel per base; plane *i* is a bar from 1 to its wavelength :math:`\lambda_i` (log axis),
    green when :math:`\lambda_i \le T_\text{train}`, red when the plane never completes a turn in
    training. The shaded band is the training window. With d = 32 (16 planes) and
    :math:`T_\text{train}` = 4096, base 500 puts all 16 periods inside and base 1 000 000 only 8
    (Liu et al., *Scaling Laws of RoPE-based Extrapolation*, Figure 5; chapter 4).
    """
    if len(bases) == 0:
        raise ValueError("bases must name at least one base")
    panels = [spectrum_data(dim, b, train_len) for b in bases]
    fig, axes = new_figure(len(panels), height=3.6, sharey=True, squeeze=False)
    axes = axes[0]
    longest = max(float(p["wavelength"].max()) for p in panels)
    right_edge = 10 ** math.ceil(math.log10(max(longest, train_len) * 1.5))
    for ax, data in zip(axes, panels, strict=True):
        planes = data["plane"]
        ax.axvspan(1, data["train_len"], color=QUERY, alpha=0.10, lw=0)
        ax.axvline(data["train_len"], color=QUERY, lw=1.2)
        ax.barh(
            planes,
            data["wavelength"] - 1.0,
            left=1.0,
            height=0.7,
            color=_plane_colours(data["full_period"]),
        )
        ax.set_xscale("log")
        ax.set_xlim(1, right_edge)
        ax.set_xlabel(r"wavelength $\lambda_i$ (tokens, log scale)")
        ax.set_title(
            f"β = {_base_label(data['base'])}: {data['n_full']} of {data['n_planes']} "
            "planes\ncomplete a period",
            fontsize=10,
        )
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_ylabel("plane index $i$")
    axes[0].invert_yaxis()
    axes[0].set_yticks(panels[0]["plane"][:: max(1, panels[0]["n_planes"] // 8)])
    fig.legend(
        handles=[
            Patch(
                color=QUERY,
                alpha=0.25,
                label=rf"training window $T_\mathrm{{train}}$ = {train_len:,.0f}",
            ),
            Patch(color=FULL, label=r"$\lambda_i \leq T_\mathrm{train}$"),
            Patch(color=PARTIAL, label=r"$\lambda_i > T_\mathrm{train}$"),
        ],
        loc="outside lower center",
        ncols=3,
        fontsize=8,
    )
    fig.suptitle(f"Periods against the training length, $d = {panels[0]['dim']}$")
    return fig


# --------------------------------------------------------------------------------------
# Fast planes and slow planes
# --------------------------------------------------------------------------------------


def plane_scales(dim: int, base: float, train_len: float) -> dict[str, np.ndarray]:
    r"""How far each plane turns per token and within a context (chapter 4).

    For plane *i*, with :math:`\theta_i = \beta^{-2i/d}`:

    * ``degrees_per_token``: the angle step between neighbouring positions, :math:`\theta_i`
      in degrees;
    * ``tokens_per_radian``: :math:`1/\theta_i`, the distance over which the plane turns by one
      radian (57.3°); distances much shorter than this give nearly the same angle in plane *i*;
    * ``wavelength``: :math:`\lambda_i = 2\pi/\theta_i`, after which the angle repeats;
    * ``turns``: :math:`T_\text{train}\theta_i/2\pi`, full turns within the training length;
    * ``arc_degrees``: the part of the circle the angles :math:`m\theta_i`,
      :math:`0 \le m \le T_\text{train}`, cover: :math:`\min(T_\text{train}\theta_i, 2\pi)` in
      degrees;
    * ``monotone``: :math:`T_\text{train}\theta_i \le \pi`, the plane turns by at most half a
      turn within the training length, so :math:`\cos(r\theta_i)` decreases steadily for
      :math:`0 \le r \le T_\text{train}` and orders those distances without ambiguity.

    Returns:
        A dict of arrays of shape ``(dim // 2,)``: ``plane`` (int64), ``monotone`` (bool), the
        others float64 (``theta`` included).
    """
    theta = inv_freq(check_dim(dim), check_base(base))
    train_len = check_positive(train_len, "train_len")
    return {
        "plane": np.arange(theta.size, dtype=np.int64),
        "theta": theta,
        "degrees_per_token": np.degrees(theta),
        "tokens_per_radian": 1.0 / theta,
        "wavelength": TWO_PI / theta,
        "turns": train_len * theta / TWO_PI,
        "arc_degrees": np.degrees(np.minimum(train_len * theta, TWO_PI)),
        "monotone": train_len * theta <= math.pi,
    }


def wrapped_angle(distances: Any, theta: float) -> np.ndarray:
    r"""The angle :math:`r\theta` reduced to :math:`[-\pi, \pi)`: how far apart, on the circle,
    plane θ puts two positions that are *r* tokens apart (chapter 4).

    A plane cannot tell distance *r* from distance 0 when this is close to zero, however large
    *r* is: the rotation only sees :math:`r\theta` modulo :math:`2\pi`.
    """
    r = check_finite_array(distances, "distances")
    theta = check_positive(theta, "theta")
    return np.mod(r * theta + math.pi, TWO_PI) - math.pi


def closest_return(theta: float, max_distance: int) -> tuple[int, float]:
    r"""The distance :math:`1 \le r \le` ``max_distance`` that plane θ confuses most with 0.

    Returns ``(r, angle)`` where *r* minimises :math:`|r\theta \bmod 2\pi|` (wrapped to
    :math:`[-\pi, \pi)` by :func:`wrapped_angle`) and ``angle`` is that wrapped angle in radians.
    For θ = 1 (plane 0) and ``max_distance = 100``: r = 44, because :math:`44 \approx 7\cdot 2\pi`.
    Chapter 4.
    """
    if isinstance(max_distance, bool) or int(max_distance) != max_distance or max_distance < 1:
        raise ValueError(f"max_distance must be an integer >= 1, got {max_distance!r}")
    distances = np.arange(1, int(max_distance) + 1)
    angles = wrapped_angle(distances, theta)
    best = int(np.argmin(np.abs(angles)))
    return int(distances[best]), float(angles[best])


def plot_plane_signals(
    dim: int = 128,
    base: float = 10000.0,
    planes: Sequence[int] = (0, 24, 63),
    short_len: int = 32,
    long_len: int = 4096,
) -> Figure:
    r"""The signal :math:`\cos(m\theta_i)` of a few planes over a short and a long range of positions.

    Left: positions ``0 .. short_len``; a fast plane (small *i*) changes a lot from one token to
    the next, a slow plane (large *i*) does not change visibly. Right: positions
    ``0 .. long_len``; the fast plane repeats hundreds of times, so on this scale it cannot
    order distances, while the slow plane changes slowly and steadily. Chapter 4.
    """
    dim = check_dim(dim)
    theta = inv_freq(dim, check_base(base))
    planes = [int(p) for p in planes]
    if not planes or min(planes) < 0 or max(planes) >= dim // 2:
        raise ValueError(f"planes must be indices in [0, {dim // 2 - 1}], got {planes}")
    short_len = int(check_positive(short_len, "short_len"))
    long_len = int(check_positive(long_len, "long_len"))
    fig, (near, far) = new_figure(2, height=3.2, sharey=True)
    colours = [QUERY, ACCENT, KEY, NEUTRAL]
    for k, plane in enumerate(planes):
        colour = colours[k % len(colours)]
        label = rf"$i = {plane}$, $\lambda_i$ = {TWO_PI / theta[plane]:,.1f}"
        m = np.arange(short_len + 1)
        near.plot(m, np.cos(m * theta[plane]), "o-", ms=3, lw=1, color=colour, label=label)
        m = np.arange(long_len + 1)
        fast = TWO_PI / theta[plane] < long_len / 100  # too many periods to draw as a curve
        far.plot(
            m,
            np.cos(m * theta[plane]),
            lw=0.3 if fast else 1.4,
            alpha=0.5 if fast else 1.0,
            color=colour,
        )
    near.set_title(f"positions 0 to {short_len}")
    far.set_title(f"positions 0 to {long_len:,}")
    near.set_ylabel(r"$\cos(m\theta_i)$")
    for ax in (near, far):
        ax.set_xlabel("position $m$ (tokens)")
        ax.grid(alpha=0.3)
    fig.legend(loc="outside lower center", ncols=len(planes), fontsize=8)
    fig.suptitle(rf"Fast and slow planes, $d = {dim}$, β = {_base_label(base)}")
    return fig


# --------------------------------------------------------------------------------------
# Two bases, plane by plane
# --------------------------------------------------------------------------------------


def compare_bases(
    dim: int = 128, base_a: float = 10000.0, base_b: float = 100000.0
) -> dict[str, np.ndarray]:
    r"""The spectra of two bases side by side (the sources' ``get_theta`` comparison; chapter 4).

    .. math::
        \theta^{(a)}_i = \beta_a^{-2i/d},\quad \theta^{(b)}_i = \beta_b^{-2i/d},\quad
        \frac{\theta^{(b)}_i}{\theta^{(a)}_i} = \left(\frac{\beta_a}{\beta_b}\right)^{2i/d}

    Returns:
        ``plane``; ``theta_a``, ``theta_b``; ``abs_diff`` :math:`= \theta^{(a)}_i - \theta^{(b)}_i`;
        ``ratio`` :math:`= \theta^{(b)}_i/\theta^{(a)}_i` (the wavelength grows by ``1/ratio``);
        ``rel_change`` :math:`= 1 - \text{ratio}`.
    """
    dim = check_dim(dim)
    theta_a = inv_freq(dim, check_base(base_a, "base_a"))
    theta_b = inv_freq(dim, check_base(base_b, "base_b"))
    ratio = theta_b / theta_a
    return {
        "plane": np.arange(theta_a.size, dtype=np.int64),
        "theta_a": theta_a,
        "theta_b": theta_b,
        "abs_diff": theta_a - theta_b,
        "ratio": ratio,
        "rel_change": 1.0 - ratio,
    }


def difference_peak(dim: int = 128, base_a: float = 10000.0, base_b: float = 100000.0) -> float:
    r"""Where the absolute difference :math:`\theta^{(a)}_i - \theta^{(b)}_i` peaks, *i* treated as continuous.

    With :math:`x = 2i/d`, :math:`f(x) = \beta_a^{-x} - \beta_b^{-x}` and
    :math:`f'(x) = \ln\beta_b\,\beta_b^{-x} - \ln\beta_a\,\beta_a^{-x}`, which vanishes at

    .. math:: x^* = \frac{\ln(\ln\beta_b / \ln\beta_a)}{\ln(\beta_b/\beta_a)}, \qquad
        i^* = \frac d2\, x^*.

    For :math:`1 < \beta_a < \beta_b` this is the maximum over real *i*; for small bases it
    can lie past the last plane :math:`d/2 - 1`. d = 128, bases 10 000 and
    100 000: :math:`x^* = \log_{10} 1.25`, :math:`i^* \approx 6.20` (chapter 4).
    """
    dim = check_dim(dim)
    a = check_positive(base_a, "base_a", minimum=1.0)
    b = check_positive(base_b, "base_b", minimum=a)
    return dim / 2 * math.log(math.log(b) / math.log(a)) / math.log(b / a)


def plot_base_comparison(
    dim: int = 128, base_a: float = 10000.0, base_b: float = 100000.0
) -> Figure:
    r"""Two bases plane by plane: the spectra, their absolute difference and their ratio.

    Left: :math:`\theta_i` for both bases (linear axis, as the sources draw it). Middle: the
    absolute difference :math:`\theta^{(a)}_i - \theta^{(b)}_i`, largest at a small index and
    tiny for the last planes. Right: the ratio :math:`\theta^{(b)}_i/\theta^{(a)}_i =
    (\beta_a/\beta_b)^{2i/d}`, which keeps falling with *i*: relative to their size the last
    planes change most. Data: :func:`compare_bases`. Chapter 4.
    """
    data = compare_bases(dim, base_a, base_b)
    planes = data["plane"]
    fig, (spec, diff, ratio) = new_figure(3, width=WIDTH, height=3.0)
    label_a, label_b = f"β = {_base_label(base_a)}", f"β = {_base_label(base_b)}"
    spec.plot(planes, data["theta_a"], "o-", ms=2, lw=1, color=QUERY, label=label_a)
    spec.plot(planes, data["theta_b"], "o-", ms=2, lw=1, color=KEY, label=label_b)
    spec.set_ylabel(r"$\theta_i$")
    spec.set_title("spectra", fontsize=10)
    spec.legend(fontsize=8)
    diff.plot(planes, data["abs_diff"], "o-", ms=2, lw=1, color=NEUTRAL)
    peak = int(np.argmax(data["abs_diff"]))
    diff.plot([peak], [data["abs_diff"][peak]], "o", color=KEY, ms=5)
    diff.annotate(
        f"max at $i = {peak}$",
        (peak, data["abs_diff"][peak]),
        xytext=(12, -4),
        textcoords="offset points",
        fontsize=8,
    )
    diff.set_title("absolute difference", fontsize=10)
    diff.set_ylabel(r"$\theta^{(a)}_i - \theta^{(b)}_i$")
    ratio.plot(planes, data["ratio"], "o-", ms=2, lw=1, color=ACCENT)
    ratio.set_ylim(0, 1.05)
    ratio.set_title("ratio", fontsize=10)
    ratio.set_ylabel(r"$\theta^{(b)}_i / \theta^{(a)}_i$")
    for ax in (spec, diff, ratio):
        ax.set_xlabel("plane index $i$")
        ax.grid(alpha=0.3)
    fig.suptitle(
        f"(a) β = {_base_label(base_a)} against (b) β = {_base_label(base_b)}, $d = {dim}$"
    )
    return fig
