r"""Context-extension methods: the computations of chapter 6 (and of chapter 8's explorer).

* :func:`extension_configs`, :func:`scaled_frequencies`: the angle-scaling methods as
  transformers-style configs, evaluated with :func:`ropelab.frequencies_from_config`;
  :func:`illustrative_longrope_factors` gives LongRoPE factors of the typical shape;
  :func:`llama31_config` is Llama 3.1's.
* :func:`dynamic_ntk_comparison`: Qwen's integer :math:`\alpha_t` (with the exponent
  :math:`d/(d-2)`, :func:`qwen_ntk_alpha`, :func:`qwen_ntk_base`), the scaling-laws paper's
  simplification without it, and transformers' continuous dynamic NTK.
* :func:`critical_split`, :func:`range_exit`: the score :math:`q_t^\top k_0` split at the
  critical dimension, and whether each part leaves its trained range.
* :func:`method_explorer_data`: the data of the explorer of the methods (issue 15): per plane,
  the wavelength before and after a method, which planes it keeps, stretches or interpolates,
  and its attention factor, all from :func:`ropelab.frequencies_from_config`.

The figures that draw these numbers are in :mod:`ropelab.plots.extension`. Sources: Liu et al.
2024, "Scaling Laws of RoPE-based Extrapolation" (arXiv 2310.05209) and the papers of each
method, named in each docstring.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import decay, scaling
from ._checks import check_dim, check_finite_array, check_log_base, check_positive
from .core import inv_freq
from .rope_config import dynamic_ntk_base, frequencies_from_config

__all__ = [
    "METHODS",
    "MODEL_SETTINGS",
    "critical_split",
    "dynamic_ntk_comparison",
    "extension_configs",
    "illustrative_longrope_factors",
    "llama31_config",
    "method_config",
    "method_explorer_data",
    "method_frequencies",
    "qwen_ntk_alpha",
    "qwen_ntk_base",
    "range_exit",
    "scaled_frequencies",
]

TWO_PI = 2.0 * math.pi


#: Published RoPE settings of real models (chapter 6). ``tune_len`` is the length of the
#: long-context training stage, ``None`` where the model was not extended that way.
MODEL_SETTINGS: tuple[dict[str, Any], ...] = (
    {
        "model": "LLaMA 2",
        "cite": "touvron2023llama2",
        "dim": 128,
        "train_len": 4096,
        "base": 10000.0,
        "tune_len": None,
        "pretrain_base": 10000.0,
    },
    {
        "model": "Code Llama",
        "cite": "roziere2023codellama",
        "dim": 128,
        "train_len": 4096,
        "base": 1_000_000.0,
        "tune_len": 16384,
        "pretrain_base": 10000.0,
    },
    {
        "model": "LLaMA 2 Long (7B, 13B)",
        "cite": "xiong2023effective",
        "dim": 128,
        "train_len": 4096,
        "base": 500_000.0,
        "tune_len": 32768,
        "pretrain_base": 10000.0,
    },
    {
        "model": "LLaMA 2 Long (34B, 70B)",
        "cite": "xiong2023effective",
        "dim": 128,
        "train_len": 4096,
        "base": 500_000.0,
        "tune_len": 16384,
        "pretrain_base": 10000.0,
    },
    {
        "model": "Llama 3",
        "cite": "grattafiori2024llama3",
        "dim": 128,
        "train_len": 8192,
        "base": 500_000.0,
        "tune_len": None,
        "pretrain_base": 500_000.0,
    },
)


def illustrative_longrope_factors(dim: int, factor: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Made-up LongRoPE rescale factors with the shape of searched ones (for figures only).

    LongRoPE finds one factor :math:`\lambda_i \ge 1` per plane by an evolutionary search, per
    model; no formula produces them. For a figure we need numbers of the typical shape, so we
    take, with :math:`u_i = i/(d/2 - 1)`,

    .. math:: \lambda^{\text{long}}_i = s^{u_i^2}, \qquad \lambda^{\text{short}}_i = (\lambda^{\text{long}}_i)^{1/4}

    (fast planes almost kept, slow planes divided by nearly *s*; the short factors, used up to
    the original length, stay close to 1). They are not any model's factors.
    Source of the method: Ding et al. 2024, "LongRoPE". Chapter 6.

    Returns:
        ``(short_factor, long_factor)``, float64 arrays of shape ``(dim // 2,)``.
    """
    dim = check_dim(dim)
    factor = check_positive(factor, "factor", minimum=1.0, inclusive=True)
    u = np.linspace(0.0, 1.0, dim // 2)
    long_factor = factor ** (u**2)
    return long_factor**0.25, long_factor


def extension_configs(
    dim: int = 128, base: float = 10000.0, train_len: int = 4096, factor: float = 4.0
) -> dict[str, dict[str, Any]]:
    r"""transformers-style configs of the angle-scaling methods for one model (chapter 6).

    A model with head dimension *d*, base :math:`\beta` and context :math:`T_\text{train}`
    extended *s* times:

    * ``"PI (linear)"``: rope type ``linear``, :math:`\theta'_i = \theta_i/s` (Chen et al. 2023;
      kaiokendev 2023).
    * ``"NTK-aware"``: rope type ``default`` with base :math:`\beta s^{d/(d-2)}` (bloc97 2023),
      which divides the slowest plane's frequency by exactly *s* and keeps plane 0.
    * ``"YaRN"``: rope type ``yarn`` with the original length :math:`T_\text{train}`
      (Peng et al. 2024).
    * ``"LongRoPE (short)"`` / ``"LongRoPE (long)"``: rope type ``longrope`` with
      :func:`illustrative_longrope_factors` (Ding et al. 2024); the short factors apply up to
      :math:`T_\text{train}`, the long ones beyond (pass ``seq_len`` accordingly).

    Every config has ``max_position_embeddings`` :math:`= s\,T_\text{train}`.
    """
    dim = check_dim(dim)
    base = check_log_base(base)
    factor = check_positive(factor, "factor", minimum=1.0, inclusive=True)
    extended = round(factor * train_len)
    short_factor, long_factor = illustrative_longrope_factors(dim, factor)

    def config(**params: Any) -> dict[str, Any]:
        return {"head_dim": dim, "max_position_embeddings": extended, "rope_parameters": params}

    longrope = {
        "rope_type": "longrope",
        "rope_theta": base,
        "factor": factor,
        "original_max_position_embeddings": train_len,
        "short_factor": short_factor.tolist(),
        "long_factor": long_factor.tolist(),
    }
    return {
        "PI (linear)": config(rope_type="linear", rope_theta=base, factor=factor),
        "NTK-aware": config(rope_type="default", rope_theta=base * factor ** (dim / (dim - 2))),
        "YaRN": config(
            rope_type="yarn",
            rope_theta=base,
            factor=factor,
            original_max_position_embeddings=train_len,
        ),
        "LongRoPE (short)": config(**longrope),
        "LongRoPE (long)": config(**longrope),
    }


def llama31_config() -> dict[str, Any]:
    """Llama 3.1's RoPE config (head dim 128, base 500 000, llama3 scaling 8 / 1 / 4 / 8192).

    Source: Meta's released Llama 3.1 ``config.json``; Grattafiori et al. 2024. Chapter 6.
    """
    return {
        "head_dim": 128,
        "max_position_embeddings": 131072,
        "rope_parameters": {
            "rope_type": "llama3",
            "rope_theta": 500000.0,
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
    }


def scaled_frequencies(
    dim: int = 128, base: float = 10000.0, train_len: int = 4096, factor: float = 4.0
) -> dict[str, tuple[np.ndarray, float]]:
    r"""Every method of :func:`extension_configs` evaluated with :func:`ropelab.frequencies_from_config`.

    Returns, per method, ``(inv_freq, attention_factor)``: the frequencies
    :math:`\theta'_i` and the factor that scales cos and sin, exactly as transformers
    computes them. LongRoPE is evaluated at ``seq_len`` :math:`= T_\text{train}` (short
    factors) and :math:`= s\,T_\text{train}` (long factors). Chapter 6.
    """
    configs = extension_configs(dim, base, train_len, factor)
    lengths = {"LongRoPE (short)": train_len, "LongRoPE (long)": round(factor * train_len)}
    return {
        name: frequencies_from_config(config, seq_len=lengths.get(name))
        for name, config in configs.items()
    }


def qwen_ntk_alpha(seq_len: int, train_len: int) -> int:
    r"""Qwen's integer dynamic-NTK scale :math:`\alpha_t`, as its released code computes it.

    .. math:: \alpha_t = \max\left(1,\; 2^{\lceil \log_2(t/T_\text{train}) + 1\rceil} - 1\right)

    computed with a floating-point logarithm, as ``get_ntk_alpha`` in Qwen's
    ``modeling_qwen.py`` does (``seq_length`` is :math:`T_\text{train}`). The same numbers as
    :func:`ropelab.scaling.dynamic_ntk_alpha` wherever the logarithm is not within rounding of
    an integer. Source: Qwen (Alibaba Cloud), ``modeling_qwen.py`` released with Qwen-7B
    (``QWenModel.get_ntk_alpha``). Chapter 6.
    """
    seq_len = int(check_positive(seq_len, "seq_len"))
    train_len = int(check_positive(train_len, "train_len"))
    return max(2 ** math.ceil(math.log(seq_len / train_len, 2) + 1) - 1, 1)


def qwen_ntk_base(base: float, dim: int, alpha: float) -> float:
    r"""The base Qwen's dynamic NTK uses for a scale :math:`\alpha_t`: :math:`\beta\,\alpha_t^{d/(d-2)}`.

    Qwen's ``RotaryEmbedding`` sets ``base = self.base * ntk_alpha ** (dim / (dim - 2))``: the
    exponent :math:`d/(d-2)` of NTK-aware scaling, so the slowest plane's frequency is divided
    by exactly :math:`\alpha_t`. The scaling-laws paper (eq. 20) and its author's explainer
    (eq. 7-8) write :math:`\beta\,\alpha_t` without the exponent, a simplification of Qwen's
    formula. Source: Qwen, ``modeling_qwen.py`` (``RotaryEmbedding.update_rotary_pos_emb_cache``).
    Chapter 6.
    """
    dim = check_dim(dim)
    base = check_log_base(base)
    alpha = check_positive(alpha, "alpha")
    return base * alpha ** (dim / (dim - 2))


def dynamic_ntk_comparison(
    lengths: Any,
    dim: int = 128,
    base: float = 10000.0,
    train_len: int = 4096,
    factor: float = 2.0,
) -> dict[str, np.ndarray]:
    r"""Dynamic NTK three ways: Qwen's integer form, the scaling-laws paper's, transformers'.

    All three grow the base with the current length *t* beyond :math:`T_\text{train} = T`:

    * Qwen's released code: :math:`\beta'_t = \beta\,\alpha_t^{d/(d-2)}` with the integer
      :math:`\alpha_t = \max(1, 2^{\lceil\log_2(t/T)\rceil + 1} - 1)`
      (:func:`ropelab.scaling.dynamic_ntk_alpha`, :func:`qwen_ntk_base`);
    * the scaling-laws paper (eq. 20) and its author's explainer (eq. 7-8), which credit the
      integer form to Qwen: :math:`\beta'_t = \beta\,\alpha_t`, without the exponent;
    * transformers (rope type ``dynamic``, :func:`ropelab.rope_config.dynamic_ntk_base`):
      :math:`\beta'_t = \beta\,b_t^{d/(d-2)}` with :math:`b_t = s\,t/T - (s - 1)` for
      :math:`t > T`.

    With :math:`s = 2` the bracket is :math:`b_t = 2t/T - 1`, which equals :math:`\alpha_t` at
    every :math:`t = 2^k T`: Qwen's base is transformers' bracket taken at the next power-of-two
    multiple of *T*, with the same exponent.

    The ``angle_*`` entries measure what each does to the slowest plane: its largest angle over
    the first *t* positions, :math:`t\,\theta'_{d/2-1}`, relative to the largest angle it
    reached in training, :math:`T\,\theta_{d/2-1}`; a value above 1 is an angle the model
    never saw. Qwen's divides the slowest frequency by exactly :math:`\alpha_t`.

    Returns:
        dict of float64 arrays over ``lengths``: ``alpha`` (:math:`\alpha_t`, as float),
        ``qwen`` (:math:`\alpha_t^{d/(d-2)}`, Qwen's :math:`\beta'_t/\beta`), ``continuous``
        (:math:`\beta'_t/\beta` of transformers), ``angle_none``, ``angle_qwen``,
        ``angle_integer`` (the paper's :math:`\beta\,\alpha_t`) and ``angle_continuous``.
    """
    t = check_finite_array(lengths, "lengths")
    dim = check_dim(dim)
    base = check_log_base(base)
    alpha = np.asarray(scaling.dynamic_ntk_alpha(t, train_len), dtype=np.float64)
    config = {
        "head_dim": dim,
        "max_position_embeddings": int(train_len),
        "rope_parameters": {"rope_type": "dynamic", "rope_theta": base, "factor": factor},
    }
    continuous = np.array(
        [dynamic_ntk_base(base, dim, factor, int(x), int(train_len)) / base for x in t.ravel()]
    ).reshape(t.shape)
    slowest_continuous = np.array(
        [frequencies_from_config(config, seq_len=int(x))[0][-1] for x in t.ravel()]
    ).reshape(t.shape)
    qwen = alpha ** (dim / (dim - 2))
    slowest = inv_freq(dim, base)[-1]
    slowest_qwen = (base * qwen) ** (-(dim - 2) / dim)
    slowest_integer = (base * alpha) ** (-(dim - 2) / dim)
    reached = train_len * slowest
    return {
        "alpha": alpha,
        "qwen": qwen,
        "continuous": continuous,
        "angle_none": t * slowest / reached,
        "angle_qwen": t * slowest_qwen / reached,
        "angle_integer": t * slowest_integer / reached,
        "angle_continuous": t * slowest_continuous / reached,
    }


def critical_split(
    positions: Any, q: Any, k: Any, d_extra: int, base: float = 10000.0
) -> tuple[np.ndarray, np.ndarray]:
    r"""The score :math:`q_t^\top k_0` split at the critical dimension (eq. 11 of the explainer).

    .. math::
        q_t^\top k_0 = \underbrace{\sum_{n < d_\text{extra}/2} \operatorname{Re}\big[\tilde q^{(n)}
        \tilde k^{(n)*} e^{\mathrm{i} t\theta_n}\big]}_{\text{first } d_\text{extra} \text{ dims}}
        + \underbrace{\sum_{n \ge d_\text{extra}/2} \cdots}_{\text{last } d - d_\text{extra} \text{ dims}}

    for a query *q* at position *t* and a key *k* at position 0 (interleaved layout, so the
    first :math:`d_\text{extra}` coordinates are the first :math:`d_\text{extra}/2` planes).
    Both parts come from :func:`ropelab.decay.pair_score`. Chapter 6.

    Returns:
        ``(first, last)``: float64 arrays with the shape of ``positions``.
    """
    q = check_finite_array(q, "q")
    k = check_finite_array(k, "k")
    dim = check_dim(q.size, "len(q)")
    d_extra = check_dim(d_extra, "d_extra")
    if d_extra >= dim:
        raise ValueError(f"d_extra must be < len(q) = {dim} to split the score, got {d_extra}")
    theta = inv_freq(dim, base)
    half = d_extra // 2
    first = decay.pair_score(positions, q[:d_extra], k[:d_extra], inv_freq=theta[:half])
    last = decay.pair_score(positions, q[d_extra:], k[d_extra:], inv_freq=theta[half:])
    return first, last


def range_exit(positions: Any, values: Any, train_len: float) -> dict[str, float]:
    r"""Does a score leave, past :math:`T_\text{train}`, the range it had within it?

    With :math:`[\ell, h] = [\min_{t \le T} v_t, \max_{t \le T} v_t]`, returns ``low`` (ℓ),
    ``high`` (*h*), ``beyond_low`` and ``beyond_high`` (min and max over :math:`t > T`) and
    ``outside``, the fraction of positions :math:`t > T` with :math:`v_t \notin [\ell, h]`.
    Chapter 6 applies it to the two parts of :func:`critical_split`.
    """
    t = check_finite_array(positions, "positions")
    v = check_finite_array(values, "values")
    if t.shape != v.shape or t.ndim != 1:
        raise ValueError(
            f"positions and values must be 1-D of equal length, got {t.shape} and {v.shape}"
        )
    train_len = check_positive(train_len, "train_len")
    seen, beyond = v[t <= train_len], v[t > train_len]
    if seen.size == 0 or beyond.size == 0:
        raise ValueError("positions must include values both <= train_len and > train_len")
    low, high = float(seen.min()), float(seen.max())
    return {
        "low": low,
        "high": high,
        "beyond_low": float(beyond.min()),
        "beyond_high": float(beyond.max()),
        "outside": float(np.mean((beyond < low) | (beyond > high))),
    }


# ---------------------------------------------------------------------------------------------
# The explorer of the methods
# ---------------------------------------------------------------------------------------------

#: The methods of the explorer, in the order it offers them.
METHODS = ("PI", "NTK-aware", "dynamic NTK", "YaRN", "Llama 3", "LongRoPE")

#: Plane bands: kept (θ'_i = θ_i), stretched (between), interpolated (θ'_i = θ_i / s).
KEPT, STRETCHED, INTERPOLATED = 0, 1, 2


def method_config(
    method: str,
    dim: int,
    base: float,
    original_len: int,
    target_len: int,
    *,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
) -> tuple[dict[str, Any], int | None]:
    r"""A method extending a model from ``original_len`` to ``target_len`` tokens, as a
    transformers-style config and the sequence length to evaluate it at.

    With :math:`s = L_\text{target}/L_\text{orig}`:

    * ``"PI"``: rope type ``linear`` with factor *s* (Chen et al. 2023);
    * ``"NTK-aware"``: rope type ``default`` with base :math:`\beta s^{d/(d-2)}` (bloc97 2023;
      static NTK is not a transformers rope type: it is a change of ``rope_theta``);
    * ``"dynamic NTK"``: rope type ``dynamic`` with factor *s* and
      ``max_position_embeddings`` :math:`= L_\text{orig}`, evaluated at :math:`L_\text{target}`;
    * ``"YaRN"``: rope type ``yarn`` with factor *s*, β_fast and β_slow (Peng et al. 2024);
    * ``"Llama 3"``: rope type ``llama3`` with factor *s* and the two band factors;
    * ``"LongRoPE"``: rope type ``longrope`` with :func:`illustrative_longrope_factors`,
      evaluated at :math:`L_\text{target}` (the long factors once it exceeds
      :math:`L_\text{orig}`).

    Raises:
        ValueError: for an unknown method (naming the known ones), or a target shorter than
            the original length.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    dim = check_dim(dim)
    base = check_log_base(base)
    original = int(check_positive(original_len, "original_len"))
    target = int(check_positive(target_len, "target_len"))
    if target < original:
        raise ValueError(f"target_len must be >= original_len = {original}, got {target}")
    factor = target / original
    seq_len: int | None = None
    params: dict[str, Any] = {"rope_theta": base}
    max_len = target
    if method == "PI":
        params.update(rope_type="linear", factor=factor)
    elif method == "NTK-aware":
        params.update(rope_type="default", rope_theta=base * factor ** (dim / (dim - 2)))
    elif method == "dynamic NTK":
        params.update(rope_type="dynamic", factor=factor)
        max_len, seq_len = original, target
    elif method == "YaRN":
        params.update(
            rope_type="yarn",
            factor=factor,
            original_max_position_embeddings=original,
            beta_fast=beta_fast,
            beta_slow=beta_slow,
        )
    elif method == "Llama 3":
        params.update(
            rope_type="llama3",
            factor=factor,
            original_max_position_embeddings=original,
            low_freq_factor=low_freq_factor,
            high_freq_factor=high_freq_factor,
        )
    else:
        short_factor, long_factor = illustrative_longrope_factors(dim, factor)
        params.update(
            rope_type="longrope",
            factor=factor,
            original_max_position_embeddings=original,
            short_factor=short_factor.tolist(),
            long_factor=long_factor.tolist(),
        )
        seq_len = target
    config = {"head_dim": dim, "max_position_embeddings": max_len, "rope_parameters": params}
    return config, seq_len


def method_frequencies(method: str, *args: Any, **kwargs: Any) -> tuple[np.ndarray, float]:
    """``(inv_freq, attention_factor)`` of :func:`method_config`, by
    :func:`ropelab.frequencies_from_config` (and therefore as transformers computes them)."""
    config, seq_len = method_config(method, *args, **kwargs)
    return frequencies_from_config(config, seq_len=seq_len)


def method_explorer_data(
    method: str,
    dim: int,
    base: float,
    original_len: int,
    target_len: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
) -> dict[str, Any]:
    r"""Everything the explorer of the context-extension methods draws, for one setting.

    Per plane *i*: the wavelength :math:`\lambda_i = 2\pi/\theta_i` before and
    :math:`\lambda'_i = 2\pi/\theta'_i` after the method (:func:`method_frequencies`), the
    ratio :math:`\theta'_i/\theta_i`, and the band: kept (ratio 1), interpolated (ratio
    :math:`1/s`) or stretched (between), to 1e-9 relative. Also the critical dimension of the
    original length, :math:`d_\text{extra} = 2\lceil\frac d2\log_\beta\frac{L_\text{orig}}
    {2\pi}\rceil` (:func:`ropelab.scaling.critical_dim`): the planes beyond it never
    completed a period in training, and a method that keeps them lets the model meet angles it
    never saw. Chapters 6 and 8.

    Returns:
        the inputs, ``factor`` (*s*), ``planes`` (int), ``wavelength_before``,
        ``wavelength_after``, ``ratio`` (float arrays), ``band`` (int: 0 kept, 1 stretched,
        2 interpolated), the counts ``kept``, ``stretched``, ``interpolated``,
        ``attention_factor``, ``critical_dim`` and ``full_period_planes``.
    """
    options = {
        "beta_fast": beta_fast,
        "beta_slow": beta_slow,
        "low_freq_factor": low_freq_factor,
        "high_freq_factor": high_freq_factor,
    }
    theta_after, attention = method_frequencies(
        method, dim, base, original_len, target_len, **options
    )
    theta = inv_freq(dim, base)
    factor = target_len / original_len
    ratio = theta_after / theta
    kept = np.abs(ratio - 1.0) <= 1e-9
    interpolated = ~kept & (np.abs(ratio * factor - 1.0) <= 1e-9)
    band = np.where(kept, KEPT, np.where(interpolated, INTERPOLATED, STRETCHED))
    return {
        "method": method,
        "dim": dim,
        "base": base,
        "original_len": original_len,
        "target_len": target_len,
        **options,
        "factor": factor,
        "planes": np.arange(dim // 2, dtype=np.int64),
        "wavelength_before": TWO_PI / theta,
        "wavelength_after": TWO_PI / theta_after,
        "ratio": ratio,
        "band": band.astype(np.int64),
        "kept": int(np.sum(band == KEPT)),
        "stretched": int(np.sum(band == STRETCHED)),
        "interpolated": int(np.sum(band == INTERPOLATED)),
        "attention_factor": float(attention),
        "critical_dim": int(scaling.critical_dim(dim, original_len, base)),
        "full_period_planes": int(scaling.full_period_planes(dim, original_len, base)),
    }
