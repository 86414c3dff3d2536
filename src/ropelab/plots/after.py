r"""Figures of chapter 10 (after the book). Each function draws data it is given.

The data come from :mod:`ropelab.remapping` (relative-position maps),
:mod:`ropelab.stacks2025` (layer kinds of hybrid stacks) and :mod:`ropelab.video_time`
(temporal ids). Nothing here computes a model quantity; every function returns a Figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from .style import ACCENT, DIVERGING, KEY, NEUTRAL, QUERY, new_figure

__all__ = [
    "LAYER_KINDS",
    "draw_remapping",
    "plot_layer_kinds",
    "plot_remapping_maps",
    "plot_temporal_ids",
]

#: The kinds of layer :func:`plot_layer_kinds` colours, in order.
LAYER_KINDS = ("RoPE attention", "NoPE attention", "linear attention")


def _shade(relative: np.ndarray, train_len: int) -> np.ma.MaskedArray:
    """-1 (masked) above the diagonal; else the relative position over the training length,
    minus 1, clipped to [-1, 1]: blue inside the trained range, red beyond it."""
    rel = np.asarray(relative, dtype=np.float64)
    value = np.clip(rel / max(train_len - 1, 1) - 1.0, -1.0, 1.0)
    return np.ma.masked_where(rel < 0, value)


def _thousands(value: float) -> str:
    return f"{value / 1000:.0f}K" if value >= 1000 else f"{value:.0f}"


def _map_panel(ax: Any, grid: Sequence[int], relative: Any, train_len: int, title: str) -> Any:
    grid = np.asarray(grid)
    top = float(grid[-1])
    pad = 0.5 * top / (grid.size - 1)
    image = ax.imshow(
        _shade(np.asarray(relative), train_len),
        cmap=DIVERGING,
        vmin=-1,
        vmax=1,
        origin="upper",
        extent=(-pad, top + pad, top + pad, -pad),
        interpolation="nearest",
    )
    ticks = [0.0, top / 2, top]
    ax.set_xticks(ticks, [_thousands(t) for t in ticks])
    ax.set_yticks(ticks, [_thousands(t) for t in ticks])
    ax.set_title(title, fontsize=7.5)
    ax.tick_params(labelsize=7)
    return image


def plot_remapping_maps(maps: Mapping[str, tuple[Sequence[int], Any, int]]) -> Figure:
    """Small multiples in one row: for each method, ``(grid, relative, train_len)``: the
    relative position the score of query *m* (rows) and key *n* (columns) sees, white at the
    training length, blue below and red beyond (twice the training length or more: dark red).
    A title may hold a line break."""
    if not maps:
        raise ValueError("maps must not be empty")
    fig, axes = new_figure(len(maps), height=2.6)
    axes = np.atleast_1d(axes).reshape(-1)
    image = None
    for i, (ax, (name, (grid, relative, train_len))) in enumerate(
        zip(axes, maps.items(), strict=True)
    ):
        image = _map_panel(ax, grid, relative, train_len, name)
        ax.set_xlabel("key n", fontsize=8)
        if i == 0:
            ax.set_ylabel("query m", fontsize=8)
    bar = fig.colorbar(image, ax=axes.tolist(), shrink=0.7, ticks=[-1, 0, 1], pad=0.02)
    bar.ax.set_yticklabels(["0", "L", "≥ 2L"], fontsize=7)
    bar.set_label("relative position (L: training length)", fontsize=7)
    return fig


def draw_remapping(data: Mapping[str, Any]) -> Figure:
    """Chapter 10's explorer (:func:`ropelab.remapping.remapping_data`): left, the map;
    right, the relative position the last query gives each key, with the training length."""
    fig, (left, right) = new_figure(2, height=3.6)
    method, train_len = data["method"], int(data["train_len"])
    image = _map_panel(
        left, data["grid"], data["relative"], train_len, f"{method}: r(m, n) on the input"
    )
    left.set_xlabel("key position n")
    left.set_ylabel("query position m")
    bar = fig.colorbar(image, ax=left, shrink=0.8, ticks=[-1, 0, 1])
    bar.ax.set_yticklabels(["0", "L", "≥ 2L"], fontsize=8)
    keys = np.asarray(data["keys"])
    row = np.asarray(data["row"])
    right.plot(keys, keys[-1] - keys, color=NEUTRAL, lw=1.0, ls=":", label="RoPE: m − n")
    right.plot(keys, row, color=QUERY, lw=1.6, label=method)
    right.axhline(train_len, color=KEY, lw=1.0, ls="--", label=f"training length L = {train_len:,}")
    right.set_xlabel("key position n (query: last token)")
    right.set_ylabel("relative position seen")
    right.set_title(f"largest relative position {int(data['max_relative']):,}", fontsize=9)
    right.legend(fontsize=7, loc="upper right")
    return fig


def plot_layer_kinds(stacks: Mapping[str, Sequence[int]], *, title: str | None = None) -> Figure:
    """Hybrid stacks as strips: one row per model, one cell per layer, coloured by
    :data:`LAYER_KINDS` (0: RoPE attention, 1: NoPE attention, 2: linear attention)."""
    if not stacks:
        raise ValueError("stacks must not be empty")
    names = list(stacks)
    width = max(len(v) for v in stacks.values())
    grid = np.full((len(names), width), np.nan)
    for r, name in enumerate(names):
        kinds = np.asarray(stacks[name], dtype=np.float64)
        if kinds.size and (kinds.min() < 0 or kinds.max() > 2):
            raise ValueError("layer kinds must be 0, 1 or 2")
        grid[r, : kinds.size] = kinds
    fig, ax = new_figure(height=1.1 + 0.5 * len(names))
    cmap = ListedColormap([QUERY, KEY, "#bbbbbb"]).with_extremes(bad="white")
    ax.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap=cmap, vmin=-0.5, vmax=2.5)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ticks = list(range(0, width, 4))
    ax.set_xticks(ticks, [str(t) for t in ticks], fontsize=7)
    ax.set_xlabel("layer (blue: RoPE attention, red: NoPE attention, grey: linear attention)")
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def plot_temporal_ids(series: Mapping[str, tuple[Any, Any]]) -> Figure:
    """Temporal id against the time of each frame group (seconds), one series per scheme:
    ``name -> (seconds, ids)``."""
    if not series:
        raise ValueError("series must not be empty")
    fig, ax = new_figure(height=3.0)
    colours = (QUERY, KEY, ACCENT, NEUTRAL)
    markers = ("o", "s", "^", "x")
    for i, (name, (seconds, ids)) in enumerate(series.items()):
        ax.plot(seconds, ids, marker=markers[i % 4], ms=4, lw=1.2, color=colours[i % 4], label=name)
    ax.set_xlabel("time of the frame group in the video (s)")
    ax.set_ylabel("temporal position id")
    ax.legend(fontsize=7)
    return fig
