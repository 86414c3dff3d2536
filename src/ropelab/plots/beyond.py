r"""Figures of chapter 9 (RoPE beyond the sources). Each function draws data it is given.

The data come from the chapter's computation modules: :mod:`ropelab.partial_rotary`
(p-RoPE and the two partial conventions), :mod:`ropelab.frequency_usage` (per-plane q/k
norms), :mod:`ropelab.mla` (cache sizes, offset dependence), :mod:`ropelab.hybrid` (layer
patterns, Llama 4's temperature), :mod:`ropelab.multimodal` (plane-to-axis allocations,
2D scores) and :mod:`ropelab.frequency_designs` (the base bound). Nothing here computes a
model quantity; every function returns a matplotlib Figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from .style import ACCENT, DIVERGING, KEY, NEUTRAL, QUERY, new_figure

__all__ = [
    "AXIS_COLOURS",
    "SERIES_COLOURS",
    "draw_multiaxis",
    "plot_axis_allocations",
    "plot_base_bound",
    "plot_cache_sizes",
    "plot_decay_curves",
    "plot_layer_patterns",
    "plot_offset_dependence",
    "plot_plane_norms",
    "plot_rotated_coordinates",
    "plot_score_map",
    "plot_spectra",
    "plot_temperature",
]

#: Colours for up to six series of one figure, in order.
SERIES_COLOURS = (QUERY, KEY, ACCENT, "#ff7f0e", "#9467bd", NEUTRAL)
#: One colour per position axis (t or row, h or column, w).
AXIS_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c")


def _series(data: Mapping[str, Any]) -> list[tuple[str, np.ndarray, str]]:
    if not data:
        raise ValueError("at least one series is needed")
    if len(data) > len(SERIES_COLOURS):
        raise ValueError(f"at most {len(SERIES_COLOURS)} series can be drawn, got {len(data)}")
    return [
        (name, np.asarray(value, dtype=np.float64), SERIES_COLOURS[i])
        for i, (name, value) in enumerate(data.items())
    ]


def plot_spectra(
    spectra: Mapping[str, Any], *, train_len: float | None = None, title: str | None = None
) -> Figure:
    r"""Wavelengths :math:`2\pi/\theta_i` of several frequency sets against the plane index.

    A plane with frequency 0 (removed by p-RoPE) has no wavelength; it is drawn as a cross at
    the top of the axis. ``train_len`` draws the training length as a horizontal line: planes
    below it complete a full period during training (the critical dimension of chapter 6).
    """
    fig, ax = new_figure(height=3.6)
    top = 1.0
    series = _series(spectra)
    for _, theta, _ in series:
        nonzero = theta[theta > 0]
        if nonzero.size:
            top = max(top, float((2 * np.pi / nonzero).max()))
    top *= 3.0
    for offset, (name, theta, colour) in enumerate(series):
        planes = np.arange(theta.size)
        turning = theta > 0
        ax.semilogy(
            planes[turning],
            2 * np.pi / theta[turning],
            "o",
            ms=3.5 - 0.6 * offset,
            color=colour,
            label=name,
        )
        if np.any(~turning):
            ax.semilogy(
                planes[~turning],
                np.full(int(np.sum(~turning)), top / (1.6**offset)),
                "x",
                ms=4,
                color=colour,
            )
    if train_len is not None:
        ax.axhline(
            train_len, color=NEUTRAL, lw=1.0, ls="--", label=f"training length {train_len:,.0f}"
        )
    ax.set_xlabel("plane i")
    ax.set_ylabel(r"wavelength $2\pi/\theta_i$ (tokens)")
    ax.legend(fontsize=7, loc="lower right")
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def plot_decay_curves(
    distances: Any, scores: Mapping[str, Any], *, title: str | None = None
) -> Figure:
    r"""Scores against the distance on a logarithmic axis (chapter 5's all-ones score).

    Args:
        distances: the distances *r* (> 0 for the log axis).
        scores: label -> score per distance.
    """
    r = np.asarray(distances, dtype=np.float64)
    fig, ax = new_figure(height=3.6)
    for name, values, colour in _series(scores):
        if values.shape != r.shape:
            raise ValueError(f"scores[{name!r}] must have the shape of distances {r.shape}")
        ax.semilogx(r, values, lw=1.0, color=colour, label=name)
    ax.axhline(0.0, color=NEUTRAL, lw=0.8, ls=":")
    ax.set_xlabel("distance r (tokens)")
    ax.set_ylabel("score of q = k = 1")
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def plot_plane_norms(q_norms: Any, k_norms: Any, theta: Any, *, title: str | None = None) -> Figure:
    r"""Mean per-plane norms of q and k per layer, against the plane's frequency.

    Args:
        q_norms, k_norms: ``(n_layer, n_planes)`` (average over heads before calling).
        theta: ``(n_planes,)`` frequencies; the x axis is the wavelength, log scale.
    """
    q = np.asarray(q_norms, dtype=np.float64)
    k = np.asarray(k_norms, dtype=np.float64)
    theta = np.asarray(theta, dtype=np.float64)
    if q.ndim != 2 or q.shape != k.shape or q.shape[1] != theta.size:
        raise ValueError(
            f"q_norms and k_norms must be (n_layer, n_planes) with n_planes = len(theta), "
            f"got {q.shape}, {k.shape} and {theta.shape}"
        )
    fig, axes = new_figure(2, sharey=True)
    wavelength = 2 * np.pi / theta
    for ax, values, name in ((axes[0], q, "q"), (axes[1], k, "k")):
        for layer in range(values.shape[0]):
            colour = SERIES_COLOURS[layer % len(SERIES_COLOURS)]
            ax.semilogx(
                wavelength, values[layer], "o-", ms=3, lw=1.0, color=colour, label=f"layer {layer}"
            )
        ax.set_xlabel(r"wavelength $2\pi/\theta_i$ (tokens)")
        ax.set_title(f"{name}: mean norm per plane", fontsize=9)
    axes[0].set_ylabel("mean plane norm")
    axes[0].legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=9)
    return fig


def plot_rotated_coordinates(
    masks: Mapping[str, Any], frequencies: Mapping[str, Any], *, title: str | None = None
) -> Figure:
    r"""Which coordinates of a head rotate (left) and at which frequencies (right).

    Args:
        masks: label -> boolean mask over the head's coordinates.
        frequencies: label -> the rotating planes' frequencies (same labels).
    """
    if set(masks) != set(frequencies):
        raise ValueError("masks and frequencies must have the same labels")
    fig, (left, right) = new_figure(2, height=3.2)
    labels = list(masks)
    grid = np.array([np.asarray(masks[name], dtype=float) for name in labels])
    left.imshow(grid, aspect="auto", cmap=ListedColormap(["#eeeeee", QUERY]), vmin=0, vmax=1)
    left.set_yticks(range(len(labels)), labels, fontsize=7)
    left.set_xlabel("coordinate of the head")
    left.set_title("rotating coordinates (blue)", fontsize=9)
    for name, theta, colour in _series({n: frequencies[n] for n in labels}):
        right.semilogy(np.arange(theta.size), theta, "o-", ms=3, lw=1.0, color=colour, label=name)
    right.set_xlabel("rotating plane")
    right.set_ylabel(r"$\theta_i$")
    right.legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=9)
    return fig


def plot_cache_sizes(elements: Mapping[str, float], *, title: str | None = None) -> Figure:
    """Cache elements per token and layer, one horizontal bar per attention variant (log axis)."""
    if not elements:
        raise ValueError("elements must not be empty")
    fig, ax = new_figure(height=2.8)
    names = list(elements)
    values = np.array([float(elements[n]) for n in names])
    if np.any(values <= 0):
        raise ValueError("elements must be > 0")
    ax.barh(range(len(names)), values, color=[SERIES_COLOURS[i % 6] for i in range(len(names))])
    ax.set_xscale("log")
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.invert_yaxis()
    for i, value in enumerate(values):
        ax.text(value * 1.1, i, f"{value:,.0f}", va="center", fontsize=8)
    ax.set_xlim(values.min() / 2, values.max() * 8)
    ax.set_xlabel("cached elements per token and layer")
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def plot_offset_dependence(offsets: Any, change: Any, *, title: str | None = None) -> Figure:
    r"""The relative change of :math:`W_Q^\top R_r W_{UK}` from the absorbed matrix, per offset."""
    r = np.asarray(offsets, dtype=np.float64)
    values = np.asarray(change, dtype=np.float64)
    if r.shape != values.shape:
        raise ValueError(
            f"offsets and change must have the same shape, got {r.shape} and {values.shape}"
        )
    fig, ax = new_figure(height=3.0)
    ax.plot(r, values, "o-", ms=3, lw=1.0, color=KEY)
    ax.axhline(0.0, color=NEUTRAL, lw=0.8, ls=":")
    ax.set_xlabel("offset n - m (tokens)")
    ax.set_ylabel("relative change of the matrix")
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def plot_layer_patterns(
    patterns: Mapping[str, Sequence[bool]], *, title: str | None = None
) -> Figure:
    """Hybrid stacks as strips: one row per design, a cell per layer, RoPE or NoPE."""
    if not patterns:
        raise ValueError("patterns must not be empty")
    names = list(patterns)
    lengths = {len(patterns[n]) for n in names}
    if len(lengths) != 1:
        raise ValueError("every pattern must have the same number of layers")
    grid = np.array([[1.0 if rope else 0.0 for rope in patterns[n]] for n in names])
    fig, ax = new_figure(height=1.0 + 0.45 * len(names))
    ax.imshow(grid, aspect="auto", cmap=ListedColormap([KEY, QUERY]), vmin=0, vmax=1)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_xticks(range(grid.shape[1]))
    ax.set_xticklabels(range(grid.shape[1]), fontsize=7)
    ax.set_xlabel("layer (blue: RoPE in local attention, red: NoPE, global)")
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def plot_temperature(positions: Any, temperature: Any, *, title: str | None = None) -> Figure:
    """Llama 4's query temperature against the position (log axis)."""
    m = np.asarray(positions, dtype=np.float64)
    tau = np.asarray(temperature, dtype=np.float64)
    if m.shape != tau.shape:
        raise ValueError(
            f"positions and temperature must have the same shape, got {m.shape} and {tau.shape}"
        )
    fig, ax = new_figure(height=3.0)
    ax.semilogx(m + 1, tau, lw=1.2, color=ACCENT, drawstyle="steps-post")
    ax.set_xlabel("position m + 1 (tokens)")
    ax.set_ylabel("query temperature")
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def plot_axis_allocations(
    allocations: Mapping[str, Any],
    theta: Any,
    axis_names: Sequence[str] = ("t", "h", "w"),
    *,
    title: str | None = None,
) -> Figure:
    r"""Which position axis each plane follows, per scheme, against :math:`\theta_i`.

    Args:
        allocations: label -> the axis of each plane ``(n_planes,)``.
        theta: the planes' frequencies ``(n_planes,)``.
        axis_names: names of the axes, for the legend.
    """
    theta = np.asarray(theta, dtype=np.float64)
    if not allocations:
        raise ValueError("allocations must not be empty")
    if len(axis_names) > len(AXIS_COLOURS):
        raise ValueError(f"at most {len(AXIS_COLOURS)} axes, got {len(axis_names)}")
    fig, axes = new_figure(1, len(allocations), height=1.2 + 1.3 * len(allocations), sharex=True)
    axes = np.atleast_1d(axes)
    for ax, (name, values) in zip(axes, allocations.items(), strict=True):
        values = np.asarray(values)
        if values.shape != theta.shape:
            raise ValueError(f"allocations[{name!r}] must have the shape of theta {theta.shape}")
        for axis, label in enumerate(axis_names):
            chosen = values == axis
            ax.semilogy(
                np.flatnonzero(chosen),
                theta[chosen],
                "o",
                ms=3.5,
                color=AXIS_COLOURS[axis],
                label=label,
            )
        ax.set_ylabel(r"$\theta_i$")
        ax.set_title(name, fontsize=9)
        ax.legend(fontsize=7, ncol=len(axis_names), loc="lower left")
    axes[-1].set_xlabel("plane i")
    if title:
        fig.suptitle(title, fontsize=9)
    return fig


def plot_score_map(
    row_offsets: Any, col_offsets: Any, maps: Mapping[str, Any], *, title: str | None = None
) -> Figure:
    """Scores over a grid of 2D offsets, one heatmap per map (shared signed colour scale)."""
    rows = np.asarray(row_offsets, dtype=np.float64)
    cols = np.asarray(col_offsets, dtype=np.float64)
    if not maps:
        raise ValueError("maps must not be empty")
    arrays = {n: np.asarray(v, dtype=np.float64) for n, v in maps.items()}
    for name, array in arrays.items():
        if array.shape != (rows.size, cols.size):
            raise ValueError(
                f"maps[{name!r}] must have shape {(rows.size, cols.size)}, got {array.shape}"
            )
    limit = max(float(np.abs(a).max()) for a in arrays.values())
    fig, axes = new_figure(len(arrays), height=3.4)
    axes = np.atleast_1d(axes)
    extent = (cols[0] - 0.5, cols[-1] + 0.5, rows[-1] + 0.5, rows[0] - 0.5)
    image = None
    for ax, (name, array) in zip(axes, arrays.items(), strict=True):
        image = ax.imshow(array, cmap=DIVERGING, vmin=-limit, vmax=limit, extent=extent)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("column offset")
    axes[0].set_ylabel("row offset")
    fig.colorbar(image, ax=list(axes), shrink=0.8)
    if title:
        fig.suptitle(title, fontsize=9)
    return fig


def plot_base_bound(
    bases: Any,
    first_failure: Any,
    bounds: Mapping[int, float],
    published: Mapping[int, float] | None = None,
    trend: Mapping[int, float] | None = None,
    *,
    title: str | None = None,
) -> Figure:
    r"""The first distance where :math:`\sum_i\cos(m\theta_i) < 0`, against the base (log-log).

    Args:
        bases: the bases scanned.
        first_failure: the first failing distance of each base.
        bounds: context length -> the smallest passing base found (drawn as dots).
        published: context length -> a published bound (drawn as open squares).
        trend: context length -> chapter 5's trend base :math:`e^\gamma L` (crosses).
    """
    b = np.asarray(bases, dtype=np.float64)
    failure = np.asarray(first_failure, dtype=np.float64)
    if b.shape != failure.shape:
        raise ValueError(
            f"bases and first_failure must have the same shape, got {b.shape} and {failure.shape}"
        )
    fig, ax = new_figure(height=3.8)
    ax.loglog(b, np.maximum(failure, 1.0), lw=0.8, color=NEUTRAL, label="first m with B(m) < 0")
    lengths = sorted(bounds)
    ax.loglog([bounds[n] for n in lengths], lengths, "o", color=QUERY, label="smallest base found")
    if published:
        keys = sorted(published)
        ax.loglog(
            [published[n] for n in keys],
            keys,
            "s",
            mfc="none",
            color=KEY,
            ms=7,
            label="Men et al., Table 1",
        )
    if trend:
        keys = sorted(trend)
        ax.loglog(
            [trend[n] for n in keys], keys, "x", color=ACCENT, ms=6, label=r"trend: $e^\gamma L$"
        )
    for length in lengths:
        ax.axhline(length, color=NEUTRAL, lw=0.5, ls=":")
    ax.set_xlabel(r"base $\beta$")
    ax.set_ylabel("context length (tokens)")
    ax.legend(fontsize=7, loc="upper left")
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def draw_multiaxis(data: Mapping[str, Any]) -> Figure:
    r"""Chapter 9's explorer of 2D and multimodal RoPE, drawn from
    :func:`ropelab.multimodal.multiaxis_explorer_data`.

    Left: each plane's turn between the two tokens, :math:`(b - a)_{a(i)}\theta_i`, coloured
    by the plane's axis. Right: the all-ones score against an offset along one axis at a time
    (one curve per axis), the offset's own components marked.
    """
    names = list(data["axis_names"])
    axes = np.asarray(data["axes"])
    turn = np.asarray(data["relative_angle"])
    fig, (left, right) = new_figure(2, height=3.6)
    planes = np.arange(axes.size)
    for a, name in enumerate(names):
        chosen = axes == a
        left.bar(planes[chosen], turn[chosen], width=0.8, color=AXIS_COLOURS[a], label=name)
    left.axhline(0.0, color=NEUTRAL, lw=0.6)
    left.set_xlabel("plane index i")
    left.set_ylabel(r"turn $(b - a)_{a(i)}\,\theta_i$ (rad)")
    left.legend(fontsize=8, title="axis", title_fontsize=8)
    offsets = np.asarray(data["offsets"])
    scores = np.asarray(data["axis_scores"])
    offset = np.asarray(data["position_b"]) - np.asarray(data["position_a"])
    for a, name in enumerate(names):
        right.plot(offsets, scores[a], color=AXIS_COLOURS[a], lw=1.4, label=f"along {name}")
        right.axvline(offset[a], color=AXIS_COLOURS[a], ls=":", lw=1.0)
    right.set_xlabel("offset along one axis (positions)")
    right.set_ylabel("all-ones score")
    right.legend(fontsize=8)
    fig.suptitle(f"{data['allocation']}: score at the offset {data['score']:.3f}", fontsize=11)
    return fig
