r"""Figures of chapter 7, the extrapolation lab: drawn from the lab's results, not recomputed.

Every function takes the dict of :func:`ropelab.lab.results.load_results` (the committed
``results.json`` of ``python -m ropelab.lab``) and returns a matplotlib Figure:

* :func:`plot_loss_curves` -- validation loss against context length, one line per model, with
  each model's measured supported length and its predicted bound;
* :func:`plot_supported_vs_predicted` -- measured supported lengths against Theorem 2's
  :math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}` over the base (Liu et al., arXiv
  2310.05209), with censored measurements drawn as arrows;
* :func:`plot_qk_split` -- the score :math:`q_t\cdot k_0` of a trained model split at the
  critical dimension, layer by layer (the paper's Figure 8, on our model's real q and k).

:func:`model_colours` gives every model one colour, ordered by base, shared by all figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from .. import scaling
from ..lab.results import model_names, model_record, supported_or_censored
from .style import ACCENT, KEY, NEUTRAL, QUERY, new_figure

__all__ = [
    "loss_curve",
    "model_colours",
    "model_linestyle",
    "plot_loss_curves",
    "plot_qk_split",
    "plot_supported_vs_predicted",
    "predicted_bound",
]


def _plan(results: dict[str, Any]) -> dict[str, Any]:
    return results["meta"]["plan"]


def loss_curve(record: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A model's binned validation loss: ``(context length, mean loss, standard error)``."""
    curve = record["loss_curve"]
    return (
        np.asarray(curve["context"], dtype=float),
        np.asarray(curve["loss"], dtype=float),
        np.asarray(curve["sem"], dtype=float),
    )


def predicted_bound(record: dict[str, Any]) -> float | None:
    """The length a model is predicted to support: Theorem 3's, else ``None`` (no hard bound)."""
    value = record["prediction"]["expected_supported_length"]
    return None if value is None else float(value)


def model_colours(results: dict[str, Any]) -> dict[str, Any]:
    """One colour per base, from a qualitative palette in the order of the bases.

    The pre-trained model is black; models with the same base but another length or fewer
    planes share their base's colour and differ by line style (:func:`model_linestyle`).
    """
    bases = sorted({r["base"] for r in results["models"] if r["kind"] != "pretrain"})
    palette = colormaps["tab10" if len(bases) <= 10 else "tab20"].colors
    by_base = {b: palette[k % len(palette)] for k, b in enumerate(bases)}
    return {
        r["name"]: ("black" if r["kind"] == "pretrain" else by_base[r["base"]])
        for r in results["models"]
    }


def model_linestyle(record: dict[str, Any]) -> str:
    """Solid for a fine-tune at the training length, dash-dot for a longer one, dotted for
    fewer planes (the ablation)."""
    if record["keep_planes"] is not None:
        return ":"
    if record["tune_len"] != record["train_len"]:
        return "-."
    return "-"


def _label(record: dict[str, Any]) -> str:
    text = f"{record['name']} (β = {record['base']:g}"
    if record["tune_len"] != record["train_len"]:
        text += f", T = {record['tune_len']}"
    if record["keep_planes"] is not None:
        text += f", {record['keep_planes']} planes"
    return text + ")"


def plot_loss_curves(
    results: dict[str, Any],
    names: Sequence[str] | None = None,
    *,
    title: str | None = None,
    ylim: tuple[float, float] | None = None,
    log_x: bool = False,
    mark_wavelengths: str | None = None,
) -> Figure:
    r"""Validation loss per context length for the models ``names`` (default: all).

    Each curve is the loss of the model's binned curve; a filled dot marks the measured
    supported length (where the smoothed loss first rises ``margin`` above the reference over
    :math:`[T_\text{train}/2, T_\text{train})`), a dashed line of the same colour the predicted
    bound (Theorem 3; none where no hard bound is predicted). The training length is shaded.
    ``mark_wavelengths`` names a model whose planes beyond :math:`d_\text{extra}/2` get a tick
    at the top at their wavelength :math:`2\pi\beta^{2i/d}` (within the plotted length).
    """
    chosen = model_names(results) if names is None else list(names)
    if not chosen:
        raise ValueError("names must name at least one model")
    records = [model_record(results, n) for n in chosen]
    colours = model_colours(results)
    plan = _plan(results)
    train_len, eval_len = plan["train_len"], plan["eval_len"]
    fig, ax = new_figure(height=4.0)
    ax.axvspan(0, train_len, color=NEUTRAL, alpha=0.12, lw=0, label=f"T_train = {train_len}")
    for r in records:
        colour = colours[r["name"]]
        context, loss, _ = loss_curve(r)
        ax.plot(context, loss, color=colour, lw=1.6, ls=model_linestyle(r), label=_label(r))
        bound = predicted_bound(r)
        if bound is not None and bound <= eval_len:
            ax.axvline(bound, color=colour, ls="--", lw=1.0, alpha=0.8)
        length, censored = supported_or_censored(r)
        if not censored:
            ax.plot(length, np.interp(length, context, loss), "o", color=colour, ms=6, mec="white")
    if mark_wavelengths is not None:
        marked = model_record(results, mark_wavelengths)
        head_dim = plan["model"]["head_dim"]
        first = results["meta"]["d_extra"] // 2
        for i in range(first, head_dim // 2):
            wavelength = 2 * math.pi * marked["base"] ** (2 * i / head_dim)
            if wavelength > eval_len:
                break
            ax.axvline(wavelength, ymin=0.93, ymax=1.0, color=colours[mark_wavelengths], lw=2)
            ax.annotate(f"plane {i}", (wavelength, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(2, -10), textcoords="offset points", fontsize=7)  # fmt: skip
    ax.set_xlim(1 if log_x else 0, eval_len)
    if log_x:
        ax.set_xscale("log", base=2)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set_xlabel("context length (tokens)")
    ax.set_ylabel("validation loss (nats per token)")
    ax.set_title(title or "Loss against context length: dots measured, dashes predicted")
    ax.legend(fontsize=7, loc="best", ncol=2 if len(records) > 5 else 1)
    ax.grid(alpha=0.3)
    return fig


def plot_supported_vs_predicted(results: dict[str, Any]) -> Figure:
    r"""Measured supported length against the base, with Theorem 2's curve.

    The line is :math:`T_\text{extra}(\beta) = 2\pi\beta^{d_\text{extra}/d}` for bases at least
    the pre-training base (Theorem 2), and :math:`T_\text{train}` below it (Theorem 3's
    "smaller base" regime) down to :math:`\beta_3 = T_\text{train}/2\pi`, where every plane sees
    a full period and no hard bound is predicted. Filled circles are the fine-tunes at
    :math:`T_\text{train}`; a square is a fine-tune at a longer :math:`T_\text{tune}`, a diamond
    the ablation. A marker with an arrow is censored: that model supports at least that length.
    """
    plan = _plan(results)
    train_len, eval_len = plan["train_len"], plan["eval_len"]
    head_dim, pre_base = plan["model"]["head_dim"], plan["model"]["base"]
    beta3 = results["meta"]["thresholds"]["beta3"]
    colours = model_colours(results)
    bases = [r["base"] for r in results["models"]]
    lo, hi = min(min(bases), beta3) / 2, max(bases) * 2
    fig, ax = new_figure(height=4.2)
    big = np.geomspace(pre_base, hi, 200)
    bound = [float(scaling.extrapolation_bound(b, head_dim, train_len, pre_base)) for b in big]
    ax.plot(
        big,
        bound,
        color=QUERY,
        lw=2,
        label=r"Theorem 2: $T_\mathrm{extra} = 2\pi\beta^{d_\mathrm{extra}/d}$",
    )
    ax.plot([beta3, pre_base], [train_len, train_len], color=KEY, lw=2,
            label=r"Theorem 3, smaller base: $T_\mathrm{train}$")  # fmt: skip
    ax.axvline(beta3, color=ACCENT, ls=":", lw=1.5, label=r"$\beta_3 = T_\mathrm{train}/2\pi$")
    ax.axvspan(lo, beta3, color=ACCENT, alpha=0.08, lw=0)
    ax.axhline(eval_len, color=NEUTRAL, ls="--", lw=1, label=f"evaluated up to {eval_len}")
    label_y = _spread_labels(results)
    for r in results["models"]:
        length, censored = supported_or_censored(r)
        marker = "o"
        if r["tune_len"] != r["train_len"]:
            marker = "s"
        if r["keep_planes"] is not None:
            marker = "D"
        ax.plot(r["base"], length, marker, color=colours[r["name"]], ms=8, mec="black", mew=0.6)
        if censored:
            ax.annotate("", xy=(r["base"], length * 1.6), xytext=(r["base"], length),
                        arrowprops={"arrowstyle": "->", "color": colours[r["name"]], "lw": 1.5})  # fmt: skip
        ax.annotate(r["name"], (r["base"], length), xytext=(r["base"] * 1.35, label_y[r["name"]]),
                    textcoords="data", fontsize=7, va="center")  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log", base=2)
    ax.set_xlim(lo, hi)
    ax.set_ylim(train_len / 2, eval_len * 3)
    ax.set_xlabel(r"RoPE base $\beta$ of the fine-tune")
    ax.set_ylabel("supported context length (tokens)")
    ax.set_title("Measured (markers) against predicted (lines) supported length")
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3, which="both")
    return fig


def _spread_labels(results: dict[str, Any], gap: float = 1.14) -> dict[str, float]:
    """Label heights for :func:`plot_supported_vs_predicted`: each model's length, pushed up so
    that labels of models with the same base are at least a factor ``gap`` apart."""
    heights: dict[str, float] = {}
    for base in {r["base"] for r in results["models"]}:
        group = sorted(
            (supported_or_censored(r)[0], r["name"]) for r in results["models"] if r["base"] == base
        )
        previous = 0.0
        for length, name in group:
            previous = max(length, previous * gap)
            heights[name] = previous
    return heights


def plot_qk_split(results: dict[str, Any], name: str = "pretrain") -> Figure:
    r"""The score :math:`q_t\cdot k_0` of model ``name`` split at the critical dimension.

    One panel per layer: the head-averaged contribution of the first :math:`d_\text{extra}`
    dimensions (planes that completed a period within the training length) and of the rest,
    against the context length :math:`t + 1`. The shaded band is the training length; past it,
    the first part keeps to the range it had there, while the rest meets angles never trained.
    """
    record = model_record(results, name)
    split = record["qk_split"]
    layers = split["layers"]
    seen = split["seen_len"]
    ncols = 2 if len(layers) > 1 else 1
    nrows = -(-len(layers) // ncols)
    fig, axes = new_figure(ncols, nrows, height=2.4 * nrows + 0.6, sharex=True, squeeze=False)
    for ax, layer in zip(axes.flat, layers, strict=False):
        context = np.asarray(layer["context"], dtype=float)
        first = np.asarray(layer["first_d_extra"]["head_mean_curve"], dtype=float)
        rest = np.asarray(layer["rest"]["head_mean_curve"], dtype=float)
        ax.axvspan(0, seen, color=NEUTRAL, alpha=0.12, lw=0)
        ax.plot(context, first, color=QUERY, lw=1.4,
                label=f"first {split['d_extra']} dims (full period seen)")  # fmt: skip
        ax.plot(context, rest, color=KEY, lw=1.4, label="the other dims")
        ax.axhline(0, color=NEUTRAL, lw=0.6)
        ax.set_title(f"layer {layer['layer']}", fontsize=9)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(layers) :]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("context length t + 1")
    for ax in axes[:, 0]:
        ax.set_ylabel(r"mean $q_t\cdot k_0$")
    axes.flat[0].legend(fontsize=7, loc="best")
    fig.suptitle(
        f"{_label(record)}: q·k split at d_extra = {split['d_extra']} (shaded: T = {seen})",
        fontsize=10,
    )
    return fig
