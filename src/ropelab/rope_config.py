r"""Context-extension RoPE frequencies read from a model config, as transformers computes them.

A checkpoint's ``config.json`` says how its rotary embedding was stretched: ``rope_theta``
and a ``rope_parameters`` dict (transformers 5) or the older ``rope_scaling`` dict. This
module turns such a config into the numbers the model actually uses,

.. math:: (\theta'_0, \dots, \theta'_{d/2-1}),\ s_{\text{attn}},

the scaled frequencies and the factor that multiplies cos and sin, for the six rope types
that chapter 6 of the book explains: ``default``, ``linear``, ``dynamic``, ``yarn``,
``longrope`` and ``llama3``, and the ``proportional`` type transformers registers for Gemma 4.

Configs are read as released (chapter 8): :func:`ropelab.config_fields.normalize_config`
first turns a ``config.json`` into transformers' normalised form, so that GPT-NeoX's
``rotary_pct`` and ``rotary_emb_base``, DeepSeek's ``qk_rope_head_dim``, nested
``text_config`` dicts, legacy type names (``"su"``) and per-layer-type settings (Gemma 3's
``rope_local_base_freq``, nested ``rope_parameters``) all mean what they mean to the model.
A config with several layer types needs ``layer_type``; :func:`frequencies_by_layer_type`
gives all of them.

Each rope type is one :class:`RopeType` record in :data:`ROPE_TYPES`, in the manner of
transformers' ``modeling_rope_utils.py``: its frequency function, the keys of the rope dict it
reads (and which of them it requires), whether it needs the pre-extension length, and how its
frequencies depend on the current sequence length. Everything that differs between types is
read off these records, here, in :mod:`ropelab.torch_modules` and in chapter 6's figures.

It works in two steps:

1. :func:`rope_spec_from_config` reads the config, applies transformers' precedence rules and
   defaults, and returns a frozen :class:`RopeSpec` of resolved, checked parameters.
2. The record of the spec's rope type evaluates the formula, in float64, and returns
   ``(inv_freq, attention_factor)``.

:func:`frequencies_from_config` does both. The results agree with transformers'
``ROPE_INIT_FUNCTIONS`` to float32 rounding (transformers computes in float32).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Real
from typing import Any, Literal

import numpy as np

from ._checks import (
    check_base,
    check_count,
    check_dim,
    check_finite_array,
    check_log_base,
    check_positive,
)
from .config_fields import as_mapping, normalize_config
from .core import inv_freq, wavelengths
from .partial_rotary import p_rope_frequencies

__all__ = [
    "DEFAULT_ROPE_THETA",
    "ROPE_TYPES",
    "DescribedParameter",
    "GGUFKey",
    "RopeSpec",
    "RopeType",
    "default_frequencies",
    "dynamic_frequencies",
    "dynamic_ntk_base",
    "frequencies_by_layer_type",
    "frequencies_from_config",
    "linear_frequencies",
    "llama3_bands",
    "llama3_frequencies",
    "longrope_attention_factor",
    "longrope_frequencies",
    "proportional_frequencies",
    "rope_spec_from_config",
    "yarn_attention_factor",
    "yarn_correction_dim",
    "yarn_correction_range",
    "yarn_frequencies",
    "yarn_paper_ramp",
    "yarn_ramp",
]

DEFAULT_ROPE_THETA = 10000.0
"""The base used when a config names none (transformers' ``default_theta``)."""

_YARN_BETA_FAST = 32.0
_YARN_BETA_SLOW = 1.0


# ---------------------------------------------------------------------------------------------
# Small value checks (ValueError naming the key, the allowed range and the value received)
# ---------------------------------------------------------------------------------------------


def _is_real(value: Any) -> bool:
    return isinstance(value, Real | np.floating | np.integer) and not isinstance(value, bool)


def _finite(value: Any, name: str) -> float:
    """Any finite real number."""
    if not _is_real(value) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


def _check_seq_len(seq_len: Any) -> int | None:
    """``None`` or an integer-like length >= 0 (a 0-d numpy array or torch tensor is accepted)."""
    if seq_len is None:
        return None
    if getattr(seq_len, "ndim", None) == 0 and hasattr(seq_len, "item"):
        seq_len = seq_len.item()
    return check_count(seq_len, "seq_len", minimum=0)


def _factor_list(values: Any, name: str, planes: int) -> tuple[float, ...]:
    """LongRoPE's per-plane rescale factors: ``planes`` finite numbers > 0."""
    if isinstance(values, str | bytes) or not hasattr(values, "__len__"):
        raise ValueError(f"{name} must be a list of {planes} numbers > 0, got {values!r}")
    array = check_finite_array(values, name)
    if array.shape != (planes,):
        raise ValueError(
            f"{name} must have rotary_dim / 2 = {planes} entries, got shape {array.shape}"
        )
    if np.any(array <= 0):
        raise ValueError(f"{name} must be > 0 everywhere, got a minimum of {array.min():g}")
    return tuple(float(x) for x in array)


# ---------------------------------------------------------------------------------------------
# The resolved parameters
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RopeSpec:
    r"""The rotary-embedding parameters of one model, resolved and checked.

    Built by :func:`rope_spec_from_config` (which applies transformers' precedence rules and
    defaults) or directly. Construction checks every field that is set: finite, in range,
    and the right length; a field that the rope type needs but that is ``None`` is reported
    when the frequencies are computed.

    Attributes:
        rope_type: a key of :data:`ROPE_TYPES`.
        head_dim: size of one attention head.
        rope_theta: the base :math:`\beta > 0`.
        partial_rotary_factor: fraction of the head that is rotated, in (0, 1].
        max_position_embeddings: the context length the config declares (the extended one).
        factor: the scale *s* (resolved: YaRN and LongRoPE derive it when the config has null).
        original_max_position_embeddings: the pre-extension context length
            (yarn, longrope, llama3).
        attention_factor: explicit cos/sin scale for yarn or longrope; ``None`` means the
            method's own formula.
        beta_fast, beta_slow: YaRN's rotation counts bounding the ramp.
        mscale, mscale_all_dim: DeepSeek-style YaRN attention-factor parameters.
        truncate: whether YaRN rounds its correction range to whole planes.
        short_factor, long_factor: LongRoPE's per-plane rescale factors.
        low_freq_factor, high_freq_factor: Llama 3.1's band edges (equal: no middle band).
    """

    rope_type: str
    head_dim: int
    rope_theta: float = DEFAULT_ROPE_THETA
    partial_rotary_factor: float = 1.0
    max_position_embeddings: int | None = None
    factor: float | None = None
    original_max_position_embeddings: int | None = None
    attention_factor: float | None = None
    beta_fast: float = _YARN_BETA_FAST
    beta_slow: float = _YARN_BETA_SLOW
    mscale: float | None = None
    mscale_all_dim: float | None = None
    truncate: bool = True
    short_factor: tuple[float, ...] | None = None
    long_factor: tuple[float, ...] | None = None
    low_freq_factor: float | None = None
    high_freq_factor: float | None = None

    def __post_init__(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        if self.rope_type not in ROPE_TYPES:
            raise ValueError(
                f"rope_type must be one of {sorted(ROPE_TYPES)}, got {self.rope_type!r}"
            )
        put("head_dim", check_count(self.head_dim, "head_dim"))
        put("rope_theta", check_base(self.rope_theta, "rope_theta"))
        factor = check_positive(self.partial_rotary_factor, "partial_rotary_factor")
        if factor > 1:
            raise ValueError(f"partial_rotary_factor must be in (0, 1], got {factor:g}")
        put("partial_rotary_factor", factor)
        rotary = int(self.head_dim * factor)
        if rotary <= 0 or rotary % 2:
            raise ValueError(
                "the rotary dimension int(head_dim * partial_rotary_factor) = "
                f"int({self.head_dim} * {factor:g}) = {rotary} must be a positive even integer"
            )
        for name in ("max_position_embeddings", "original_max_position_embeddings"):
            if getattr(self, name) is not None:
                put(name, check_count(getattr(self, name), name))
        for name in ("factor", "attention_factor", "low_freq_factor", "high_freq_factor"):
            if getattr(self, name) is not None:
                put(name, check_positive(getattr(self, name), name))
        for name in ("mscale", "mscale_all_dim"):
            if getattr(self, name) is not None:
                put(name, _finite(getattr(self, name), name))
        put("beta_fast", check_positive(self.beta_fast, "beta_fast"))
        put("beta_slow", check_positive(self.beta_slow, "beta_slow"))
        if self.beta_fast < self.beta_slow:
            raise ValueError(
                f"beta_fast must be >= beta_slow, got beta_fast={self.beta_fast:g} "
                f"and beta_slow={self.beta_slow:g}"
            )
        if not isinstance(self.truncate, bool | np.bool_):
            raise ValueError(f"truncate must be True or False, got {self.truncate!r}")
        put("truncate", bool(self.truncate))
        for name in ("short_factor", "long_factor"):
            if getattr(self, name) is not None:
                put(name, _factor_list(getattr(self, name), name, rotary // 2))
        low, high = self.low_freq_factor, self.high_freq_factor
        if low is not None and high is not None and high < low:
            raise ValueError(
                f"high_freq_factor must be >= low_freq_factor, got high_freq_factor={high:g} "
                f"and low_freq_factor={low:g}"
            )

    @property
    def rotary_dim(self) -> int:
        """The rotated dimension *d* = ``int(head_dim * partial_rotary_factor)``."""
        return int(self.head_dim * self.partial_rotary_factor)


def _need(spec: RopeSpec, name: str) -> Any:
    """``getattr(spec, name)``, or a ValueError saying the rope type requires it."""
    value = getattr(spec, name)
    if value is None:
        raise ValueError(f"{name} is required for rope_type {spec.rope_type!r}, got None")
    return value


# ---------------------------------------------------------------------------------------------
# Reading a config
# ---------------------------------------------------------------------------------------------


def _rope_dict(config: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    """The rope dict and the key it came from.

    transformers takes ``rope_scaling`` when it is non-empty, else ``rope_parameters``.
    """
    rope_scaling = config.get("rope_scaling")
    key = "rope_scaling" if rope_scaling else "rope_parameters"
    params = rope_scaling or config.get("rope_parameters") or {}
    if not isinstance(params, Mapping):
        raise ValueError(f"{key} must be a dict of rope parameters, got {params!r}")
    nested = [k for k, v in params.items() if isinstance(v, Mapping)]
    if nested:
        raise ValueError(
            f"{key} is nested per layer type (keys {nested}); pass a config whose {key} "
            "is the dict of one layer type"
        )
    return key, params


def _head_dim(config: Mapping[str, Any]) -> int:
    if config.get("head_dim") is not None:
        return check_count(config["head_dim"], "head_dim")
    hidden, heads = config.get("hidden_size"), config.get("num_attention_heads")
    if hidden is None or heads is None:
        raise ValueError(
            "config must give head_dim, or hidden_size and num_attention_heads "
            "(head_dim = hidden_size // num_attention_heads)"
        )
    head_dim = check_count(hidden, "hidden_size") // check_count(heads, "num_attention_heads")
    if head_dim < 1:
        raise ValueError(
            f"hidden_size // num_attention_heads must be >= 1, got {hidden} // {heads} = 0"
        )
    return head_dim


def _rope_key(config: Mapping[str, Any]) -> str:
    """The key the user's rope dict sits under (for error messages)."""
    text = config.get("text_config")
    text = text if isinstance(text, Mapping) else config
    return "rope_scaling" if text.get("rope_scaling") else "rope_parameters"


def _layer_config(config: Mapping[str, Any], layer_type: str | None) -> Mapping[str, Any]:
    """The normalised flat config of one layer type (:func:`normalize_config`)."""
    fields = normalize_config(config)
    types = [entry.layer_type for entry in fields.layers]
    if types == ["all"]:
        declared = ["all", *(config.get("layer_types") or ())]
        if layer_type is not None and layer_type not in declared:
            raise ValueError(f"layer_type must be None or one of {declared}, got {layer_type!r}")
        return fields.layers[0].config
    if layer_type is None:
        raise ValueError(
            f"the rope parameters are nested per layer type ({', '.join(types)}); "
            f"pass layer_type, one of {types}, or use ropelab.frequencies_by_layer_type"
        )
    if layer_type not in types:
        raise ValueError(f"layer_type must be one of {types}, got {layer_type!r}")
    return fields.layer(layer_type).config


def rope_spec_from_config(config: Any, layer_type: str | None = None) -> RopeSpec:
    """Resolve a released or transformers-style config into a :class:`RopeSpec`.

    ``config`` is a ``config.json`` mapping as released or an object with ``to_dict()``
    (such as a ``transformers.PretrainedConfig``). It is first read by
    :func:`ropelab.config_fields.normalize_config` (model-specific spellings, nested
    ``text_config``, legacy type names, layer types); ``layer_type`` picks one layer type of
    a config that has several (Gemma 3: ``"full_attention"`` or ``"sliding_attention"``).
    The rules, from ``standardize_rope_params``, the config classes and the
    ``_compute_*_parameters`` functions of transformers 5:

    * The rope dict is ``rope_scaling`` if non-empty, else ``rope_parameters``; neither means
      ``{"rope_type": "default"}``.
    * The type is the dict's ``rope_type``, else its legacy ``type``, else ``"default"``.
    * ``rope_theta`` and ``partial_rotary_factor``: the dict's value, else the top-level key,
      else 10000 and 1.
    * ``head_dim``: the top-level ``head_dim``, else ``hidden_size // num_attention_heads``.
    * For yarn, longrope and llama3, ``original_max_position_embeddings`` is the *top-level*
      key when the config has one (it wins over the dict's, as for Phi-3), else the dict's,
      else ``max_position_embeddings``.
    * ``factor`` is required by linear, dynamic and llama3 and must be >= 1 wherever given.
      yarn requires the key but allows null; yarn and longrope then use
      ``max_position_embeddings / original_max_position_embeddings``.
    * ``beta_fast`` / ``beta_slow``: missing, null or 0 means 32 / 1. ``truncate``: missing
      means True; transformers tests it for truth, so null means False.
    * llama3 requires ``low_freq_factor`` and ``high_freq_factor`` (equal values are allowed,
      as transformers allows them and Llama 4 ships them: no middle band); longrope requires
      ``short_factor`` and ``long_factor`` of length rotary_dim / 2.
    * proportional (Gemma 4) reads ``factor`` if given (default 1).

    Raises:
        ValueError: naming the offending key and what is allowed.
    """
    if isinstance(config, RopeSpec):
        return config
    raw = as_mapping(config)
    config = _layer_config(raw, layer_type)
    _, params = _rope_dict(config)
    where = _rope_key(raw)

    def pick(key: str, default: Any = None) -> Any:
        """The rope dict's value, else the top-level one, else ``default``."""
        if params.get(key) is not None:
            return params[key]
        if config.get(key) is not None:
            return config[key]
        return default

    rope_type = params["rope_type"] if "rope_type" in params else params.get("type", "default")
    if rope_type not in ROPE_TYPES:
        raise ValueError(
            f"{where}['rope_type'] must be one of {sorted(ROPE_TYPES)}, got {rope_type!r}"
        )

    def required(key: str) -> Any:
        if params.get(key) is None:
            raise ValueError(f"{where}['{key}'] is required for rope_type {rope_type!r}")
        return params[key]

    record = ROPE_TYPES[rope_type]
    fields: dict[str, Any] = {
        "rope_type": rope_type,
        "head_dim": _head_dim(config),
        "rope_theta": pick("rope_theta", DEFAULT_ROPE_THETA),
        "partial_rotary_factor": pick("partial_rotary_factor", 1.0),
        "max_position_embeddings": config.get("max_position_embeddings"),
    }
    max_len = fields["max_position_embeddings"]
    if max_len is not None:
        max_len = check_count(max_len, "max_position_embeddings")

    if record.factor == "required":
        fields["factor"] = required("factor")
    elif record.factor == "nullable":
        if "factor" not in params:
            raise ValueError(
                f"{where}['factor'] is required for rope_type {rope_type!r} (null means "
                "max_position_embeddings / original_max_position_embeddings)"
            )
        fields["factor"] = params.get("factor")
    elif record.factor == "optional":
        fields["factor"] = params.get("factor")
    if fields.get("factor") is not None:
        check_positive(fields["factor"], f"{where}['factor']", minimum=1.0, inclusive=True)

    if record.needs_max_length and max_len is None:
        raise ValueError(f"max_position_embeddings is required for rope_type {rope_type!r}")

    if record.original_length:
        key = "original_max_position_embeddings"
        original = config.get(key)
        if original is None:
            original = params.get(key)
        if original is None:
            original = max_len
        if original is None:
            raise ValueError(
                f"rope_type {rope_type!r} needs {key} (top level or in {where}) "
                "or max_position_embeddings"
            )
        original = fields[key] = check_count(original, key)
        if fields["factor"] is None:
            if max_len is None:
                raise ValueError(
                    f"{where}['factor'] is null, so rope_type {rope_type!r} needs "
                    "max_position_embeddings to derive it"
                )
            fields["factor"] = max_len / original

    for key in record.required:
        fields[key] = required(key)
    for key in record.optional:
        fields[key] = params.get(key)
    if record.read is not None:
        fields.update(record.read(params, where))
    return RopeSpec(**fields)


def frequencies_from_config(
    config: Any, seq_len: int | None = None, *, layer_type: str | None = None
) -> tuple[np.ndarray, float]:
    r"""The RoPE frequencies and attention factor a model config prescribes.

    Args:
        config: a ``config.json`` mapping as released, an object with ``to_dict()`` (a
            transformers ``PretrainedConfig``) or a :class:`RopeSpec`.
        seq_len: the current sequence length, an integer >= 0. Only ``dynamic`` (which
            rescales its base beyond ``max_position_embeddings``) and ``longrope`` (which
            switches to ``long_factor`` beyond ``original_max_position_embeddings``) use it;
            ``None`` means "at initialisation", as in transformers.
        layer_type: for a config with several layer types (Gemma 3), which one.

    Returns:
        ``(inv_freq, attention_factor)``: a float64 array of the rotary_dim / 2 frequencies
        :math:`\theta'_i` (head_dim / 2 for ``proportional``, whose non-rotating planes have
        frequency 0), and the Python float that scales cos and sin.

    Raises:
        ValueError: for an unknown rope type, a missing required key, a value out of range,
            or a missing ``layer_type``.
    """
    spec = rope_spec_from_config(config, layer_type)
    return ROPE_TYPES[spec.rope_type].frequencies(spec, _check_seq_len(seq_len))


def frequencies_by_layer_type(
    config: Any, seq_len: int | None = None
) -> dict[str, tuple[np.ndarray, float]]:
    """:func:`frequencies_from_config` for every layer type of a config.

    Returns:
        ``{layer_type: (inv_freq, attention_factor)}``; a config whose layers all share one
        rotary embedding has the single key ``"all"``.
    """
    if isinstance(config, RopeSpec):
        return {"all": frequencies_from_config(config, seq_len)}
    raw = as_mapping(config)
    return {
        entry.layer_type: frequencies_from_config(entry.config, seq_len)
        for entry in normalize_config(raw).layers
    }


# ---------------------------------------------------------------------------------------------
# Helpers that chapter 6 plots
# ---------------------------------------------------------------------------------------------


def dynamic_ntk_base(
    base: float,
    dim: int,
    factor: float,
    seq_len: int | None,
    max_position_embeddings: int,
) -> float:
    r"""The base that dynamic NTK scaling uses at sequence length *L*.

    .. math::
        \beta' = \beta\left(\frac{s\,L}{L_{\max}} - (s - 1)\right)^{d/(d-2)},
        \qquad L = \max(\mathrm{seq\_len},\ L_{\max})

    At :math:`L \le L_{\max}` the bracket is 1 and the base is unchanged; beyond, it grows
    so that the lowest frequency is slowed by about :math:`sL/L_{\max} - (s-1)`.
    ``seq_len=None`` means :math:`L_{\max}`. Source: bloc97's and emozilla's NTK-aware /
    dynamic NTK posts (r/LocalLLaMA, 2023). Explained in chapter 6 of the book.

    Args:
        base: :math:`\beta > 0`.
        dim: rotary dimension *d*, even and > 2.
        factor: scale *s* > 0.
        seq_len: current length *L* (integer >= 0) or ``None``.
        max_position_embeddings: :math:`L_{\max}`, the length at which scaling starts.
    """
    base = check_base(base)
    dim = check_dim(dim)
    if dim <= 2:
        raise ValueError(f"dim must be > 2 for dynamic NTK scaling (exponent d/(d-2)), got {dim}")
    factor = check_positive(factor, "factor")
    max_len = check_count(max_position_embeddings, "max_position_embeddings")
    length = _check_seq_len(seq_len)
    length = max_len if length is None else max(length, max_len)
    return base * (factor * length / max_len - (factor - 1)) ** (dim / (dim - 2))


def yarn_correction_dim(
    num_rotations: float, dim: int, base: float, original_max_position_embeddings: int
) -> float:
    r"""The (fractional) plane index whose wave turns ``num_rotations`` times over the context.

    Plane *i* has wavelength :math:`\lambda_i = 2\pi\beta^{2i/d}`, so over
    :math:`L_{\text{orig}}` tokens it turns :math:`L_{\text{orig}}/\lambda_i` times. Solving
    :math:`L_{\text{orig}}/\lambda_i = r` for *i*:

    .. math:: i(r) = \frac{d\,\ln\!\big(L_{\text{orig}} / (2\pi r)\big)}{2\ln\beta}

    Source: Peng et al. 2023, "YaRN", arXiv 2309.00071, section 3.2. Explained in chapter 6
    of the book.
    """
    rotations = check_positive(num_rotations, "num_rotations")
    dim = check_dim(dim)
    base = check_log_base(base)
    original = check_count(original_max_position_embeddings, "original_max_position_embeddings")
    return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))


def yarn_correction_range(
    dim: int,
    base: float,
    original_max_position_embeddings: int,
    beta_fast: float = _YARN_BETA_FAST,
    beta_slow: float = _YARN_BETA_SLOW,
    truncate: bool = True,
) -> tuple[float, float]:
    r"""YaRN's correction range :math:`(\ell, h)`: the planes between β_fast and β_slow rotations.

    .. math::
        \ell = \max\big(\lfloor i(\beta_{\text{fast}}) \rfloor,\ 0\big), \qquad
        h = \min\big(\lceil i(\beta_{\text{slow}}) \rceil,\ d - 1\big)

    with :math:`i(r)` from :func:`yarn_correction_dim`. Planes below :math:`\ell` turn more
    than :math:`\beta_{\text{fast}}` times over the original context and are kept; planes
    above *h* turn fewer than :math:`\beta_{\text{slow}}` times and are interpolated.
    ``truncate=False`` skips the floor and ceil (as transformers' ``truncate`` option).
    The upper clamp is at *d* − 1, not d/2 − 1, exactly as in the reference code.

    Source: Peng et al. 2023, "YaRN", arXiv 2309.00071 (defaults β_fast = 32, β_slow = 1).
    Explained in chapter 6 of the book.
    """
    low = yarn_correction_dim(beta_fast, dim, base, original_max_position_embeddings)
    high = yarn_correction_dim(beta_slow, dim, base, original_max_position_embeddings)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return float(max(low, 0)), float(min(high, dim - 1))


def yarn_ramp(
    dim: int,
    base: float,
    original_max_position_embeddings: int,
    beta_fast: float = _YARN_BETA_FAST,
    beta_slow: float = _YARN_BETA_SLOW,
    truncate: bool = True,
) -> np.ndarray:
    r"""YaRN's per-plane interpolation weight :math:`w_i \in [0, 1]` (0: keep, 1: divide by *s*).

    .. math::
        w_i = \operatorname{clip}\!\left(\frac{i - \ell}{h - \ell},\ 0,\ 1\right),
        \qquad \theta'_i = (1 - w_i)\,\theta_i + w_i\,\frac{\theta_i}{s}

    with :math:`(\ell, h)` from :func:`yarn_correction_range` (*h* is nudged by 0.001 when
    it equals :math:`\ell`). This ramp is linear in the plane index *i* between the floor and
    the ceiling of the correction dimensions; it is what transformers (``rope_type="yarn"``),
    the YaRN authors' code and every model config with YaRN scaling compute.

    The paper's eq. 18 ramps linearly in the number of turns :math:`r_i = L/\lambda_i` instead,
    :math:`\gamma(r) = \operatorname{clip}((r - \alpha)/(\beta - \alpha), 0, 1)` with
    :math:`\alpha = 1`, :math:`\beta = 32`, and interpolation weight :math:`1 - \gamma(r_i)`
    (:func:`yarn_paper_ramp`). The two agree only at the band edges (weight 0 below
    :math:`\ell`, 1 above *h*, up to the rounding of :math:`\ell` and *h*); inside the band
    :math:`1 - \gamma` is *not* this *w*: for d = 128, β = 10000, L = 4096 they differ by up
    to 0.37 (plane 30), about 1.7× in the frequency at s = 4 and 2.3× at s = 8.

    Source: Peng et al. 2023, "YaRN", arXiv 2309.00071, "NTK-by-parts" (eq. 18-19), and the
    reference implementation (``find_correction_range``, ``linear_ramp_mask``). Explained in
    chapter 6 of the book.

    Returns:
        float64 array of shape ``(dim // 2,)``.
    """
    low, high = yarn_correction_range(
        dim, base, original_max_position_embeddings, beta_fast, beta_slow, truncate
    )
    if low == high:
        high += 0.001
    planes = np.arange(check_dim(dim) // 2, dtype=np.float64)
    return np.clip((planes - low) / (high - low), 0.0, 1.0)


def yarn_paper_ramp(
    dim: int,
    base: float,
    original_max_position_embeddings: int,
    beta_fast: float = _YARN_BETA_FAST,
    beta_slow: float = _YARN_BETA_SLOW,
) -> np.ndarray:
    r"""The interpolation weight of YaRN's eq. 18 as the paper writes it: linear in the turns.

    .. math::
        r_i = \frac{L}{\lambda_i} = \frac{L\,\theta_i}{2\pi}, \qquad
        w_i = 1 - \gamma(r_i) = \operatorname{clip}\!\left(
            \frac{\beta_\text{fast} - r_i}{\beta_\text{fast} - \beta_\text{slow}},\ 0,\ 1\right),
        \qquad \theta'_i = (1 - w_i)\,\theta_i + w_i\,\frac{\theta_i}{s}

    (the paper's α and β are :math:`\beta_\text{slow} = 1` and :math:`\beta_\text{fast} = 32`).
    Planes that turn more than 32 times over *L* are kept, fewer than once interpolated, as
    with :func:`yarn_ramp`; in between this weight follows the turns, which fall geometrically
    with *i*, while :func:`yarn_ramp`, the one models use, is linear in *i*. Llama 3's rule
    (:func:`llama3_bands`) is linear in the turns like this one, between 1 and 4.

    Source: Peng et al. 2023, "YaRN", arXiv 2309.00071, eq. 17-18. Chapter 6.

    Returns:
        float64 array of shape ``(dim // 2,)``, 0 (keep) to 1 (divide by *s*).
    """
    dim = check_dim(dim)
    base = check_log_base(base)
    length = check_positive(original_max_position_embeddings, "original_max_position_embeddings")
    fast = check_positive(beta_fast, "beta_fast")
    slow = check_positive(beta_slow, "beta_slow")
    if fast <= slow:
        raise ValueError(f"beta_fast must be > beta_slow = {slow:g}, got {fast:g}")
    turns = length * base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim) / (2.0 * math.pi)
    return np.clip((fast - turns) / (fast - slow), 0.0, 1.0)


def _yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    """0.1 · mscale · ln(s) + 1 for s > 1, else 1."""
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn_attention_factor(
    factor: float, mscale: float | None = 1.0, mscale_all_dim: float | None = None
) -> float:
    r"""YaRN's default scale of cos and sin (so of the logits, squared).

    .. math::
        m(s, \mu) = \begin{cases} 0.1\,\mu \ln s + 1 & s > 1\\ 1 & s \le 1\end{cases},
        \qquad
        s_{\text{attn}} = \begin{cases}
            m(s, \mu) / m(s, \mu_{\text{all}}) & \text{if } \mu \ne 0 \text{ and } \mu_{\text{all}} \ne 0\\
            m(s, 1) & \text{otherwise}
        \end{cases}

    The paper's :math:`\sqrt{1/t} = 0.1 \ln s + 1`; the ratio form is DeepSeek-V2/V3's
    (``mscale``, ``mscale_all_dim``). As in transformers, ``mscale`` alone (without a
    non-zero ``mscale_all_dim``) is ignored.

    Source: Peng et al. 2023, "YaRN", arXiv 2309.00071, eq. 22. Explained in chapter 6 of
    the book.
    """
    factor = check_positive(factor, "factor")
    if mscale is not None:
        mscale = _finite(mscale, "mscale")
    if mscale_all_dim is not None:
        mscale_all_dim = _finite(mscale_all_dim, "mscale_all_dim")
    if mscale and mscale_all_dim:
        return float(_yarn_mscale(factor, mscale) / _yarn_mscale(factor, mscale_all_dim))
    return _yarn_mscale(factor)


def longrope_attention_factor(factor: float, original_max_position_embeddings: int) -> float:
    r"""LongRoPE's default scale of cos and sin.

    .. math::
        s_{\text{attn}} = \sqrt{1 + \frac{\ln s}{\ln L_{\text{orig}}}}\quad (s > 1),
        \qquad 1\quad (s \le 1)

    Source: Ding et al. 2024, "LongRoPE", arXiv 2402.13753, as implemented for Phi-3.
    Explained in chapter 6 of the book.
    """
    factor = check_positive(factor, "factor")
    original = check_count(original_max_position_embeddings, "original_max_position_embeddings")
    if factor <= 1:
        return 1.0
    if original < 2:
        raise ValueError(
            f"original_max_position_embeddings must be >= 2 when factor > 1 (it enters "
            f"ln L_orig in a denominator), got {original}"
        )
    return math.sqrt(1 + math.log(factor) / math.log(original))


def llama3_bands(
    dim: int,
    base: float,
    original_max_position_embeddings: int = 8192,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
) -> np.ndarray:
    r"""Which planes Llama 3.1 scaling keeps, smooths or divides: ``"high"``, ``"medium"``, ``"low"``.

    With wavelength :math:`\lambda_i = 2\pi/\theta_i`:

    .. math::
        \text{high: } \lambda_i < \frac{L_{\text{orig}}}{f_{\text{high}}},\qquad
        \text{low: } \lambda_i > \frac{L_{\text{orig}}}{f_{\text{low}}},\qquad
        \text{medium: otherwise}

    With :math:`f_{\text{low}} = f_{\text{high}}` (Llama 4 Scout ships 1 and 1) there is no
    medium band: a plane is high exactly when it is not low (a wavelength equal to the
    common edge, where transformers' blend divides 0 by 0, counts as low).
    The defaults are Llama 3.1's (8192, 1, 4). Source: Meta's Llama 3.1 code
    (``apply_scaling``); Grattafiori et al. 2024, "The Llama 3 Herd of Models",
    arXiv 2407.21783. Explained in chapter 6 of the book.

    Returns:
        array of strings, shape ``(dim // 2,)``.
    """
    high_mask, low_mask = _llama3_masks(
        wavelengths(dim, base), original_max_position_embeddings, low_freq_factor, high_freq_factor
    )
    labels = np.full(check_dim(dim) // 2, "medium")
    labels[high_mask] = "high"
    labels[low_mask] = "low"
    return labels


def _llama3_masks(
    wavelength: np.ndarray, original: int, low_freq_factor: float, high_freq_factor: float
) -> tuple[np.ndarray, np.ndarray]:
    """(high-frequency mask, low-frequency mask); medium is neither."""
    original = check_count(original, "original_max_position_embeddings")
    low = check_positive(low_freq_factor, "low_freq_factor")
    high = check_positive(high_freq_factor, "high_freq_factor")
    if high < low:
        raise ValueError(
            f"high_freq_factor must be >= low_freq_factor, got high_freq_factor={high:g} "
            f"and low_freq_factor={low:g}"
        )
    high_mask = wavelength < original / high
    if high == low:  # no middle band: every plane is kept or divided (Llama 4)
        return high_mask, ~high_mask
    return high_mask, wavelength > original / low


# ---------------------------------------------------------------------------------------------
# One function per rope type
# ---------------------------------------------------------------------------------------------


def default_frequencies(spec: RopeSpec, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""Unscaled RoPE: :math:`\theta_i = \beta^{-2i/d}`, attention factor 1.

    .. math:: \theta_i = \beta^{-2i/d},\qquad i = 0, \dots, d/2 - 1

    *d* is the rotary dimension ``int(head_dim * partial_rotary_factor)``. ``seq_len`` is
    unused. Source: Su et al. 2021, "RoFormer", arXiv 2104.09864, eq. 15. Explained in
    chapter 6 of the book.
    """
    return inv_freq(spec.rotary_dim, spec.rope_theta), 1.0


def linear_frequencies(spec: RopeSpec, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""Position interpolation: every frequency divided by the factor *s*.

    .. math:: \theta'_i = \frac{\theta_i}{s}

    Rotating position *m* by :math:`\theta_i/s` is rotating position *m/s* by
    :math:`\theta_i`, so positions up to :math:`sL` land inside the trained range.
    ``seq_len`` is unused; the attention factor is 1.

    Source: Chen et al. 2023, "Extending Context Window of Large Language Models via
    Positional Interpolation", arXiv 2306.15595, and kaiokendev's SuperHOT post (2023).
    Explained in chapter 6 of the book.
    """
    return inv_freq(spec.rotary_dim, spec.rope_theta) / _need(spec, "factor"), 1.0


def dynamic_frequencies(spec: RopeSpec, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""Dynamic NTK scaling: the base grows with the current length beyond :math:`L_{\max}`.

    .. math::
        \theta'_i = \beta'^{-2i/d},\qquad
        \beta' = \beta\left(\frac{s\,L}{L_{\max}} - (s - 1)\right)^{d/(d-2)},\qquad
        L = \max(\mathrm{seq\_len}, L_{\max})

    (:func:`dynamic_ntk_base`). Up to :math:`L_{\max}` = ``max_position_embeddings`` these
    are the default frequencies. transformers recomputes them in the forward pass from
    ``max(position_ids) + 1`` and caches the largest length seen; this function is the
    stateless formula at one ``seq_len``. The attention factor is 1.

    Source: bloc97, "NTK-Aware Scaled RoPE" and emozilla, "Dynamically Scaled RoPE"
    (r/LocalLLaMA, 2023). Explained in chapter 6 of the book.
    """
    base = dynamic_ntk_base(
        spec.rope_theta,
        spec.rotary_dim,
        _need(spec, "factor"),
        _check_seq_len(seq_len),
        _need(spec, "max_position_embeddings"),
    )
    return inv_freq(spec.rotary_dim, base), 1.0


def yarn_frequencies(spec: RopeSpec, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""YaRN: NTK-by-parts interpolation plus an attention temperature.

    .. math::
        \theta'_i = (1 - w_i)\,\theta_i + w_i\,\frac{\theta_i}{s},\qquad
        w_i = \operatorname{clip}\!\left(\frac{i - \ell}{h - \ell}, 0, 1\right),\qquad
        s_{\text{attn}} = 0.1 \ln s + 1

    High-frequency planes (more than :math:`\beta_{\text{fast}}` turns over
    :math:`L_{\text{orig}}`) are kept, low-frequency ones (fewer than
    :math:`\beta_{\text{slow}}`) are interpolated as in :func:`linear_frequencies`, with a
    linear ramp between (:func:`yarn_ramp`). The attention factor is the config's
    ``attention_factor`` if given, else :func:`yarn_attention_factor`. ``seq_len`` is unused.

    Source: Peng et al. 2023, "YaRN: Efficient Context Window Extension of Large Language
    Models", arXiv 2309.00071. Explained in chapter 6 of the book.
    """
    factor = _need(spec, "factor")
    original = _need(spec, "original_max_position_embeddings")
    dim, base = spec.rotary_dim, check_log_base(spec.rope_theta, "rope_theta")
    theta = inv_freq(dim, base)
    weight = yarn_ramp(dim, base, original, spec.beta_fast, spec.beta_slow, spec.truncate)
    scaled = (1 - weight) * theta + weight * (theta / factor)
    if spec.attention_factor is not None:
        return scaled, float(spec.attention_factor)
    return scaled, yarn_attention_factor(factor, spec.mscale, spec.mscale_all_dim)


def longrope_frequencies(spec: RopeSpec, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""LongRoPE: searched per-plane rescale factors, short or long by the current length.

    .. math::
        \theta'_i = \frac{\theta_i}{\lambda_i},\qquad
        \lambda = \begin{cases}\texttt{long\_factor} & L > L_{\text{orig}}\\
                               \texttt{short\_factor} & \text{otherwise (or } L \text{ unknown)}
                  \end{cases}

    :math:`L` is ``seq_len`` and :math:`L_{\text{orig}}` is
    ``original_max_position_embeddings`` (not ``max_position_embeddings``). The attention
    factor is the config's ``attention_factor`` if given, else
    :func:`longrope_attention_factor`, :math:`\sqrt{1 + \ln s / \ln L_{\text{orig}}}`.

    Source: Ding et al. 2024, "LongRoPE: Extending LLM Context Window Beyond 2 Million
    Tokens", arXiv 2402.13753 (as used by Phi-3). Explained in chapter 6 of the book.
    """
    original = _need(spec, "original_max_position_embeddings")
    length = _check_seq_len(seq_len)
    key = "long_factor" if length is not None and length > original else "short_factor"
    rescale = np.asarray(_need(spec, key), dtype=np.float64)
    theta = inv_freq(spec.rotary_dim, spec.rope_theta) / rescale
    if spec.attention_factor is not None:
        return theta, float(spec.attention_factor)
    return theta, longrope_attention_factor(_need(spec, "factor"), original)


def llama3_frequencies(spec: RopeSpec, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""Llama 3.1 scaling: keep high frequencies, divide low ones by *s*, blend between.

    With :math:`\lambda_i = 2\pi/\theta_i` and
    :math:`\gamma_i = (L_{\text{orig}}/\lambda_i - f_{\text{low}})/(f_{\text{high}} - f_{\text{low}})`:

    .. math::
        \theta'_i = \begin{cases}
            \theta_i & \lambda_i < L_{\text{orig}} / f_{\text{high}}\\
            \theta_i / s & \lambda_i > L_{\text{orig}} / f_{\text{low}}\\
            (1 - \gamma_i)\,\theta_i / s + \gamma_i\,\theta_i & \text{otherwise}
        \end{cases}

    (:func:`llama3_bands` labels the three cases; with :math:`f_{\text{low}} =
    f_{\text{high}}` there is no third). The attention factor is 1 and ``seq_len`` is unused.

    Source: Meta's Llama 3.1 reference code (``apply_scaling``); Grattafiori et al. 2024,
    "The Llama 3 Herd of Models", arXiv 2407.21783. Explained in chapter 6 of the book.
    """
    factor = _need(spec, "factor")
    original = _need(spec, "original_max_position_embeddings")
    low_freq, high_freq = _need(spec, "low_freq_factor"), _need(spec, "high_freq_factor")
    theta = inv_freq(spec.rotary_dim, spec.rope_theta)
    wavelength = 2 * math.pi / theta
    high_mask, low_mask = _llama3_masks(wavelength, original, low_freq, high_freq)
    if high_freq == low_freq:  # no middle band: nothing to blend
        return np.where(high_mask, theta, theta / factor), 1.0
    gamma = (original / wavelength - low_freq) / (high_freq - low_freq)
    blended = (1 - gamma) * theta / factor + gamma * theta
    scaled = np.where(high_mask, theta, np.where(low_mask, theta / factor, blended))
    return scaled, 1.0


def proportional_frequencies(
    spec: RopeSpec, seq_len: int | None = None
) -> tuple[np.ndarray, float]:
    r"""Proportional RoPE, or p-RoPE (Gemma 4's global layers): a fraction of the planes rotate,
    with exponents spread over the *whole* head, the rest do not rotate.

    With head size *D*, rotated fraction *p* and :math:`r = \lfloor pD/2 \rfloor` rotating
    planes:

    .. math::
        \theta'_i = \begin{cases} \beta^{-2i/D} / s & i < r\\ 0 & r \le i < D/2 \end{cases}

    Unlike partial rotary embedding, the exponent divides by the head size *D*, not by the
    rotated size, and the result always has *D*/2 entries (frequency 0 leaves a plane
    unrotated): the lowest frequencies are removed, as in Barbero et al.'s p-RoPE (2024,
    *Round and Round We Go*, ``apply_p_rope``). *s* is ``factor`` (default 1); the attention
    factor is 1 and ``seq_len`` is unused. Computed by
    :func:`ropelab.partial_rotary.p_rope_frequencies`. Source: transformers'
    ``_compute_proportional_rope_parameters`` (Gemma 4). Explained in chapters 8 and 9 of the
    book.
    """
    factor = 1.0 if spec.factor is None else spec.factor
    theta = p_rope_frequencies(
        spec.head_dim,
        spec.partial_rotary_factor,
        check_base(spec.rope_theta, "rope_theta"),
        factor=factor,
    )
    return theta, 1.0


def _read_yarn(params: Mapping[str, Any], where: str) -> dict[str, Any]:
    """YaRN's own keys: missing, null or 0 rotation counts mean 32 / 1; ``truncate`` is read
    for truth as transformers does (missing: True, null: False)."""
    truncate = params.get("truncate", True)
    if truncate is not None and not isinstance(truncate, bool | np.bool_):
        raise ValueError(f"{where}['truncate'] must be true or false, got {truncate!r}")
    return {
        "beta_fast": params.get("beta_fast") or _YARN_BETA_FAST,
        "beta_slow": params.get("beta_slow") or _YARN_BETA_SLOW,
        "truncate": bool(truncate),
    }


def _llama3_gguf_divisors(params: Mapping[str, Any], dim: int) -> np.ndarray:
    r"""The per-plane divisors llama.cpp's Llama converter stores as ``rope_freqs.weight``.

    .. math:: f_i = \frac{\theta_i}{\theta'_i} = \begin{cases}
        1 & \lambda_i < L_{\text{orig}}/f_{\text{high}}\\
        s & \lambda_i > L_{\text{orig}}/f_{\text{low}}\\
        1 / ((1 - \gamma_i)/s + \gamma_i) & \text{otherwise}\end{cases}

    with :math:`\theta_i` computed in float32 as the converter does, and the converter's
    defaults for missing keys (base 10,000, *s* = 8, :math:`f_{\text{low}}` = 1,
    :math:`f_{\text{high}}` = 4, :math:`L_{\text{orig}}` = 8192); float32 out. Source:
    ``LlamaModel.generate_extra_tensors`` in ``conversion/llama.py`` of llama.cpp release
    v0.4.0 (:mod:`ropelab.gguf_meta`). Explained in chapter 8A of the book.
    """
    base = float(params.get("rope_theta", 10000.0))
    factor = float(params.get("factor", 8.0))
    low = float(params.get("low_freq_factor", 1.0))
    high = float(params.get("high_freq_factor", 4.0))
    original = float(params.get("original_max_position_embeddings", 8192))
    freqs = 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float32) / np.float32(dim))
    out = []
    for freq in freqs.astype(np.float64):
        wavelength = 2 * math.pi / freq
        if wavelength < original / high:
            out.append(1.0)
        elif wavelength > original / low:
            out.append(factor)
        else:
            smooth = (original / wavelength - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.asarray(out, dtype=np.float32)


FrequencyFunction = Callable[[RopeSpec, int | None], tuple[np.ndarray, float]]

ParameterRule = Literal["value", "or_default", "bool_if_present", "if_set", "float", "range"]
"""How :class:`DescribedParameter` shows a key (its ``rule``)."""


@dataclass(frozen=True)
class DescribedParameter:
    """One parameter a rope type's description lists: ``(label, value)`` read off the flat
    rope dict by a named rule (plain data, so the browser decoder can apply the same rules).

    Attributes:
        label: the name shown (``"beta_fast"``, ``"kept below wavelength"``).
        key: the rope dict's key it reads.
        rule: ``"value"``: ``flat.get(key, default)``; ``"or_default"``: ``flat.get(key) or
            default`` (missing, null and 0 mean the default); ``"bool_if_present"``:
            ``bool(flat[key])``, shown only when the key is there; ``"if_set"``: the value,
            shown only when it is not null; ``"float"``: ``float(flat[key])``; ``"range"``:
            ``"min..max"`` of a list, two decimals.
        default: the value of ``"value"`` and ``"or_default"`` when the key gives none.
        over_original: show :math:`L_{\\text{orig}} / v` instead of the value *v* (Llama 3.1's
            wavelength edges :math:`L_{\\text{orig}}/f_{\\text{high}}` and
            :math:`L_{\\text{orig}}/f_{\\text{low}}`).
    """

    label: str
    key: str
    rule: ParameterRule = "value"
    default: float | int | None = None
    over_original: bool = False

    def pairs(self, flat: Mapping[str, Any], original: int | None) -> tuple[tuple[str, Any], ...]:
        """``((label, value),)``, or ``()`` when the rule shows nothing for ``flat``."""
        rule, key = self.rule, self.key
        if rule == "value":
            value = flat.get(key, self.default)
        elif rule == "or_default":
            value = flat.get(key) or self.default
        elif rule == "bool_if_present":
            if key not in flat:
                return ()
            value = bool(flat[key])
        elif rule == "if_set":
            if flat.get(key) is None:
                return ()
            value = flat[key]
        elif rule == "float":
            value = float(flat[key])
        else:  # "range"
            array = np.asarray(flat[key], dtype=np.float64)
            value = f"{array.min():.2f}..{array.max():.2f}"
        if self.over_original:
            value = original / value
        return ((self.label, value),)


@dataclass(frozen=True)
class GGUFKey:
    """One ``{arch}.rope.scaling.*`` key llama.cpp's converter writes for a rope type
    (``TextModel.set_gguf_parameters``, ``conversion/base.py`` of llama.cpp release v0.4.0).

    Attributes:
        name: the ``gguf.Keys.Rope`` name (:data:`ropelab.gguf_meta.ROPE_KEYS`).
        reads: the rope dict's keys, tried in order: the first one *present* gives the value
            (``attention_factor``, else ``attn_factor``).
        kind: ``"float"`` or ``"int"``: how the value is written.
        when: ``"gate"``: the type writes no scaling key at all unless this value is set
            (YaRN and linear without ``factor``); ``"needed"``: written when set, and when not
            the converter stops (a note "<title> without <key>: the converter stops");
            ``"given"``: written only when the config spells it.
    """

    name: str
    reads: tuple[str, ...]
    kind: Literal["float", "int"] = "float"
    when: Literal["gate", "needed", "given"] = "given"

    def value(self, params: Mapping[str, Any]) -> Any:
        """The value of the first key of ``reads`` present in ``params`` (None: none is)."""
        for key in self.reads:
            if key in params:
                return params[key]
        return None


@dataclass(frozen=True, kw_only=True)
class RopeType:
    r"""One rope type: how to read it from a config, compute its frequencies, describe it and
    what engines do with it. Everything that differs between rope types is a field here:
    :mod:`ropelab.describe`, :mod:`ropelab.decoder`, :mod:`ropelab.gguf_meta` and
    :mod:`ropelab.engines` read the fields and never switch on the name. Every field but the
    callables is plain data (the browser decoder receives them as JSON).

    Attributes:
        name: the ``rope_type`` of the config.
        title: the method's name in the book ("position interpolation").
        frequencies: ``(spec, seq_len) -> (inv_freq, attention_factor)``.
        factor: how the type reads ``factor``: ``"required"`` (a number), ``"nullable"`` (the
            key must be there, null means max / original length), ``"optional"`` or ``None``
            (not read). The description shows a factor exactly when it is not ``None``.
        original_length: it has a pre-extension length ``original_max_position_embeddings``.
            The description shows it (and the decoder the extended length, original ×
            factor) exactly for these types, and a null or missing factor is derived as
            ``max_position_embeddings / original_max_position_embeddings``.
        needs_max_length: it needs ``max_position_embeddings``.
        required, optional: further keys of the rope dict it reads, copied into the spec.
        read: reads keys that need their own rules (``(params, where) -> fields``).
        length_policy: how the frequencies depend on the current length *L*: ``"none"``;
            ``"longest_seen"`` (they follow the longest *L* seen, and return to the originals
            once *L* is back within ``max_position_embeddings``: dynamic NTK); ``"current"``
            (they follow *L* itself: LongRoPE's short and long factors).
        described: the parameters the description lists after the factor and lengths, in
            order (:class:`DescribedParameter`).
        reference: what the description compares the frequencies with, plane by plane:
            ``"plain"``, plain RoPE :math:`\beta^{-2i/d}` of the same base and rotated
            fraction; ``"factor_one"``, the same type with ``factor`` 1 (p-RoPE, whose
            unrotated planes must stay 0 in the reference).
        default_attention: the attention factor when the config gives none: ``"one"``;
            ``"yarn"``, :math:`0.1 \ln s + 1` (Peng et al. 2023, arXiv 2309.00071);
            ``"longrope"``, :math:`\sqrt{1 + \ln s / \ln L_{\text{orig}}}` (Ding et al. 2024,
            arXiv 2402.13753); both 1 for :math:`s \le 1`. llama.cpp's Phi-3 converter
            writes it as ``.scaling.attn_factor``.
        layer_warnings: the codes of :data:`ropelab.decoder.WARNINGS` a layer of this type
            can raise (``"factor-vs-lengths"``, ``"no-op-block"``, ``"yarn-truncate"``,
            ``"dynamic-cache"``); the decoder checks each listed code's condition.
        gguf_scaling_type: the ``{arch}.rope.scaling.type`` llama.cpp's converter writes
            (``"linear"``, ``"yarn"``, ``"longrope"``), ``None`` for none.
        gguf_keys: the ``{arch}.rope.scaling.*`` keys written after the type, in order
            (:class:`GGUFKey`).
        gguf_note: what the decoder notes when GGUF cannot hold the type (``None``: nothing).
        gguf_tensor: the per-plane tensor llama.cpp's Llama converter classes write for the
            type (``"rope_freqs.weight"`` for Llama 3.1 scaling), ``None`` for none.
        gguf_tensor_values: ``(rope dict, head size) -> float32 divisors`` of that tensor.
        vllm_max_len: how vLLM's default ``max_model_len`` treats a rope group of this type
            (``_get_and_verify_max_len``, ``vllm/config/model.py``, commit 18ec6629):
            ``"scaled"``, :math:`L_{\max}\cdot s`; ``"original_scaled"``,
            :math:`L_{\text{orig}}\cdot s`; ``"unscaled"``, :math:`L_{\max}`; ``"original"``,
            the config's top-level :math:`L_{\text{orig}}` (LongRoPE).
        vllm_cache: the positions of vLLM's cos/sin table (``get_rope``'s classes):
            ``"max"``, :math:`L_{\max}`; ``"max_scaled"``, :math:`L_{\max}\cdot s` (dynamic
            NTK); ``"original_scaled"``, :math:`L_{\text{orig}}\cdot s` (YaRN).
    """

    name: str
    title: str
    frequencies: FrequencyFunction
    factor: Literal["required", "nullable", "optional"] | None = None
    original_length: bool = False
    needs_max_length: bool = False
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    read: Callable[[Mapping[str, Any], str], dict[str, Any]] | None = None
    length_policy: Literal["none", "longest_seen", "current"] = "none"
    described: tuple[DescribedParameter, ...] = ()
    reference: Literal["plain", "factor_one"] = "plain"
    default_attention: Literal["one", "yarn", "longrope"] = "one"
    layer_warnings: tuple[str, ...] = ()
    gguf_scaling_type: str | None = None
    gguf_keys: tuple[GGUFKey, ...] = ()
    gguf_note: str | None = None
    gguf_tensor: str | None = None
    gguf_tensor_values: Callable[[Mapping[str, Any], int], np.ndarray] | None = None
    vllm_max_len: Literal["scaled", "original_scaled", "unscaled", "original"] = "scaled"
    vllm_cache: Literal["max", "max_scaled", "original_scaled"] = "max"

    @property
    def length_dependent(self) -> bool:
        """Whether the frequencies depend on the current sequence length."""
        return self.length_policy != "none"

    def __call__(self, spec: RopeSpec, seq_len: int | None = None) -> tuple[np.ndarray, float]:
        return self.frequencies(spec, seq_len)


ROPE_TYPES: dict[str, RopeType] = {
    record.name: record
    for record in (
        RopeType(name="default", title="RoPE", frequencies=default_frequencies),
        RopeType(
            name="linear",
            title="position interpolation",
            frequencies=linear_frequencies,
            factor="required",
            layer_warnings=("no-op-block",),
            gguf_scaling_type="linear",
            gguf_keys=(GGUFKey("SCALING_FACTOR", ("factor",), when="gate"),),
        ),
        RopeType(
            name="dynamic",
            title="dynamic NTK scaling",
            frequencies=dynamic_frequencies,
            factor="required",
            needs_max_length=True,
            length_policy="longest_seen",
            layer_warnings=("no-op-block", "dynamic-cache"),
            gguf_note="dynamic NTK has no GGUF scaling type: llama.cpp runs it unscaled",
            vllm_cache="max_scaled",
        ),
        RopeType(
            name="yarn",
            title="YaRN",
            frequencies=yarn_frequencies,
            factor="nullable",
            original_length=True,
            optional=("attention_factor", "mscale", "mscale_all_dim"),
            read=_read_yarn,
            described=(
                DescribedParameter("beta_fast", "beta_fast", "or_default", 32),
                DescribedParameter("beta_slow", "beta_slow", "or_default", 1),
                DescribedParameter("truncate", "truncate", "bool_if_present"),
                DescribedParameter("mscale", "mscale", "if_set"),
                DescribedParameter("mscale_all_dim", "mscale_all_dim", "if_set"),
            ),
            default_attention="yarn",
            layer_warnings=("factor-vs-lengths", "no-op-block", "yarn-truncate"),
            gguf_scaling_type="yarn",
            gguf_keys=(
                GGUFKey("SCALING_FACTOR", ("factor",), when="gate"),
                GGUFKey(
                    "SCALING_ORIG_CTX_LEN", ("original_max_position_embeddings",), "int", "needed"
                ),
                GGUFKey("SCALING_YARN_EXT_FACTOR", ("extrapolation_factor",)),
                GGUFKey("SCALING_YARN_ATTN_FACTOR", ("attention_factor", "attn_factor")),
                GGUFKey("SCALING_YARN_BETA_FAST", ("beta_fast",)),
                GGUFKey("SCALING_YARN_BETA_SLOW", ("beta_slow",)),
            ),
            vllm_max_len="original_scaled",
            vllm_cache="original_scaled",
        ),
        RopeType(
            name="longrope",
            title="LongRoPE",
            frequencies=longrope_frequencies,
            factor="optional",
            original_length=True,
            required=("short_factor", "long_factor"),
            optional=("attention_factor",),
            length_policy="current",
            described=(
                DescribedParameter("short factors", "short_factor", "range"),
                DescribedParameter("long factors", "long_factor", "range"),
            ),
            default_attention="longrope",
            layer_warnings=("factor-vs-lengths", "no-op-block"),
            gguf_scaling_type="longrope",
            vllm_max_len="original",
        ),
        RopeType(
            name="llama3",
            title="Llama 3.1 scaling",
            frequencies=llama3_frequencies,
            factor="required",
            original_length=True,
            required=("low_freq_factor", "high_freq_factor"),
            described=(
                DescribedParameter("low_freq_factor", "low_freq_factor", "float"),
                DescribedParameter("high_freq_factor", "high_freq_factor", "float"),
                DescribedParameter(
                    "kept below wavelength", "high_freq_factor", "float", over_original=True
                ),
                DescribedParameter("divided above", "low_freq_factor", "float", over_original=True),
            ),
            layer_warnings=("factor-vs-lengths", "no-op-block"),
            gguf_tensor="rope_freqs.weight",
            gguf_tensor_values=_llama3_gguf_divisors,
            vllm_max_len="unscaled",
        ),
        RopeType(
            name="proportional",
            title="proportional RoPE (p-RoPE)",
            frequencies=proportional_frequencies,
            factor="optional",
            described=(
                DescribedParameter("rotated fraction", "partial_rotary_factor", "value", 1.0),
            ),
            reference="factor_one",
            gguf_note="proportional RoPE (Gemma 4) has no GGUF scaling type",
        ),
    )
}
"""Rope type → its :class:`RopeType` record (callable as ``(spec, seq_len)``).

The counterpart of transformers' ``ROPE_INIT_FUNCTIONS`` (which has no ``"default"`` entry:
each model class computes that one itself). A new rope type is one record here (its
frequency function above), plus its tests (DEVELOPERS.md, "Add a rope type").
"""
