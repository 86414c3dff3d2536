r"""The results explorer of chapter 7: pick models, a margin and a length; see the curves.

Three layers, as in the other chapters' widgets:

* :func:`lab_view_data` -- a pure function of the control values that returns what is drawn:
  each chosen model's binned loss curve up to the chosen length, its predicted bound, and its
  supported length re-read off the binned curve with the chosen margin
  (:func:`ropelab.lab.results.remeasure_binned`);
* :func:`plot_lab_view` -- the figure of that data;
* :func:`lab_widget` -- a multiple selection of models and two sliders (clamped to valid
  ranges), redrawing the figure on every change.

Nothing is trained or evaluated: the widget reads the committed results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..lab.results import load_results, model_names, model_record, remeasure_binned
from ..plots.lab import loss_curve, model_colours, predicted_bound
from ..plots.style import NEUTRAL, new_figure

__all__ = [
    "DEFAULTS",
    "LENGTH_RANGE",
    "MARGIN_RANGE",
    "clamp_params",
    "lab_view_data",
    "lab_widget",
    "plot_lab_view",
]

#: Slider ranges (inclusive): the margin in nats and the longest context length shown.
MARGIN_RANGE = (0.02, 0.5)
LENGTH_RANGE = (256, 2048)
#: The state the widget opens in.
DEFAULTS = {"names": ("pretrain", "ft-1e5", "ft-1e6", "ft-1e7"), "margin": 0.1, "max_len": 2048}


def clamp_params(margin: Any, max_len: Any) -> tuple[float, int]:
    """Move slider values into ``MARGIN_RANGE`` and ``LENGTH_RANGE`` (non-finite: defaults)."""
    m = float(margin) if math.isfinite(float(margin)) else DEFAULTS["margin"]
    m = float(min(max(m, MARGIN_RANGE[0]), MARGIN_RANGE[1]))
    n = float(max_len) if math.isfinite(float(max_len)) else DEFAULTS["max_len"]
    n = int(min(max(round(n), LENGTH_RANGE[0]), LENGTH_RANGE[1]))
    return m, n


def lab_view_data(
    results: dict[str, Any], names: Sequence[str], margin: float, max_len: int
) -> dict[str, Any]:
    """What :func:`plot_lab_view` draws (JSON-ready lists).

    Args:
        results: the lab's results (:func:`ropelab.lab.results.load_results`).
        names: models to show (at least one).
        margin: the rise in nats that ends the supported length, within ``MARGIN_RANGE``.
        max_len: the longest context length shown, within ``LENGTH_RANGE``.

    Returns:
        ``{"margin", "max_len", "train_len", "models": [{"name", "colour", "context", "loss",
        "predicted", "remeasured", "recorded"}, ...]}``; ``remeasured`` is ``None`` when the
        loss never rises ``margin`` above the reference within the evaluated length.
    """
    if not names:
        raise ValueError("names must name at least one model")
    if not MARGIN_RANGE[0] <= margin <= MARGIN_RANGE[1]:
        raise ValueError(f"margin must be in [{MARGIN_RANGE[0]}, {MARGIN_RANGE[1]}], got {margin}")
    if not LENGTH_RANGE[0] <= max_len <= LENGTH_RANGE[1]:
        raise ValueError(
            f"max_len must be in [{LENGTH_RANGE[0]}, {LENGTH_RANGE[1]}], got {max_len}"
        )
    train_len = results["meta"]["plan"]["train_len"]
    colours = model_colours(results)
    models = []
    for name in names:
        record = model_record(results, name)
        context, loss, _ = loss_curve(record)
        keep = context <= max_len
        models.append(
            {
                "name": name,
                "colour": colours[name],
                "context": context[keep].tolist(),
                "loss": loss[keep].tolist(),
                "predicted": predicted_bound(record),
                "remeasured": remeasure_binned(record, train_len, margin),
                "recorded": record["measured"]["supported_length"],
            }
        )
    return {"margin": margin, "max_len": max_len, "train_len": train_len, "models": models}


def plot_lab_view(data: dict[str, Any]) -> Figure:
    """Loss curves with the re-measured supported lengths (dots) and predicted bounds (dashes)."""
    fig, ax = new_figure(height=3.8)
    ax.axvspan(0, data["train_len"], color=NEUTRAL, alpha=0.12, lw=0)
    for m in data["models"]:
        context, loss = np.asarray(m["context"]), np.asarray(m["loss"])
        measured = m["remeasured"]
        text = "≥ end" if measured is None else f"{measured:.0f}"
        ax.plot(context, loss, color=m["colour"], lw=1.6, label=f"{m['name']}: {text}")
        if m["predicted"] is not None and m["predicted"] <= data["max_len"]:
            ax.axvline(m["predicted"], color=m["colour"], ls="--", lw=1.0)
        if measured is not None and measured <= data["max_len"]:
            ax.plot(measured, np.interp(measured, context, loss), "o", color=m["colour"], ms=6)
    ax.set_xlim(0, data["max_len"])
    ax.set_xlabel("context length (tokens)")
    ax.set_ylabel("validation loss (nats per token)")
    ax.set_title(
        f"Supported length at a margin of {data['margin']:.2f} nats (dots; dashes: predicted)"
    )
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    return fig


def lab_widget(results: dict[str, Any] | None = None) -> Any:
    """Models (multiple selection), margin (0.02 to 0.5 nats) and length (256 to 2048) controls
    redrawing :func:`plot_lab_view` (chapter 7). Returns an ``ipywidgets.VBox`` whose attribute
    ``data`` holds the :func:`lab_view_data` of the current figure."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    results = load_results() if results is None else results
    names = model_names(results)
    style = {"description_width": "initial"}
    chosen = widgets.SelectMultiple(
        options=names,
        value=tuple(n for n in DEFAULTS["names"] if n in names) or (names[0],),
        rows=min(len(names), 11),
        description="models",
        style=style,
    )
    margin = widgets.FloatSlider(
        value=DEFAULTS["margin"], min=MARGIN_RANGE[0], max=MARGIN_RANGE[1], step=0.01,
        description="margin (nats)", style=style, continuous_update=False,
    )  # fmt: skip
    max_len = widgets.IntSlider(
        value=DEFAULTS["max_len"], min=LENGTH_RANGE[0], max=LENGTH_RANGE[1], step=128,
        description="show up to", style=style, continuous_update=False,
    )  # fmt: skip
    out = widgets.Output()
    box = widgets.VBox([widgets.HBox([chosen, widgets.VBox([margin, max_len])]), out])

    def redraw(_change: Any = None) -> None:
        m, n = clamp_params(margin.value, max_len.value)
        picked = list(chosen.value) or [names[0]]
        box.data = lab_view_data(results, picked, m, n)
        with out:
            out.clear_output(wait=True)
            fig = plot_lab_view(box.data)
            display(fig)
            plt.close(fig)

    for control in (chosen, margin, max_len):
        control.observe(redraw, names="value")
    redraw()
    return box
