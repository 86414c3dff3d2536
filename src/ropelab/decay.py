r"""Long-range decay of the RoPE attention score (chapter 5).

Throughout, a *relative distance* :math:`r = m - n` separates a query at position *m* from a
key at position *n*. Plane *i* of a vector is read as the complex number
:math:`z_i = x_{2i} + \mathrm{i}\,x_{2i+1}` (the interleaved layout), so that the score is

.. math:: (R_m q)^\top (R_n k) = \sum_{i=0}^{d/2-1} \operatorname{Re}\big[q_i \bar k_i\, e^{\mathrm{i} r \theta_i}\big]

(RoFormer, eq. 16 and section 3.4.3).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_count, check_dim, check_finite_array, check_positive
from .core import _frequencies, plane_slices

__all__ = [
    "NUM_DISTANCES",
    "decay_data",
    "decay_distances",
    "expected_score",
    "ones_score",
    "pair_score",
    "partial_sums",
    "plane_weights",
    "relative_upper_bound",
]


def _distances(distances: Any) -> np.ndarray:
    return check_finite_array(distances, "distances")


def pair_score(
    distances: Any,
    q: Any,
    k: Any,
    *,
    base: float = 10000.0,
    inv_freq: Any = None,
) -> np.ndarray:
    r"""The score :math:`(R_m q)^\top (R_n k)` of fixed vectors *q*, *k* at relative distances *r = m − n*.

    .. math:: s(r) = \sum_{i=0}^{d/2-1} \operatorname{Re}\big[q_i \bar k_i\, e^{\mathrm{i} r\theta_i}\big],
        \qquad q_i = q_{2i} + \mathrm{i}\, q_{2i+1}

    RoFormer, eq. 16 written in complex form (chapter 2); chapter 5 plots it.

    Args:
        distances: relative distances *r* (any shape; finite; negative values are allowed).
        q, k: vectors of the same even length *d* (interleaved layout).
        base: :math:`\beta` of :math:`\theta_i = \beta^{-2i/d}` when ``inv_freq`` is not given.
        inv_freq: explicit :math:`\theta_i`.

    Returns:
        float64 array with the shape of ``distances``.
    """
    r = _distances(distances)
    weights = plane_weights(q, k)  # (d/2,)
    theta = _frequencies(2 * weights.size, base, inv_freq)
    return np.real(np.exp(1j * r[..., None] * theta) @ weights)


def plane_weights(q: Any, k: Any) -> np.ndarray:
    r"""Each plane's :math:`h_i = q_i\,ar k_i` with :math:`q_i = q_{a_i} + \mathrm{i}\,q_{b_i}`
    (the interleaved pairing of :func:`ropelab.core.plane_slices`): the score at distance *r*
    is :math:`\operatorname{Re}\sum_i h_i e^{\mathrm{i}r	heta_i}` (chapter 5).

    Args:
        q, k: 1-D vectors of the same even length.

    Returns:
        complex128 array of shape ``(d/2,)``.
    """
    q = check_finite_array(q, "q")
    k = check_finite_array(k, "k")
    if q.ndim != 1 or q.shape != k.shape:
        raise ValueError(
            f"q and k must be 1-D vectors of equal length, got {q.shape} and {k.shape}"
        )
    first, second = plane_slices(check_dim(q.size, "len(q)"), "interleaved")
    return (q[first] + 1j * q[second]) * np.conj(k[first] + 1j * k[second])


def ones_score(distances: Any, dim: int, base: float = 10000.0) -> np.ndarray:
    r"""The sources' decay experiment: the score of :math:`q = k = (1, \dots, 1)` at distance *r*.

    Each plane contributes :math:`(1, 1)\, R(r\theta_i)\, (1, 1)^\top = 2\cos r\theta_i`, so

    .. math:: s(r) = \sum_{i=0}^{d/2-1} 2\cos(r\theta_i), \qquad \theta_i = \beta^{-2i/d}

    With ``base = 1`` every :math:`\theta_i = 1` and the score oscillates as :math:`d\cos r`
    without decaying; with ``base = 10000`` it decays with oscillation (chapter 5).

    Returns:
        float64 array with the shape of ``distances``; ``s(0) = d``.
    """
    r = _distances(distances)
    theta = _frequencies(dim, base, None)
    return 2.0 * np.cos(r[..., None] * theta).sum(axis=-1)


def partial_sums(distances: Any, dim: int, base: float = 10000.0) -> np.ndarray:
    r"""The partial sums :math:`S_j = \sum_{k=0}^{j-1} e^{\mathrm{i} r\theta_k}`, ``j = 1 .. d/2``.

    These are the sums of RoFormer's Abel summation (section 3.4.3), chapter 5.

    Returns:
        complex128 array of shape ``distances.shape + (dim // 2,)``; entry ``j - 1`` is
        :math:`S_j`.
    """
    r = _distances(distances)
    theta = _frequencies(dim, base, None)
    return np.cumsum(np.exp(1j * r[..., None] * theta), axis=-1)


def relative_upper_bound(distances: Any, dim: int, base: float = 10000.0) -> np.ndarray:
    r"""RoFormer's long-term decay bound, divided by its constant (RoFormer, section 3.4.3).

    Abel summation with :math:`h_i = q_i \bar k_i` and :math:`S_j` as in :func:`partial_sums`
    gives

    .. math::
        \Big|\sum_{i=0}^{d/2-1} h_i e^{\mathrm{i} r\theta_i}\Big|
        \le \Big(\max_i |h_{i+1} - h_i|\Big) \sum_{j=1}^{d/2} |S_j|,

    and RoFormer plots the *relative upper bound*
    :math:`\frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|`, which decays as *r* grows (chapter 5).

    Returns:
        float64 array with the shape of ``distances``; at ``r = 0`` it equals ``(d/2 + 1) / 2``.
    """
    sums = partial_sums(distances, dim, base)
    return np.abs(sums).mean(axis=-1)


def expected_score(
    distances: Any,
    dim: int,
    base: float = 10000.0,
    *,
    mean: float = 0.0,
    std: float = 1.0,
    correlation: float = 0.0,
) -> np.ndarray:
    r"""The expected score of random *q*, *k* at distance *r* (chapter 5).

    Let every coordinate of *q* and *k* have mean :math:`\mu` and standard deviation
    :math:`\sigma`, let :math:`q_j` and :math:`k_j` have correlation :math:`\rho`, and let
    different coordinates be independent. Then :math:`E[q_a k_b] = \mu^2 + \rho\sigma^2\delta_{ab}`, and

    .. math::
        E\big[(R_m q)^\top R_n k\big] = \mu^2\, \mathbf 1^\top R_{n-m} \mathbf 1
        + \rho\sigma^2 \operatorname{tr} R_{n-m}
        = (\mu^2 + \rho\sigma^2) \sum_i 2\cos(r\theta_i).

    So only the shared part of *q* and *k* (a common mean, or correlation) produces the
    decaying curve of :func:`ones_score`; independent zero-mean vectors score 0 on average at
    every distance.

    Args:
        mean: :math:`\mu` (finite).
        std: :math:`\sigma \ge 0`.
        correlation: :math:`\rho \in [-1, 1]`.
    """
    mean = check_finite_array(mean, "mean").item()
    std = check_positive(std, "std", inclusive=True)
    rho = check_finite_array(correlation, "correlation").item()
    if not -1.0 <= rho <= 1.0:
        raise ValueError(f"correlation must be in [-1, 1], got {rho:g}")
    return (mean**2 + rho * std**2) * ones_score(distances, dim, base)


# --------------------------------------------------------------------------------------
# Chapter 5's interactive figure
# --------------------------------------------------------------------------------------

#: How many log-spaced distances :func:`decay_distances` asks for before duplicates go.
NUM_DISTANCES = 2048


def decay_distances(max_distance: int, num: int = NUM_DISTANCES) -> np.ndarray:
    r"""Integer distances log-spaced from 1 to ``max_distance`` (chapter 5's figure).

    .. math:: r_k = \big\lfloor M^{k/(N-1)} + \tfrac12 \big\rfloor, \qquad k = 0, \dots, N-1,

    with :math:`M` = ``max_distance`` and :math:`N` = ``num``; duplicates are removed (so every
    integer up to about :math:`N/\ln M` is present), and the result is sorted, starts at 1 and
    ends at :math:`M`.

    Args:
        max_distance: the largest distance *M*, an integer >= 2.
        num: how many log-spaced points *N* to draw before duplicates go, an integer >= 2.
    """
    max_distance = check_count(max_distance, "max_distance", minimum=2)
    num = check_count(num, "num", minimum=2)
    k = np.arange(num, dtype=np.float64)
    raw = np.floor(float(max_distance) ** (k / (num - 1)) + 0.5)
    raw[-1] = max_distance
    return np.unique(raw.astype(np.int64))


def decay_data(
    dim: int, base: float, max_distance: int, num_distances: int = NUM_DISTANCES
) -> dict[str, Any]:
    r"""Everything chapter 5's decay figure draws, for a head dimension, a base and a range.

    * ``distances``: :func:`decay_distances` ``(max_distance, num_distances)``, integers from
      1 to ``max_distance``;
    * ``ones_score``: :math:`s(r) = \sum_{i=0}^{d/2-1} 2\cos(r\theta_i)`, the score of
      :math:`q = k = \mathbf 1` (:func:`ones_score`);
    * ``relative_upper_bound``: :math:`\frac{1}{d/2}\sum_{j=1}^{d/2}\big|\sum_{k<j}
      e^{\mathrm i r\theta_k}\big|`, RoFormer's bound divided by its constant (section 3.4.3,
      :func:`relative_upper_bound`);

    with :math:`\theta_i = \beta^{-2i/d}`. The inputs come back as ``dim``, ``base`` and
    ``max_distance``.

    Args:
        dim: head dimension, a positive even integer.
        base: β >= 1 (base 1 makes every :math:`\theta_i = 1`: no decay at all).
        max_distance: the largest distance, an integer >= 2.
        num_distances: see :func:`decay_distances`.

    Raises:
        ValueError: naming the argument and its range when a value is outside it.
    """
    dim = check_dim(dim)
    base = check_positive(base, "base", minimum=1.0, inclusive=True)
    distances = decay_distances(max_distance, num_distances)
    return {
        "dim": dim,
        "base": base,
        "max_distance": int(max_distance),
        "distances": distances,
        "ones_score": ones_score(distances, dim, base),
        "relative_upper_bound": relative_upper_bound(distances, dim, base),
    }
