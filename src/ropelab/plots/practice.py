r"""Figures of chapter 8 (RoPE in practice). Each function draws data it is given.

The data come from the chapter's computation modules: :func:`ropelab.describe_config`
(plane ratios), :mod:`ropelab.mixups` (a dropped scaling), :mod:`ropelab.checkpoints`
(layout conversion), :mod:`ropelab.precision`, :mod:`ropelab.kv_cache`,
:mod:`ropelab.packing` and :mod:`ropelab.streaming`. Nothing here computes a model
quantity; every function returns a matplotlib Figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from .style import ACCENT, KEY, NEUTRAL, QUERY, new_figure

__all__ = [
    "SERIES_COLOURS",
    "plot_cache_gaps",
    "plot_dropped_scaling",
    "plot_layout_conversion",
    "plot_packing",
    "plot_plane_ratios",
    "plot_precision",
    "plot_sink_distances",
]

#: Colours for up to eight series of one figure, in order.
SERIES_COLOURS = (QUERY, KEY, ACCENT, "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", NEUTRAL)
_FLOOR = 1e-17  # where exact zeros are drawn on a log axis


def _series(data: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
    if len(data) > len(SERIES_COLOURS):
        raise ValueError(f"at most {len(SERIES_COLOURS)} series can be drawn, got {len(data)}")
    return [(name, value, SERIES_COLOURS[i]) for i, (name, value) in enumerate(data.items())]


def plot_plane_ratios(ratios: Mapping[str, Any], *, title: str | None = None) -> Figure:
    r"""Each config's :math:`\theta'_i/\theta_i` against the plane's place in the head.

    Args:
        ratios: label -> ratios ``(d/2,)``: 1 where a plane is kept, :math:`1/s` where it
            is interpolated. The x axis is :math:`i/(d/2)`, so heads of different sizes
            share it.
        title: optional title.
    """
    fig, ax = new_figure(height=3.8)
    for name, values, colour in _series(ratios):
        values = np.asarray(values, dtype=np.float64)
        x = np.arange(values.size) / values.size
        ax.semilogy(x, values, "o-", ms=2.5, lw=1.0, color=colour, label=name)
    ax.axhline(1.0, color=NEUTRAL, lw=0.8, ls=":")
    ax.set_xlabel("plane i / (d/2)   (fast planes left, slow planes right)")
    ax.set_ylabel(r"$\theta'_i / \theta_i$")
    ax.legend(fontsize=7, loc="lower left")
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def plot_dropped_scaling(
    exits: Any,
    train_len: float,
    distances: Any,
    correlation: Any,
    *,
    thresholds: Sequence[float] = (0.9, 0.5),
) -> Figure:
    r"""A scaling dropped at inference: where planes leave their range, how scores change.

    Args:
        exits: per plane, the position where its angle leaves the trained range
            (:func:`ropelab.mixups.range_exit_positions`).
        train_len: the length the scaled model was trained to.
        distances, correlation: :func:`ropelab.mixups.score_correlation` at each distance.
        thresholds: correlation levels marked on the right panel.
    """
    exits = np.asarray(exits, dtype=np.float64)
    fig, (left, right) = new_figure(2, width=7.0, height=3.4)
    left.semilogy(np.arange(exits.size), exits, "o", ms=3, color=QUERY)
    left.axhline(train_len, color=NEUTRAL, ls="--", lw=0.8)
    left.text(0, train_len * 1.15, f"trained to {train_len:,.0f}", fontsize=7, color=NEUTRAL)
    left.set_xlabel("plane i")
    left.set_ylabel("position where the angle\nleaves the trained range")
    distances = np.asarray(distances, dtype=np.float64)
    right.semilogx(distances, correlation, color=KEY, lw=1.2)
    for level in thresholds:
        right.axhline(level, color=NEUTRAL, ls=":", lw=0.8)
    right.axvline(float(np.min(exits)), color=QUERY, ls="--", lw=0.8)
    right.set_xlabel("distance (tokens)")
    right.set_ylabel("score correlation")
    right.set_ylim(min(0.0, float(np.min(correlation))) - 0.05, 1.05)
    return fig


def plot_layout_conversion(
    order: Any, unconverted: Any, converted: Any, *, rotary_dim: int | None = None
) -> Figure:
    """Left: one head's row permutation; right: each head's score error, before and after.

    Args:
        order: :func:`ropelab.checkpoints.half_split_row_order` of one head.
        unconverted, converted: per head, the largest score error against the trained
            (interleaved) layer when the half-split code gets the weights as they are, and
            after :func:`ropelab.permute_qk_weight`.
        rotary_dim: rotated rows, shaded in the permutation (``None``: all).
    """
    order = np.asarray(order)
    n = order.size
    matrix = np.zeros((n, n))
    matrix[np.arange(n), order] = 1.0
    fig, (left, right) = new_figure(2, width=7.0, height=3.2)
    left.imshow(matrix, cmap=ListedColormap(["white", QUERY]), vmin=0, vmax=1)
    rotary = n if rotary_dim is None else rotary_dim
    if rotary < n:
        left.axvspan(rotary - 0.5, n - 0.5, color=NEUTRAL, alpha=0.15)
    left.set_xlabel("row in the interleaved checkpoint")
    left.set_ylabel("row in the half-split model")
    left.set_xticks(range(n))
    left.set_yticks(range(n))
    left.tick_params(labelsize=6)
    heads = np.arange(len(unconverted))
    width = 0.38
    right.bar(
        heads - width / 2, np.maximum(unconverted, _FLOOR), width, color=KEY, label="unconverted"
    )
    right.bar(
        heads + width / 2, np.maximum(converted, _FLOOR), width, color=ACCENT, label="converted"
    )
    right.set_yscale("log")
    right.set_ylim(_FLOOR / 2, 10 * max(float(np.max(unconverted)), 1.0))
    right.set_xlabel("head")
    right.set_ylabel("largest score error")
    right.set_xticks(heads)
    right.legend(fontsize=7, loc="center right")
    return fig


def plot_precision(
    positions: Any,
    errors: Mapping[str, Any],
    *,
    marks: Sequence[int] = (),
    floor: float = 1e-4,
) -> Figure:
    """Largest cos error against position for several ways of forming the angles.

    Args:
        positions: the positions (x axis, log scale; 0 is dropped).
        errors: label -> largest cos error at each position.
        marks: positions marked by vertical lines.
        floor: bottom of the y axis.
    """
    positions = np.asarray(positions, dtype=np.float64)
    keep = positions > 0
    fig, ax = new_figure(height=3.6)
    for name, values, colour in _series(errors):
        values = np.maximum(np.asarray(values, dtype=np.float64), _FLOOR)
        ax.loglog(positions[keep], values[keep], lw=1.0, color=colour, label=name)
    for mark in marks:
        ax.axvline(mark, color=NEUTRAL, ls=":", lw=0.8)
        ax.text(mark * 1.05, floor * 2, f"{mark:,}", fontsize=7, color=NEUTRAL, rotation=90)
    ax.set_ylim(floor, 4)
    ax.set_xlabel("position m")
    ax.set_ylabel("largest |cos error| over the planes")
    ax.legend(fontsize=7, loc="upper left")
    return fig


def plot_cache_gaps(lengths: Any, gaps: Mapping[str, Any], max_position: int) -> Figure:
    """Largest logit difference between cached decoding and recomputation, per length.

    Args:
        lengths: the sequence length at each step.
        gaps: label -> largest absolute logit difference at each step (0 drawn at 1e-17).
        max_position: ``max_position_embeddings``, marked.
    """
    lengths = np.asarray(lengths, dtype=np.float64)
    fig, ax = new_figure(height=3.4)
    for name, values, colour in _series(gaps):
        values = np.maximum(np.asarray(values, dtype=np.float64), _FLOOR)
        ax.semilogy(lengths, values, "o-", ms=2.5, lw=1.0, color=colour, label=name)
    ax.axvline(max_position + 0.5, color=NEUTRAL, ls="--", lw=0.8)
    ax.text(max_position + 1, 1e-9, "max_position_embeddings", fontsize=7, color=NEUTRAL)
    ax.set_ylim(_FLOOR / 2, 30)
    ax.set_xlabel("sequence length")
    ax.set_ylabel("largest |logit difference|")
    ax.legend(fontsize=7, loc="center left")
    return fig


def plot_packing(mask: Any, position_ids: Any, document_ids: Any) -> Figure:
    """A packed row's document mask, with each column's document and position id.

    Args:
        mask: ``(T, T)`` booleans (True: query row may attend to key column).
        position_ids, document_ids: ``(T,)`` per column.
    """
    mask = np.asarray(mask, dtype=float)
    docs = np.asarray(document_ids)
    fig, ax = new_figure(width=5.2, height=5.2)
    count = int(docs.max()) + 1
    colours = ["white", *[SERIES_COLOURS[i % len(SERIES_COLOURS)] for i in range(count)]]
    shaded = np.where(mask > 0, docs[None, :] + 1.0, 0.0)
    ax.imshow(shaded, cmap=ListedColormap(colours), vmin=-0.5, vmax=count + 0.5)
    ticks = np.arange(mask.shape[0])
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(p) for p in position_ids], fontsize=6)
    ax.set_yticks(ticks)
    ax.set_yticklabels([str(p) for p in position_ids], fontsize=6)
    ax.set_xlabel("key: position id")
    ax.set_ylabel("query: position id")
    for edge in np.flatnonzero(np.diff(docs)) + 0.5:
        ax.axvline(edge, color=NEUTRAL, lw=0.5, alpha=0.5)
        ax.axhline(edge, color=NEUTRAL, lw=0.5, alpha=0.5)
    return fig


def plot_sink_distances(steps: Any, distances: Mapping[str, Any], train_len: int) -> Figure:
    """The largest query-key distance each streaming step uses, for each position rule.

    Args:
        steps: step index (position in the stream).
        distances: label -> largest distance at each step.
        train_len: the trained length, marked.
    """
    fig, ax = new_figure(height=3.2)
    for name, values, colour in _series(distances):
        ax.plot(steps, values, lw=1.2, color=colour, label=name)
    ax.axhline(train_len, color=NEUTRAL, ls="--", lw=0.8)
    ax.text(0, train_len * 1.04, f"trained length {train_len}", fontsize=7, color=NEUTRAL)
    ax.set_xlabel("step (position in the stream)")
    ax.set_ylabel("largest query-key distance")
    ax.legend(fontsize=7, loc="upper left")
    return fig
