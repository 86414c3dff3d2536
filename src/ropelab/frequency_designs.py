r"""Two frequency designs beyond the base: Resonance RoPE and a lower bound on the base (chapter 9).

**Resonance RoPE** (Wang et al., 2024, Findings of ACL) rounds every plane's wavelength
:math:`\lambda_i = 2\pi/\theta_i` to the nearest integer:

.. math:: \tilde\theta_i = \frac{2\pi}{\operatorname{round}(2\pi/\theta_i)} .

With an integer wavelength :math:`\tilde\lambda_i` the angle of plane *i* at integer
positions repeats exactly every :math:`\tilde\lambda_i` tokens, so a plane whose wavelength
fits in the training length meets, beyond it, only angles it has already seen
(:func:`angle_gap` measures the distance to the nearest seen angle: exactly 0 then). The
released code rounds every plane (``r_wavelengths = torch.round(2 * math.pi / inv_freq)``).

**The base bounds the context length** (Men et al., 2024). If the coordinates of *q* are
i.i.d. with variance :math:`\sigma^2` and a similar key is :math:`q + \varepsilon`, the
expected advantage of the similar key over a random one at distance *m* is
:math:`2\sigma^2 B(m)` with

.. math:: B(m) = \sum_{i=0}^{d/2-1} \cos(m\theta_i),

half the all-ones score of chapter 5. The paper asks :math:`B(m) \ge 0` for every
:math:`m < L` and calls the smallest such base the lower bound for a context length *L*.
The set of good bases is not an interval: a base can pass while a slightly larger one
fails. :func:`base_lower_bound` scans a fine geometric grid from below, and reports the
first base of the grid that passes. The paper's Table 1 gives 4.3e3, 1.6e4, 2.7e4, 8.4e4
for 1K, 2K, 4K, 8K tokens (d = 128); a finer search by Su (2024) gives 4.3e3, 1.2e4,
2.7e4, 8.4e4. Chapter 5's decay law puts the end of the trend at
:math:`r^* = \beta e^{-\gamma}`, which alone would ask only :math:`\beta \ge e^\gamma L \approx 1.78L`
(:func:`trend_base`); the fluctuations of size :math:`\sqrt d` around the trend make the
real bound larger.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._checks import check_base, check_count, check_dim, check_finite_array, check_positive
from .decay import ones_score

__all__ = [
    "EULER_GAMMA",
    "angle_gap",
    "base_lower_bound",
    "first_negative",
    "resonance_frequencies",
    "semantic_margin",
    "trend_base",
]

#: Euler's constant :math:`\gamma`, which sets where chapter 5's decay trend ends.
EULER_GAMMA = 0.5772156649015329


def resonance_frequencies(theta: Any) -> np.ndarray:
    r"""Resonance RoPE: :math:`\tilde\theta_i = 2\pi / \operatorname{round}(2\pi/\theta_i)`.

    Args:
        theta: frequencies > 0 (e.g. :func:`ropelab.inv_freq`); a wavelength that rounds to
            0 (frequency above :math:`4\pi`) is rejected.

    Returns:
        float64 array of the same shape, with integer wavelengths.
    """
    theta = check_finite_array(theta, "theta")
    if np.any(theta <= 0):
        raise ValueError(f"theta must be > 0, got a minimum of {theta.min():g}")
    wavelength = np.round(2 * np.pi / theta)
    if np.any(wavelength < 1):
        raise ValueError("theta must be <= 4π so that every wavelength rounds to at least 1")
    return 2 * np.pi / wavelength


def angle_gap(theta: Any, train_len: int, test_len: int) -> np.ndarray:
    r"""Per plane, how far the angles of positions ``train_len .. test_len - 1`` fall from any training angle.

    Angles are taken modulo :math:`2\pi`; the result is, for plane *i*, the largest over the
    test positions of the circular distance to the nearest angle :math:`m\theta_i`,
    :math:`0 \le m < T_\text{train}` (radians). It is 0 (to rounding) for a Resonance plane
    whose integer wavelength is at most ``train_len``.

    Returns:
        float64 array ``(n_planes,)``.
    """
    theta = check_finite_array(theta, "theta")
    if theta.ndim != 1:
        raise ValueError(f"theta must be 1-D, got shape {theta.shape}")
    train_len = check_count(train_len, "train_len")
    test_len = check_count(test_len, "test_len")
    if test_len <= train_len:
        raise ValueError(f"test_len must be > train_len={train_len}, got {test_len}")
    two_pi = 2 * np.pi
    gaps = np.empty(theta.size)
    train = np.arange(train_len, dtype=np.float64)
    test = np.arange(train_len, test_len, dtype=np.float64)
    for i, t in enumerate(theta):
        seen = np.sort(np.mod(train * t, two_pi))
        seen = np.concatenate([seen, [seen[0] + two_pi]])
        new = np.mod(test * t, two_pi)
        j = np.clip(np.searchsorted(seen, new), 1, seen.size - 1)
        nearest = np.minimum(new - seen[j - 1], seen[j] - new)
        gaps[i] = nearest.max()
    return gaps


def semantic_margin(distances: Any, dim: int, base: float = 10000.0) -> np.ndarray:
    r"""Men et al.'s :math:`B(m) = \sum_i \cos(m\theta_i)`: half of chapter 5's all-ones score."""
    return 0.5 * ones_score(distances, dim, base)


def first_negative(
    bases: Any, dim: int = 128, max_len: int = 8192, *, chunk: int = 64
) -> np.ndarray:
    r"""For each base, the first integer *m* with :math:`B(m) < 0`, or ``max_len`` if none below it.

    A base satisfies Men et al.'s criterion for a context length *L* exactly when this is at
    least *L*. Computed exactly (float64), a chunk of positions at a time, dropping a base
    as soon as it fails: :math:`\cos((m_0 + k)\theta) = \cos k\theta\cos m_0\theta
    - \sin k\theta\sin m_0\theta`, with the table of :math:`\cos k\theta` and
    :math:`\sin k\theta`, ``k < chunk``, built once per base.

    Returns:
        int64 array shaped like ``bases``.
    """
    bases = check_finite_array(bases, "bases")
    if np.any(bases <= 0):
        raise ValueError(f"bases must be > 0, got a minimum of {bases.min():g}")
    dim = check_dim(dim)
    max_len = check_count(max_len, "max_len")
    chunk = check_count(chunk, "chunk")
    flat = bases.ravel()
    theta = flat[:, None] ** (-np.arange(0, dim, 2) / dim)  # (B, P)
    k = np.arange(chunk, dtype=np.float64)[None, :, None]
    angles = k * theta[:, None, :]  # (B, chunk, P): k θ_i
    # B(m0 + k) = Σ_i cos(kθ_i) cos(m0θ_i) - sin(kθ_i) sin(m0θ_i): one real product per chunk
    table = np.concatenate([np.cos(angles), -np.sin(angles)], axis=2)  # (B, chunk, 2P)
    result = np.full(flat.size, max_len, dtype=np.int64)
    live = np.arange(flat.size)
    start = 0
    while start < max_len and live.size:
        phase = start * theta  # (B', P)
        vector = np.concatenate([np.cos(phase), np.sin(phase)], axis=1)  # (B', 2P)
        values = np.einsum("bkp,bp->bk", table, vector)  # (B', chunk) = B(start + k)
        width = min(chunk, max_len - start)
        negative = values[:, :width] < 0
        failed = negative.any(axis=1)
        if failed.any():
            result[live[failed]] = start + np.argmax(negative[failed], axis=1)
            keep = ~failed
            live, table, theta = live[keep], table[keep], theta[keep]
        start += chunk
    return result.reshape(bases.shape)


def base_lower_bound(
    context_len: int,
    dim: int = 128,
    *,
    rel_step: float = 1e-3,
    start: float | None = None,
    stop: float | None = None,
) -> float:
    r"""The smallest base on a geometric grid with :math:`B(m) \ge 0` for all :math:`m <` ``context_len``.

    The grid is ``start * (1 + rel_step) ** k`` from ``start`` (default ``context_len / 2``,
    below chapter 5's trend bound :func:`trend_base`) to ``stop`` (default
    ``1000 * context_len``). Because good bases come in windows, a coarser grid can step
    over a window; the result is the first grid base that passes, within ``rel_step`` of a
    base where the criterion holds. For d = 128 it gives 4,295 (1K), 11,590 (2K),
    26,970 (4K), 83,810 (8K): Men et al.'s Table 1 at 1K, 4K and 8K, and Su's finer values
    at 2K.

    Raises:
        ValueError: bad arguments, or no base of the grid passes.
    """
    context_len = check_count(context_len, "context_len", minimum=2)
    dim = check_dim(dim)
    rel_step = check_positive(rel_step, "rel_step")
    start = context_len / 2 if start is None else check_base(start, "start")
    stop = 1000.0 * context_len if stop is None else check_base(stop, "stop")
    if stop <= start:
        raise ValueError(f"stop must be > start={start:g}, got {stop:g}")
    count = math.ceil(math.log(stop / start) / math.log1p(rel_step)) + 1
    grid = start * (1 + rel_step) ** np.arange(count)
    block = 128
    for first in range(0, count, block):
        bases = grid[first : first + block]
        passes = first_negative(bases, dim, context_len) >= context_len
        if passes.any():
            return float(bases[int(np.argmax(passes))])
    raise ValueError(f"no base in [{start:g}, {stop:g}] satisfies the criterion for {context_len}")


def trend_base(context_len: Any) -> Any:
    r"""The base whose decay trend (chapter 5) ends exactly at ``context_len``: :math:`e^\gamma L`.

    Chapter 5's law :math:`s(r) \approx d\,(1 - (\ln r + \gamma)/\ln\beta)` reaches zero at
    :math:`r^* = \beta e^{-\gamma}`; asking :math:`r^* \ge L` gives
    :math:`\beta \ge e^\gamma L \approx 1.781\,L`.
    """
    length = check_finite_array(context_len, "context_len")
    if np.any(length <= 0):
        raise ValueError(f"context_len must be > 0, got a minimum of {length.min():g}")
    result = math.exp(EULER_GAMMA) * length
    return result[()] if result.ndim == 0 else result
