r"""The scaling laws of RoPE-based extrapolation (Liu et al., 2023, arXiv 2310.05209; chapter 6).

Notation (``book/notation.md``): *d* the head dimension, :math:`T_\text{train}` the
pre-training length, :math:`T_\text{tune}` the fine-tuning length, :math:`\beta` the base after
fine-tuning, 10000 the pre-training base. Plane *n* has wavelength
:math:`2\pi/\theta_n = 2\pi\beta^{2n/d}`; the planes whose wavelength fits in the training
length have seen a full period of their position code, the others have not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import (
    check_dim,
    check_finite_array,
    check_log_base,
    check_nonnegative_array,
    check_positive,
    check_train_len,
)
from .core import wavelengths

__all__ = [
    "REGIME_EVERY_PLANE",
    "REGIME_LARGER_BASE",
    "REGIME_SMALLER_BASE",
    "Prediction",
    "base_for_extrapolation",
    "base_for_extrapolation_eq15",
    "critical_base",
    "critical_dim",
    "dynamic_ntk_alpha",
    "extrapolation_bound",
    "full_period_planes",
    "log_scale",
    "predict",
    "small_base_thresholds",
    "wavelengths",
    "xpos_decay",
    "xpos_zeta",
]

TWO_PI = 2.0 * math.pi

#: The regimes of Theorem 3 (:func:`predict`), named by what they mean.
REGIME_LARGER_BASE = "β > β0: bound = T_extra"
REGIME_SMALLER_BASE = "β ≤ β0: bound = T_tune"
#: Every plane completes a period within T_tune: the source conjectures near-unbounded
#: extrapolation here; it is not one of its theorems.
REGIME_EVERY_PLANE = "d'_extra = d: no hard bound (conjecture)"


def _scalar_or_array(values: np.ndarray) -> Any:
    """A 0-d result as a numpy scalar (np.float64 / np.int64), anything else as an array."""
    return values[()] if values.ndim == 0 else values


def _check_log_bases(base: Any, name: str) -> np.ndarray:
    array = check_finite_array(base, name)
    if np.any(array <= 1.0):
        raise ValueError(f"{name} must be > 1 (it is the base of a logarithm), got {array.min():g}")
    return array


def _check_train_lens(train_len: Any, name: str) -> np.ndarray:
    array = check_finite_array(train_len, name)
    if np.any(array <= TWO_PI):
        raise ValueError(
            f"{name} must be > 2π ≈ 6.283 (log({name}/2π) must be positive), got {array.min():g}"
        )
    return array


def full_period_planes(dim: int, train_len: float, base: float = 10000.0) -> int:
    r"""How many planes complete at least one full period within ``train_len`` tokens.

    Counted directly: the number of *n* with :math:`2\pi\beta^{2n/d} \le T_\text{train}`.
    For LLaMA 2 (d = 128, T = 4096, β = 10000) it is 46: planes 0..45 (dimensions 0..91)
    see a full period, the other 18 do not (chapter 6). Compare :func:`critical_dim`.
    """
    dim = check_dim(dim)
    train_len = check_positive(train_len, "train_len")
    return int(np.count_nonzero(wavelengths(dim, base) <= train_len))


def critical_dim(dim: int, train_len: Any, base: Any = 10000.0) -> Any:
    r"""The critical dimension :math:`d_\text{extra}` (Lemma 1, eq. 13 of the scaling-laws paper).

    .. math:: d_\text{extra} = 2\left\lceil \frac d2 \log_\beta \frac{T_\text{train}}{2\pi} \right\rceil

    The first :math:`d_\text{extra}` dimensions have wavelengths within :math:`T_\text{train}`;
    for d = 128, T = 4096, β = 10000 it is 92. The result is capped at *d*: a base below
    about :math:`T_\text{train}/2\pi` would otherwise give more dimensions than the head has.
    Where :math:`\frac d2\log_\beta(T/2\pi)` is exactly an integer the ceiling counts one plane
    fewer than :func:`full_period_planes` (a plane whose period equals *T* exactly).

    Args:
        dim: head dimension *d*.
        train_len: :math:`T_\text{train} > 2\pi` (scalar or array).
        base: :math:`\beta > 1` (scalar or array).

    Returns:
        An integer (numpy int64) or an integer array.
    """
    dim = check_dim(dim)
    t = _check_train_lens(train_len, "train_len")
    beta = _check_log_bases(base, "base")
    planes = np.ceil(dim / 2 * np.log(t / TWO_PI) / np.log(beta))
    return _scalar_or_array(np.minimum(2 * planes, dim).astype(np.int64))


def extrapolation_bound(
    base: Any, dim: int, train_len: float, pretrain_base: float = 10000.0
) -> Any:
    r"""The extrapolation upper bound :math:`T_\text{extra}` (Theorem 2, eq. 14).

    .. math:: T_\text{extra} = 2\pi\,\beta^{d_\text{extra}/d}, \qquad
        d_\text{extra} = \texttt{critical\_dim}(d, T_\text{train}, \beta_\text{pretrain})

    Planes :math:`0, \dots, d_\text{extra}/2 - 1` completed a full period in pre-training;
    plane :math:`d_\text{extra}/2`, the first that did not, is the critical plane, and
    :math:`T_\text{extra}` is its wavelength :math:`2\pi\beta^{2(d_\text{extra}/2)/d}` under the
    new base: beyond it that plane's angles leave the range seen in training. LLaMA 2: 4712
    for β = 10000 (above 4096: plane 46's wavelength, which already exceeded the training
    length), about 129K for β = 10⁶ (chapter 6).

    Args:
        base: β after fine-tuning, > 1 (scalar or array).
        dim: head dimension.
        train_len: :math:`T_\text{train} > 2\pi`.
        pretrain_base: the pre-training base (10000 for LLaMA 2), > 1.

    Returns:
        float64 scalar or array, in tokens.
    """
    beta = _check_log_bases(base, "base")
    d_extra = critical_dim(dim, train_len, check_log_base(pretrain_base, "pretrain_base"))
    return _scalar_or_array(TWO_PI * beta ** (d_extra / dim))


def base_for_extrapolation(
    target_len: Any, dim: int, train_len: float, pretrain_base: float = 10000.0
) -> Any:
    r"""The inverse of Theorem 2 as the book computes it: the base whose bound is ``target_len``.

    .. math:: \beta = \left(\frac{T}{2\pi}\right)^{d/d_\text{extra}}

    with the *ceiled* critical dimension of eq. 13 (92 for LLaMA 2), so that
    ``extrapolation_bound(base_for_extrapolation(T)) == T``. The source's own inverse (eq. 15)
    uses the exponent without the ceiling and gives a larger base:
    :func:`base_for_extrapolation_eq15`. For a 100K target: 701,472 here, 938,327 there
    (chapter 6).

    Args:
        target_len: the wanted context length, > 2π (scalar or array).
    """
    target = _check_train_lens(target_len, "target_len")
    d_extra = critical_dim(dim, train_len, check_log_base(pretrain_base, "pretrain_base"))
    return _scalar_or_array((target / TWO_PI) ** (dim / d_extra))


def base_for_extrapolation_eq15(
    target_len: Any, train_len: float, pretrain_base: float = 10000.0
) -> Any:
    r"""The source's inverse of Theorem 2 (eq. 15): the smallest base for a context of ``target_len``.

    .. math:: \beta = 10000^{\log_{T_\text{train}/2\pi}(T/2\pi)}
        = \left(\frac{T}{2\pi}\right)^{1/\log_{10000}(T_\text{train}/2\pi)}

    The exponent is :math:`1/\log_{10000}(T_\text{train}/2\pi) = d/x` with the unrounded
    plane count :math:`x = d\log_{10000}(T_\text{train}/2\pi)` (90.05 for LLaMA 2), where
    Theorem 2 (eq. 14) uses the ceiled :math:`d_\text{extra} = 92`; the two are not inverse to
    each other, and this base is larger than :func:`base_for_extrapolation`'s (for LLaMA 2:
    938,327 against 701,472 for 100K tokens). It is the formula of the critical base (eq.
    16a) with :math:`T_\text{tune}` replaced by the target, so it does not depend on *d*.

    Source: Liu et al. 2024, "Scaling Laws of RoPE-based Extrapolation", eq. 15. Chapter 6.

    Args:
        target_len: the wanted context length, > 2π (scalar or array).
        train_len: :math:`T_\text{train} > 2\pi`.
        pretrain_base: the pre-training base, > 1.
    """
    target = _check_train_lens(target_len, "target_len")
    t_train = _check_train_lens(train_len, "train_len")
    pretrain = check_log_base(pretrain_base, "pretrain_base")
    exponent = np.log(target / TWO_PI) / np.log(t_train / TWO_PI)
    return _scalar_or_array(pretrain**exponent)


def critical_base(train_len: Any, tune_len: Any, pretrain_base: float = 10000.0) -> Any:
    r"""The critical base :math:`\beta_0` (Theorem 3, eq. 16a).

    .. math:: \beta_0 = 10000^{\log_{T_\text{train}/2\pi} (T_\text{tune}/2\pi)}

    The base at which the planes that saw a full period in :math:`T_\text{train}` with base
    10000 see exactly a full period in :math:`T_\text{tune}`; fine-tuning at
    :math:`T_\text{tune}` with β = β0 extrapolates worst. LLaMA 2 at 16K: 71738.

    The same formula with :math:`T_\text{tune}` replaced by a wanted length is the source's
    inverse of Theorem 2 (eq. 15, :func:`base_for_extrapolation_eq15`). Its exponent is not
    ceiled, while Theorem 2's :math:`T_\text{extra}` (eq. 16b) uses the ceiled
    :math:`d_\text{extra}`: :func:`predict` therefore jumps at β0, from :math:`T_\text{tune}`
    to :math:`2\pi\beta_0^{d_\text{extra}/d}` (16,384 to 19,420 for LLaMA 2 at 16K).

    Returns:
        float64 scalar or array.
    """
    t_train = _check_train_lens(train_len, "train_len")
    t_tune = _check_train_lens(tune_len, "tune_len")
    pretrain = check_log_base(pretrain_base, "pretrain_base")
    exponent = np.log(t_tune / TWO_PI) / np.log(t_train / TWO_PI)
    return _scalar_or_array(pretrain**exponent)


def small_base_thresholds(train_len: float) -> tuple[float, float, float]:
    r"""Theorem 1 (eq. 9): the bases :math:`\beta_1, \beta_2, \beta_3` for fine-tuning with a smaller base.

    .. math:: \beta_1 = \frac{2T}{\pi},\quad \beta_2 = \frac{T}{\pi},\quad \beta_3 = \frac{T}{2\pi}

    Theorem 1 says that fine-tuning at *T* with *any* base below 10000 improves extrapolation;
    these thresholds mark where the improvement accelerates. Below :math:`\beta_1`,
    :math:`\beta_2`, :math:`\beta_3` every plane's angle sweeps at least :math:`\pi/2`,
    :math:`\pi`, :math:`2\pi` within *T* (eq. 10, taken in the limit of the slowest plane, so
    the conditions are sufficient with a margin). LLaMA 2 (T = 4096): 2608, 1304, 652 after
    rounding. Chapter 6.

    Returns:
        ``(beta_1, beta_2, beta_3)`` as exact Python floats (not rounded).
    """
    t = check_positive(train_len, "train_len")
    return 2.0 * t / math.pi, t / math.pi, t / TWO_PI


def dynamic_ntk_alpha(t: Any, train_len: float) -> Any:
    r"""The integer scale :math:`\alpha_t` of dynamic NTK as the sources give it (eq. 8).

    .. math:: \alpha_t = \max\left(1,\; 2^{\lceil \log_2 (t/T_\text{train}) \rceil + 1} - 1\right)

    The base becomes :math:`10000\cdot\alpha_t` (eq. 7): 1 up to :math:`T_\text{train}`, 3 up
    to :math:`2T_\text{train}`, 7 up to :math:`4T_\text{train}`, ... The ceiling is taken
    exactly (the smallest *k* with :math:`T 2^k \ge t`), not through a rounded logarithm.
    Transformers' continuous form is ``ropelab.rope_config`` (rope type ``"dynamic"``).

    Args:
        t: the current length (scalar or array, >= 0).
        train_len: :math:`T_\text{train} > 0`.

    Returns:
        int64 scalar or array.
    """
    t = check_nonnegative_array(t, "t")
    train_len = check_positive(train_len, "train_len")
    ratio = np.maximum(t / train_len, np.finfo(np.float64).tiny)
    k = np.ceil(np.log2(ratio))
    k = np.where(train_len * 2.0**k < t, k + 1, k)
    k = np.where(train_len * 2.0 ** (k - 1) >= t, k - 1, k)
    alpha = np.maximum(1, 2 ** np.maximum(k + 1, 0).astype(np.int64) - 1)
    return _scalar_or_array(alpha.astype(np.int64))


def log_scale(t: Any, extra_len: float) -> Any:
    r"""The log-scaling factor of the attention logits (eq. 18).

    .. math:: p_t = \max\left(1,\; \log_{T_\text{extra}} t\right)

    It multiplies the score of a query at position *t*; the scaling-laws paper uses
    :math:`T_\text{extra}` (Theorem 2) as the base of the logarithm.

    Args:
        t: positions, >= 0 (scalar or array).
        extra_len: :math:`T_\text{extra} > 1`.
    """
    t = check_nonnegative_array(t, "t")
    extra = check_log_base(extra_len, "extra_len")
    return _scalar_or_array(np.maximum(1.0, np.log(np.maximum(t, 1.0)) / math.log(extra)))


def xpos_zeta(dim: int, gamma: float = 0.4) -> np.ndarray:
    r"""The per-plane decay rates of xPos (Sun et al., 2022, arXiv 2212.10554; eq. 19).

    .. math:: \zeta_n = \frac{\gamma + 2n/d}{1 + \gamma}, \qquad n = 0, \dots, d/2 - 1

    Plane *n* of the score at distance *r* is multiplied by :math:`\zeta_n^{r/T}`, so the
    high-frequency planes (small *n*, small :math:`\zeta_n`) decay fastest.

    Returns:
        float64 array of shape ``(dim // 2,)`` in ``(0, 1)``.
    """
    dim = check_dim(dim)
    gamma = check_positive(gamma, "gamma")
    n = np.arange(dim // 2, dtype=np.float64)
    return (gamma + 2.0 * n / dim) / (1.0 + gamma)


def xpos_decay(
    distances: Any, dim: int, scale_len: float = 512.0, gamma: float = 0.4
) -> np.ndarray:
    r"""The xPos factor :math:`\zeta_n^{r/T}` for each distance *r* and plane *n* (eq. 19).

    xPos uses :math:`T = 512`; the scaling-laws paper replaces it by :math:`T_\text{extra}`.

    Returns:
        float64 array of shape ``distances.shape + (dim // 2,)``.
    """
    r = check_finite_array(distances, "distances")
    scale_len = check_positive(scale_len, "scale_len")
    return xpos_zeta(dim, gamma) ** (r[..., None] / scale_len)


@dataclass(frozen=True)
class Prediction:
    """What Theorem 3 predicts for a fine-tuned RoPE model (see :func:`predict`).

    Attributes:
        regime: :data:`REGIME_LARGER_BASE` (``"β > β0: bound = T_extra"``),
            :data:`REGIME_SMALLER_BASE` (``"β ≤ β0: bound = T_tune"``) or
            :data:`REGIME_EVERY_PLANE` (``"d'_extra = d: no hard bound (conjecture)"``).
        d_extra: the critical dimension that governs extrapolation (capped at *d*).
        supported_length: the predicted supported context in tokens, or ``None`` where every
            plane completes a period within :math:`T_\\text{tune}` and the source conjectures
            that there is no hard bound.
        critical_base: :math:`\\beta_0` for this :math:`T_\\text{train}` and :math:`T_\\text{tune}`.
        reason: the argument in words.
    """

    regime: str
    d_extra: int
    supported_length: float | None
    critical_base: float
    reason: str

    @property
    def supported(self) -> str:
        """The supported length as text: a number of tokens or ``"no hard bound (conjecture)"``."""
        if self.supported_length is None:
            return "no hard bound (conjecture)"
        return f"{self.supported_length:.0f}"


def predict(
    dim: int,
    train_len: float,
    base: float,
    tune_len: float | None = None,
    pretrain_base: float = 10000.0,
) -> Prediction:
    r"""Apply Theorem 3 of the scaling-laws paper to one fine-tuning setting (chapter 6).

    A model pre-trained at :math:`T_\text{train}` with ``pretrain_base`` is fine-tuned with
    base β at :math:`T_\text{tune}` (default :math:`T_\text{train}`). With
    :math:`\beta_0` = :func:`critical_base`:

    * β > β0 (:data:`REGIME_LARGER_BASE`): the bound is
      :math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}` with the pre-training critical
      dimension (eq. 16b).
    * β ≤ β0 (:data:`REGIME_SMALLER_BASE`): the bound is :math:`T_\text{tune}`; the critical
      dimension grows to :math:`d'_\text{extra} = 2\lceil \frac d2 \log_\beta
      \frac{T_\text{tune}}{2\pi}\rceil` (eq. 16c), and bases below the thresholds of
      Theorem 1 (computed with :math:`T_\text{tune}`) make the loss rise more slowly past it.
    * :math:`d'_\text{extra} = d` (:data:`REGIME_EVERY_PLANE`): every plane completes a period
      within :math:`T_\text{tune}`. The source *conjectures* that such a model extrapolates
      almost without limit; no theorem bounds it, so the prediction is ``None``, "no hard
      bound (conjecture)". Because of the ceiling this starts slightly above
      :math:`\beta_3 = T_\text{tune}/2\pi`.

    At :math:`\beta_0` the prediction jumps: eq. 16a defines :math:`\beta_0` with the unceiled
    exponent, eq. 16b uses the ceiled :math:`d_\text{extra}`, so just above :math:`\beta_0`
    the bound is :math:`2\pi\beta_0^{d_\text{extra}/d}` (19,420 for LLaMA 2 at 16K), not
    :math:`T_\text{tune}` (16,384).

    With β = 10000 and :math:`T_\text{tune} = T_\text{train}` (the pre-trained model itself) this
    gives :math:`T_\text{train}`.

    Args:
        dim: head dimension (positive, even).
        train_len: :math:`T_\text{train} > 2\pi`.
        base: β after fine-tuning, > 1.
        tune_len: :math:`T_\text{tune} \ge T_\text{train}`, or ``None`` for :math:`T_\text{train}`.
        pretrain_base: the pre-training base, > 1.
    """
    dim = check_dim(dim)
    train_len = check_train_len(train_len)
    base = check_log_base(base)
    pretrain_base = check_log_base(pretrain_base, "pretrain_base")
    if tune_len is None:
        tune_len = train_len
    tune_len = check_positive(tune_len, "tune_len")
    if tune_len < train_len:
        raise ValueError(f"tune_len must be >= train_len ({train_len:g}), got {tune_len:g}")

    beta0 = float(critical_base(train_len, tune_len, pretrain_base))
    if base > beta0:
        d_extra = int(critical_dim(dim, train_len, pretrain_base))
        bound = float(extrapolation_bound(base, dim, train_len, pretrain_base))
        reason = (
            f"base {base:g} > critical base {beta0:.0f}: the first {d_extra} of {dim} dimensions "
            f"saw full periods in pre-training ({train_len:g} tokens); fine-tuning stretches the "
            f"wavelength of plane {d_extra // 2}, the first that did not, to "
            f"2π·{base:g}^({d_extra}/{dim}) = {bound:.0f} tokens, past which the remaining "
            "dimensions meet unseen angles (Theorem 2)."
        )
        return Prediction(REGIME_LARGER_BASE, d_extra, bound, beta0, reason)

    d_extra = int(critical_dim(dim, tune_len, base))
    beta1, beta2, beta3 = small_base_thresholds(tune_len)
    if d_extra == dim:
        reason = (
            f"base {base:g} is so small that every plane completes a full period within "
            f"{tune_len:g} tokens (β3 = T_tune/2π = {beta3:.0f}): no dimension meets an unseen "
            "angle. No theorem bounds such a model; the source conjectures that it extrapolates "
            "almost without limit, the loss rising slowly with length (a conjecture, not a "
            "result)."
        )
        return Prediction(REGIME_EVERY_PLANE, dim, None, beta0, reason)
    passed = [name for name, b in (("β1", beta1), ("β2", beta2), ("β3", beta3)) if base <= b]
    progress = (
        f"it is below {', '.join(passed)} of Theorem 1, where the improvement past that "
        "length accelerates"
        if passed
        else f"below β1 = {beta1:.0f} the improvement past that length would accelerate"
    )
    reason = (
        f"base {base:g} <= critical base {beta0:.0f}: the bound is the fine-tuning length "
        f"{tune_len:g}, with {d_extra} of {dim} dimensions seeing full periods there; {progress} "
        "(Theorem 3)."
    )
    return Prediction(REGIME_SMALLER_BASE, d_extra, tune_len, beta0, reason)
