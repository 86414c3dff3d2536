r"""Figures of chapter 3A (RoPE in code): what a bug does to the relative scores.

* :func:`plot_scores_by_distance`: for each implementation, the score
  :math:`\mathrm{fn}(q, n + r)^\top \mathrm{fn}(k, n)` against the distance *r*, one curve per
  key position *n* (data from :func:`ropelab.diagnose.scores_by_distance`). RoFormer eq. 16
  says a correct RoPE draws one curve whatever *n*; a broken one fans out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .._checks import check_finite_array
from .style import HEIGHT, SEQUENTIAL, new_figure

__all__ = ["plot_scores_by_distance"]


def plot_scores_by_distance(
    panels: Mapping[str, np.ndarray],
    distances: Sequence[int],
    key_positions: Sequence[int],
    *,
    ncols: int = 2,
) -> Figure:
    """One panel per implementation: ``panels[title][j, t]`` against ``distances[t]``, one
    line per ``key_positions[j]``.

    The first key position is drawn as a wide pale line and the others as thin lines on top
    of it, so that curves which coincide (a correct RoPE) stay visible as one.
    """
    if not panels:
        raise ValueError("panels must hold at least one implementation")
    r = check_finite_array(distances, "distances").reshape(-1)
    keys = list(key_positions)
    count = len(panels)
    cols = max(1, min(int(ncols), count))
    rows = -(-count // cols)
    fig, axes = new_figure(cols, rows, height=HEIGHT * rows * 0.75, squeeze=False)
    colours = plt.get_cmap(SEQUENTIAL)(np.linspace(0.0, 0.85, len(keys)))
    for ax, (title, scores) in zip(axes.flat, panels.items(), strict=False):
        scores = np.asarray(scores, dtype=np.float64)
        if scores.shape != (len(keys), r.size):
            raise ValueError(
                f"panel {title!r} has shape {scores.shape}, expected {(len(keys), r.size)}"
            )
        for j, n in enumerate(keys):
            wide = j == 0
            ax.plot(
                r,
                scores[j],
                color=colours[j],
                lw=4.0 if wide else 1.2,
                alpha=0.35 if wide else 1.0,
                ls="-" if wide else (0, (4, 2 + j)),
                label=f"key at n = {n:,}",
            )
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("distance r = m - n")
        ax.axhline(0.0, color="0.8", lw=0.6, zorder=0)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("score")
    axes.flat[0].legend(fontsize=8, loc="best")
    return fig
