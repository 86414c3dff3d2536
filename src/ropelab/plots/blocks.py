r"""Figures of chapter 3: the block-diagonal rotation, its cost, and a checkpoint read with the
wrong pairing of coordinates.

* :func:`plot_rotation_matrix` and :func:`plot_rotation_layouts`: heatmaps of
  :math:`R^d_{\Theta,m}` (RoFormer eq. 15) in the interleaved and the half-split layout.
* :func:`plot_costs`: operation counts and memory of the dense matrix versus the elementwise
  form (RoFormer eq. 34), from :mod:`ropelab.costs`.
* :func:`lookback_head`, :func:`pair_scores` and :func:`plot_layout_mismatch`: a query/key
  head built for one pairing and the scores it gives when rotated with the other.

Conventions are those of :mod:`ropelab.core`: ``"interleaved"`` pairs coordinates
``(2i, 2i+1)`` (RoFormer, Meta's Llama), ``"half"`` pairs ``(i, i + d/2)`` (GPT-NeoX,
transformers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .._checks import check_base, check_dim, check_finite_array, check_layout
from ..core import apply_rope, plane_coordinates, rotation_matrix
from ..costs import dense_cost, elementwise_cost
from .style import ACCENT, DIVERGING, KEY, NEUTRAL, QUERY, new_figure

__all__ = [
    "LAYOUT_TITLES",
    "draw_block_matrix",
    "lookback_head",
    "pair_scores",
    "plot_costs",
    "plot_layout_mismatch",
    "plot_rotation_layouts",
    "plot_rotation_matrix",
]

LAYOUT_TITLES = {
    "interleaved": "interleaved: plane $i$ on $(2i,\\ 2i+1)$",
    "half": "half split: plane $i$ on $(i,\\ i+d/2)$",
}


# --------------------------------------------------------------------------------------
# The matrix
# --------------------------------------------------------------------------------------


def _outline_planes(ax: Axes, dim: int, layout: str, planes: int) -> None:
    """Draw a box around the four entries of each of the first ``planes`` planes."""
    colours = [QUERY, ACCENT, KEY, NEUTRAL]
    first, second = plane_coordinates(dim, layout)
    for i in range(min(planes, dim // 2)):
        a, b = int(first[i]), int(second[i])
        for row in (a, b):
            for col in (a, b):
                ax.add_patch(
                    Rectangle(
                        (col - 0.5, row - 0.5),
                        1,
                        1,
                        fill=False,
                        edgecolor=colours[i % len(colours)],
                        linewidth=1.6,
                    )
                )


def plot_rotation_matrix(
    position: float = 2.0,
    dim: int = 16,
    base: float = 10000.0,
    layout: str = "interleaved",
    *,
    ax: Axes | None = None,
    outline_planes: int = 2,
    colorbar: bool = True,
) -> Figure:
    r"""Heatmap of the block-diagonal rotation :math:`R^d_{\Theta,m}` (chapter 3).

    .. math::
        R^d_{\Theta,m} = \operatorname{diag}\big(R(m\theta_0), \dots, R(m\theta_{d/2-1})\big),
        \qquad \theta_i = \beta^{-2i/d}

    (RoFormer eq. 15). Entry ``[row, col]`` of the image is entry ``[row, col]`` of
    :func:`ropelab.core.rotation_matrix`, on a diverging scale from -1 to 1; the four
    entries of the first ``outline_planes`` planes are outlined, so that the two layouts
    can be told apart at a glance.

    Args:
        position: the position *m*.
        dim: head dimension *d*, a positive even integer.
        base: the RoPE base :math:`\beta`.
        layout: ``"interleaved"`` or ``"half"``.
        ax: axes to draw into; a new figure when ``None``.
        outline_planes: how many planes (from plane 0) to outline.
        colorbar: add a colour bar.

    Returns:
        The figure holding the axes.
    """
    dim = check_dim(dim)
    layout = check_layout(layout)
    matrix = rotation_matrix(position, dim, base, layout)
    if ax is None:
        fig, ax = new_figure(width=4.6, height=4.0)
    else:
        fig = ax.figure
    image = ax.imshow(matrix, cmap=DIVERGING, vmin=-1.0, vmax=1.0, interpolation="nearest")
    _outline_planes(ax, dim, layout, outline_planes)
    ticks = np.arange(0, dim, max(1, dim // 8))
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set_xlabel("column (coordinate of $x$)")
    ax.set_ylabel("row (coordinate of $R x$)")
    ax.set_title(f"{LAYOUT_TITLES[layout]}\n$d={dim}$, $\\beta={base:g}$, $m={position:g}$")
    if colorbar:
        fig.colorbar(image, ax=ax, shrink=0.8, label="entry value")
    return fig


def draw_block_matrix(data: dict[str, Any]) -> Figure:
    """The static view of chapter 3's interactive figure, drawn from
    :func:`ropelab.core.block_matrix_data`: :func:`plot_rotation_matrix` with planes 0 and 1
    outlined."""
    return plot_rotation_matrix(
        float(data["position"]), data["dim"], data["base"], data["layout"], outline_planes=2
    )


def plot_rotation_layouts(
    position: float = 2.0, dim: int = 16, base: float = 10000.0, *, outline_planes: int = 2
) -> Figure:
    r"""The same :math:`R^d_{\Theta,m}` in both layouts, side by side (chapter 3).

    Left: interleaved, 2x2 blocks on the diagonal. Right: half split, where plane *i*
    occupies entries :math:`(i, i)`, :math:`(i, i + d/2)`, :math:`(i + d/2, i)` and
    :math:`(i + d/2, i + d/2)`, so the matrix is four diagonal :math:`d/2 \times d/2` blocks
    :math:`\begin{pmatrix}C & -S\\ S & C\end{pmatrix}`. The right image is
    :math:`P R_{\text{interleaved}} P^\top` with *P* from :func:`ropelab.core.layout_permutation`.
    """
    fig, axes = new_figure(2, width=8.4, height=4.4)
    for ax, layout in zip(axes, ("interleaved", "half"), strict=True):
        plot_rotation_matrix(
            position,
            dim,
            base,
            layout,
            ax=ax,
            outline_planes=outline_planes,
            colorbar=False,
        )
    fig.colorbar(axes[0].images[0], ax=axes, shrink=0.8, label="entry value")
    return fig


# --------------------------------------------------------------------------------------
# The cost
# --------------------------------------------------------------------------------------


def plot_costs(
    dims: Sequence[int] = (8, 16, 32, 64, 128, 256, 512, 1024),
    highlight: Sequence[int] = (64, 128, 256),
) -> Figure:
    r"""Dense matrix versus elementwise form: arithmetic and memory against *d* (chapter 3).

    Left: arithmetic operations per vector, :math:`d^2 + d(d-1) = 2d^2 - d` for the dense
    product and :math:`2d + d = 3d` for the elementwise form. Right: numbers stored per
    position, :math:`d^2` versus *d*. Both from :mod:`ropelab.costs`; log-log axes, with the
    head dimensions of ``highlight`` marked.
    """
    dims = [check_dim(d) for d in dims]
    fig, axes = new_figure(2, width=8.4, height=3.6)
    panels = [
        ("operations", "arithmetic operations per vector", "multiplications + additions"),
        ("stored", "numbers stored per position", "matrix entries or cos/sin values"),
    ]
    for ax, (field, title, ylabel) in zip(axes, panels, strict=True):
        dense = [getattr(dense_cost(d), field) for d in dims]
        fast = [getattr(elementwise_cost(d), field) for d in dims]
        ax.loglog(dims, dense, "o-", color=KEY, label="dense $R^d_{\\Theta,m}\\,x$", ms=4)
        ax.loglog(
            dims,
            fast,
            "s-",
            color=QUERY,
            label="elementwise $x\\otimes\\cos + \\mathrm{rotate}(x)\\otimes\\sin$",
            ms=4,
        )
        for d in highlight:
            ax.axvline(d, color=NEUTRAL, lw=0.8, ls=":")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("head dimension $d$")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(loc="upper left")
    return fig


# --------------------------------------------------------------------------------------
# Reading a head with the wrong pairing
# --------------------------------------------------------------------------------------


def lookback_head(
    dim: int = 64,
    lookback: int = 8,
    *,
    fast_planes: int = 12,
    base: float = 10000.0,
    d_model: int | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""A query/key head built by hand for the interleaved layout; it looks ``lookback`` tokens back.

    :math:`W_q` is random (standard normal / :math:`\sqrt{d_\text{model}}`) on the rows of the
    first ``fast_planes`` planes of the interleaved layout (the fast, high-frequency ones) and
    zero elsewhere; :math:`W_k = R^d_{\Theta,L}\,W_q` with :math:`L` = ``lookback``. For one
    token content *x* at every position, :math:`q = W_q x` and :math:`k = W_k x = R_L q`, so

    .. math::
        (R_m q)^\top (R_n k) = q^\top R_{n-m+L}\, q,

    which is largest (:math:`\lVert q\rVert^2`) when :math:`m - n = L`: the query attends to
    the token *L* places before it. Nothing is trained; the head only has a pairing baked in,
    as a trained checkpoint has. Chapter 3 rotates it with the other pairing.

    Args:
        dim: head dimension *d*, a positive even integer.
        lookback: the distance *L* the head looks back.
        fast_planes: planes ``0 .. fast_planes-1`` carry the head (1 .. d/2).
        base: the RoPE base :math:`\beta`.
        d_model: the model width (columns of the weights); default ``dim``.
        seed: seed of the random weights and token.

    Returns:
        ``(w_q, w_k, x)`` of shapes ``(dim, d_model)``, ``(dim, d_model)``, ``(d_model,)``.
    """
    dim = check_dim(dim)
    base = check_base(base)
    if isinstance(fast_planes, bool) or not isinstance(fast_planes, int):
        raise ValueError(f"fast_planes must be an integer in [1, dim/2], got {fast_planes!r}")
    if not 1 <= fast_planes <= dim // 2:
        raise ValueError(f"fast_planes must be in [1, {dim // 2}], got {fast_planes}")
    width = dim if d_model is None else d_model
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise ValueError(f"d_model must be a positive integer, got {d_model!r}")
    rng = np.random.default_rng(seed)
    w_q = rng.standard_normal((dim, width)) / np.sqrt(width)
    w_q[2 * fast_planes :] = 0.0
    w_k = rotation_matrix(float(lookback), dim, base, "interleaved") @ w_q
    x = rng.standard_normal(width)
    return w_q, w_k, x


def pair_scores(
    q: Any,
    k: Any,
    query_positions: Any,
    key_positions: Any,
    *,
    q_layout: str = "interleaved",
    k_layout: str = "interleaved",
    base: float = 10000.0,
) -> np.ndarray:
    r"""Attention logits :math:`(R_m q)^\top (R_n k)` for pairs of positions (chapter 3).

    .. math:: s(m, n) = \big(R^{d}_{\Theta,m}\,q\big)^\top \big(R^{d}_{\Theta,n}\,k\big)

    with the query rotated in ``q_layout`` and the key in ``k_layout``. When the two layouts
    agree, RoFormer eq. 16 gives :math:`s = q^\top R_{n-m} k`, a function of *n - m* only;
    when they differ, it is not. Rotations use :func:`ropelab.core.apply_rope`.

    Args:
        q, k: vectors of the same even length *d*.
        query_positions, key_positions: positions *m* and *n*, broadcast against each other.
        q_layout, k_layout: ``"interleaved"`` or ``"half"``.
        base: the RoPE base :math:`\beta`.

    Returns:
        float64 array of the broadcast shape of the positions.
    """
    q = check_finite_array(q, "q")
    k = check_finite_array(k, "k")
    if q.ndim != 1 or q.shape != k.shape:
        raise ValueError(f"q and k must be vectors of one length, got {q.shape} and {k.shape}")
    check_layout(q_layout)
    check_layout(k_layout)
    m, n = np.broadcast_arrays(
        check_finite_array(query_positions, "query_positions"),
        check_finite_array(key_positions, "key_positions"),
    )
    flat_m, flat_n = m.reshape(-1), n.reshape(-1)
    rotated_q = apply_rope(np.tile(q, (flat_m.size, 1)), flat_m, base=base, layout=q_layout)
    rotated_k = apply_rope(np.tile(k, (flat_n.size, 1)), flat_n, base=base, layout=k_layout)
    return np.einsum("pd,pd->p", rotated_q, rotated_k).reshape(m.shape)


def plot_layout_mismatch(
    dim: int = 64,
    lookback: int = 8,
    *,
    fast_planes: int = 12,
    base: float = 10000.0,
    distances: Sequence[int] | np.ndarray = tuple(range(-16, 49)),
    key_start: int = 100,
    mixed_key_starts: Sequence[int] = (100, 400, 1600),
    seed: int = 0,
) -> Figure:
    r"""Scores of a head built for the interleaved pairing, read with each pairing (chapter 3).

    The head is :func:`lookback_head`. Left panel, score against :math:`m - n` with the key at
    ``key_start``:

    * *intended*: both rotated interleaved, as the head was built; peaks at :math:`m - n = L`;
    * *converted*: rows of :math:`W_q` and :math:`W_k` permuted by *P*
      (:func:`ropelab.core.interleaved_to_half`) and both rotated half-split: identical;
    * *wrong pairing*: the unconverted head rotated half-split. Still a function of
      :math:`m - n` only (both sides use one rotation family), but a different one.

    Right panel: *mixed* pairings, the query rotated interleaved and the key half-split, for
    keys at each of ``mixed_key_starts``. The curves differ: the score now depends on where
    the pair sits, not only on :math:`m - n`. All values from :func:`pair_scores`.
    """
    from ..core import interleaved_to_half

    w_q, w_k, x = lookback_head(dim, lookback, fast_planes=fast_planes, base=base, seed=seed)
    q, k = w_q @ x, w_k @ x
    q_conv, k_conv = interleaved_to_half(w_q.T).T @ x, interleaved_to_half(w_k.T).T @ x
    r = np.asarray(distances, dtype=np.float64)
    n = np.full_like(r, float(key_start))
    intended = pair_scores(q, k, n + r, n, base=base)
    converted = pair_scores(q_conv, k_conv, n + r, n, q_layout="half", k_layout="half", base=base)
    wrong = pair_scores(q, k, n + r, n, q_layout="half", k_layout="half", base=base)

    fig, (left, right) = new_figure(2, width=9.0, height=4.8, sharey=True)
    left.plot(r, intended, color=QUERY, lw=2.2, label="intended (interleaved)")
    left.plot(r[::3], converted[::3], "o", color=ACCENT, ms=4, label="converted ($P$), half split")
    left.plot(r, wrong, color=KEY, lw=1.6, label="wrong pairing: half split, unconverted")
    left.set_title("same pairing on $q$ and $k$")
    right.plot(r, intended, color=QUERY, lw=2.2, label="intended (interleaved)")
    styles = ["--", "-.", ":"]
    for j, start in enumerate(mixed_key_starts):
        nn = np.full_like(r, float(start))
        mixed = pair_scores(q, k, nn + r, nn, q_layout="interleaved", k_layout="half", base=base)
        right.plot(r, mixed, styles[j % 3], color=KEY, lw=1.4, label=f"mixed, key at $n={start}$")
    right.set_title("mixed: $q$ interleaved, $k$ half split")
    for ax in (left, right):
        ax.axvline(lookback, color=NEUTRAL, lw=0.8, ls=":")
        ax.axhline(0.0, color=NEUTRAL, lw=0.6)
        ax.set_xlabel("relative position $m - n$ (tokens)")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=8, frameon=False)
    left.set_ylabel("score $(R_m q)^\\top (R_n k)$")
    return fig
