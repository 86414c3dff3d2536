r"""The frequency spectrum :math:`\theta_i = \beta^{-2i/d}`: the computations of chapter 4.

* :func:`spectrum_data`: the frequencies, wavelengths and full-period planes of one head for a
  base and a training length (the data of chapter 4's interactive figure).
* :func:`plane_scales`, :func:`wrapped_angle`, :func:`closest_return`: how far a plane turns
  per token, and which distances it confuses with distance 0.
* :func:`compare_bases` and :func:`difference_peak`: base 10 000 against base 100 000 plane by
  plane (the sources' ``get_theta`` comparison).

The figures that draw these numbers are in :mod:`ropelab.plots.spectrum`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._checks import (
    check_base,
    check_dim,
    check_finite_array,
    check_log_base,
    check_positive,
    check_train_len,
)
from .core import inv_freq
from .scaling import critical_dim, full_period_planes

__all__ = [
    "closest_common_return",
    "closest_return",
    "compare_bases",
    "difference_peak",
    "plane_scales",
    "spectrum_data",
    "wrapped_angle",
]

TWO_PI = 2.0 * math.pi


def spectrum_data(
    dim: int, base: float, train_len: float, reference_base: float | None = None
) -> dict[str, Any]:
    r"""Every number chapter 4's spectrum figure shows, for head dimension *d*, base β and :math:`T_\text{train}`.

    .. math::
        \theta_i = \beta^{-2i/d}, \qquad
        \lambda_i = \frac{2\pi}{\theta_i} = 2\pi\beta^{2i/d}, \qquad
        \text{turns}_i = \frac{T_\text{train}}{\lambda_i} = \frac{T_\text{train}\,\theta_i}{2\pi},
        \qquad i = 0, \dots, d/2 - 1.

    Plane *i* completes a full period within the training length when
    :math:`\lambda_i \le T_\text{train}`, equivalently :math:`\theta_i \ge 2\pi/T_\text{train}`
    (Liu et al., *Scaling Laws of RoPE-based Extrapolation*, section 3.2, eq. 12). Since
    :math:`\lambda_i` grows with *i* these planes are a prefix ``0 .. n_full - 1``. Chapter 4
    explains the spectrum; chapter 6 builds the scaling laws on the count.

    Args:
        dim: head dimension *d*, a positive even integer.
        base: β > 1.
        train_len: :math:`T_\text{train}` in tokens, > 2π.
        reference_base: a second base drawn for comparison (``None``: none).

    Returns:
        A dict with

        * ``dim`` (int), ``base`` and ``train_len`` (float): the inputs;
        * ``plane``: int64 array ``0 .. d/2 - 1``;
        * ``theta``: :math:`\theta_i` (radians per token), float64;
        * ``wavelength``: :math:`\lambda_i` (tokens), float64;
        * ``turns``: full turns plane *i* makes within :math:`T_\text{train}`, float64;
        * ``full_period``: bool array, :math:`\lambda_i \le T_\text{train}`;
        * ``theta_threshold``: :math:`2\pi/T_\text{train}`, the smallest frequency that
          completes a period;
        * ``boundary``: :math:`\frac d2\log_\beta\frac{T_\text{train}}{2\pi}`, the plane index
          (as a real number) whose wavelength is exactly :math:`T_\text{train}`: planes
          :math:`i \le` ``boundary`` complete a period;
        * ``n_planes`` (= d/2), ``n_full`` (planes with a full period, from
          :func:`ropelab.scaling.full_period_planes`), ``n_partial`` (= ``n_planes - n_full``);
        * ``critical_dim``: :math:`d_\text{extra} = 2\lceil\frac d2\log_\beta\frac{T_\text{train}}{2\pi}\rceil`
          capped at *d* (:func:`ropelab.scaling.critical_dim`); it equals ``2 * n_full``
          except when :math:`\frac d2\log_\beta\frac{T_\text{train}}{2\pi}` is an integer;
        * with ``reference_base``: ``reference_base`` and ``reference_theta``, its
          :math:`\theta_i`.
    """
    dim = check_dim(dim)
    base = check_log_base(base)
    train_len = check_train_len(train_len)
    theta = inv_freq(dim, base)
    wavelength = 2.0 * math.pi / theta
    full = wavelength <= train_len
    n_full = full_period_planes(dim, train_len, base)
    data = {
        "dim": dim,
        "base": base,
        "train_len": train_len,
        "plane": np.arange(dim // 2, dtype=np.int64),
        "theta": theta,
        "wavelength": wavelength,
        "turns": train_len / wavelength,
        "full_period": full,
        "theta_threshold": 2.0 * math.pi / train_len,
        "boundary": dim / 2 * math.log(train_len / (2.0 * math.pi)) / math.log(base),
        "n_planes": dim // 2,
        "n_full": n_full,
        "n_partial": dim // 2 - n_full,
        "critical_dim": int(critical_dim(dim, train_len, base)),
    }
    if reference_base is not None:
        data["reference_base"] = check_base(reference_base, "reference_base")
        data["reference_theta"] = inv_freq(dim, data["reference_base"])
    return data


def plane_scales(dim: int, base: float, train_len: float) -> dict[str, np.ndarray]:
    r"""How far each plane turns per token and within a context (chapter 4).

    For plane *i*, with :math:`\theta_i = \beta^{-2i/d}`:

    * ``degrees_per_token``: the angle step between neighbouring positions, :math:`\theta_i`
      in degrees;
    * ``tokens_per_radian``: :math:`1/\theta_i`, the distance over which the plane turns by one
      radian (57.3°); distances much shorter than this give nearly the same angle in plane *i*;
    * ``wavelength``: :math:`\lambda_i = 2\pi/\theta_i`, after which the angle repeats;
    * ``turns``: :math:`T_\text{train}\theta_i/2\pi`, full turns within the training length;
    * ``arc_degrees``: the part of the circle the angles :math:`m\theta_i`,
      :math:`0 \le m \le T_\text{train}`, cover: :math:`\min(T_\text{train}\theta_i, 2\pi)` in
      degrees;
    * ``monotone``: :math:`T_\text{train}\theta_i \le \pi`, the plane turns by at most half a
      turn within the training length, so :math:`\cos(r\theta_i)` decreases steadily for
      :math:`0 \le r \le T_\text{train}` and orders those distances without ambiguity.

    Returns:
        A dict of arrays of shape ``(dim // 2,)``: ``plane`` (int64), ``monotone`` (bool), the
        others float64 (``theta`` included).
    """
    theta = inv_freq(check_dim(dim), check_base(base))
    train_len = check_positive(train_len, "train_len")
    return {
        "plane": np.arange(theta.size, dtype=np.int64),
        "theta": theta,
        "degrees_per_token": np.degrees(theta),
        "tokens_per_radian": 1.0 / theta,
        "wavelength": TWO_PI / theta,
        "turns": train_len * theta / TWO_PI,
        "arc_degrees": np.degrees(np.minimum(train_len * theta, TWO_PI)),
        "monotone": train_len * theta <= math.pi,
    }


def wrapped_angle(distances: Any, theta: float) -> np.ndarray:
    r"""The angle :math:`r\theta` reduced to :math:`[-\pi, \pi)`: how far apart, on the circle,
    plane θ puts two positions that are *r* tokens apart (chapter 4).

    A plane cannot tell distance *r* from distance 0 when this is close to zero, however large
    *r* is: the rotation only sees :math:`r\theta` modulo :math:`2\pi`.
    """
    r = check_finite_array(distances, "distances")
    theta = check_positive(theta, "theta")
    return np.mod(r * theta + math.pi, TWO_PI) - math.pi


def closest_return(theta: float, max_distance: int) -> tuple[int, float]:
    r"""The distance :math:`1 \le r \le` ``max_distance`` that plane θ confuses most with 0.

    Returns ``(r, angle)`` where *r* minimises :math:`|r\theta \bmod 2\pi|` (wrapped to
    :math:`[-\pi, \pi)` by :func:`wrapped_angle`) and ``angle`` is that wrapped angle in radians.
    For θ = 1 (plane 0) and ``max_distance = 100``: r = 44, because :math:`44 \approx 7\cdot 2\pi`.
    Chapter 4.
    """
    if isinstance(max_distance, bool) or int(max_distance) != max_distance or max_distance < 1:
        raise ValueError(f"max_distance must be an integer >= 1, got {max_distance!r}")
    distances = np.arange(1, int(max_distance) + 1)
    angles = wrapped_angle(distances, theta)
    best = int(np.argmin(np.abs(angles)))
    return int(distances[best]), float(angles[best])


def closest_common_return(
    dim: int, base: float, max_distance: int, chunk: int = 4096
) -> tuple[int, float]:
    r"""The distance :math:`1 \le r \le` ``max_distance`` at which a whole head comes closest
    to position 0: every plane at once.

    .. math:: r^\circ = \arg\min_{1 \le r \le R}\ \max_i\, |r\theta_i \bmod 2\pi|

    (angles wrapped to :math:`[-\pi, \pi)` by :func:`wrapped_angle`). A small maximum means
    that the rotation at distance :math:`r^\circ` is almost the identity in every plane, a
    common period: the head cannot tell :math:`r^\circ` from 0. With base 1 every
    :math:`\theta_i = 1` and :math:`r^\circ = 710` returns within :math:`6\times10^{-5}` rad;
    for any base from 2 up, no distance up to 65,536 brings the head back within 1 rad
    (the limit of a too small base that the scaling-laws explainer names, chapter 6).

    Returns:
        ``(r, worst_angle)``: the distance and its largest wrapped angle over the planes, in
        radians.
    """
    dim = check_dim(dim)
    if isinstance(max_distance, bool) or int(max_distance) != max_distance or max_distance < 1:
        raise ValueError(f"max_distance must be an integer >= 1, got {max_distance!r}")
    theta = inv_freq(dim, check_positive(base, "base"))
    best_r, best_angle = 1, math.inf
    for start in range(1, int(max_distance) + 1, chunk):
        r = np.arange(start, min(start + chunk, int(max_distance) + 1), dtype=np.float64)
        worst = np.abs(np.mod(r[:, None] * theta + math.pi, TWO_PI) - math.pi).max(axis=1)
        k = int(np.argmin(worst))
        if worst[k] < best_angle:
            best_r, best_angle = int(r[k]), float(worst[k])
    return best_r, best_angle


def compare_bases(
    dim: int = 128, base_a: float = 10000.0, base_b: float = 100000.0
) -> dict[str, np.ndarray]:
    r"""The spectra of two bases side by side (the sources' ``get_theta`` comparison; chapter 4).

    .. math::
        \theta^{(a)}_i = \beta_a^{-2i/d},\quad \theta^{(b)}_i = \beta_b^{-2i/d},\quad
        \frac{\theta^{(b)}_i}{\theta^{(a)}_i} = \left(\frac{\beta_a}{\beta_b}\right)^{2i/d}

    Returns:
        ``plane``; ``theta_a``, ``theta_b``; ``abs_diff`` :math:`= \theta^{(a)}_i - \theta^{(b)}_i`;
        ``ratio`` :math:`= \theta^{(b)}_i/\theta^{(a)}_i` (the wavelength grows by ``1/ratio``);
        ``rel_change`` :math:`= 1 - \text{ratio}`.
    """
    dim = check_dim(dim)
    theta_a = inv_freq(dim, check_base(base_a, "base_a"))
    theta_b = inv_freq(dim, check_base(base_b, "base_b"))
    ratio = theta_b / theta_a
    return {
        "plane": np.arange(theta_a.size, dtype=np.int64),
        "theta_a": theta_a,
        "theta_b": theta_b,
        "abs_diff": theta_a - theta_b,
        "ratio": ratio,
        "rel_change": 1.0 - ratio,
    }


def difference_peak(dim: int = 128, base_a: float = 10000.0, base_b: float = 100000.0) -> float:
    r"""Where the absolute difference :math:`\theta^{(a)}_i - \theta^{(b)}_i` peaks, *i* treated as continuous.

    With :math:`x = 2i/d`, :math:`f(x) = \beta_a^{-x} - \beta_b^{-x}` and
    :math:`f'(x) = \ln\beta_b\,\beta_b^{-x} - \ln\beta_a\,\beta_a^{-x}`, which vanishes at

    .. math:: x^* = \frac{\ln(\ln\beta_b / \ln\beta_a)}{\ln(\beta_b/\beta_a)}, \qquad
        i^* = \frac d2\, x^*.

    For :math:`1 < \beta_a < \beta_b` this is the maximum over real *i*; for small bases it
    can lie past the last plane :math:`d/2 - 1`. d = 128, bases 10 000 and
    100 000: :math:`x^* = \log_{10} 1.25`, :math:`i^* \approx 6.20` (chapter 4).
    """
    dim = check_dim(dim)
    a = check_positive(base_a, "base_a", minimum=1.0)
    b = check_positive(base_b, "base_b", minimum=a)
    return dim / 2 * math.log(math.log(b) / math.log(a)) / math.log(b / a)
