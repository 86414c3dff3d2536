r"""The scaling-law calculator of chapter 6: head dim, lengths and base in, prediction out.

:func:`calculator_data` is the whole computation, a pure function of four numbers; it is the
data of chapter 6's interactive figure (:mod:`ropelab.interactive`), drawn by
:func:`ropelab.plots.extension.plot_calculator`. The formulas are those of
:mod:`ropelab.scaling` (Liu et al. 2024, "Scaling Laws of RoPE-based Extrapolation").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import scaling
from ._checks import check_dim, check_log_base, check_positive, check_train_len
from .core import wavelengths
from .rope_config import llama3_bands, yarn_ramp

__all__ = ["PRETRAIN_BASE", "calculator_data", "extension_original_len"]

#: Per plane: kept, partly changed, divided by the factor s (the method bands).
_KEPT, _PARTLY, _SCALED = 0, 1, 2


#: The pre-training base the scaling laws assume (LLaMA 2's).
PRETRAIN_BASE = 10000.0


def extension_original_len(supported_length: float | None, tune_len: float) -> int:
    r"""The original length a context-extension method takes when it extends the fine-tuned model.

    Chapter 6's lesson from the scaling laws: a method applied on top of a fine-tuned model
    starts from the length that model is reliable to, where it used :math:`T_\text{train}`
    before. That is the supported length of Theorem 3 (:func:`ropelab.scaling.predict`):
    :math:`T_\text{extra}` above the critical base, :math:`T_\text{tune}` at or below it, and
    :math:`T_\text{tune}` again where no bound is predicted (every plane completes a period
    within :math:`T_\text{tune}`; the model is reliable to at least that). Using
    :math:`T_\text{tune}` above the critical base is the "wrong" variant of the paper's
    Figure 11 (dynamic NTK with the training length).

    Returns:
        the length in whole tokens (rounded to the nearest integer).
    """
    tune_len = check_positive(tune_len, "tune_len")
    if supported_length is None:
        return round(tune_len)
    return round(check_positive(supported_length, "supported_length"))


def _bands(dim: int, base: float, original: int) -> dict[str, np.ndarray]:
    """Per plane: 0 kept, 1 partly changed, 2 divided by the factor s, for four methods."""
    planes = dim // 2
    ntk = np.full(planes, _PARTLY)
    ntk[0], ntk[-1] = _KEPT, _SCALED
    weight = yarn_ramp(dim, base, original)
    yarn = np.where(weight <= 0.0, _KEPT, np.where(weight >= 1.0, _SCALED, _PARTLY))
    labels = llama3_bands(dim, base, original)
    llama3 = np.select([labels == "high", labels == "low"], [_KEPT, _SCALED], _PARTLY)
    return {
        "PI": np.full(planes, _SCALED),
        "NTK": ntk,
        "YaRN": yarn.astype(np.int64),
        "Llama 3": llama3.astype(np.int64),
    }


def calculator_data(
    dim: int,
    train_len: float,
    base: float,
    tune_len: float,
    pretrain_base: float = PRETRAIN_BASE,
) -> dict[str, Any]:
    r"""Everything the calculator shows, for one setting (pre-training base 10 000).

    A model pre-trained at :math:`T_\text{train}` with base 10 000 is fine-tuned with base β at
    :math:`T_\text{tune} \ge T_\text{train}`. With :math:`\lambda_i = 2\pi\beta^{2i/d}`:

    * ``d_extra`` :math:`= 2\lceil \frac d2 \log_{10000} \frac{T_\text{train}}{2\pi}\rceil`
      (capped at *d*), ``full_period_planes`` the planes with :math:`2\pi\,10000^{2i/d} \le T_\text{train}`;
    * ``extra_len`` :math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}` (Theorem 2; it is the
      new wavelength of plane :math:`d_\text{extra}/2`);
    * ``critical_base`` :math:`\beta_0 = 10000^{\log_{T_\text{train}/2\pi}(T_\text{tune}/2\pi)}`;
    * ``regime``, ``effective_d_extra`` and ``supported_length`` from Theorem 3
      (:func:`ropelab.scaling.predict`): :math:`T_\text{extra}` above :math:`\beta_0`,
      :math:`T_\text{tune}` at or below it, ``None`` (no hard bound) once every plane completes
      a period within :math:`T_\text{tune}`;
    * ``thresholds``: :math:`(\beta_1, \beta_2, \beta_3) = (2T, T, T/2)/\pi` with
      :math:`T = T_\text{tune}` (Theorem 1);
    * ``bands``: per plane 0 (kept), 1 (partly changed) or 2 (divided by *s*) for PI
      (every plane 2), NTK-aware scaling (plane 0 kept, the last divided by exactly *s*, the
      rest partly), YaRN (ramp weight 0 / between / 1, :func:`ropelab.rope_config.yarn_ramp`)
      and Llama 3 (bands high / medium / low with factors 1 and 4,
      :func:`ropelab.rope_config.llama3_bands`): what each method would change to extend the
      fine-tuned model further, so with base β and, as original length, the length the
      fine-tuned model is reliable to (:func:`extension_original_len`: :math:`T_\text{extra}`
      above the critical base, :math:`T_\text{tune}` otherwise), as chapter 6 teaches; with
      :math:`T_\text{tune}` the strip would divide planes the model handles. They do not
      depend on the factor *s*.

    Source: Liu et al. 2024, "Scaling Laws of RoPE-based Extrapolation", Theorems 1-3.
    Chapter 6.

    Args:
        dim: head dimension *d*, positive and even.
        train_len: :math:`T_\text{train} > 2\pi`.
        base: β after fine-tuning, > 1.
        tune_len: :math:`T_\text{tune} \ge T_\text{train}`.
        pretrain_base: the base of pre-training, 10 000 in the paper (LLaMA 2).

    Returns:
        A dict with the keys named above plus ``dim``, ``train_len``, ``base``, ``tune_len``,
        ``planes``, ``wavelengths`` (at β) and ``pretrain_wavelengths`` (at 10 000).
    """
    dim = check_dim(dim)
    train_len = check_train_len(train_len)
    base = check_log_base(base)
    tune_len = check_positive(tune_len, "tune_len")
    pretrain_base = check_log_base(pretrain_base, "pretrain_base")
    if tune_len < train_len:
        raise ValueError(f"tune_len must be >= train_len ({train_len:g}), got {tune_len:g}")
    prediction = scaling.predict(dim, train_len, base, tune_len, pretrain_base)
    d_extra = int(scaling.critical_dim(dim, train_len, pretrain_base))
    return {
        "dim": dim,
        "train_len": train_len,
        "base": base,
        "tune_len": tune_len,
        "planes": np.arange(dim // 2),
        "wavelengths": wavelengths(dim, base),
        "pretrain_wavelengths": wavelengths(dim, pretrain_base),
        "d_extra": d_extra,
        "full_period_planes": scaling.full_period_planes(dim, train_len, pretrain_base),
        "extra_len": float(scaling.extrapolation_bound(base, dim, train_len, pretrain_base)),
        "critical_base": prediction.critical_base,
        "regime": prediction.regime,
        "effective_d_extra": prediction.d_extra,
        "supported_length": prediction.supported_length,
        "thresholds": scaling.small_base_thresholds(tune_len),
        "bands": _bands(dim, base, extension_original_len(prediction.supported_length, tune_len)),
    }
