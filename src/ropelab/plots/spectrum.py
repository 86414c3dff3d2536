r"""Figures and numbers of chapter 4: the frequency spectrum :math:`\theta_i = \beta^{-2i/d}`.

* :func:`plot_theta_spectrum`: :math:`\theta_i` against *i* for several bases, on a linear and
  a logarithmic axis (RoFormer eq. 15).
* :func:`plot_wavelengths` and :func:`plot_spectrum_state`: wavelengths
  :math:`\lambda_i = 2\pi/\theta_i` against a training length, the planes that complete a
  full period marked; :func:`draw_spectrum_state` is the static view of the chapter's
  interactive figure, drawn from :func:`ropelab.spectrum.spectrum_data`.
* :func:`plot_period_picture`: the scaling-laws paper's Figure 5 (d = 32, base 500 against
  base 1 000 000, :math:`T_\text{train}` = 4096) as wavelength bars.
* :func:`plot_plane_signals`: how far a plane turns per token over a short and a long range.
* :func:`plot_base_comparison`: base 10 000 against base 100 000 plane by plane (the sources'
  ``get_theta`` comparison).

The numbers come from :mod:`ropelab.spectrum`.
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

from .._checks import check_base, check_dim, check_positive
from ..core import inv_freq
from ..spectrum import TWO_PI, compare_bases, spectrum_data
from .style import ACCENT, KEY, NEUTRAL, QUERY, WIDTH, new_figure

__all__ = [
    "draw_spectrum_state",
    "plot_base_comparison",
    "plot_period_picture",
    "plot_plane_signals",
    "plot_spectrum_state",
    "plot_theta_spectrum",
    "plot_wavelengths",
]

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
    :func:`ropelab.spectrum.spectrum_data`.
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
    r"""Chapter 4's spectrum figure for a head dimension, a base and a training length.

    :func:`draw_spectrum_state` of :func:`ropelab.spectrum.spectrum_data`.
    """
    return draw_spectrum_state(spectrum_data(dim, base, train_len, reference_base))


def draw_spectrum_state(data: dict[str, Any]) -> Figure:
    r"""The static view of chapter 4's interactive figure, drawn from
    :func:`ropelab.spectrum.spectrum_data`.

    Left: :math:`\theta_i` (log axis) with the threshold :math:`2\pi/T_\text{train}` (planes
    above it complete a period) and, dashed, the spectrum of the reference base when the data
    has one. Right: the wavelengths against :math:`T_\text{train}` as in
    :func:`plot_wavelengths`.
    """
    fig, (left, right) = new_figure(2, height=3.4)
    planes = data["plane"]
    if "reference_theta" in data:
        left.plot(
            planes,
            data["reference_theta"],
            "--",
            color=NEUTRAL,
            lw=1,
            label=f"β = {_base_label(data['reference_base'])}",
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
    order distances (it is drawn as a faint band behind the other curves, labelled with its
    number of periods), while the slow plane changes slowly and steadily. Chapter 4.
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
        # A plane with too many periods to draw as a curve fills the panel: draw it as a faint
        # band behind the others, so that it never hides the slow planes' curves.
        periods = long_len * theta[plane] / TWO_PI
        fast = periods > 100
        far.plot(
            m,
            np.cos(m * theta[plane]),
            lw=0.3 if fast else 1.6,
            alpha=0.18 if fast else 1.0,
            color=colour,
            zorder=1 if fast else 3,
        )
        if fast:
            far.text(
                0.98,
                0.04 + 0.08 * k,
                f"i = {plane}: {periods:,.0f} periods (faint band)",
                transform=far.transAxes,
                ha="right",
                fontsize=7,
                color=colour,
                zorder=4,
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1},
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
