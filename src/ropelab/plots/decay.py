r"""Figures and tables of chapter 5, *Long-range decay*.

The score of a query at position *m* and a key at position *n* depends on the distance
:math:`r = m - n` only. Chapter 5 follows it as *r* grows:

* the sources' experiment :math:`q = k = (1, \dots, 1)`, whose score is
  :math:`s(r) = \sum_{i=0}^{d/2-1} 2\cos(r\theta_i)` (:func:`ropelab.decay.ones_score`),
  for :math:`\theta_i = 1` and for :math:`\theta_i = 10000^{-2i/d}`
  (:func:`plot_ones_score`), and over a sweep of bases (:func:`plot_base_sweep`,
  :func:`plot_window_means`, :func:`window_stats`, :func:`log_trend`);
* RoFormer's upper bound by Abel summation (section 3.4.3 of Su et al.):
  :func:`abel_terms`, :func:`abel_identity`, :func:`plot_relative_bound`;
* the expected score of random *q*, *k* with a Monte-Carlo check:
  :func:`sample_scores`, :func:`plot_expected_score`.

The functions that return numbers (not figures) live here because chapter 5 is their only
user; every figure is drawn from them or from :mod:`ropelab.decay`, so a test can compare
the plotted data with an independent computation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import sympy
from matplotlib.figure import Figure

from .._checks import check_base, check_dim, check_finite_array, check_positive
from ..core import apply_rope, inv_freq
from ..decay import (
    decay_data,
    expected_score,
    ones_score,
    partial_sums,
    plane_weights,
    relative_upper_bound,
)
from .style import ACCENT, KEY, NEUTRAL, QUERY, SEQUENTIAL, new_figure

__all__ = [
    "EULER_GAMMA",
    "SWEEP_BASES",
    "abel_identity",
    "abel_terms",
    "bound_window_means",
    "draw_decay",
    "law_window_means",
    "log_trend",
    "octave_edges",
    "plot_base_sweep",
    "plot_decay",
    "plot_expected_score",
    "plot_ones_score",
    "plot_relative_bound",
    "plot_window_means",
    "random_walk_level",
    "sample_scores",
    "trend_end",
    "window_stats",
]

#: The Euler-Mascheroni constant :math:`\gamma` of the logarithmic law (:func:`log_trend`).
EULER_GAMMA = 0.5772156649015329
#: The bases of the sources' sweep (chapter 5).
SWEEP_BASES = (1.0, 10.0, 100.0, 500.0, 1000.0, 1e4, 1e5, 1e6)


def _base_label(base: float) -> str:
    return f"base {base:,.0f}"


def _base_colours(count: int) -> list[Any]:
    cmap = plt.get_cmap(SEQUENTIAL)
    return [cmap(x) for x in np.linspace(0.0, 0.9, count)]


# --------------------------------------------------------------------------------------
# Numbers: windows, the logarithmic law, Abel summation, Monte Carlo
# --------------------------------------------------------------------------------------


def octave_edges(max_exponent: int = 16) -> np.ndarray:
    r"""The window edges :math:`1, 2, 4, \dots, 2^{K}` (``K = max_exponent``): windows are octaves.

    Octave *k* is the set of integer distances :math:`2^k \le r < 2^{k+1}` (chapter 5).
    """
    if isinstance(max_exponent, bool) or not isinstance(max_exponent, int | np.integer):
        raise ValueError(f"max_exponent must be an integer in [1, 24], got {max_exponent!r}")
    if not 1 <= max_exponent <= 24:
        raise ValueError(f"max_exponent must be an integer in [1, 24], got {max_exponent}")
    return 2 ** np.arange(max_exponent + 1)


def _check_edges(edges: Any) -> np.ndarray:
    edges = check_finite_array(edges, "edges")
    if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0) or edges[0] < 0:
        raise ValueError("edges must be at least two strictly increasing integers >= 0")
    if np.any(edges != np.round(edges)):
        raise ValueError("edges must be at least two strictly increasing integers >= 0")
    return edges.astype(np.int64)


def window_stats(dim: int, base: float, edges: Sequence[int]) -> dict[str, np.ndarray]:
    r"""Mean :math:`|s|`, root mean square and peak :math:`|s|` of the ones score per window.

    Window *j* holds the integer distances :math:`e_j \le r < e_{j+1}` and *s* is
    :func:`ropelab.decay.ones_score`, :math:`s(r) = \sum_i 2\cos(r\theta_i)`. Chapter 5 uses
    these numbers to say how fast, and down to what level, the score of
    :math:`q = k = \mathbf 1` decays for each base.

    Args:
        dim: head dimension *d*.
        base: :math:`\beta`.
        edges: strictly increasing non-negative integers (at least two).

    Returns:
        ``{"start", "stop", "mean", "mean_abs", "rms", "peak"}``, one entry per window
        (``mean`` is the signed mean of *s*).
    """
    edges = _check_edges(edges)
    score = ones_score(np.arange(edges[0], edges[-1]), dim, base)
    pieces = np.split(score, edges[1:-1] - edges[0])
    return {
        "start": edges[:-1],
        "stop": edges[1:],
        "mean": np.array([p.mean() for p in pieces]),
        "mean_abs": np.array([np.abs(p).mean() for p in pieces]),
        "rms": np.array([np.sqrt(np.mean(p**2)) for p in pieces]),
        "peak": np.array([np.abs(p).max() for p in pieces]),
    }


def bound_window_means(dim: int, base: float, edges: Sequence[int]) -> np.ndarray:
    r"""The mean of RoFormer's relative upper bound over each window :math:`e_j \le r < e_{j+1}`.

    The bound is :func:`ropelab.decay.relative_upper_bound`,
    :math:`\frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|`, evaluated at every integer distance of the
    window (chapter 5). ``edges`` as in :func:`window_stats`.
    """
    edges = _check_edges(edges)
    bound = relative_upper_bound(np.arange(edges[0], edges[-1]), dim, base)
    return np.array([p.mean() for p in np.split(bound, edges[1:-1] - edges[0])])


def random_walk_level(dim: int) -> float:
    r"""The level :math:`\frac{1}{d/2}\sum_{j=1}^{d/2} \frac{\sqrt{\pi j}}{2}` of the relative bound at large *r*.

    When the phases :math:`r\theta_k` behave like independent uniform angles, :math:`S_j` is a
    random walk of *j* unit steps in the plane; its length has mean close to
    :math:`\sqrt{\pi j}/2` (the mean of a Rayleigh variable with :math:`E|S_j|^2 = j`).
    Averaging over *j* gives this level (chapter 5).
    """
    half = check_dim(dim) // 2
    return float(np.mean(np.sqrt(np.pi * np.arange(1, half + 1)) / 2))


def log_trend(distances: Any, dim: int, base: float) -> np.ndarray:
    r"""The logarithmic law of the ones score, :math:`d\,\big(1 - (\ln r + \gamma)/\ln\beta\big)`.

    Derivation (chapter 5): with :math:`x_i = 2i/d`, the sum over planes is a Riemann sum,

    .. math::
        s(r) = \sum_{i=0}^{d/2-1} 2\cos(r\beta^{-x_i})
        \approx d\int_0^1 \cos(r\beta^{-x})\,dx
        = \frac{d}{\ln\beta}\int_{r/\beta}^{r}\frac{\cos u}{u}\,du ,

    and for :math:`1 \ll r \ll \beta` the integral is
    :math:`\int_{r/\beta}^{\infty}\cos u\,du/u = -\operatorname{Ci}(r/\beta)
    \approx \ln(\beta/r) - \gamma`. So the score falls linearly in :math:`\ln r`, by
    :math:`d/\ln\beta` per e-fold of distance, and reaches zero at :func:`trend_end`.
    Past that point only the fluctuation of the cosines is left (RMS :math:`\sqrt d`).

    Args:
        distances: distances :math:`r \ge 1`.
        dim: head dimension *d*.
        base: :math:`\beta > 1` (base 1 has no decay and no law).

    Returns:
        float64 array with the shape of ``distances``.
    """
    r = check_finite_array(distances, "distances")
    if np.any(r < 1):
        raise ValueError("distances must be >= 1 for the logarithmic law")
    dim = check_dim(dim)
    base = check_positive(base, "base", minimum=1.0)
    return dim * (1.0 - (np.log(r) + EULER_GAMMA) / np.log(base))


def law_window_means(dim: int, base: float, edges: Sequence[int]) -> np.ndarray:
    r"""The mean of :func:`log_trend` over each window :math:`e_j \le r < e_{j+1}` (integers).

    Compared with the signed ``mean`` of :func:`window_stats`, it shows how well the
    logarithmic law follows the score once the fluctuations are averaged out (chapter 5).
    ``edges`` as in :func:`window_stats`, with ``edges[0] >= 1``.
    """
    edges = _check_edges(edges)
    law = log_trend(np.arange(edges[0], edges[-1]), dim, base)
    return np.array([p.mean() for p in np.split(law, edges[1:-1] - edges[0])])


def trend_end(base: float) -> float:
    r"""The distance :math:`r^* = \beta e^{-\gamma} \approx 0.56\,\beta` where :func:`log_trend` reaches 0.

    Beyond :math:`r^*` the ones score has no downward trend left: the log term
    :math:`\ln(\beta/r)` of the law has shrunk to γ. Not every plane is fast there: the
    slowest has turned only :math:`e^{-\gamma}\beta^{2/d}` rad, about 0.6 (chapter 5).
    """
    base = check_positive(base, "base", minimum=1.0)
    return base * float(np.exp(-EULER_GAMMA))


def abel_terms(q: Any, k: Any, distances: Any, base: float = 10000.0) -> dict[str, np.ndarray]:
    r"""Both sides of RoFormer's Abel summation and the bound it gives (section 3.4.3; chapter 5).

    With :math:`h_i = q_i \bar k_i` (plane *i* read as a complex number, interleaved layout),
    :math:`S_j = \sum_{k<j} e^{\mathrm i r\theta_k}` and :math:`h_{d/2} = 0`:

    .. math::
        \sum_{i=0}^{d/2-1} h_i e^{\mathrm i r\theta_i}
        = -\sum_{i=0}^{d/2-1} S_{i+1}\,(h_{i+1} - h_i),
        \qquad
        \Big|\sum_i h_i e^{\mathrm i r\theta_i}\Big|
        \le \Big(\max_i |h_{i+1} - h_i|\Big) \sum_{j=1}^{d/2} |S_j| .

    Returns:
        ``{"direct", "abel"}`` (complex, shape of ``distances``: the two sides of the
        identity), ``"bound"`` (the right side of the inequality), ``"constant"``
        (:math:`\max_i |h_{i+1} - h_i|`, a scalar array). The real part of ``"direct"`` is the
        RoPE score :func:`ropelab.decay.pair_score`.
    """
    h = plane_weights(q, k)
    r = check_finite_array(distances, "distances")
    theta = inv_freq(2 * h.size, base)
    direct = np.exp(1j * r[..., None] * theta) @ h
    sums = partial_sums(r, 2 * h.size, base)  # entry j - 1 is S_j
    steps = np.diff(np.append(h, 0.0))  # h_{i+1} - h_i, i = 0 .. d/2 - 1
    abel = -(sums @ steps)
    constant = np.abs(steps).max()
    bound = constant * np.abs(sums).sum(axis=-1)
    return {"direct": direct, "abel": abel, "bound": bound, "constant": np.asarray(constant)}


def abel_identity(planes: int = 4) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr]:
    r"""Abel summation for the RoPE sum as a SymPy identity with ``planes`` = *d*/2 terms (chapter 5).

    The symbols are complex :math:`h_0, \dots, h_{d/2-1}` and real :math:`r`,
    :math:`\theta_0, \dots, \theta_{d/2-1}`; :math:`S_j = \sum_{k<j} e^{\mathrm i r\theta_k}`
    and :math:`h_{d/2} = 0`:

    .. math:: \sum_i h_i e^{\mathrm i r\theta_i} + \sum_i S_{i+1}(h_{i+1} - h_i) = 0

    Returns:
        ``(lhs, rhs, difference)`` where ``difference = lhs - rhs`` is unevaluated;
        :func:`ropelab.proofs.simplifies_to_zero` proves it is zero.
    """
    if (
        isinstance(planes, bool)
        or not isinstance(planes, int | np.integer)
        or not 1 <= planes <= 16
    ):
        raise ValueError(f"planes must be an integer in [1, 16], got {planes!r}")
    r = sympy.Symbol("r", real=True)
    theta = sympy.symbols(f"theta_0:{planes}", real=True)
    h = [*sympy.symbols(f"h_0:{planes}"), sympy.Integer(0)]
    phases = [sympy.exp(sympy.I * r * t) for t in theta]
    sums = [sympy.Add(*phases[:j]) for j in range(planes + 1)]  # S_0 .. S_{d/2}
    lhs = sympy.Add(*(h[i] * phases[i] for i in range(planes)), evaluate=False)
    terms = sympy.Add(*(sums[i + 1] * (h[i + 1] - h[i]) for i in range(planes)), evaluate=False)
    rhs = sympy.Mul(sympy.Integer(-1), terms, evaluate=False)
    return lhs, rhs, sympy.Add(lhs, -rhs, evaluate=False)


def sample_scores(
    distances: Any,
    dim: int,
    base: float = 10000.0,
    *,
    mean: float = 0.0,
    std: float = 1.0,
    correlation: float = 0.0,
    samples: int = 4000,
    seed: int = 0,
    key_position: int = 50,
) -> np.ndarray:
    r"""Monte-Carlo RoPE scores of random *q*, *k*, for checking :func:`ropelab.decay.expected_score`.

    Every coordinate pair is drawn as :math:`q_j = \mu + \sigma z_j`,
    :math:`k_j = \mu + \sigma(\rho z_j + \sqrt{1-\rho^2}\,z'_j)` with independent standard
    normal :math:`z, z'`, so that each coordinate has mean :math:`\mu`, standard deviation
    :math:`\sigma` and :math:`\operatorname{corr}(q_j, k_j) = \rho`. The query is rotated to
    position ``key_position + r`` and the key to ``key_position`` with
    :func:`ropelab.core.apply_rope` (the rotation itself, not the closed form), and the score
    is their dot product (chapter 5).

    Returns:
        float64 array of shape ``(samples, len(distances))``.
    """
    dim = check_dim(dim)
    r = check_finite_array(distances, "distances").ravel()
    std = check_positive(std, "std", inclusive=True)
    rho = float(correlation)
    if not -1.0 <= rho <= 1.0:
        raise ValueError(f"correlation must be in [-1, 1], got {rho:g}")
    if isinstance(samples, bool) or not isinstance(samples, int | np.integer) or samples < 2:
        raise ValueError(f"samples must be an integer >= 2, got {samples!r}")
    rng = np.random.default_rng(seed)
    z, z_other = rng.standard_normal((2, samples, dim))
    q = mean + std * z
    k = mean + std * (rho * z + np.sqrt(1.0 - rho**2) * z_other)
    k_rot = apply_rope(k, np.full(samples, key_position), base=base)
    scores = np.empty((samples, r.size))
    for j, dist in enumerate(r):
        q_rot = apply_rope(q, np.full(samples, key_position + dist), base=base)
        scores[:, j] = np.einsum("sd,sd->s", q_rot, k_rot)
    return scores


# --------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------


def plot_ones_score(dim: int = 128, max_distance: int = 1024) -> Figure:
    r"""The sources' experiment: the score of :math:`q = k = \mathbf 1` against the distance *r*.

    Left, every :math:`\theta_i = 1` (``base = 1``): :math:`s(r) = d\cos r`, which never
    decays. Right, :math:`\theta_i = 10000^{-2i/d}`: the score decays while it oscillates.
    Both panels plot :func:`ropelab.decay.ones_score` at every integer
    :math:`0 \le r \le` ``max_distance`` on the same axes (chapter 5).
    """
    dim = check_dim(dim)
    r = np.arange(0, int(max_distance) + 1)
    fig, axes = new_figure(2, sharey=True)
    panels = [(1.0, r"$\theta_i = 1$ (base 1)"), (1e4, r"$\theta_i = 10000^{-2i/d}$")]
    for ax, (base, title) in zip(axes, panels, strict=True):
        ax.plot(r, ones_score(r, dim, base), color=QUERY, lw=0.6)
        ax.axhline(0.0, color=NEUTRAL, lw=0.8)
        ax.set_title(title)
        ax.set_xlabel("relative distance $r = m - n$ (tokens)")
        ax.set_xlim(0, r[-1])
    axes[0].set_ylabel(r"score $s(r)$ of $q = k = \mathbf{1}$")
    axes[0].set_ylim(-1.05 * dim, 1.05 * dim)
    fig.suptitle(f"RoPE score of two all-ones vectors, d = {dim}")
    return fig


def plot_base_sweep(
    dim: int = 128, bases: Sequence[float] = SWEEP_BASES, max_distance: int = 65536
) -> Figure:
    r"""The ones score for each base of the sweep, on a logarithmic distance axis (chapter 5).

    One panel per base: :func:`ropelab.decay.ones_score` at every integer
    :math:`1 \le r \le` ``max_distance`` (thin line), the logarithmic law :func:`log_trend`
    for :math:`1 \le r \le r^*` (dashed; not for base 1) and the band :math:`\pm\sqrt d`,
    the root mean square of the score once its phases have spread (grey).
    """
    dim = check_dim(dim)
    bases = [check_base(b) for b in bases]
    r = np.arange(1, int(max_distance) + 1)
    ncols = 4
    nrows = -(-len(bases) // ncols)
    fig, axes = new_figure(ncols, nrows, height=2.0 * nrows + 0.6, sharex=True, sharey=True)
    axes = np.atleast_1d(axes).ravel()
    floor = np.sqrt(dim)
    for ax, base in zip(axes, bases, strict=False):
        ax.axhspan(-floor, floor, color=NEUTRAL, alpha=0.25, lw=0)
        ax.plot(r, ones_score(r, dim, base), color=QUERY, lw=0.4)
        if base > 1.0:
            end = min(trend_end(base), r[-1])
            if end > 1.0:
                rt = np.geomspace(1.0, end, 200)
                ax.plot(rt, log_trend(rt, dim, base), color=KEY, lw=1.2, ls="--")
        ax.set_xscale("log")
        ax.set_title(_base_label(base), fontsize=9)
        ax.tick_params(labelsize=8)
    for ax in axes[len(bases) :]:
        ax.set_visible(False)
    for ax in axes[-ncols:]:
        ax.set_xlabel("distance $r$ (log scale)", fontsize=9)
    for ax in axes[::ncols]:
        ax.set_ylabel("$s(r)$", fontsize=9)
    axes[0].set_ylim(-1.05 * dim, 1.05 * dim)
    fig.suptitle(
        f"Ones score per base, d = {dim}: score (blue), logarithmic law (red dashed), "
        r"$\pm\sqrt{d}$ (grey)",
        fontsize=10,
    )
    return fig


def plot_window_means(
    dim: int = 128, bases: Sequence[float] = SWEEP_BASES, max_exponent: int = 16
) -> Figure:
    r"""Mean :math:`|s(r)|` over each octave :math:`2^k \le r < 2^{k+1}`, one line per base (chapter 5).

    The data are :func:`window_stats` over :func:`octave_edges`, plotted at the start of each
    octave. The grey line is :math:`\sqrt{2d/\pi}`, the mean of :math:`|s|` when the
    :math:`d/2` cosines have independent uniform phases (a normal variable with variance *d*).
    """
    dim = check_dim(dim)
    edges = octave_edges(max_exponent)
    fig, ax = new_figure()
    for base, colour in zip(bases, _base_colours(len(bases)), strict=True):
        stats = window_stats(dim, base, edges)
        ax.plot(
            stats["start"],
            stats["mean_abs"],
            "o-",
            color=colour,
            ms=3,
            lw=1.2,
            label=_base_label(base),
        )
    ax.axhline(
        np.sqrt(2 * dim / np.pi),
        color=NEUTRAL,
        ls="--",
        lw=1.0,
        label=r"$\sqrt{2d/\pi}$ (random phases)",
    )
    ax.set_xscale("log", base=2)
    ax.set_xlabel(r"octave start $2^k$ (window $2^k \leq r < 2^{k+1}$)")
    ax.set_ylabel(r"mean $|s(r)|$ in the window")
    ax.set_ylim(0, 1.05 * dim)
    ax.set_title(f"How far the ones score has decayed, per octave of distance (d = {dim})")
    ax.legend(fontsize=7, ncols=3, loc="upper right", framealpha=0.9)
    return fig


def plot_relative_bound(
    dim: int = 128,
    base: float = 10000.0,
    near: int = 256,
    far_bases: Sequence[float] = (1.0, 10.0, 500.0, 10000.0, 1e6),
    max_exponent: int = 16,
) -> Figure:
    r"""RoFormer's relative upper bound :math:`\frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|` (chapter 5).

    Left: ``base`` at every integer :math:`0 \le r \le` ``near`` on a linear axis, as in
    RoFormer's figure 2. Right: for each of ``far_bases``, the mean of the bound over each
    octave :math:`2^k \le r < 2^{k+1}` (:func:`bound_window_means`), with the
    :func:`random_walk_level` that the bound settles at once the phases have spread.
    Data: :func:`ropelab.decay.relative_upper_bound`.
    """
    dim = check_dim(dim)
    fig, (left, right) = new_figure(2)
    r_near = np.arange(0, int(near) + 1)
    left.plot(r_near, relative_upper_bound(r_near, dim, base), color=QUERY, lw=1.0)
    left.set_title(f"{_base_label(base)}, every distance", fontsize=10)
    left.set_xlabel("relative distance $r$ (tokens)")
    left.set_ylabel(r"relative upper bound $\frac{1}{d/2}\sum_j |S_j|$")
    left.set_xlim(0, r_near[-1])
    left.set_ylim(0, 1.05 * (dim // 2 + 1) / 2)
    edges = octave_edges(max_exponent)
    for b, colour in zip(far_bases, _base_colours(len(far_bases)), strict=True):
        right.plot(
            edges[:-1],
            bound_window_means(dim, b, edges),
            "o-",
            color=colour,
            ms=3,
            lw=1.2,
            label=_base_label(b),
        )
    right.axhline(random_walk_level(dim), color=KEY, ls="--", lw=1.0, label="random-walk level")
    right.set_xscale("log", base=2)
    right.set_ylim(0, 1.05 * (dim // 2 + 1) / 2)
    right.set_title("mean over each octave, several bases", fontsize=10)
    right.set_xlabel(r"octave start $2^k$ (window $2^k \leq r < 2^{k+1}$)")
    right.legend(fontsize=7, loc="upper right", bbox_to_anchor=(1.0, 0.93))
    fig.suptitle(f"RoFormer's relative upper bound of the RoPE score, d = {dim}")
    return fig


def plot_expected_score(
    dim: int = 128,
    base: float = 10000.0,
    cases: Sequence[tuple[float, float]] = ((0.0, 0.0), (0.5, 0.0), (0.0, 0.5)),
    *,
    max_distance: int = 1024,
    mc_distances: Any = None,
    samples: int = 4000,
    seed: int = 0,
) -> Figure:
    r"""Expected score of random *q*, *k* (lines) against Monte-Carlo means (dots), chapter 5.

    Each case is ``(mean, correlation)`` with standard deviation 1. The line is
    :func:`ropelab.decay.expected_score`,
    :math:`(\mu^2 + \rho\sigma^2)\sum_i 2\cos(r\theta_i)`; the dots are the means of
    :func:`sample_scores` (seeded) at ``mc_distances`` (default every 64 tokens), with error
    bars of two standard errors.
    """
    dim = check_dim(dim)
    r = np.arange(0, int(max_distance) + 1)
    mc_r = np.arange(0, int(max_distance) + 1, 64) if mc_distances is None else mc_distances
    mc_r = check_finite_array(mc_r, "mc_distances")
    fig, ax = new_figure()
    for (mu, rho), colour in zip(cases, [NEUTRAL, QUERY, KEY, ACCENT], strict=False):
        label = rf"$\mu = {mu:g},\ \rho = {rho:g}$: $\mu^2 + \rho\sigma^2 = {mu**2 + rho:g}$"
        ax.plot(
            r,
            expected_score(r, dim, base, mean=mu, correlation=rho),
            color=colour,
            lw=1.0,
            label=label,
        )
        scores = sample_scores(
            mc_r, dim, base, mean=mu, correlation=rho, samples=samples, seed=seed
        )
        error = 2 * scores.std(axis=0, ddof=1) / np.sqrt(samples)
        ax.errorbar(
            mc_r, scores.mean(axis=0), yerr=error, fmt="o", color=colour, ms=3, capsize=2, lw=0.8
        )
    ax.axhline(0.0, color=NEUTRAL, lw=0.6)
    ax.set_xlabel("relative distance $r$ (tokens)")
    ax.set_ylabel(r"expected score $E[(R_m q)^\top R_n k]$")
    ax.set_xlim(0, r[-1])
    ax.set_title(
        f"Random q, k with σ = 1 (d = {dim}, {_base_label(base)}): formula (lines), "
        f"Monte Carlo (dots, ±2 s.e.)",
        fontsize=10,
    )
    ax.legend(fontsize=8)
    return fig


def plot_decay(dim: int = 128, base: float = 10000.0, max_distance: int = 65536) -> Figure:
    """Chapter 5's decay figure for a head dimension, a base and a range of distances:
    :func:`draw_decay` of :func:`ropelab.decay.decay_data`."""
    return draw_decay(decay_data(dim, base, max_distance))


def _format_base(base: float) -> str:
    """``10,000`` for large bases, ``3.98`` for small ones."""
    return f"{base:,.0f}" if base >= 100 else f"{base:.3g}"


def draw_decay(data: dict[str, Any]) -> Figure:
    r"""The static view of chapter 5's interactive figure, drawn from
    :func:`ropelab.decay.decay_data`.

    Left, the ones score with the band :math:`\pm\sqrt d` (the level of the score once the
    phases :math:`r\theta_i` have spread); right, the relative upper bound, which starts at
    :math:`(d/2 + 1)/2` at :math:`r = 0`. Chapter 5.
    """
    r = data["distances"]
    fig, (left, right) = new_figure(2)
    floor = math.sqrt(data["dim"])
    left.axhspan(-floor, floor, color=NEUTRAL, alpha=0.25, lw=0, label=r"$\pm\sqrt{d}$")
    left.plot(r, data["ones_score"], color=QUERY, lw=0.6, label=r"$s(r)$")
    left.axhline(0.0, color=NEUTRAL, lw=0.6)
    left.set_ylim(-1.05 * data["dim"], 1.05 * data["dim"])
    left.set_ylabel(r"score $s(r)$ of $q = k = \mathbf{1}$")
    left.set_title("ones score")
    left.legend(fontsize=8, loc="lower left")
    right.plot(r, data["relative_upper_bound"], color=KEY, lw=0.8)
    right.set_ylim(0, 1.05 * (data["dim"] // 2 + 1) / 2)
    right.set_ylabel("relative upper bound")
    right.set_title(r"RoFormer's relative upper bound $\frac{1}{d/2}\sum_j |S_j|$", fontsize=10)
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlim(1, data["max_distance"])
        ax.set_xlabel("distance $r$ (log scale)")
    fig.suptitle(
        f"d = {data['dim']}, base = {_format_base(data['base'])}, r up to {data['max_distance']:,}"
    )
    return fig
