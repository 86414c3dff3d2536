"""The figure of chapter 7's interactive results view, drawn from
:func:`ropelab.lab.view.lab_view_data`."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from .style import NEUTRAL, new_figure

__all__ = ["plot_lab_view"]


def _colour(model: dict[str, Any], bases: list[float]) -> Any:
    """Black for the pre-trained model, else one colour per base, as the chapter's figures."""
    if model["kind"] == "pretrain":
        return "black"
    palette = colormaps["tab10" if len(bases) <= 10 else "tab20"].colors
    return palette[bases.index(model["base"]) % len(palette)]


def plot_lab_view(data: dict[str, Any]) -> Figure:
    """Loss curves with the re-measured supported lengths (dots) and predicted bounds (dashes)."""
    fig, ax = new_figure(height=3.8)
    ax.axvspan(0, data["train_len"], color=NEUTRAL, alpha=0.12, lw=0)
    for m in data["models"]:
        colour = _colour(m, list(data["bases"]))
        context, loss = np.asarray(m["context"]), np.asarray(m["loss"])
        measured = m["remeasured"]
        text = "≥ end" if measured is None else f"{measured:.0f}"
        ax.plot(context, loss, color=colour, lw=1.6, label=f"{m['name']}: {text}")
        if m["predicted"] is not None and m["predicted"] <= data["max_len"]:
            ax.axvline(m["predicted"], color=colour, ls="--", lw=1.0)
        if measured is not None and measured <= data["max_len"]:
            ax.plot(measured, np.interp(measured, context, loss), "o", color=colour, ms=6)
    ax.set_xlim(0, data["max_len"])
    ax.set_xlabel("context length (tokens)")
    ax.set_ylabel("validation loss (nats per token)")
    ax.set_title(
        f"Supported length at a margin of {data['margin']:.2f} nats (dots; dashes: predicted)"
    )
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    return fig
