r"""The bootstrap of the registered analysis (``lab/PLAN.md`` section 5), as plain numpy.

Resample *b* of the registered bootstrap draws the validation windows with replacement, row *b*
of :func:`ropelab.lab.registered.window_draws` (one draw shared by every model and seed, which
keeps the pairing by window), and, independently, the seeds analysed with replacement, row *b*
of :func:`seed_draws`. For a quantity stored per seed *s* and window *w* as :math:`X_{sw}` the
resampled statistic is the mean over the drawn seeds of the mean over the drawn windows,

.. math::  \hat\theta_b = \frac{1}{n\,W} \sum_{j=1}^{n} \sum_{k=1}^{W} X_{S_{bj}\,W_{bk}}
           = \frac{1}{n\,W} \sum_{s, w} C^\text{seed}_{bs}\, X_{sw}\, C^\text{win}_{bw},

with :math:`C_{bs}` and :math:`C_{bw}` the number of times seed *s* and window *w* are drawn in
resample *b* (:func:`draw_counts`); :func:`resampled_means` computes the right-hand side with one
matrix product. A quantity stored per seed and resample (a supported length read off the curve
of window resample *b*, ``boot_registered``/``boot_original`` of a record) is resampled over the
seeds only, :func:`resampled_seed_means`. The interval is the percentile interval of the
resamples, :func:`percentile_interval`; Bonferroni for a family of *k* comparisons uses
:math:`\alpha/k`.

:func:`masked_coefficient` gives, for many rows at once, one coefficient of a least-squares
polynomial in *x* through the points of each row that are not masked out (censored lengths):
the slope of :math:`\log L` on :math:`\log\beta` (the exponent) and the coefficient of
:math:`(\log\beta)^2` of a quadratic fit (the curvature), section 5.

Needs only numpy.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "draw_counts",
    "masked_coefficient",
    "percentile_interval",
    "resampled_means",
    "resampled_seed_means",
    "seed_draws",
]


def seed_draws(n_resamples: int, n_seeds: int, seed: int) -> np.ndarray:
    """The seed half of the bootstrap (``PLAN.md`` section 5): row *b* holds the positions, in
    the ascending list of seeds analysed, of the ``n_seeds`` seeds drawn with replacement,
    ``numpy.random.default_rng(seed).integers(0, n_seeds, size=(n_resamples, n_seeds))``
    (``seed`` is the plan's ``seed_draw_seed``, 36)."""
    if int(n_resamples) < 1 or int(n_seeds) < 1:
        raise ValueError("n_resamples and n_seeds must be >= 1")
    rng = np.random.default_rng(seed)
    return rng.integers(0, int(n_seeds), size=(int(n_resamples), int(n_seeds)))


def draw_counts(draws: np.ndarray, n: int) -> np.ndarray:
    """``out[b, i]``: how many times index ``i`` (``0 <= i < n``) occurs in row ``b`` of
    ``draws`` ``(B, m)``, as float64 ``(B, n)``."""
    d = np.asarray(draws)
    if d.ndim != 2 or d.size == 0 or d.min() < 0 or d.max() >= n:
        raise ValueError(f"draws must be a non-empty (B, m) array of indices in [0, {n})")
    rows = d.shape[0]
    flat = (np.arange(rows)[:, None] * n + d).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)


def resampled_means(
    per_window: np.ndarray, seed_counts: np.ndarray, window_counts: np.ndarray
) -> np.ndarray:
    r""":math:`\hat\theta_b` of the module docstring for every resample *b*: ``per_window``
    :math:`X` is ``(n_seeds, n_windows)``, ``seed_counts`` ``(B, n_seeds)`` and
    ``window_counts`` ``(B, n_windows)`` (:func:`draw_counts`). Returns ``(B,)``."""
    x = np.asarray(per_window, dtype=np.float64)
    sc, wc = np.asarray(seed_counts), np.asarray(window_counts)
    if x.ndim != 2 or sc.shape[1:] != x.shape[:1] or wc.shape != (sc.shape[0], x.shape[1]):
        raise ValueError("shapes must be X (n, W), seed_counts (B, n), window_counts (B, W)")
    if not np.all(np.isfinite(x)):
        raise ValueError("per_window must be finite")
    n, w = x.shape
    return ((wc @ x.T) * sc).sum(1) / (n * w)


def resampled_seed_means(per_seed: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The mean over the seeds of row *b* of ``draws`` (:func:`seed_draws`) of
    ``per_seed[seed, b]``, for every resample *b*: ``per_seed`` is ``(n_seeds, B)`` (a value per
    seed and window resample). NaN entries (a seed without a value in that resample) are left
    out of the mean; a resample with none is NaN."""
    v = np.asarray(per_seed, dtype=np.float64)
    d = np.asarray(draws)
    if v.ndim != 2 or d.ndim != 2 or d.shape[0] != v.shape[1]:
        raise ValueError("per_seed must be (n_seeds, B) and draws (B, n)")
    picked = v[d, np.arange(d.shape[0])[:, None]]  # (B, n)
    ok = np.isfinite(picked)
    total = np.where(ok, picked, 0.0).sum(1)
    count = ok.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan)


def percentile_interval(values: np.ndarray, alpha: float) -> tuple[float, float]:
    r"""The percentile interval of the finite ``values``: the :math:`100\,\alpha/2` and
    :math:`100\,(1-\alpha/2)` percentiles (``numpy.percentile``, linear interpolation);
    ``(nan, nan)`` when none is finite."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return (math.nan, math.nan)
    lo, hi = np.percentile(v, [100.0 * alpha / 2.0, 100.0 * (1.0 - alpha / 2.0)])
    return (float(lo), float(hi))


def masked_coefficient(
    x: np.ndarray, y: np.ndarray, mask: np.ndarray, degree: int, min_points: int
) -> np.ndarray:
    r"""The leading coefficient (of :math:`x^\text{degree}`) of the least-squares polynomial of
    ``degree`` through the points :math:`(x_j, y_{\dots j})` of every row of ``y`` ``(..., k)``
    whose ``mask`` is true; NaN for a row with fewer than ``max(min_points, degree + 1)``
    points. Degree 1: the slope; degree 2: the quadratic coefficient.

    The fit is :math:`\hat c = V^{+} y` with :math:`V_{jp} = (x_j - \bar x)^p` over the kept
    points (centring the abscissae does not change the leading coefficient), computed once per
    pattern of kept points and applied to every row with that pattern."""
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    m = np.asarray(mask, dtype=bool)
    if xs.ndim != 1 or ys.shape[-1] != xs.size or m.shape != ys.shape:
        raise ValueError("x must be (k,), y and mask (..., k)")
    if xs.size > 62:  # each row's pattern of kept points is coded in the bits of an int64
        raise ValueError(f"x must hold at most 62 points, got {xs.size}")
    if int(degree) < 1:
        raise ValueError(f"degree must be >= 1, got {degree}")
    flat_y, flat_m = ys.reshape(-1, xs.size), m.reshape(-1, xs.size)
    out = np.full(flat_y.shape[0], np.nan)
    need = max(int(min_points), degree + 1)
    codes = flat_m.astype(np.int64) @ (1 << np.arange(xs.size, dtype=np.int64))
    for code in np.unique(codes):
        keep = (int(code) >> np.arange(xs.size)) & 1 == 1
        if keep.sum() < need:
            continue
        kept = xs[keep]
        centred = kept - kept.mean()
        vander = centred[:, None] ** np.arange(degree + 1)[None, :]
        row = np.linalg.pinv(vander)[degree]  # coefficient = row . y[keep]
        rows = codes == code
        out[rows] = flat_y[rows][:, keep] @ row
    return out.reshape(ys.shape[:-1])
