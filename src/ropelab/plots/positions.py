"""Figures of chapter 0, *Why attention needs positions*.

Each function computes its data with :mod:`ropelab.positions` and returns a matplotlib
Figure in the book's style (:mod:`ropelab.plots.style`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .. import positions as pos
from .._checks import check_base, check_count, check_dim
from ..core import wavelengths
from .style import ACCENT, DIVERGING, KEY, NEUTRAL, QUERY, new_figure

__all__ = [
    "SCHEME_LABELS",
    "draw_sinusoid",
    "permutation_figure",
    "relative_lookup_figure",
    "shift_test_figure",
    "sinusoid_circle_figure",
    "sinusoid_figure",
    "sinusoid_gram_figure",
]

#: Legend labels of the position schemes of :data:`ropelab.positions.SCHEMES`.
SCHEME_LABELS = {
    "none": "no positions",
    "learned": "learned absolute (BERT)",
    "sinusoidal": "sinusoidal absolute",
    "shaw": "Shaw et al. (clipped)",
    "transformer_xl": "Transformer-XL / XLNet",
    "t5": "T5 bias",
    "deberta": "DeBERTa",
}


def _annotated_heatmap(ax: Any, values: np.ndarray, limit: float, fmt: str = "{:.2f}") -> Any:
    image = ax.imshow(values, cmap=DIVERGING, vmin=-limit, vmax=limit)
    for (row, col), value in np.ndenumerate(values):
        shade = abs(value) > 0.6 * limit
        ax.text(
            col,
            row,
            fmt.format(value),
            ha="center",
            va="center",
            fontsize=8,
            color="white" if shade else "black",
        )
    return image


def permutation_figure(
    tokens: Sequence[str],
    order: Sequence[int],
    x: Any,
    head: pos.ToyHead,
    highlight: tuple[str, str] | None = None,
) -> Figure:
    r"""The logits of a sentence and of the same words reordered, side by side (chapter 0).

    Left: :math:`S(X)` for ``tokens``; right: :math:`S(PX)` for the tokens in ``order``,
    both from :func:`ropelab.positions.self_attention` without positions. The right matrix
    is the left one with rows and columns reordered, :math:`S(PX) = P S(X) P^\top`.

    Args:
        tokens: the words of the first sentence.
        order: the permutation giving the second sentence, ``tokens[order]``.
        x: their embeddings, ``(N, dim)``, row *j* for ``tokens[j]``.
        head: the attention weights.
        highlight: optional ``(query word, key word)`` whose cell is framed in both panels.
    """
    tokens = list(tokens)
    order = list(order)
    x = np.asarray(x, dtype=np.float64)
    permuted_tokens = [tokens[j] for j in order]
    before = pos.self_attention(x, head).scores
    after = pos.self_attention(x[order], head).scores
    limit = float(max(np.abs(before).max(), np.abs(after).max()))
    fig, axes = new_figure(2, width=7.0, height=3.7)
    panels = ((tokens, before), (permuted_tokens, after))
    for ax, (words, scores) in zip(axes, panels, strict=True):
        image = _annotated_heatmap(ax, scores, limit)
        ax.set_xticks(range(len(words)), words, rotation=45, ha="right")
        ax.set_yticks(range(len(words)), words)
        ax.set_xlabel("key $n$")
        ax.set_ylabel("query $m$")
        ax.set_title(f"“{' '.join(words)}”", fontsize=10)
        if highlight is not None:
            row, col = words.index(highlight[0]), words.index(highlight[1])
            ax.add_patch(
                Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, edgecolor=ACCENT, linewidth=2.5)
            )
    fig.colorbar(image, ax=axes, shrink=0.8, label=r"score $q_m^\top k_n/\sqrt{d_h}$")
    fig.suptitle("Same words, new order: the same scores, moved", fontsize=11)
    return fig


def sinusoid_figure(length: int = 100, dim: int = 128, base: float = 10000.0) -> Figure:
    """Chapter 0's sinusoid figure: :func:`draw_sinusoid` of
    :func:`ropelab.positions.sinusoid_data` (*L* >= 1, *d* positive and even, base > 0)."""
    return draw_sinusoid(pos.sinusoid_data(length, dim, base))


def draw_sinusoid(data: dict[str, Any]) -> Figure:
    r"""The sinusoidal encoding as a heatmap, and three of its coordinates (chapter 0).

    Left: :math:`p_{m,j}` of :func:`ropelab.positions.sinusoidal_encoding` for positions
    :math:`m < L` (rows) and coordinates *j* (columns). Right: the sine coordinates
    :math:`j = 0, 2\lfloor d/8\rfloor, 2\lfloor d/4\rfloor` (planes whose wavelengths are
    about 1, 10 and 100 times :math:`2\pi` for *d* = 128) against *m*. The static view of
    chapter 0's interactive figure, drawn from :func:`ropelab.positions.sinusoid_data`.
    """
    table, dim, base, length = data["encoding"], data["dim"], data["base"], data["length"]
    fig, (left, right) = new_figure(2, width=7.0, height=3.6)
    image = left.imshow(
        table, cmap=DIVERGING, vmin=-1, vmax=1, aspect="auto", interpolation="nearest"
    )
    left.set_xlabel("coordinate $j$ of $p_m$")
    left.set_ylabel("position $m$")
    left.set_title(f"$p_m$ for $d$ = {dim}, base = {base:g}", fontsize=10)
    fig.colorbar(image, ax=left, label="value")
    columns = sorted({0, 2 * (dim // 8), 2 * (dim // 4)})
    colours = [QUERY, ACCENT, KEY]
    theta = data["theta"]
    for colour, column in zip(colours, columns, strict=False):
        right.plot(
            np.arange(length),
            table[:, column],
            color=colour,
            label=rf"$j$ = {column}: $\sin(m\theta_{{{column // 2}}})$, "
            rf"$\lambda_{{{column // 2}}}$ = {2 * np.pi / theta[column // 2]:.1f}",
        )
    right.set_xlabel("position $m$")
    right.set_ylabel(r"$p_{m,j}$")
    right.set_ylim(-1.15, 1.6)
    right.set_title("three sine coordinates", fontsize=10)
    right.legend(fontsize=7, loc="upper right")
    return fig


def sinusoid_gram_figure(length: int, head: pos.ToyHead) -> Figure:
    r"""Position-position scores with and without the projections (chapter 0).

    Left: :math:`p_m^\top p_n`, which equals :math:`\sum_i \cos((m-n)\theta_i)` and so is
    constant along every diagonal. Right: :math:`p_m^\top W_q^\top W_k p_n`, the fourth term
    of the decomposition, which is not. Sinusoids of dimension ``head.dim`` and base
    ``head.base``; positions :math:`0 \dots L-1`.

    Args:
        length: *L*, an integer >= 1.
        head: supplies :math:`W_q, W_k`, the dimension and the base.
    """
    table = pos.sinusoidal_encoding(length, head.dim, head.base)
    raw = table @ table.T
    projected = (table @ head.w_q.T) @ (table @ head.w_k.T).T
    fig, axes = new_figure(2, width=7.0, height=3.7)
    panels = (
        (raw, r"$p_m^\top p_n$"),
        (projected, r"$p_m^\top W_q^\top W_k\, p_n$"),
    )
    for ax, (values, title) in zip(axes, panels, strict=True):
        limit = float(np.abs(values).max())
        image = ax.imshow(values, cmap=DIVERGING, vmin=-limit, vmax=limit)
        spread = pos.diagonal_spread(values)
        ax.set_title(f"{title}\nspread along diagonals: {spread:.2f}", fontsize=9)
        ax.set_xlabel("key position $n$")
        ax.set_ylabel("query position $m$")
        fig.colorbar(image, ax=ax, shrink=0.85)
    return fig


def sinusoid_circle_figure(
    dim: int = 128,
    train_len: int = 512,
    planes: Sequence[int] = (8, 40),
    base: float = 10000.0,
) -> Figure:
    r"""Where the pairs :math:`(\cos m\theta_i, \sin m\theta_i)` land, before and after *T*.

    One unit circle per plane *i*: the points of the training positions
    :math:`0 \le m < T` and of the next *T* positions :math:`T \le m < 2T`. A fast plane
    (wavelength below *T*) has visited the whole circle in training; a slow one only an arc,
    and the new positions fall on the part it never saw. Chapter 0.

    Args:
        dim: *d*, a positive even integer.
        train_len: *T*, an integer >= 1.
        planes: plane indices in ``[0, dim/2 - 1]``.
        base: > 0.
    """
    dim = check_dim(dim)
    base = check_base(base)
    train_len = check_count(train_len, "train_len")
    planes = [check_count(i, "planes", minimum=0) for i in planes]
    if not planes or max(planes) >= dim // 2:
        raise ValueError(f"planes must be plane indices in [0, {dim // 2 - 1}], got {planes}")
    table = pos.sinusoidal_encoding(2 * train_len, dim, base)
    lam = wavelengths(dim, base)
    fig, axes = new_figure(len(planes), width=7.0, height=3.7)
    axes = np.atleast_1d(axes)
    for ax, plane in zip(axes, planes, strict=True):
        sin, cos = table[:, 2 * plane], table[:, 2 * plane + 1]
        circle = np.linspace(0, 2 * np.pi, 400)
        ax.plot(np.cos(circle), np.sin(circle), color=NEUTRAL, linewidth=0.8, linestyle=":")
        ax.scatter(
            cos[train_len:],
            sin[train_len:],
            s=10,
            color=KEY,
            marker="x",
            linewidths=0.8,
            label=f"new: ${train_len} \\leq m < {2 * train_len}$",
        )
        ax.scatter(
            cos[:train_len],
            sin[:train_len],
            s=6,
            color=QUERY,
            label=f"seen in training: $m < {train_len}$",
        )
        ax.set_aspect("equal")
        ax.set_xlim(-1.35, 1.35)
        ax.set_ylim(-1.35, 1.6)
        ax.set_xlabel(rf"$\cos m\theta_{{{plane}}}$")
        ax.set_ylabel(rf"$\sin m\theta_{{{plane}}}$")
        ax.set_title(f"plane {plane}: wavelength {lam[plane]:.1f} tokens", fontsize=10)
        ax.legend(fontsize=7, loc="upper center", ncol=1)
    fig.suptitle(
        f"Sinusoid pairs for $d$ = {dim}, base = {base:g}, training length {train_len}",
        fontsize=11,
    )
    return fig


def relative_lookup_figure(
    length: int = 10,
    clip: int = 3,
    max_offset: int = 300,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> Figure:
    r"""What the relative schemes look up for each pair of positions (chapter 0).

    Left: Shaw et al.'s clipped offset :math:`\operatorname{clip}(m - n, -k, k)` for
    positions :math:`0 \dots L-1` (:func:`ropelab.positions.shaw_relative_index` minus *k*).
    Right: T5's bucket of the offset :math:`n - m` for :math:`|n - m| \le` ``max_offset``
    (:func:`ropelab.positions.t5_relative_bucket`), with dashed lines where the last bucket
    of each half begins (:func:`ropelab.positions.t5_last_bucket_distance`).

    Args:
        length: *L*, an integer >= 1.
        clip: *k*, an integer >= 1.
        max_offset: the largest offset on the right panel, an integer >= 1.
        num_buckets, max_distance: T5's settings.
    """
    length = check_count(length, "length")
    max_offset = check_count(max_offset, "max_offset")
    m = np.arange(length)
    clipped = pos.shaw_relative_index(m[:, None] - m[None, :], clip) - clip
    offsets = np.arange(-max_offset, max_offset + 1)
    buckets = pos.t5_relative_bucket(offsets, num_buckets, max_distance)
    fig, (left, right) = new_figure(2, width=7.0, height=3.6)
    limit = float(max(1, clip))
    image = _annotated_heatmap(left, clipped.astype(float), limit, fmt="{:.0f}")
    left.set_xlabel("key position $n$")
    left.set_ylabel("query position $m$")
    left.set_title(rf"Shaw et al.: clip$(m-n, -{clip}, {clip})$", fontsize=10)
    fig.colorbar(image, ax=left, shrink=0.85, label="clipped offset $r$")
    right.step(offsets, buckets, where="mid", color=QUERY, linewidth=1.2)
    last = pos.t5_last_bucket_distance(num_buckets, max_distance)
    for edge in (-last, last):
        right.axvline(edge, color=KEY, linestyle="--", linewidth=1)
    right.axvspan(
        -(num_buckets // 4) + 0.5,
        num_buckets // 4 - 0.5,
        color=ACCENT,
        alpha=0.2,
        label=f"exact buckets ($|n-m| < {num_buckets // 4}$)",
    )
    right.plot([], [], color=KEY, linestyle="--", label=rf"last bucket from $|n-m| = {last}$")
    right.set_xlabel("offset $n - m$ (key minus query)")
    right.set_ylabel("bucket")
    right.set_title(f"T5: {num_buckets} buckets, max distance {max_distance}", fontsize=10)
    right.legend(fontsize=7, loc="lower right")
    return fig


def shift_test_figure(
    x: Any,
    head: pos.ToyHead,
    shifts: Any,
    schemes: Sequence[str] = ("learned", "sinusoidal", "shaw", "transformer_xl", "t5", "deberta"),
) -> Figure:
    r"""The shift test of every scheme: :math:`\Delta(s)` against the shift *s* (chapter 0).

    :math:`\Delta(s)` is :func:`ropelab.positions.shift_test`: the largest change of any
    logit when the whole sequence ``x`` moves from positions :math:`0 \dots N-1` to
    :math:`s \dots s+N-1`. The learned table ends at ``head.max_len``; its curve stops there.

    Args:
        x: embeddings ``(N, dim)``.
        head: the weights of every scheme.
        shifts: integer shifts >= 0.
        schemes: keys of :data:`ropelab.positions.SCHEMES`.
    """
    s = pos._check_positions(shifts, "shifts")
    fig, ax = new_figure(1, width=7.0, height=3.6)
    colours = {
        "none": NEUTRAL,
        "learned": KEY,
        "sinusoidal": QUERY,
        "shaw": ACCENT,
        "transformer_xl": "#9467bd",
        "t5": "#ff7f0e",
        "deberta": "#8c564b",
    }
    markers = {"shaw": "o", "transformer_xl": "s", "t5": "^", "deberta": "D", "none": "v"}
    step = max(1, s.size // 8)
    for j, scheme in enumerate(schemes):
        delta = pos.shift_test(scheme, x, head, s)
        ax.plot(
            s,
            delta,
            color=colours[scheme],
            marker=markers.get(scheme),
            markevery=(j * step // max(1, len(schemes)), step),
            markersize=5,
            fillstyle="none",
            linewidth=1.3,
            label=SCHEME_LABELS[scheme],
        )
    if "learned" in schemes:
        end = head.max_len - np.asarray(x).shape[0]
        ax.axvline(end, color=KEY, linestyle="--", linewidth=1)
        ax.annotate(
            "learned table ends",
            (end, 0.5),
            xytext=(6, 0),
            textcoords="offset points",
            color=KEY,
            fontsize=8,
        )
    ax.set_xlabel("shift $s$ (the sequence occupies positions $s \\dots s+N-1$)")
    ax.set_ylabel(r"$\Delta(s) = \max_{m,n} |S_{m,n}(s) - S_{m,n}(0)|$")
    ax.set_title(
        "Move the whole sequence: absolute scores change, relative ones do not", fontsize=10
    )
    ax.legend(fontsize=7, ncol=2, loc="upper right")
    return fig
