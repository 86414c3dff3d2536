r"""Chapter 3A's precision figure: angle and cos errors against the position, drawn from
:func:`ropelab.precision.precision_explorer_data` (the static view of the ``precision``
explorable)."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..precision import PRECISION_SERIES
from .style import ACCENT, KEY, NEUTRAL, QUERY, new_figure

__all__ = ["PRECISION_STYLES", "draw_precision"]

#: Colour, dash and legend label of each series (the explorable uses the same).
PRECISION_STYLES = {
    "float64": (NEUTRAL, ":", "angles in float64 (bound)"),
    "float32": (QUERY, "-", "angles in float32"),
    "bfloat16": (KEY, "-", "angles in bfloat16"),
    "float16": (ACCENT, "-", "angles in float16"),
    "bf16_theta": ("#9467bd", "--", r"$\theta_i$ in bfloat16, angles in float32"),
}


def _positive(positions: Any, values: Any) -> tuple[np.ndarray, np.ndarray]:
    """The points a log axis can show (an exact product has error 0)."""
    values = np.asarray(values, dtype=np.float64)
    x = np.asarray(positions, dtype=np.float64)[: values.size]
    keep = values > 0
    return x[keep], values[keep]


def draw_precision(data: dict[str, Any]) -> Figure:
    r"""Left, the largest angle error :math:`\max_i|\hat\phi_i - m\theta_i|`; right, the largest
    cos-table error, both against the position on log-log axes, one line per way of forming
    the angles (:data:`ropelab.precision.PRECISION_SERIES`). float16's lines stop at 65,504,
    the largest position it holds. Chapter 3A."""
    fig, (left, right) = new_figure(2, height=3.9)
    for name, *_ in PRECISION_SERIES:
        colour, dash, label = PRECISION_STYLES[name]
        for ax, key in ((left, "angle"), (right, "cos")):
            x, y = _positive(data["positions"], data[f"{key}_{name}"])
            ax.plot(x, y, color=colour, ls=dash, lw=1.3, label=label)
    right.axhline(0.01, color=NEUTRAL, lw=0.7, ls=":")
    right.annotate("1 %", (1.2, 0.012), color=NEUTRAL, fontsize=8)
    for ax, title in ((left, "angle error (rad)"), (right, "cos table error")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(1, data["max_position"])
        ax.set_xlabel("position $m$ (log scale)")
        ax.set_title(f"largest {title} over the planes", fontsize=10)
    left.set_ylabel("error (log scale)")
    fig.legend(*left.get_legend_handles_labels(), loc="outside lower center", ncols=3, fontsize=8)
    fig.suptitle(
        f"d = {data['dim']}, base = {data['base']:,.0f}, positions up to {data['max_position']:,}",
        fontsize=11,
    )
    return fig
