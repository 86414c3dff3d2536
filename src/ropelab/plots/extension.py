r"""Figures of chapter 6: extrapolation, context-extension methods and the scaling laws.

Each ``plot_*`` function returns a matplotlib Figure and draws data computed by ``ropelab``;
where the data take more than one call, a function of :mod:`ropelab.extension` computes them
first (tested on its own): ``extension_configs`` and ``scaled_frequencies`` (the angle-scaling
methods, via :func:`ropelab.frequencies_from_config`), ``dynamic_ntk_comparison`` (the
sources' integer :math:`\alpha_t` against transformers' continuous form), ``critical_split``
(the score :math:`q_t^\top k_0` split at the critical dimension) and
``method_explorer_data`` (the explorer of the methods).

Sources: Liu et al. 2024, "Scaling Laws of RoPE-based Extrapolation" (arXiv 2310.05209) and
the papers of each method, named in each docstring.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from .. import scaling
from .._checks import check_finite_array
from ..calculator import extension_original_len
from ..core import inv_freq, wavelengths
from ..extension import (
    MODEL_SETTINGS,
    TWO_PI,
    critical_split,
    dynamic_ntk_comparison,
    llama31_config,
    scaled_frequencies,
)
from ..rope_config import (
    frequencies_from_config,
    llama3_bands,
    yarn_attention_factor,
    yarn_correction_range,
    yarn_paper_ramp,
    yarn_ramp,
)
from ..windows import (
    alibi_bias,
    blockwise_causal_mask,
    causal_mask,
    lambda_mask,
    parallel_context_windows,
    sliding_window_mask,
    xpos_scales,
)
from .style import ACCENT, KEY, NEUTRAL, QUERY, SEQUENTIAL, new_figure

__all__ = [
    "BAND_COLOURS",
    "METHOD_COLOURS",
    "MODEL_SETTINGS",
    "draw_method_explorer",
    "plot_calculator",
    "plot_critical_split",
    "plot_dynamic_ntk",
    "plot_extension_strip",
    "plot_extrapolation_bound",
    "plot_llama3_bands",
    "plot_log_scaling",
    "plot_masks",
    "plot_scaled_frequencies",
    "plot_soft_windows",
    "plot_unseen_angles",
    "plot_yarn",
]

#: One colour per angle-scaling method, shared by every figure of chapter 6.
METHOD_COLOURS = {
    "PI (linear)": "#9467bd",
    "NTK-aware": "#ff7f0e",
    "YaRN": ACCENT,
    "LongRoPE (short)": "#8c564b",
    "LongRoPE (long)": "#e377c2",
    "Llama 3": QUERY,
}
#: Colours of the three kinds of plane: kept, partly changed, fully scaled (divided by s).
BAND_COLOURS = ("#e8e8e8", "#f4b183", "#c0504d")

# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------


def plot_unseen_angles(
    dim: int = 128, base: float = 10000.0, train_len: float = 4096, test_len: float = 16384
) -> Figure:
    r"""How far each plane turns within the training length and within a longer test length.

    Plane *i* turns :math:`L\theta_i/2\pi` full turns over *L* tokens. Planes below one turn
    at :math:`T_\text{train}` never saw their whole circle; at the test length they reach
    angles that training never produced. Chapter 6.
    """
    theta = inv_freq(dim, base)
    planes = np.arange(theta.size)
    turns_train = train_len * theta / TWO_PI
    turns_test = test_len * theta / TWO_PI
    unseen = turns_train < 1
    fig, ax = new_figure()
    ax.fill_between(planes, turns_train, turns_test, color=KEY, alpha=0.15, lw=0)
    ax.semilogy(planes, turns_test, color=KEY, lw=1.5, label=f"within {test_len:,.0f} tokens")
    ax.semilogy(planes, turns_train, color=QUERY, lw=1.5, label=f"within {train_len:,.0f} tokens")
    ax.axhline(1.0, color=NEUTRAL, ls="--", lw=1)
    ax.text(1, 1.15, "one full turn", color=NEUTRAL, fontsize=8)
    if unseen.any():
        first = int(np.argmax(unseen))
        ax.axvspan(first - 0.5, planes[-1] + 0.5, color=NEUTRAL, alpha=0.12, lw=0)
        ax.text(
            first + 0.5,
            turns_test.max() / 3,
            f"planes {first}–{planes[-1]}:\nless than one turn\nin training",
            fontsize=8,
            va="top",
        )
    ax.set_xlabel("plane i")
    ax.set_ylabel(r"turns $L\,\theta_i / 2\pi$")
    ax.set_title(f"d = {dim}, base {base:g}: turns of each plane over L tokens")
    ax.legend(loc="lower left", fontsize=8)
    ax.set_xlim(-0.5, planes[-1] + 0.5)
    return fig


def plot_masks(seq_len: int = 16, window: int = 4, sinks: int = 2, block: int = 4) -> Figure:
    r"""The masks of the attention-limiting methods and one ALiBi head, on ``seq_len`` tokens.

    Panels: causal; sliding window of ``window`` keys; Λ-shaped with ``sinks`` sink tokens
    plus the window; xPos's blockwise causal attention with blocks of ``block`` (each query
    sees its block and the previous one); parallel context windows (three windows of
    ``seq_len // 4`` tokens and a task of the rest, tick labels give the reused positions);
    ALiBi's bias of head 1 of 8 (slope 1/2). Functions of :mod:`ropelab.windows`. Chapter 6.
    """
    pcw_len = seq_len // 4
    pcw_mask, pcw_positions = parallel_context_windows([pcw_len] * 3, seq_len - 3 * pcw_len)
    masks = [
        ("causal", causal_mask(seq_len)),
        (f"sliding window, w = {window}", sliding_window_mask(seq_len, window)),
        (f"Λ-shaped: {sinks} sinks + w = {window}", lambda_mask(seq_len, window, sinks)),
        (f"xPos BCA, blocks of {block}", blockwise_causal_mask(seq_len, block)),
        ("parallel context windows", pcw_mask),
    ]
    fig, axes = new_figure(3, 2, height=5.2)
    binary = ListedColormap(["white", QUERY])
    for ax, (title, mask) in zip(axes.flat, masks, strict=False):
        ax.imshow(mask, cmap=binary, vmin=0, vmax=1, interpolation="nearest")
        ax.set_title(title, fontsize=9)
    bias = alibi_bias(seq_len, 8)[0]
    ax = axes.flat[5]
    image = ax.imshow(np.ma.masked_invalid(bias), cmap=SEQUENTIAL, interpolation="nearest")
    ax.set_title("ALiBi bias, head 1 of 8 (m = 1/2)", fontsize=9)
    fig.colorbar(image, ax=ax, shrink=0.8, label="bias")
    for ax in axes.flat:
        ax.set_xticks(np.arange(-0.5, seq_len, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, seq_len, 1), minor=True)
        ax.grid(which="minor", color="#d0d0d0", lw=0.4)
        ax.tick_params(which="minor", length=0)
        ax.set_xticks([0, seq_len - 1])
        ax.set_yticks([0, seq_len - 1])
        ax.tick_params(labelsize=7)
    for ax in axes[:, 0]:
        ax.set_ylabel("query t")
    for ax in axes[-1, :]:
        ax.set_xlabel("key s")
    pcw_ax = axes.flat[4]
    pcw_ax.set_xticks(np.arange(seq_len))
    pcw_ax.set_xticklabels([str(p) for p in pcw_positions], fontsize=5)
    pcw_ax.set_xlabel("key s (labels: position ids)")
    fig.suptitle("Attention masks (blue: attended) and an additive bias", fontsize=10)
    return fig


def plot_soft_windows(
    num_heads: int = 8,
    alibi_len: int = 65,
    dim: int = 128,
    scale_len: float = 512.0,
    xpos_len: int = 4097,
    planes: Sequence[int] = (0, 16, 32, 48, 63),
) -> Figure:
    r"""Soft windows: ALiBi's bias :math:`-m_h r` per head, and xPos's factor :math:`\zeta_n^{r/T}` per plane.

    Left: the bias row of the last query in :func:`ropelab.windows.alibi_bias` against the
    distance *r*, one line per head. Right: the query/key product of
    :func:`ropelab.windows.xpos_scales` for a query at distance *r* from a key at 0
    (*T* = ``scale_len``), for a few planes: the rows of
    :func:`ropelab.windows.xpos_factor_matrix`, without building the whole matrix.
    Chapter 6.
    """
    bias = alibi_bias(alibi_len, num_heads)[:, -1, ::-1]  # distance 0, 1, ...
    distance = np.arange(alibi_len)
    xpos_distance = np.arange(xpos_len)
    query_scale, _ = xpos_scales(xpos_distance, dim, scale_len)
    _, key_scale = xpos_scales(0.0, dim, scale_len)
    factor = (query_scale * key_scale).T  # (plane, distance)
    fig, (left, right) = new_figure(2)
    colours = [_sequential_colour(h / max(num_heads - 1, 1)) for h in range(num_heads)]
    for h in range(num_heads):
        slope = -bias[h, 1]
        left.plot(distance, bias[h], color=colours[h], lw=1.2, label=f"m = 1/{1 / slope:.0f}")
    left.set_xlabel("distance t − s")
    left.set_ylabel("bias added to the logit")
    left.set_title(f"ALiBi, {num_heads} heads", fontsize=10)
    left.legend(fontsize=6, ncol=2)
    zeta_colours = [_sequential_colour(j / max(len(planes) - 1, 1)) for j in range(len(planes))]
    for colour, n in zip(zeta_colours, planes, strict=True):
        right.plot(xpos_distance, factor[n], color=colour, lw=1.5, label=f"plane {n}")
    right.axvline(scale_len, color=NEUTRAL, ls="--", lw=1)
    right.text(scale_len * 1.05, 0.05, f"T = {scale_len:g}", color=NEUTRAL, fontsize=8)
    right.set_xlabel("distance t − s")
    right.set_ylabel(r"factor $\zeta_n^{(t-s)/T}$")
    right.set_title(f"xPos, d = {dim}, γ = 0.4", fontsize=10)
    right.set_ylim(0, 1.05)
    right.legend(fontsize=7)
    return fig


def _sequential_colour(x: float) -> tuple[float, float, float, float]:
    """A colour of the book's sequential map at ``x`` in [0, 1] (kept off its pale end)."""
    import matplotlib

    return matplotlib.colormaps[SEQUENTIAL](0.9 * float(x))


def plot_scaled_frequencies(
    dim: int = 128, base: float = 10000.0, train_len: int = 4096, factor: float = 4.0
) -> Figure:
    r"""What each angle-scaling method does to every plane (data: :func:`scaled_frequencies`).

    Left: :math:`\theta'_i/\theta_i` (1 = plane kept, 1/s = plane interpolated as PI does).
    Right: the new wavelengths :math:`2\pi/\theta'_i` against :math:`T_\text{train}` and
    :math:`s\,T_\text{train}`. Chapter 6.
    """
    theta = inv_freq(dim, base)
    results = scaled_frequencies(dim, base, train_len, factor)
    planes = np.arange(theta.size)
    fig, (left, right) = new_figure(2, height=3.8)
    for name, (scaled, _) in results.items():
        style = "--" if name.startswith("LongRoPE") else "-"
        left.semilogy(planes, scaled / theta, style, color=METHOD_COLOURS[name], lw=1.6, label=name)
        right.semilogy(planes, TWO_PI / scaled, style, color=METHOD_COLOURS[name], lw=1.4)
    right.semilogy(planes, TWO_PI / theta, color=NEUTRAL, lw=1.2, label="unscaled")
    for length, label in (
        (train_len, r"$T_\text{train}$"),
        (factor * train_len, r"$s\,T_\text{train}$"),
    ):
        right.axhline(length, color=NEUTRAL, ls=":", lw=1)
        right.text(1, length * 1.15, f"{label} = {length:,.0f}", fontsize=7, color=NEUTRAL)
    left.set_xlabel("plane i")
    left.set_ylabel(r"$\theta'_i / \theta_i$")
    left.set_title(f"frequency kept (1) … divided by s = {factor:g}", fontsize=10)
    left.legend(fontsize=7)
    right.set_xlabel("plane i")
    right.set_ylabel("wavelength (tokens)")
    right.set_title("wavelengths after scaling", fontsize=10)
    right.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, 0.9))
    fig.suptitle(
        f"d = {dim}, base {base:g}, {train_len:,} → {factor * train_len:,.0f} tokens "
        "(LongRoPE factors illustrative)",
        fontsize=10,
    )
    return fig


def plot_yarn(
    dim: int = 128, base: float = 10000.0, original: int = 4096, factor: float = 4.0
) -> Figure:
    r"""YaRN's NTK-by-parts ramp and its attention factor.

    Left: turns :math:`r_i = L/\lambda_i` of each plane over the original length, with
    ``beta_fast`` = 32 and ``beta_slow`` = 1 and the correction range :math:`(\ell, h)` of
    :func:`ropelab.rope_config.yarn_correction_range`. Middle: the interpolation weight
    :math:`w_i` as models compute it (:func:`ropelab.rope_config.yarn_ramp`, linear in *i*)
    and as the paper's eq. 18 writes it (:func:`ropelab.rope_config.yarn_paper_ramp`, linear
    in :math:`r_i`). Right: the
    attention factor :math:`0.1\ln s + 1` (:func:`ropelab.rope_config.yarn_attention_factor`).
    Source: Peng et al. 2024 (YaRN). Chapter 6.
    """
    planes = np.arange(dim // 2)
    turns = original / wavelengths(dim, base)
    low, high = yarn_correction_range(dim, base, original)
    weight = yarn_ramp(dim, base, original)
    paper = yarn_paper_ramp(dim, base, original)
    scales = np.geomspace(1, 64, 200)
    attention = np.array([yarn_attention_factor(s) for s in scales])
    fig, (left, middle, right) = new_figure(3, height=3.2)
    left.semilogy(planes, turns, color=NEUTRAL, lw=1.5)
    for level, name in ((32, "beta_fast = 32"), (1, "beta_slow = 1")):
        left.axhline(level, color=KEY, ls="--", lw=1)
        left.text(planes[-1], level * 1.3, name, ha="right", fontsize=7, color=KEY)
    for ax in (left, middle):
        ax.axvspan(low, high, color=METHOD_COLOURS["YaRN"], alpha=0.15, lw=0)
        ax.set_xlabel("plane i")
    left.set_ylabel(f"turns within {original:,} tokens")
    left.set_title(f"ramp: planes {low:.0f}–{high:.0f}", fontsize=9)
    middle.plot(
        planes,
        weight,
        "o-",
        ms=2.5,
        color=METHOD_COLOURS["YaRN"],
        lw=1.4,
        label="code: linear in i",
    )
    middle.plot(planes, paper, "s--", ms=2.5, color=KEY, lw=1.0, label="paper: linear in turns")
    middle.set_ylabel(r"weight $w_i$ of $\theta_i/s$")
    middle.set_title("0: kept, 1: divided by s", fontsize=9)
    middle.legend(fontsize=6, loc="upper left")
    right.semilogx(scales, attention, color=METHOD_COLOURS["YaRN"], lw=1.6)
    right.plot([factor], [yarn_attention_factor(factor)], "o", color=KEY, ms=4)
    right.annotate(
        f"s = {factor:g}: {yarn_attention_factor(factor):.3f}",
        (factor, yarn_attention_factor(factor)),
        xytext=(6, -12),
        textcoords="offset points",
        fontsize=7,
    )
    right.set_xlabel("scale s")
    right.set_ylabel("attention factor")
    right.set_title(r"$0.1\,\ln s + 1$", fontsize=9)
    fig.suptitle(f"YaRN for d = {dim}, base {base:g}, original length {original:,}", fontsize=10)
    return fig


def plot_llama3_bands(config: Mapping[str, Any] | None = None) -> Figure:
    r"""Llama 3.1 scaling: each plane's wavelength before and after, coloured by band.

    Bands from :func:`ropelab.rope_config.llama3_bands` (high: kept, medium: blended,
    low: divided by the factor), frequencies from :func:`ropelab.frequencies_from_config`
    (default config: :func:`llama31_config`). Chapter 6.
    """
    config = dict(llama31_config() if config is None else config)
    params = config["rope_parameters"]
    dim, base = config["head_dim"], params["rope_theta"]
    original = params["original_max_position_embeddings"]
    low_f, high_f = params["low_freq_factor"], params["high_freq_factor"]
    bands = llama3_bands(dim, base, original, low_f, high_f)
    before = wavelengths(dim, base)
    after = TWO_PI / frequencies_from_config(config)[0]
    planes = np.arange(dim // 2)
    fig, ax = new_figure()
    ax.semilogy(planes, before, color=NEUTRAL, lw=1.2, label="before (base only)")
    for band, colour in zip(("high", "medium", "low"), BAND_COLOURS, strict=True):
        chosen = bands == band
        ax.semilogy(
            planes[chosen],
            after[chosen],
            "o",
            ms=3.5,
            color=colour,
            mec="#555555",
            mew=0.4,
            label=f"after, {band}-frequency band ({chosen.sum()} planes)",
        )
    for length, label in (
        (original / high_f, r"$L/f_\text{high}$"),
        (original / low_f, r"$L/f_\text{low}$"),
    ):
        ax.axhline(length, color=KEY, ls="--", lw=0.8)
        ax.text(0, length * 1.2, f"{label} = {length:,.0f}", fontsize=7, color=KEY)
    ax.set_xlabel("plane i")
    ax.set_ylabel("wavelength (tokens)")
    ax.set_title(
        f"Llama 3.1: base {base:,.0f}, factor {params['factor']:g}, "
        f"L = {original:,}, f_low = {low_f:g}, f_high = {high_f:g}",
        fontsize=10,
    )
    ax.legend(fontsize=7, loc="lower right")
    return fig


def plot_dynamic_ntk(
    dim: int = 128,
    base: float = 10000.0,
    train_len: int = 4096,
    factor: float = 2.0,
    max_ratio: int = 8,
) -> Figure:
    r"""Dynamic NTK: Qwen's integer :math:`\alpha_t`, the paper's simplification, transformers'.

    Data: :func:`dynamic_ntk_comparison` on lengths up to ``max_ratio`` × *T*. Left: the base
    multiplier :math:`\beta'_t/\beta`: Qwen's released code :math:`\alpha_t^{d/(d-2)}`, the
    scaling-laws paper's :math:`\alpha_t` (its eq. 20, without the exponent) and transformers'
    continuous :math:`b_t^{d/(d-2)}`. Right: the slowest plane's largest angle relative to
    training (above 1: unseen angles). Chapter 6.
    """
    lengths = np.unique(np.linspace(1, max_ratio * train_len, 1200).round())
    data = dynamic_ntk_comparison(lengths, dim, base, train_len, factor)
    ratio = lengths / train_len
    fig, (left, right) = new_figure(2)
    left.step(
        ratio,
        data["alpha"],
        where="post",
        color=KEY,
        lw=1.2,
        ls="--",
        label=r"paper, eq. 20: $\alpha_t$",
    )
    left.step(
        ratio, data["qwen"], where="post", color=KEY, lw=1.6, label=r"Qwen: $\alpha_t^{d/(d-2)}$"
    )
    left.plot(
        ratio,
        data["continuous"],
        color=QUERY,
        lw=1.6,
        label=rf"transformers, s = {factor:g}: $b_t^{{d/(d-2)}}$",
    )
    left.set_xlabel(r"length $t / T_\text{train}$")
    left.set_ylabel(r"base multiplier $\beta'_t / \beta$")
    left.set_title("how the base grows", fontsize=10)
    left.legend(fontsize=7)
    right.plot(ratio, data["angle_none"], color=NEUTRAL, lw=1.4, label="no scaling")
    right.plot(ratio, data["angle_qwen"], color=KEY, lw=1.4, label="Qwen")
    right.plot(ratio, data["angle_integer"], color=KEY, lw=1.0, ls="--", label="paper, eq. 20")
    right.plot(ratio, data["angle_continuous"], color=QUERY, lw=1.4, label="transformers")
    right.axhline(1.0, color=NEUTRAL, ls=":", lw=1)
    right.set_xlabel(r"length $t / T_\text{train}$")
    right.set_ylabel("largest angle / largest in training")
    right.set_title("slowest plane: angles beyond training?", fontsize=10)
    right.legend(fontsize=7)
    fig.suptitle(f"Dynamic NTK, d = {dim}, base {base:g}, T_train = {train_len:,}", fontsize=10)
    return fig


def plot_extrapolation_bound(
    dim: int = 128,
    train_len: float = 4096,
    tune_len: float = 16384,
    pretrain_base: float = 10000.0,
    reference_len: float = 100_000,
) -> Figure:
    r"""The scaling laws in two panels.

    Left (Theorem 2): :math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}` against β,
    log-log (:func:`ropelab.scaling.extrapolation_bound`), with the longest test length of the
    paper's experiments (``reference_len``) and the formula's value at three bases (10,000,
    where it gives 4,712, more than the 4,096 the unchanged LLaMA 2 supports; 500,000;
    1,000,000). Right (Theorem 3): the supported length (:func:`ropelab.scaling.predict`) for
    fine-tuning at :math:`T_\text{tune}`, with the critical base :math:`\beta_0`, the jump
    there (from :math:`T_\text{tune}` to :math:`2\pi\beta_0^{d_\text{extra}/d}`: eq. 16a has
    no ceiling, eq. 16b has), the thresholds :math:`\beta_1, \beta_2, \beta_3` of
    :math:`T_\text{tune}` and the bases where the source conjectures no hard bound.
    Chapter 6.
    """
    bases = np.geomspace(1e4, 1e7, 200)
    bound = scaling.extrapolation_bound(bases, dim, train_len, pretrain_base)
    fig, (left, right) = new_figure(2, height=3.8)
    left.loglog(
        bases, bound, color=QUERY, lw=1.8, label=r"$T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}$"
    )
    left.axhline(reference_len, color=KEY, ls="--", lw=1)
    left.text(1.1e4, reference_len * 1.12, f"{reference_len:,.0f} tokens", color=KEY, fontsize=7)
    # Theorem 2's value at each base; at the unchanged base 10,000 it is plane 46's
    # wavelength (4,712), not what LLaMA 2 supports (its training length, 4,096).
    points = (
        ("base 10,000", "\n(LLaMA 2 itself: 4,096)", 1e4, (8, -10), "left"),
        ("base 500,000", "", 5e5, (8, -14), "left"),
        ("base 1,000,000", "", 1e6, (-8, 6), "right"),
    )
    for name, note, base, offset, align in points:
        value = float(scaling.extrapolation_bound(base, dim, train_len, pretrain_base))
        left.plot([base], [value], "o", color=KEY, ms=4)
        left.annotate(
            f"{name}: {value:,.0f}{note}",
            (base, value),
            xytext=offset,
            textcoords="offset points",
            fontsize=7,
            ha=align,
        )
    left.set_xlabel("base β")
    left.set_ylabel(r"$T_\text{extra}$ (tokens)")
    left.set_title(f"Theorem 2: d = {dim}, fine-tuned at {train_len:,.0f}", fontsize=10)
    left.legend(fontsize=7, loc="upper left")

    grid = np.geomspace(100, 1e7, 400)
    predictions = [scaling.predict(dim, train_len, b, tune_len, pretrain_base) for b in grid]
    supported = np.array(
        [np.nan if p.supported_length is None else p.supported_length for p in predictions]
    )
    unbounded = np.array([p.supported_length is None for p in predictions])
    right.loglog(grid, supported, color=QUERY, lw=1.8, label="predicted supported length")
    if unbounded.any():
        right.axvspan(grid[0], grid[unbounded][-1], color=ACCENT, alpha=0.15, lw=0)
        right.text(
            grid[0] * 1.2,
            tune_len * 6,
            "every plane\nsees a full\nperiod: no\nhard bound\n(conjecture)",
            fontsize=7,
        )
    beta0 = float(scaling.critical_base(train_len, tune_len, pretrain_base))
    right.axvline(beta0, color=KEY, lw=1)
    # the jump at β0: eq. 16a has no ceiling, eq. 16b the ceiled d_extra
    jump = float(scaling.extrapolation_bound(beta0, dim, train_len, pretrain_base))
    right.plot([beta0, beta0], [tune_len, jump], "o", color=KEY, ms=3, mfc="white")
    right.annotate(
        f"jump {tune_len:,.0f} → {jump:,.0f}",
        (beta0, jump),
        xytext=(6, 8),
        textcoords="offset points",
        fontsize=7,
        color=KEY,
    )
    right.text(beta0 * 1.1, tune_len * 0.55, rf"$\beta_0$ = {beta0:,.0f}", color=KEY, fontsize=7)
    for name, b in zip(("β1", "β2", "β3"), scaling.small_base_thresholds(tune_len), strict=True):
        right.axvline(b, color=NEUTRAL, ls=":", lw=1)
        right.text(b, tune_len * 12, name, color=NEUTRAL, fontsize=7, ha="center")
    right.set_ylim(tune_len / 2, tune_len * 20)
    right.set_xlabel("base β")
    right.set_ylabel("supported length (tokens)")
    right.set_title(rf"Theorem 3: fine-tuned at $T_\text{{tune}}$ = {tune_len:,.0f}", fontsize=10)
    right.legend(fontsize=7, loc="lower right")
    return fig


def plot_log_scaling(
    extra_len: float = 129_027.0,
    train_len: float = 4096.0,
    max_len: float = 2**20,
) -> Figure:
    r"""Log scaling: the factor :math:`p_t = \max(1, \log_{T} t)` of the logits at length *t*.

    Two choices of *T* (:func:`ropelab.scaling.log_scale`): the training length, as the
    entropy-invariance argument (Su 2021) and Qwen's ``logn`` attention use it, and
    :math:`T_\text{extra}`, as the scaling laws propose (eq. 18 of the paper): within the bound
    the model is reliable and needs no correction. Chapter 6.
    """
    t = np.geomspace(64, max_len, 400)
    fig, ax = new_figure()
    for length, label, colour in (
        (train_len, rf"$T = T_\text{{train}}$ = {train_len:,.0f}", NEUTRAL),
        (extra_len, rf"$T = T_\text{{extra}}$ = {extra_len:,.0f}", QUERY),
    ):
        ax.semilogx(t, scaling.log_scale(t, length), color=colour, lw=1.8, label=label)
        ax.axvline(length, color=colour, ls=":", lw=1)
    ax.set_xlabel("length t (position of the query)")
    ax.set_ylabel(r"$p_t = \max(1, \log_T t)$")
    ax.set_title("log scaling: logits multiplied by p_t", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    return fig


def plot_critical_split(
    positions: Any,
    q: Any,
    k: Any,
    d_extra: int,
    base: float = 10000.0,
    train_len: float = 4096,
    title: str = "",
) -> Figure:
    r"""The two parts of :math:`q_t^\top k_0` (data: :func:`critical_split`) against *t*.

    Each panel shades the range the part took for :math:`t \leq T_\text{train}`; past
    :math:`T_\text{train}` (dashed line) a part that leaves its shaded range shows values the
    training positions never produced. Chapter 6.
    """
    t = check_finite_array(positions, "positions")
    first, last = critical_split(t, q, k, d_extra, base)
    dim = np.asarray(q).size
    seen = t <= train_len
    fig, axes = new_figure(1, 2, height=4.2, sharex=True)
    panels = (
        (axes[0], first, f"first {d_extra} dimensions (planes 0–{d_extra // 2 - 1})", QUERY),
        (
            axes[1],
            last,
            f"last {dim - d_extra} dimensions (planes {d_extra // 2}–{dim // 2 - 1})",
            KEY,
        ),
    )
    for ax, part, label, colour in panels:
        low, high = part[seen].min(), part[seen].max()
        ax.axhspan(
            low, high, color=NEUTRAL, alpha=0.15, lw=0, label=r"range for $t \leq T_\text{train}$"
        )
        ax.plot(t, part, color=colour, lw=0.7)
        ax.axvline(train_len, color="black", ls="--", lw=1)
        ax.set_ylabel("contribution")
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    axes[1].set_xlabel(r"query position t (key at 0); dashed: $T_\text{train}$")
    fig.suptitle(title or r"$q_t^\top k_0$ split at the critical dimension", fontsize=10)
    return fig


def _format_base(base: float) -> str:
    """A base as readable text: thousands separators from 100 up, three digits below."""
    return f"{base:,.0f}" if base >= 100 else f"{base:.3g}"


def plot_calculator(data: Mapping[str, Any]) -> Figure:
    r"""The calculator's chart: every plane's wavelength against :math:`T_\text{train}` and :math:`T_\text{extra}`.

    ``data`` is the dict of :func:`ropelab.calculator.calculator_data`. Top: the
    wavelengths :math:`2\pi\beta^{2i/d}` at the chosen base, filled for the planes inside the
    critical dimension that governs the prediction (``effective_d_extra``: :math:`d_\text{extra}`
    of pre-training for a larger base, :math:`d'_\text{extra}` counted over
    :math:`T_\text{tune}` otherwise), open for the rest; the pre-training wavelengths at base
    10 000 in grey; lines at :math:`T_\text{train}`, :math:`T_\text{tune}` and, in the
    larger-base regime, :math:`T_\text{extra}`. Bottom: which planes PI, NTK, YaRN and Llama 3
    keep, change partly or divide by *s* when extending the fine-tuned model (base β, original
    length the supported length, :func:`ropelab.calculator.extension_original_len`:
    :math:`T_\text{extra}` above the critical base, :math:`T_\text{tune}` otherwise).
    Chapter 6.
    """
    fig, (top, bottom) = new_figure(
        1, 2, height=4.6, gridspec_kw={"height_ratios": [3.2, 1.0]}, sharex=True
    )
    planes = np.asarray(data["planes"])
    lam = np.asarray(data["wavelengths"])
    critical = data["effective_d_extra"] // 2
    inside = planes < critical
    base = _format_base(data["base"])
    top.semilogy(
        planes,
        data["pretrain_wavelengths"],
        color=NEUTRAL,
        lw=1,
        label="base 10,000 (pre-training)",
    )
    top.semilogy(
        planes[inside],
        lam[inside],
        "o",
        ms=3,
        color=QUERY,
        label=f"base {base}: inside the critical dimension",
    )
    if (~inside).any():
        top.semilogy(
            planes[~inside],
            lam[~inside],
            "o",
            ms=3,
            mfc="white",
            color=KEY,
            label=f"base {base}: beyond it",
        )
        top.axvline(critical - 0.5, color=NEUTRAL, ls=":", lw=1)
    lines = [(data["train_len"], r"$T_\text{train}$", "black", "--")]
    if data["tune_len"] != data["train_len"]:
        lines.append((data["tune_len"], r"$T_\text{tune}$", "black", ":"))
    if data["regime"] == scaling.REGIME_LARGER_BASE:
        lines.append((data["extra_len"], r"$T_\text{extra}$", ACCENT, "-"))
    for value, label, colour, style in lines:
        top.axhline(value, color=colour, ls=style, lw=1)
        top.text(
            planes[-1],
            value * 1.15,
            f"{label} = {value:,.0f}",
            ha="right",
            fontsize=7,
            color=colour,
        )
    top.set_ylabel("wavelength (tokens)")
    supported = data["supported_length"]
    supported_text = "" if supported is None else f" = {supported:,.0f} tokens"
    top.set_title(
        f"d = {data['dim']}, T_train = {data['train_len']:,.0f}, base {base}, "
        f"T_tune = {data['tune_len']:,.0f}\n{data['regime']}{supported_text} "
        f"(β0 = {data['critical_base']:,.0f}, critical dimension {data['effective_d_extra']})",
        fontsize=9,
    )
    top.legend(fontsize=7, loc="upper left")
    _draw_bands(bottom, data)
    return fig


def _draw_bands(ax: Any, data: Mapping[str, Any]) -> None:
    """The strip of extension methods of the calculator (its ``bands``) on ``ax``."""
    planes = np.asarray(data["planes"])
    names = list(data["bands"])
    grid = np.array([data["bands"][name] for name in names])
    ax.imshow(
        grid,
        aspect="auto",
        cmap=ListedColormap(list(BAND_COLOURS)),
        vmin=0,
        vmax=2,
        interpolation="nearest",
        extent=(planes[0] - 0.5, planes[-1] + 0.5, len(names) - 0.5, -0.5),
    )
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=7)
    original = extension_original_len(data["supported_length"], data["tune_len"])
    ax.set_title(
        f"extending it further from L = {original:,} tokens, the length it is reliable to",
        fontsize=8,
    )
    ax.set_xlabel("plane i   (light: kept, orange: partly changed, red: divided by s)")


def plot_extension_strip(data: Mapping[str, Any]) -> Figure:
    r"""The calculator's strip alone: which planes PI, NTK, YaRN and Llama 3 keep, change partly
    or divide by *s* when they extend the fine-tuned model, starting from the length it is
    reliable to (:func:`ropelab.calculator.extension_original_len`). ``data`` is the dict of
    :func:`ropelab.calculator.calculator_data`. Chapter 6."""
    fig, ax = new_figure(height=1.9)
    _draw_bands(ax, data)
    return fig


def draw_method_explorer(data: Mapping[str, Any]) -> Figure:
    r"""The explorer of the context-extension methods, drawn from
    :func:`ropelab.extension.method_explorer_data` (chapters 6 and 8).

    Top: every plane's wavelength before (grey) and after the method (dots coloured by band:
    kept, stretched, interpolated), against the original and the target length, with the
    critical dimension of the original length dashed. Bottom: the bands as a strip.
    """
    fig, (top, bottom) = new_figure(
        1, 2, height=4.6, gridspec_kw={"height_ratios": [3.2, 0.6]}, sharex=True
    )
    planes = np.asarray(data["planes"])
    band = np.asarray(data["band"])
    top.semilogy(planes, data["wavelength_before"], color=NEUTRAL, lw=1.2, label="before")
    names = ("kept", "stretched", "interpolated")
    for value, name in enumerate(names):
        chosen = band == value
        if chosen.any():
            top.semilogy(
                planes[chosen],
                np.asarray(data["wavelength_after"])[chosen],
                "o",
                ms=3.5,
                color=BAND_COLOURS[value] if value else QUERY,
                label=f"after: {name} ({int(chosen.sum())})",
            )
    for length, text, style in (
        (data["original_len"], "original length", "--"),
        (data["target_len"], "target length", ":"),
    ):
        top.axhline(length, color=KEY, ls=style, lw=1.0)
        top.text(0.5, length * 1.15, f"{text} {length:,}", color=KEY, fontsize=8)
    boundary = data["critical_dim"] / 2 - 0.5
    top.axvline(boundary, color=NEUTRAL, ls="--", lw=0.9)
    top.set_ylabel("wavelength (tokens)")
    top.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    top.set_title(
        f"{data['method']}: s = {data['factor']:.4g}, attention factor "
        f"{data['attention_factor']:.3f}, d_extra = {data['critical_dim']}",
        fontsize=10,
    )
    colours = ListedColormap(["#dddddd", BAND_COLOURS[1], BAND_COLOURS[2]])
    bottom.imshow(
        band[None, :], aspect="auto", cmap=colours, vmin=0, vmax=2,
        extent=(-0.5, len(planes) - 0.5, 0, 1),
    )  # fmt: skip
    bottom.set_yticks([])
    bottom.set_xlabel("plane index i")
    return fig
