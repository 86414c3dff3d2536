r"""Figures of chapter 7, the extrapolation lab: drawn from the lab's results, not recomputed.

Every function takes the dict of :func:`ropelab.lab.results.load_results` (the committed
``results.json`` of ``python -m ropelab.lab``) and returns a matplotlib Figure:

* :func:`plot_loss_curves` -- validation loss against context length, one line per model, with
  each model's measured supported length and its predicted bound;
* :func:`plot_supported_vs_predicted` -- measured supported lengths against Theorem 2's
  :math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}` over the base (Liu et al., arXiv
  2310.05209), with censored measurements drawn as arrows;
* :func:`plot_registered_lengths` -- the ten-seed supported lengths of the registered analysis
  (``registered.json``, :mod:`ropelab.lab.registered_view`) with their bootstrap intervals,
  under the registered and the original rule, against Theorem 2's curve;
* :func:`plot_qk_split` -- the score :math:`q_t\cdot k_0` of a trained model split at the
  critical dimension, layer by layer (the paper's Figure 8, on our model's real q and k);
* :func:`plot_testtime` -- the loss of trained models with each test-time method of
  :mod:`ropelab.lab.testtime` applied (the source's Figure 11, on our models).

Where a model was trained with several seeds, the figures show every seed: a band over the
loss curves, and error bars (the range) around the mean supported length.

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
from ..lab.registered_view import EXPONENT_MODELS
from ..lab.results import (
    model_names,
    model_record,
    replicate_records,
    seed0_records,
    supported_or_censored,
    testtime_records,
)
from ..lab.stats import exponent_fit, length_spread
from .style import ACCENT, KEY, NEUTRAL, QUERY, new_figure

__all__ = [
    "METHOD_STYLES",
    "exponent_fit",
    "loss_curve",
    "model_colours",
    "model_linestyle",
    "plot_loss_curves",
    "plot_qk_split",
    "plot_registered_lengths",
    "plot_supported_vs_predicted",
    "plot_testtime",
    "predicted_bound",
]

#: Colour and line style of each test-time method (:data:`ropelab.lab.testtime.METHODS`): the
#: variants with :math:`T_\text{train}` dashed, those with :math:`T_\text{extra}` solid.
METHOD_STYLES: dict[str, tuple[str, str]] = {
    "pi": ("#9467bd", "-"),
    "ntk": ("#8c564b", "-"),
    "yarn": ("#e377c2", "-"),
    "dyn-train": ("#1f77b4", "--"),
    "dyn-extra": ("#1f77b4", "-"),
    "log-train": ("#d62728", "--"),
    "log-extra": ("#d62728", "-"),
    "xpos": ("#2ca02c", "-"),
}

BASELINE_COLOUR = "#7f7f7f"


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

    The pre-trained model is black, the baselines without RoPE grey; models with the same base
    but another length or fewer planes share their base's colour and differ by line style
    (:func:`model_linestyle`).
    """
    bases = sorted({r["base"] for r in results["models"] if r["kind"] == "finetune"})
    palette = colormaps["tab10" if len(bases) <= 10 else "tab20"].colors
    by_base = {b: palette[k % len(palette)] for k, b in enumerate(bases)}
    fixed = {"pretrain": "black", "baseline": BASELINE_COLOUR}
    return {r["name"]: fixed.get(r["kind"]) or by_base[r["base"]] for r in seed0_records(results)}


def model_linestyle(record: dict[str, Any]) -> str:
    """Solid for a fine-tune at the training length, dash-dot for a longer one, dotted for
    fewer planes (the ablation), dashed for a baseline without RoPE."""
    if record.get("kind") == "baseline":
        return "--"
    if record["keep_planes"] is not None:
        return ":"
    if record["tune_len"] != record["train_len"]:
        return "-."
    return "-"


def _label(record: dict[str, Any]) -> str:
    if record.get("kind") == "baseline":
        return f"{record['name']} ({record['prediction']['regime'].split(': ', 1)[-1]})"
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
    seeds: bool = True,
) -> Figure:
    r"""Validation loss per context length for the models ``names`` (default: all).

    Each curve is the loss of the model's binned curve (seed 0); with ``seeds``, a band of the
    model's colour spans the curves of all its seeds (where it has more than one). A filled
    dot marks the measured
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
    fig, ax = new_figure(height=4.6)
    ax.axvspan(0, train_len, color=NEUTRAL, alpha=0.12, lw=0, label=f"T_train = {train_len}")
    for r in records:
        colour = colours[r["name"]]
        context, loss, _ = loss_curve(r)
        ax.plot(context, loss, color=colour, lw=1.6, ls=model_linestyle(r), label=_label(r))
        replicas = replicate_records(results, r["name"])
        if seeds and len(replicas) > 1:
            curves = np.array([loss_curve(x)[1] for x in replicas])
            ax.fill_between(context, curves.min(0), curves.max(0), color=colour, alpha=0.18, lw=0)
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
    if seeds and any(len(replicate_records(results, r["name"])) > 1 for r in records):
        ax.plot([], [], color=NEUTRAL, alpha=0.4, lw=6, label="band: all seeds")
    # below the axes, where it hides neither a curve nor the wavelength ticks
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="outside lower center", ncol=3)
    ax.grid(alpha=0.3)
    return fig


def plot_supported_vs_predicted(results: dict[str, Any], *, fit: bool = True) -> Figure:
    r"""Measured supported length against the base, with Theorem 2's curve and Theorem 1's claim.

    The line is :math:`T_\text{extra}(\beta) = 2\pi\beta^{d_\text{extra}/d}` for bases at least
    the pre-training base (Theorem 2). Below it, Theorem 1 claims only that every smaller base
    improves on the control (the same steps at the pre-training base): the dotted level is the
    control's mean length. Below :math:`\beta_3 = T_\text{train}/2\pi` every plane sees a full
    period (no hard bound: a conjecture of the source). Markers are the mean over seeds with the
    range as an error bar and each seed as a small dot; circles are fine-tunes at
    :math:`T_\text{train}`, a square a longer :math:`T_\text{tune}`, a diamond the ablation. An
    arrow marks a censored model (at least that length). A grey dashed level is the baseline
    without positions. With ``fit``, the least-squares power law through the bases above
    :math:`\beta_0` (all seeds, :func:`ropelab.lab.stats.exponent_fit`; with the same bases in
    every seed its exponent is the mean of the per-seed exponents) is drawn, with its exponent.
    """
    plan = _plan(results)
    train_len, eval_len = plan["train_len"], plan["eval_len"]
    head_dim, pre_base = plan["model"]["head_dim"], plan["model"]["base"]
    beta3 = results["meta"]["thresholds"]["beta3"]
    colours = model_colours(results)
    rope = results["models"]
    bases = [r["base"] for r in rope]
    lo, hi = min(min(bases), beta3) / 2, max(bases) * 5  # room for the labels on the right
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
    control = [r for r in rope if r["kind"] == "finetune" and r["base"] == pre_base
               and r["keep_planes"] is None and r["tune_len"] == train_len]  # fmt: skip
    if control:
        level = length_spread(results, control[0]["name"])[0].mean
        ax.plot([lo, pre_base], [level, level], color=KEY, lw=1.5, ls=":",
                label=f"control {control[0]['name']}: Theorem 1 claims longer below")  # fmt: skip
    ax.axvline(beta3, color=ACCENT, ls=":", lw=1.5, label=r"$\beta_3 = T_\mathrm{train}/2\pi$")
    ax.axvspan(lo, beta3, color=ACCENT, alpha=0.08, lw=0)
    ax.axhline(eval_len, color=NEUTRAL, ls="--", lw=1, label=f"evaluated up to {eval_len}")
    for r in results.get("baselines", []):
        length, _ = supported_or_censored(r)
        ax.axhline(length, color=BASELINE_COLOUR, ls="--", lw=1.2, label=_label(r))
    label_y = _spread_labels(results)
    for r in rope:
        spread, censored = length_spread(results, r["name"])
        marker = "o"
        if r["tune_len"] != r["train_len"]:
            marker = "s"
        if r["keep_planes"] is not None:
            marker = "D"
        colour = colours[r["name"]]
        if spread.n > 1:
            ax.errorbar(r["base"], spread.mean,
                        yerr=[[spread.mean - spread.lo], [spread.hi - spread.mean]],
                        color=colour, lw=1.2, capsize=3)  # fmt: skip
            ax.plot([r["base"]] * spread.n, spread.values, ".", color=colour, ms=3)
        ax.plot(r["base"], spread.mean, marker, color=colour, ms=8, mec="black", mew=0.6)
        if censored:
            ax.annotate("", xy=(r["base"], spread.mean * 1.6), xytext=(r["base"], spread.mean),
                        arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.5})  # fmt: skip
        ax.annotate(r["name"], (r["base"], spread.mean),
                    xytext=(r["base"] * 1.35, label_y[r["name"]]),
                    textcoords="data", fontsize=7, va="center",
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none",
                          "alpha": 0.85})  # fmt: skip
    if fit:
        power = exponent_fit(results)
        if power is not None:
            xs = np.geomspace(pre_base, max(bases), 50)
            ax.plot(xs, power.prefactor * xs**power.exponent, color="black", lw=1, ls="--",
                    label=f"fit: β^{power.exponent:.3f} "
                    f"(95 %: {power.lo:.3f} to {power.hi:.3f})")  # fmt: skip
    _length_axes(ax, (lo, hi), train_len, eval_len,
                 "Measured (markers: mean, range over seeds) against predicted (lines)")  # fmt: skip
    return fig


def _length_axes(
    ax: Any, xlim: tuple[float, float], train_len: int, eval_len: int, title: str
) -> None:
    """The axes of a supported-length-against-base figure: log base, log2 length from
    ``train_len / 2`` to ``3 eval_len``, labels, legend and grid."""
    ax.set_xscale("log")
    ax.set_yscale("log", base=2)
    ax.set_xlim(*xlim)
    ax.set_ylim(train_len / 2, eval_len * 3)
    ax.set_xlabel(r"RoPE base $\beta$ of the fine-tune")
    ax.set_ylabel("supported context length (tokens)")
    ax.set_title(title)
    ax.legend(fontsize=6.5, loc="upper left")
    ax.grid(alpha=0.3, which="both")


def plot_registered_lengths(
    registered: dict[str, Any],
    *,
    head_dim: int,
    train_len: int,
    pre_base: float,
    eval_len: int,
) -> Figure:
    r"""The registered analysis's supported lengths (all ten seeds) against the base.

    Filled circles: the mean over seeds under the registered rule (persist 128), with its
    95 % bootstrap interval over seeds and validation windows (PLAN.md section 5); open
    circles, drawn a little to the right: the same under the original first-crossing rule
    (persist 0). The line is Theorem 2's :math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}`
    (Liu et al., arXiv 2310.05209) from the pre-training base up; the dashed line is the
    registered power law through the four bases above :math:`\beta_0` only, with the mean of
    the per-seed exponents as its slope and through the mean of :math:`\log L` at the mean of
    :math:`\log\beta` (with the same bases in every seed, the pooled least-squares line); the
    pre-trained model is not a point of that fit. The dotted level is the control's mean.
    """
    stats_ = registered["subsets"]["all"]
    lengths = stats_["supported_length"]
    bases = {"pretrain": pre_base, "ft-1e4": pre_base, "ft-1e5": 1e5, "ft-1e6": 1e6,
             "ft-3e6": 3e6, "ft-1e7": 1e7, "ft-500": 500.0, "ft-60": 60.0, "ft-30": 30.0,
             "ft-16": 16.0}  # fmt: skip
    beta3 = train_len / (2 * math.pi)
    lo, hi = 8.0, 5e7
    fig, ax = new_figure(height=4.2)
    big = np.geomspace(pre_base, hi, 200)
    bound = [float(scaling.extrapolation_bound(b, head_dim, train_len, pre_base)) for b in big]
    ax.plot(big, bound, color=QUERY, lw=2,
            label=r"Theorem 2: $T_\mathrm{extra} = 2\pi\beta^{d_\mathrm{extra}/d}$")  # fmt: skip
    control = lengths["registered"]["ft-1e4"]["mean"]
    ax.plot([lo, pre_base], [control, control], color=KEY, lw=1.5, ls=":",
            label="control ft-1e4 (registered rule)")  # fmt: skip
    ax.axvline(beta3, color=ACCENT, ls=":", lw=1.5, label=r"$\beta_3 = T_\mathrm{train}/2\pi$")
    ax.axhline(eval_len, color=NEUTRAL, ls="--", lw=1, label=f"evaluated up to {eval_len}")
    for rule, shift, face in (("registered", 1.0, None), ("original", 1.15, "white")):
        for name, base in bases.items():
            s = lengths[rule][name]
            x = base * shift * (0.87 if name == "pretrain" else 1.0)
            low, high = s["boot"]
            ax.errorbar(x, s["mean"], yerr=[[s["mean"] - low], [high - s["mean"]]],
                        fmt="o", color="black" if face is None else NEUTRAL,
                        mfc=face or "black", ms=5, lw=1, capsize=2,
                        label=f"{rule} rule: mean, 95 % bootstrap"
                        if name == "pretrain" else None)  # fmt: skip
    x = np.log([bases[n] for n in EXPONENT_MODELS])
    y = np.mean([np.log(lengths["registered"][n]["per_seed"]) for n in EXPONENT_MODELS], axis=1)
    slope = stats_["exponent"]["registered"]["mean"]
    original = stats_["exponent"]["original"]["mean"]
    xs = np.geomspace(1e5, 1e7, 50)
    ax.plot(xs, np.exp(y.mean() + slope * (np.log(xs) - x.mean())), color="black", lw=1,
            ls="--", label=f"registered fit, bases above β0: β^{slope:.3f} "
            f"(original rule: β^{original:.3f})")  # fmt: skip
    _length_axes(ax, (lo, hi), train_len, eval_len,
                 "Supported length, ten seeds, two rules (PLAN.md)")  # fmt: skip
    return fig


def _spread_labels(results: dict[str, Any], gap: float = 1.2) -> dict[str, float]:
    """Label heights for :func:`plot_supported_vs_predicted`: each model's length, pushed up so
    that labels of models with the same base are at least a factor ``gap`` apart."""
    heights: dict[str, float] = {}
    rope = results["models"]
    for base in {r["base"] for r in rope}:
        group = sorted(
            (length_spread(results, r["name"])[0].mean, r["name"])
            for r in rope
            if r["base"] == base
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


def plot_testtime(
    results: dict[str, Any],
    models: Sequence[str],
    *,
    methods: Sequence[str] | None = None,
    ylim: tuple[float, float] | None = None,
    replicate: int = 0,
) -> Figure:
    r"""The loss of trained models with each test-time method applied, one panel per model.

    Black: the plain model; coloured (:data:`METHOD_STYLES`): each applicable method of
    ``methods`` (default: all that were run), dashed where it uses :math:`T_\text{train}`,
    solid where it uses :math:`T_\text{extra}` (or has no such choice). The training length is
    shaded and a dotted line marks the model's :math:`T_\text{extra}` when it has one within
    the evaluated length; the dotted level is the plain model's reference loss plus the margin,
    where the supported length ends.
    """
    if not models:
        raise ValueError("models must name at least one model")
    plan = _plan(results)
    train_len, eval_len, margin = plan["train_len"], plan["eval_len"], plan["margin"]
    ncols = min(3, len(models))
    nrows = -(-len(models) // ncols)
    fig, axes = new_figure(ncols, nrows, height=3.0 * nrows + 0.7, sharey=True, squeeze=False)
    handles: dict[str, Any] = {}
    for ax, name in zip(axes.flat, models, strict=False):
        record = model_record(results, name)
        runs = testtime_records(results, name, replicate)
        if not runs:
            raise ValueError(f"models must have test-time records, {name!r} has none")
        context, loss, _ = loss_curve(record)
        ax.axvspan(0, train_len, color=NEUTRAL, alpha=0.12, lw=0)
        (line,) = ax.plot(context, loss, color="black", lw=1.8)
        handles["plain model"] = line
        level = record["measured"]["reference_loss"] + margin
        ax.axhline(level, color=NEUTRAL, ls=":", lw=1)
        t_extra = record["prediction"]["t_extra"]
        if t_extra is not None and t_extra < eval_len:
            ax.axvline(t_extra, color=QUERY, ls=":", lw=1)
        for run in runs:
            if not run["applicable"] or (methods is not None and run["method"] not in methods):
                continue
            colour, style = METHOD_STYLES[run["method"]]
            c, y, _ = loss_curve(run)
            (line,) = ax.plot(c, y, color=colour, ls=style, lw=1.2)
            handles[run["label"]] = line
        ax.set_title(_label(record), fontsize=9)
        ax.set_xlim(0, eval_len)
        if ylim is not None:
            ax.set_ylim(*ylim)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(models) :]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("context length (tokens)")
    for ax in axes[:, 0]:
        ax.set_ylabel("validation loss (nats)")
    fig.legend(list(handles.values()), list(handles), fontsize=7,
               loc="outside lower center", ncol=min(4, len(handles)))  # fmt: skip
    return fig
