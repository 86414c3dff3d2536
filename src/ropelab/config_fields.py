r"""Read the rope fields of a released ``config.json`` as it is (chapter 8).

transformers normalises every model's rope settings into one spelling (``rope_parameters``
in version 5), but released files predate it and differ from model to model. This module
turns a raw ``config.json`` mapping into that normalised form, one flat rope dict per layer
type, each of which :func:`ropelab.frequencies_from_config` accepts, and collects the
attention scaling that lives *outside* the rotary embedding:

* **Spellings.** transformers 4 writes ``rope_theta`` at the top level and the scaling in
  ``rope_scaling``; transformers 5 writes ``rope_parameters`` with ``rope_theta`` inside.
  Legacy ``"type"`` keys become ``"rope_type"``; legacy type names are renamed
  (``"su"`` → ``"longrope"`` for Phi-3, whose config class also maps ``"yarn"`` there;
  ``"mrope"`` → ``"default"``, the multimodal sections being a separate matter).
* **Nested text configs.** Multimodal releases (Gemma 3, Llama 4, Mistral 3) put the
  language model's fields under ``text_config``.
* **GPT-NeoX / Pythia.** ``rotary_pct`` is the partial rotary factor and
  ``rotary_emb_base`` the base; a ``gpt_neox`` config without ``rotary_pct`` rotates a
  quarter of each head (transformers' default for that model).
* **DeepSeek-V2/V3 (MLA).** Only ``qk_rope_head_dim`` coordinates of each query/key head
  rotate; the head is ``qk_nope_head_dim + qk_rope_head_dim``. With YaRN, the softmax scale
  :math:`1/\sqrt{d_{qk}}` is multiplied by :math:`m^2`,
  :math:`m = 0.1\,\mu_{\text{all}} \ln s + 1` (``mscale_all_dim``).
* **Gemma 3.** Layers alternate between sliding-window and full attention
  (``sliding_window_pattern``, default 6: five local layers, then a global one). Full layers
  use ``rope_theta`` (default 1e6 for this model) and ``rope_scaling``; sliding layers use
  ``rope_local_base_freq`` (default 1e4) without scaling. A transformers 5 config nests
  ``rope_parameters`` by layer type instead. Gemma 4's full-attention layers have their own
  head size, ``global_head_dim`` (default 512), and use the ``proportional`` rope type.
* **Query temperatures.** Llama 4 multiplies the queries of its layers *without* RoPE by
  :math:`1 + \beta \ln(1 + \lfloor (m + 1)/L_f \rfloor)` (``attn_scale`` β = 0.1,
  ``floor_scale`` :math:`L_f` = 8192); Ministral 3 multiplies every query by
  :math:`1 + \beta \ln(1 + \lfloor m / L_{\text{orig}} \rfloor)`
  (``llama_4_scaling_beta``). Both grow with the position *m*, logarithmically, in steps.

Sources: transformers 5.23's ``modeling_rope_utils.py`` and the configuration and modeling
files of GPT-NeoX, Phi-3, DeepSeek-V3, Gemma 3, Llama 4 and Ministral 3; the released
reference code where it differs. Explained in chapter 8 of the book.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._checks import check_count, check_finite_array
from .families import MAPPED_FIELDS, FamilyRule, family, layer_names

__all__ = [
    "KIND_WORDS",
    "LEGACY_TYPE_NAMES",
    "RULES",
    "LayerRope",
    "QueryTemperature",
    "RopeFields",
    "as_mapping",
    "normalize_config",
    "v5_rope_parameters",
]

#: Legacy rope type names and what transformers reads them as.
LEGACY_TYPE_NAMES = {"su": "longrope", "mrope": "default"}

_ORIGINAL_LENGTH_TYPES = ("yarn", "longrope", "llama3")
_DEFAULT_THETA = 10_000.0

#: The behaviours that are code, not data: named rules keyed by model type, each applied by
#: :func:`normalize_config` where it names it (everything else comes from the family table,
#: :mod:`ropelab.families`). The functions are below; their docstrings give the sources.
RULES: dict[str, tuple[str, ...]] = {
    # DeepSeek-V2/V3 MLA: YaRN's mscale_all_dim squared on the softmax scale
    # (modeling_deepseek_v3.py, DeepseekV3Attention). Kimi K2 runs DeepSeek-V3's code.
    "deepseek_v2": ("mla_softmax_scale",),
    "deepseek_v3": ("mla_softmax_scale",),
    "kimi_k2": ("mla_softmax_scale",),
    # Llama 4's query temperature on its NoPE layers (modeling_llama4.py, Llama4TextAttention).
    "llama4_text": ("llama4_query_temperature",),
    # DeepSeek-V4: sliding layers ('main') and compressed layers ('compress') with their own
    # bases (modeling_deepseek_v4.py, DeepseekV4RotaryEmbedding).
    "deepseek_v4": ("deepseek_v4_groups",),
    # OLMo 3: rope_scaling on the full-attention layers only; sliding layers keep plain RoPE
    # at the class's default base (configuration_olmo3.py, Olmo3Config).
    "olmo3": ("full_only_scaling",),
    # Gemma 4: the full-attention layers have their own head size, global_head_dim
    # (configuration_gemma4.py, Gemma4TextConfig).
    "gemma4": ("global_head_dim",),
    "gemma4_text": ("global_head_dim",),
    "gemma4_unified": ("global_head_dim",),
    "gemma4_unified_assistant": ("global_head_dim",),
    "gemma4_unified_text": ("global_head_dim",),
    "diffusion_gemma": ("global_head_dim",),
    "diffusion_gemma_text": ("global_head_dim",),
    "embedding_gemma2": ("global_head_dim",),
    "embedding_gemma2_text": ("global_head_dim",),
    # Phi-3: a rope dict naming "yarn" is LongRoPE (configuration_phi3.py, Phi3Config's
    # _rope_parameters_validation renames it; phi4_multimodal inherits it).
    "phi3": ("yarn_is_longrope",),
    "phi4_multimodal": ("yarn_is_longrope",),
    # EXAONE 4: without a sliding window every layer is full attention
    # (configuration_exaone4.py, Exaone4Config builds layer_types so).
    "exaone4": ("no_window_all_full",),
}
# Ministral 3's llama_4_scaling_beta is a key of the rope dict, read for every family.
_GLOBAL_HEAD_DIM = 512  # Gemma4TextConfig's global_head_dim


def _rules(model_type: str) -> tuple[str, ...]:
    return RULES.get(model_type, ())


def _yarn_is_longrope(name: str) -> str | None:
    """Phi-3's rename: ``"yarn"`` is read as ``"longrope"`` (Phi3Config); None otherwise."""
    return "longrope" if name == "yarn" else None


def _no_window_all_full(text: Mapping[str, Any], num_layers: int) -> list[str] | None:
    """EXAONE 4 without ``sliding_window``: every layer full attention (Exaone4Config)."""
    return ["full_attention"] * num_layers if text.get("sliding_window") is None else None


@dataclass(frozen=True)
class QueryTemperature:
    r"""A position-dependent factor on the queries, outside the rotary embedding.

    .. math:: \tau(m) = 1 + \beta \ln\!\big(1 + \lfloor (m + c)/L \rfloor\big)

    Attributes:
        source: the config key the rule comes from.
        beta: :math:`\beta`.
        length: :math:`L` (Llama 4's ``floor_scale``, Ministral 3's original length).
        offset: *c*: 1 for Llama 4 (``(m + 1) / L``), 0 for Ministral 3.
        layers: the layers it applies to (all of them, or Llama 4's layers without RoPE).
    """

    source: str
    beta: float
    length: int
    offset: int
    layers: tuple[int, ...]

    def scale(self, positions: Any) -> np.ndarray:
        """:math:`\\tau(m)` at each position *m*."""
        m = check_finite_array(positions, "positions")
        return 1.0 + self.beta * np.log1p(np.floor((m + self.offset) / self.length))

    def first_change(self) -> int:
        """The first position where :math:`\\tau > 1`: ``length - offset``."""
        return self.length - self.offset


@dataclass(frozen=True)
class LayerRope:
    """The rope settings of one layer type, in the form :func:`frequencies_from_config` reads.

    Attributes:
        layer_type: ``"all"`` when every layer is the same, else the config's layer type
            (``"full_attention"``, ``"sliding_attention"``).
        layers: indices of the layers of this type (empty when the config does not say).
        config: a flat config mapping: ``head_dim`` (the rotated head for DeepSeek),
            ``max_position_embeddings``, ``rope_parameters`` (flat, with ``rope_type``,
            ``rope_theta`` and ``partial_rotary_factor``), and a top-level
            ``original_max_position_embeddings`` where the released file has one (Phi-3).
    """

    layer_type: str
    layers: tuple[int, ...]
    config: dict[str, Any]

    @property
    def rope_parameters(self) -> dict[str, Any]:
        return self.config["rope_parameters"]


@dataclass(frozen=True)
class RopeFields:
    """A released config's rope settings, normalised.

    Attributes:
        model_type: the (text) model type.
        spelling: ``"transformers 5"`` (``rope_parameters``) or ``"transformers 4"``.
        head_dim: size of a query/key head (DeepSeek: ``qk_nope_head_dim + qk_rope_head_dim``).
        num_heads, num_kv_heads: query heads, key/value heads.
        num_layers: decoder layers (``None`` if the config does not say).
        max_position_embeddings: the context length the config declares.
        layers: one :class:`LayerRope` per layer type.
        nope_layers: layers that apply no rotary embedding at all (Llama 4, SmolLM3, the
            linear-attention layers of Qwen3-Next, Cohere 2's full-attention layers).
        softmax_scale: factor on :math:`1/\\sqrt{d_{qk}}` (DeepSeek's :math:`m^2`), else 1.
        query_temperature: Llama 4's or Ministral 3's :class:`QueryTemperature`, or None.
        notes: what was read differently from transformers 5's normalised spelling.
        nope_reasons: why the ``nope_layers`` skip RoPE (a flag, an interval, a pattern).
        layer_kinds: each layer's kind (``rope``, ``nope``, ``state_space``,
            ``linear_attention``, ``no_attention``; :data:`ropelab.families.LAYER_KINDS`)
            when some layer does not apply RoPE; empty when every layer does.
    """

    model_type: str
    spelling: str
    head_dim: int
    num_heads: int | None
    num_kv_heads: int | None
    num_layers: int | None
    max_position_embeddings: int | None
    layers: tuple[LayerRope, ...]
    nope_layers: tuple[int, ...] = ()
    softmax_scale: float = 1.0
    query_temperature: QueryTemperature | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    nope_reasons: tuple[str, ...] = field(default_factory=tuple)
    layer_kinds: tuple[str, ...] = field(default_factory=tuple)

    def layer(self, layer_type: str = "all") -> LayerRope:
        """The :class:`LayerRope` of a layer type (``"all"`` for single-type configs)."""
        for entry in self.layers:
            if entry.layer_type == layer_type:
                return entry
        raise ValueError(
            f"layer_type must be one of {[e.layer_type for e in self.layers]}, got {layer_type!r}"
        )


# ---------------------------------------------------------------------------------------------


def as_mapping(config: Any) -> Mapping[str, Any]:
    """A config as a mapping: a ``config.json`` dict as it is, or ``config.to_dict()`` (a
    transformers ``PretrainedConfig``).

    Raises:
        ValueError: for anything else.
    """
    if isinstance(config, Mapping):
        return config
    to_dict = getattr(config, "to_dict", None)
    if callable(to_dict):
        mapping = to_dict()
        if isinstance(mapping, Mapping):
            return mapping
    raise ValueError(
        "config must be a config.json mapping or an object with a to_dict() method, "
        f"got {type(config).__name__}"
    )


#: Sub-config keys read, in this order, when a composite config has no ``text_config``.
_DECODER_KEYS = ("decoder", "decoder_config", "global_config")


def _text_config(raw: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    """(the config the rope fields are read from, its key): ``text_config``; else, for an
    encoder-decoder or composite family (the table's ``sub_configs``), the decoder's
    sub-config when its model type has RoPE (T5Gemma's ``decoder``, Dia's
    ``decoder_config``, BLT's ``global_config``)."""
    text = raw.get("text_config")
    if isinstance(text, Mapping):
        return text, "text_config"
    rule = family(str(raw.get("model_type") or ""))
    subs = rule.sub_configs if rule is not None else {}
    for key in _DECODER_KEYS:
        sub = raw.get(key)
        sub_rule = family(subs.get(key, ""))
        if isinstance(sub, Mapping) and sub_rule is not None and sub_rule.rope:
            return {"model_type": sub_rule.model_type, **sub}, key
    return raw, ""


def _mapped_fields(
    text: Mapping[str, Any], rule: FamilyRule | None, notes: list[str]
) -> Mapping[str, Any]:
    """``text`` with the standard fields its config class spells otherwise (the class's
    ``attribute_map``, recorded as table aliases: JetMoe's ``kv_channels`` for ``head_dim``,
    DBRX's ``n_heads`` and ``d_model``) filled in where the standard key is missing."""
    extra = {}
    for spelling, meaning in (rule.aliases if rule is not None else {}).items():
        if (
            meaning in MAPPED_FIELDS
            and text.get(meaning) is None
            and text.get(spelling) is not None
        ):
            extra[meaning] = text[spelling]
            notes.append(f"{spelling} read as {meaning}")
    return {**text, **extra} if extra else text


def _model_type(raw: Mapping[str, Any], text: Mapping[str, Any]) -> str:
    return str(text.get("model_type") or raw.get("model_type") or "unknown")


def _head_dim(text: Mapping[str, Any], rule: FamilyRule | None, notes: list[str]) -> int:
    """``head_dim``; else the config class's fixed default (Gemma 3's 256, whatever the
    hidden size); else ``hidden_size // num_attention_heads``, the heads filled from the
    class's defaults when the config omits them."""
    if text.get("head_dim") is not None:
        return check_count(text["head_dim"], "head_dim")
    defaults = rule.defaults if rule is not None else {}
    fixed = defaults.get("head_dim")
    if rule is not None and isinstance(fixed, int) and "head_dim" not in rule.derived:
        notes.append(f"no head_dim: {rule.config_class}'s default {fixed}")
        return fixed
    hidden, heads = text.get("hidden_size"), text.get("num_attention_heads")
    if heads is None and isinstance(defaults.get("num_attention_heads"), int):
        heads = defaults["num_attention_heads"]
    if hidden is None or heads is None:
        raise ValueError(
            "config must give head_dim, or hidden_size and num_attention_heads "
            "(head_dim = hidden_size // num_attention_heads)"
        )
    return check_count(hidden, "hidden_size") // check_count(heads, "num_attention_heads")


def _rope_type(params: Mapping[str, Any], model_type: str, notes: list[str]) -> Any:
    """The rope type as transformers reads it: ``rope_type``, else the legacy ``type``, else
    ``"default"``; legacy names renamed. A ``rope_type`` key holding null stays None (and is
    rejected later, as transformers rejects it)."""
    if "rope_type" in params:
        name = params["rope_type"]
    elif params.get("type") is not None:
        name = params["type"]
        notes.append(f"legacy key 'type': {name!r} read as rope_type")
    else:
        name = "default"
    if not isinstance(name, str):
        return name
    renamed = LEGACY_TYPE_NAMES.get(name)
    if "yarn_is_longrope" in _rules(model_type):
        renamed = _yarn_is_longrope(name) or renamed
    if renamed is not None:
        notes.append(f"legacy rope type {name!r} read as {renamed!r}")
        return renamed
    return name


def _nested_layer_types(params: Mapping[str, Any], text: Mapping[str, Any]) -> list[str]:
    """Keys of ``params`` that are layer types holding their own rope dict."""
    declared = set(text.get("layer_types") or ()) | {"full_attention", "sliding_attention"}
    declared |= {"main", "compress"}  # DeepSeek-V4's rope groups (not layer types)
    return [k for k, v in params.items() if k in declared and isinstance(v, Mapping)]


def _mla_partial(text: Mapping[str, Any], params: Mapping[str, Any]) -> bool:
    """Whether an MLA config gives a partial rotary factor (top level, in its rope dict or
    in a layer type's): then it applies to the whole q/k head, not to qk_rope_head_dim."""
    dicts = [text, params] + [v for v in params.values() if isinstance(v, Mapping)]
    return any(d.get("partial_rotary_factor") not in (None, 1, 1.0) for d in dicts)


def _interval_value(text: Mapping[str, Any], keys: Any, default: int, minimum: int = 1) -> int:
    for key in keys:
        value = text.get(key)
        if value is not None:
            if isinstance(value, str):  # EXAONE 4 also spells it "LLLG"
                value = len(value)
            return check_count(value, key, minimum)
    return default


def _deepseek_v4_layer_types(text: Mapping[str, Any], num_layers: int) -> list[str]:
    """DeepSeek-V4's layer types from ``compress_ratios`` (0 sliding only, 4 CSA, 128 HCA),
    else DeepseekV4Config's default pattern (configuration_deepseek_v4.py)."""
    ratios = text.get("compress_ratios")
    if ratios:
        names = {
            0: "sliding_attention",
            4: "compressed_sparse_attention",
            128: "heavily_compressed_attention",
        }
        return [names.get(int(r), "compressed_attention") for r in ratios[:num_layers]]
    return ["heavily_compressed_attention"] * min(num_layers, 2) + [
        "compressed_sparse_attention" if i % 2 else "heavily_compressed_attention"
        for i in range(max(num_layers - 2, 0))
    ]


def _layer_names(
    text: Mapping[str, Any], rule: FamilyRule | None, num_layers: int | None, notes: list[str]
) -> list[str]:
    """Each layer's name (``layer_types`` or the family's field), read from the config, or
    rebuilt by the table's layer rule: its interval, else the class's default pattern when
    the layer count is the default one. Empty when nothing says."""
    if text.get("layer_types"):
        return [str(t) for t in text["layer_types"]]
    model_type = rule.model_type if rule is not None else ""
    if num_layers is None:
        return []
    if "deepseek_v4_groups" in _rules(model_type):
        return _deepseek_v4_layer_types(text, num_layers)
    layer_rule = (rule.layer_rule if rule is not None else None) or {}
    field_name = layer_rule.get("field")
    if field_name not in (None, "layer_types", "num_hidden_layers"):
        given = text.get(field_name)
        if isinstance(given, str) and given:
            return list(given[:num_layers])
        if isinstance(given, list) and given:
            return [str(given[i % len(given)]) for i in range(num_layers)]
    indices = layer_rule.get("indices")
    if indices:  # attention layers listed by index (Bamba's attn_layer_indices)
        listed = text.get(indices["key"], indices["default"])
        chosen = set(listed) if isinstance(listed, list) else set()
        return [indices["every"] if i in chosen else indices["else"] for i in range(num_layers)]
    interval = layer_rule.get("interval")
    if interval:
        if "no_window_all_full" in _rules(model_type):
            every_layer = _no_window_all_full(text, num_layers)
            if every_layer is not None:
                return every_layer
        n = _interval_value(text, interval["keys"], interval["default"])
        spec = interval.get("offset")
        offset = n - 1 if spec is None else _interval_value(text, spec["keys"], spec["default"], 0)
        names = [
            interval["every"] if i % n == offset else interval["else"] for i in range(num_layers)
        ]
        if interval.get("last") and names:  # the class makes the last layer this type
            names[-1] = interval["last"]
        return names
    pattern = layer_rule.get("pattern")
    names = layer_rule.get("names", {})
    if (
        isinstance(pattern, (list, str))
        and len(pattern) == num_layers
        and len({names.get(str(x), str(x)) for x in pattern}) > 1
    ):
        notes.append(f"layer pattern: {rule.config_class}'s default")  # type: ignore[union-attr]
        return [str(x) for x in pattern]
    return []


def _flat_params(
    params: Mapping[str, Any],
    *,
    model_type: str,
    theta: float,
    partial: float,
    notes: list[str],
) -> dict[str, Any]:
    flat = {k: v for k, v in params.items() if k != "type"}
    flat["rope_type"] = _rope_type(params, model_type, notes)
    flat.setdefault("rope_theta", theta)
    if flat.get("rope_theta") is None:
        flat["rope_theta"] = theta
    if flat.get("partial_rotary_factor") is None:
        flat["partial_rotary_factor"] = partial
    return flat


def _group_layers(name: str, layer_types: list[str], model_type: str) -> tuple[int, ...]:
    """The layers that use the rope dict ``name`` (a layer type, or DeepSeek-V4's group:
    ``"main"`` for its sliding-window layers, ``"compress"`` for the compressed ones)."""
    if "deepseek_v4_groups" in _rules(model_type) and name in ("main", "compress"):
        main = name == "main"
        return tuple(i for i, t in enumerate(layer_types) if (t == "sliding_attention") == main)
    return tuple(i for i, t in enumerate(layer_types) if t == name)


#: What a layer kind is called in reasons and reports.
KIND_WORDS = {
    "rope": "attention with RoPE",
    "nope": "attention without RoPE",
    "state_space": "state-space",
    "linear_attention": "linear attention",
    "no_attention": "no attention",
}


def _json(value: Any) -> str:
    """``value`` as the browser's ``JSON.stringify`` writes it (compact)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _layer_kinds(
    text: Mapping[str, Any],
    rule: FamilyRule | None,
    num_layers: int | None,
    layer_types: list[str],
    head_rope: int | None,
) -> tuple[list[str], list[str]]:
    """Each layer's kind (:data:`ropelab.families.LAYER_KINDS`) and the reasons of those
    without RoPE, from the table's layer rule evaluated on this config: the names' kinds,
    per-layer NoPE flags (``no_rope_layers[i] == 0``, a ``layer_rope_theta`` of 0, the
    ``no_rope_layer_interval``), the hand rule of a layer type without RoPE (Cohere 2,
    EXAONE 4), an MLA head without rotated part (``qk_rope_head_dim`` 0) and a family
    whose model has no rotary embedding at all."""
    n = num_layers if num_layers is not None else len(layer_types)
    if not n:
        return [], []
    layer_rule = (rule.layer_rule if rule is not None else None) or {}
    names = {**layer_names(), **layer_rule.get("names", {})}
    base = [
        names.get(layer_types[i], "attention") if i < len(layer_types) else "attention"
        for i in range(n)
    ]
    kinds = ["rope" if k == "attention" else k for k in base]
    reasons: list[str] = []

    def mark(indices: set[int], reason: str) -> None:
        hit = {i for i in indices if i < n and kinds[i] == "rope"}
        if hit:
            for i in hit:
                kinds[i] = "nope"
            reasons.append(reason)

    flags = text.get("no_rope_layers")
    bases = text.get("layer_rope_theta")
    if flags:
        mark({i for i, use in enumerate(flags) if not use}, "no_rope_layers")
    elif isinstance(bases, list) and bases:
        mark({i for i, b in enumerate(bases) if not b}, "layer_rope_theta 0")
    elif layer_rule.get("nope_interval"):
        spec = layer_rule["nope_interval"]
        interval = check_count(text.get(spec["key"], spec["default"]), spec["key"])
        mark(
            {i for i in range(n) if (i + 1) % interval == 0},
            f"every {interval}th layer, {spec['key']}",
        )
    hand = layer_rule.get("nope_layer_type")
    if hand and (hand.get("when") is None or text.get(hand["when"]) is not None):
        which = {i for i, t in enumerate(layer_types) if t == hand["layer_type"]}
        mark(which, f"{rule.model_type}'s full-attention layers skip RoPE")  # type: ignore[union-attr]
    switch = layer_rule.get("rope_switch")
    if switch:
        value = text.get(switch["key"], switch["default"])
        if value not in switch["on"]:
            mark(
                set(range(n)),
                f"{switch['key']} {_json(value)}: {rule.model_type}'s attention "  # type: ignore[union-attr]
                f"applies RoPE only when it is {' or '.join(_json(v) for v in switch['on'])}",
            )
    if head_rope == 0:
        mark(set(range(n)), "qk_rope_head_dim 0: the MLA attention uses no positions")
    if rule is not None and not rule.rope:
        mark(set(range(n)), f"{rule.model_type}'s attention has no rotary embedding")
    blocks = sorted({k for k in kinds if k not in ("rope", "nope")})
    if blocks:
        words = ", ".join(KIND_WORDS[k] for k in blocks)
        reasons.append(f"{words} blocks have no positions to rotate")
    return kinds, reasons


def _scaled_full_plain_sliding(
    layer_types: list[str],
    full: dict,
    sliding_theta: float,
    partial: float,
    layer_config: Any,
) -> list[LayerRope]:
    """Two layer groups: the full-attention layers with the config's rope parameters
    (``full``), the sliding ones with plain RoPE at ``sliding_theta`` (Gemma 3's local base,
    OLMo 3's sliding layers), in the order transformers lists them."""
    per_type = {
        "full_attention": full,
        "sliding_attention": {
            "rope_type": "default",
            "rope_theta": sliding_theta,
            "partial_rotary_factor": partial,
        },
    }
    return [
        LayerRope(
            name,
            tuple(i for i, t in enumerate(layer_types) if t == name),
            layer_config(per_type[name]),
        )
        for name in ("sliding_attention", "full_attention")
    ]


def _alias(text: Mapping[str, Any], rule: FamilyRule | None, meaning: str) -> tuple[str, Any]:
    """``(spelling, value)`` of the first family spelling of ``meaning`` the config gives."""
    for spelling, means in (rule.aliases if rule is not None else {}).items():
        if means == meaning and text.get(spelling) is not None:
            return spelling, text[spelling]
    return "", None


def _default_params(rule: FamilyRule | None, layer_type: str | None = None) -> Mapping[str, Any]:
    """The config class's default rope dict (of ``layer_type`` when it nests by type)."""
    params = (rule.defaults if rule is not None else {}).get("rope_parameters") or {}
    if layer_type is not None and isinstance(params.get(layer_type), Mapping):
        return params[layer_type]
    if "rope_theta" in params or "rope_type" in params:
        return params
    nested = [v for v in params.values() if isinstance(v, Mapping)]
    full = params.get("full_attention")
    return full if isinstance(full, Mapping) else (nested[0] if nested else {})


def _ntk_alpha(flat: dict[str, Any], head_dim: int, notes: list[str]) -> dict[str, Any]:
    r"""HunYuan's NTK-alpha: ``dynamic`` with an ``alpha`` is static, the base
    :math:`\theta\,\alpha^{d/(d-2)}` with *d* the head size (HunYuanDenseV1RotaryEmbedding.
    compute_ntk_alpha_rope_parameters, modeling_hunyuan_v1_dense.py)."""
    if head_dim <= 2:  # alpha ** (d / (d - 2)) has no value
        raise ValueError(
            f"head_dim = {head_dim}: NTK-alpha's base theta x alpha^(d/(d-2)) needs a rotated "
            "head wider than 2"
        )
    alpha = float(flat["alpha"])
    base = float(flat["rope_theta"]) * alpha ** (head_dim / (head_dim - 2))
    notes.append(
        f"NTK-alpha: dynamic with alpha {alpha:g} is a fixed base "
        f"{float(flat['rope_theta']):,.0f} x alpha^({head_dim}/{head_dim - 2}) = {base:,.0f}"
    )
    out = {k: v for k, v in flat.items() if k not in ("alpha", "factor")}
    out.update(rope_type="default", rope_theta=base)
    return out


def normalize_config(config: Any) -> RopeFields:
    """Read a released ``config.json`` (or a transformers config) into :class:`RopeFields`.

    The family table (:func:`ropelab.families.family` of the model type) gives the config
    class's defaults for missing keys, the family's spellings (aliases) and the rule that
    gives each layer its kind; :data:`RULES` names the few behaviours that are code. See
    the module docstring for every rule. The input is not modified.

    Raises:
        ValueError: if the head size cannot be found or a count is not a positive integer.
    """
    raw = as_mapping(config)
    text, text_key = _text_config(raw)
    model_type = _model_type(raw, text)
    rule = family(model_type)
    rules = _rules(model_type)
    defaults = rule.defaults if rule is not None else {}
    notes: list[str] = []
    if text is not raw:
        notes.append(f"fields read from {text_key}")
    text = _mapped_fields(text, rule, notes)

    v5 = text.get("rope_parameters") is not None and not text.get("rope_scaling")
    spelling = "transformers 5" if v5 else "transformers 4"
    key = "rope_scaling" if text.get("rope_scaling") else "rope_parameters"
    params = text.get(key) or {}
    if not isinstance(params, Mapping):
        raise ValueError(f"{key} must be a dict of rope parameters, got {params!r}")
    params = dict(params)

    num_layers = text.get("num_hidden_layers")
    num_layers = None if num_layers is None else check_count(num_layers, "num_hidden_layers")
    count = ((rule.layer_rule if rule is not None else None) or {}).get("count")
    if num_layers is None and count and text.get(count["key"]) is not None:
        # num_hidden_layers is the class's property: count["times"] per num_layers
        num_layers = check_count(text[count["key"]], count["key"]) * count["times"]
    max_len = text.get("max_position_embeddings")
    max_len = None if max_len is None else check_count(max_len, "max_position_embeddings")
    num_heads = text.get("num_attention_heads")
    num_kv = text.get("num_key_value_heads")
    if num_heads is None and isinstance(defaults.get("num_attention_heads"), int):
        num_heads = defaults["num_attention_heads"]
        notes.append(f"no num_attention_heads: {rule.config_class}'s default {num_heads}")  # type: ignore[union-attr]
        if num_kv is None:
            num_kv = defaults.get("num_key_value_heads")
    if num_kv is None:
        num_kv = num_heads

    # The base and the rotated fraction of each head: the config's keys, the family's
    # spellings (table aliases), then the config class's defaults.
    default_params = _default_params(rule, "full_attention")
    theta = text.get("rope_theta")
    if theta is None:
        spelled, theta = _alias(text, rule, "rope_theta")
        if spelled:
            notes.append(f"{spelled} read as rope_theta")
    theta_default = default_params.get("rope_theta")
    if theta_default is None:
        theta_default = defaults.get("rope_theta", _DEFAULT_THETA)
    partial = text.get("partial_rotary_factor")
    if partial is None:
        spelled, partial = _alias(text, rule, "partial_rotary_factor")
        if spelled:
            notes.append(f"{spelled} read as partial_rotary_factor")
    rotary_dim = None
    given_partial = partial
    if partial is None and params.get("partial_rotary_factor") is None:
        if not v5:  # transformers 5's rope dict already carries rotary_dim as a factor
            spelled, rotary_dim = _alias(text, rule, "rotary_dim")
        if partial is None and rotary_dim is None:
            partial = default_params.get("partial_rotary_factor")
            if partial is not None and partial != 1:
                spelled = next(
                    (k for k, v in rule.aliases.items() if v == "partial_rotary_factor"),  # type: ignore[union-attr]
                    "partial_rotary_factor",
                )
                notes.append(f"no {spelled}: {rule.config_class}'s default {partial:g}")  # type: ignore[union-attr]
    partial = 1.0 if partial is None else partial

    # Head sizes: DeepSeek's MLA rotates only part of each query/key head.
    head_rope: int | None = None
    if "deepseek_v4_groups" in rules:
        head_dim = rotary_head = _head_dim(text, rule, notes)
        if text.get("partial_rotary_factor") is None:
            rope_part = text.get("qk_rope_head_dim")
            partial = (
                64 / 512
                if rope_part is None
                else check_count(rope_part, "qk_rope_head_dim") / head_dim
            )
        notes.append(
            f"only int({head_dim} * {partial:g}) = {int(head_dim * partial)} coordinates "
            "of each q/k head rotate"
        )
    elif text.get("qk_rope_head_dim") is not None:
        head_rope = check_count(text["qk_rope_head_dim"], "qk_rope_head_dim", 0)
        rotary_head = head_rope
        head_dim = head_rope + check_count(text.get("qk_nope_head_dim", 0), "qk_nope_head_dim", 0)
        if head_rope and _mla_partial(text, params):
            # Mistral 4, dots.llm3: the rope dict's partial_rotary_factor applies to the
            # whole head (head_dim, else qk_nope + qk_rope), as their rotary class reads it
            if text.get("head_dim") is not None:
                head_dim = check_count(text["head_dim"], "head_dim")
            rotary_head = head_dim
            notes.append(f"partial_rotary_factor applies to the {head_dim}-wide q/k head")
        else:
            notes.append(
                f"only qk_rope_head_dim = {rotary_head} of each {head_dim}-wide q/k head rotates"
            )
    else:
        head_dim = rotary_head = _head_dim(text, rule, notes)
    if rotary_dim is not None:
        rotary_dim = check_count(rotary_dim, "rotary_dim")
        if not rotary_head:  # qk_rope_head_dim 0: no coordinate of the head rotates
            raise ValueError(
                f"rotary_dim = {rotary_dim} but qk_rope_head_dim is 0: the config gives a "
                "rotated part to a q/k head that has none"
            )
        partial = rotary_dim / rotary_head
        notes.append(f"rotary_dim = {rotary_dim} of each {rotary_head}-wide head rotates")

    def layer_config(flat: dict[str, Any], head: int | None = None) -> dict[str, Any]:
        if flat.get("rope_type") == "dynamic" and flat.get("alpha") and rule is not None:
            if rule.aliases.get("alpha") == "ntk_alpha":
                flat = _ntk_alpha(flat, rotary_head if head is None else head, notes)
        out: dict[str, Any] = {
            "head_dim": rotary_head if head is None else head,
            "max_position_embeddings": max_len,
            "rope_parameters": flat,
        }
        if flat["rope_type"] in _ORIGINAL_LENGTH_TYPES:
            top = text.get("original_max_position_embeddings")
            if top is not None:
                out["original_max_position_embeddings"] = top
                if flat.get("original_max_position_embeddings") not in (None, top):
                    notes.append(
                        "top-level original_max_position_embeddings overrides the rope dict's"
                    )
            elif flat.get("original_max_position_embeddings") is None and max_len is not None:
                flat["original_max_position_embeddings"] = max_len
                notes.append("no original_max_position_embeddings: max_position_embeddings used")
        return out

    layer_types = _layer_names(text, rule, num_layers, notes)
    kinds, reasons = _layer_kinds(text, rule, num_layers, layer_types, head_rope)
    nested = _nested_layer_types(params, text)
    if layer_types and "deepseek_v4_groups" not in rules:
        unused = [k for k in nested if k not in layer_types]
        if unused and len(unused) < len(nested):
            # transformers builds a rotary embedding per layer type the model has (Laguna,
            # Mellum: a sliding rope dict but every default layer full)
            notes.append(f"rope dicts of layer types no layer has: {', '.join(unused)}")
            nested = [k for k in nested if k in layer_types]
    default_nested = {
        k: v for k, v in (defaults.get("rope_parameters") or {}).items() if isinstance(v, Mapping)
    }
    per_layer_bases = text.get("layer_rope_theta")
    layers: list[LayerRope] = []
    if kinds and "rope" not in kinds:
        pass  # no layer rotates: no base is invented
    elif nested:
        for name in nested:
            type_defaults = _default_params(rule, name)
            flat = _flat_params(
                params[name],
                model_type=model_type,
                theta=type_defaults.get("rope_theta", _DEFAULT_THETA),
                partial=(
                    given_partial
                    if given_partial is not None
                    else type_defaults.get("partial_rotary_factor", 1.0)
                ),
                notes=notes,
            )
            index = _group_layers(name, layer_types, model_type)
            head = None
            if name == "full_attention" and (
                text.get("global_head_dim") is not None or "global_head_dim" in rules
            ):
                head = check_count(text.get("global_head_dim", _GLOBAL_HEAD_DIM), "global_head_dim")
                notes.append(f"full-attention layers use global_head_dim = {head}")
            layers.append(LayerRope(name, index, layer_config(flat, head)))
    elif "deepseek_v4_groups" in rules:
        layers += _deepseek_v4_groups(
            text, params, theta, partial, layer_types, model_type, notes, layer_config
        )
    elif "full_only_scaling" in rules and "sliding_attention" in layer_types:
        sliding_theta = float(theta_default)
        full_theta = theta if theta is not None else sliding_theta
        notes.append(
            f"rope_scaling applies to the full-attention layers only; sliding layers: "
            f"plain RoPE, base {sliding_theta:,.0f} (the config class's default)"
        )
        full = _flat_params(
            params, model_type=model_type, theta=full_theta, partial=partial, notes=notes
        )
        layers += _scaled_full_plain_sliding(
            layer_types, full, sliding_theta, partial, layer_config
        )
    elif "sliding_attention" in default_nested and "sliding_attention" in layer_types:
        # a flat rope dict in a family whose layer types have their own: it is the full
        # layers'; the sliding layers read their base under its own key (Gemma 3's
        # rope_local_base_freq), else the class's default (Gemma3TextConfig)
        full_theta = theta if theta is not None else theta_default
        if theta is None:
            notes.append(
                f"no rope_theta: {rule.config_class}'s default {full_theta:,.0f} "  # type: ignore[union-attr]
                "for full-attention layers"
            )
        spelled, local = _alias(text, rule, "sliding_attention.rope_theta")
        local_default = default_nested["sliding_attention"].get("rope_theta", _DEFAULT_THETA)
        local_theta = local if spelled else local_default
        notes.append(
            f"{spelled} read as the sliding layers' rope_theta"
            if spelled
            else f"no sliding base: {rule.config_class}'s default {local_default:,.0f} "  # type: ignore[union-attr]
            "for sliding layers"
        )
        full = _flat_params(
            params, model_type=model_type, theta=full_theta, partial=partial, notes=notes
        )
        layers += _scaled_full_plain_sliding(layer_types, full, local_theta, partial, layer_config)
    elif isinstance(per_layer_bases, list) and len({b for b in per_layer_bases if b}) > 1:
        # one rotary embedding per distinct non-zero base (GraniteSWAModel, modeling_granite_swa.py)
        for value in sorted({float(b) for b in per_layer_bases if b}):
            flat = _flat_params(
                params, model_type=model_type, theta=value, partial=partial, notes=notes
            )
            flat["rope_theta"] = value
            index = tuple(i for i, b in enumerate(per_layer_bases) if b and float(b) == value)
            layers.append(LayerRope(f"rope_theta {value:g}", index, layer_config(flat)))
    else:
        if isinstance(per_layer_bases, list) and any(per_layer_bases) and theta is None:
            theta = next(float(b) for b in per_layer_bases if b)
        if theta is None:
            theta = theta_default
        flat = _flat_params(
            params, model_type=model_type, theta=theta, partial=partial, notes=notes
        )
        index = tuple(range(num_layers)) if num_layers is not None else ()
        layers.append(LayerRope("all", index, layer_config(flat)))

    nope = tuple(i for i, k in enumerate(kinds) if k != "rope")
    if nope:
        notes.append(f"{len(nope)} layers apply no rotary embedding ({'; '.join(reasons)})")
        layers = [
            LayerRope(e.layer_type, tuple(i for i in e.layers if i not in nope), e.config)
            for e in layers
        ]

    temperature = None
    if "llama4_query_temperature" in rules:
        temperature = _llama4_query_temperature(text, nope)
    beta = params.get("llama_4_scaling_beta")
    if beta:
        original = params.get("original_max_position_embeddings") or max_len
        temperature = QueryTemperature(
            source="llama_4_scaling_beta",
            beta=float(beta),
            length=check_count(original, "original_max_position_embeddings"),
            offset=0,
            layers=tuple(range(num_layers)) if num_layers is not None else (),
        )

    softmax_scale = 1.0
    if "mla_softmax_scale" in rules and layers:
        softmax_scale = _mla_softmax_scale(layers[0].rope_parameters)

    return RopeFields(
        model_type=model_type,
        spelling=spelling,
        head_dim=head_dim,
        num_heads=None if num_heads is None else int(num_heads),
        num_kv_heads=None if num_kv is None else int(num_kv),
        num_layers=num_layers,
        max_position_embeddings=max_len,
        layers=tuple(layers),
        nope_layers=nope,
        softmax_scale=softmax_scale,
        query_temperature=temperature,
        notes=tuple(dict.fromkeys(notes)),
        nope_reasons=tuple(reasons),
        layer_kinds=tuple(kinds) if set(kinds) - {"rope"} else (),
    )


# --- the named rules of RULES ------------------------------------------------------------------


def _deepseek_v4_groups(
    text: Mapping[str, Any],
    params: Mapping[str, Any],
    theta: Any,
    partial: float,
    layer_types: list[str],
    model_type: str,
    notes: list[str],
    layer_config: Any,
) -> list[LayerRope]:
    """``deepseek_v4_groups``: sliding layers plain RoPE at ``rope_theta`` (``main``),
    compressed layers ``rope_scaling`` at ``compress_rope_theta`` with cos/sin x 1
    (``compress``); DeepseekV4RotaryEmbedding, modeling_deepseek_v4.py."""
    main = {
        "rope_type": "default",
        "rope_theta": _DEFAULT_THETA if theta is None else theta,
        "partial_rotary_factor": partial,
    }
    compress = _flat_params(
        params,
        model_type=model_type,
        theta=text.get("compress_rope_theta", 160_000.0),
        partial=partial,
        notes=notes,
    )
    compress["rope_theta"] = text.get("compress_rope_theta", 160_000.0)
    if compress["rope_type"] == "yarn":
        compress.setdefault("attention_factor", 1.0)
    notes.append(
        "sliding layers: plain RoPE with rope_theta ('main'); compressed layers: "
        "rope_scaling with compress_rope_theta and cos/sin x 1 ('compress')"
    )
    return [
        LayerRope(name, _group_layers(name, layer_types, model_type), layer_config(flat))
        for name, flat in (("main", main), ("compress", compress))
    ]


def _llama4_query_temperature(
    text: Mapping[str, Any], nope: tuple[int, ...]
) -> QueryTemperature | None:
    """``llama4_query_temperature``: Llama4TextAttention scales the queries of its NoPE
    layers by ``1 + attn_scale ln(1 + floor((m + 1) / floor_scale))`` (modeling_llama4.py)."""
    if not text.get("attn_temperature_tuning", True):
        return None
    return QueryTemperature(
        source="attn_temperature_tuning",
        beta=float(text.get("attn_scale", 0.1)),
        length=check_count(text.get("floor_scale", 8192), "floor_scale"),
        offset=1,
        layers=nope,
    )


def _mla_softmax_scale(flat: Mapping[str, Any]) -> float:
    r"""``mla_softmax_scale``: DeepseekV3Attention multiplies :math:`1/\sqrt{d_{qk}}` by
    :math:`m^2`, :math:`m = 0.1\,\mu_{\text{all}} \ln s + 1`, under YaRN with
    ``mscale_all_dim`` (modeling_deepseek_v3.py)."""
    mscale_all_dim = flat.get("mscale_all_dim") or 0
    factor = flat.get("factor")
    if flat["rope_type"] != "default" and mscale_all_dim and factor and factor > 1:
        m = 0.1 * float(mscale_all_dim) * math.log(float(factor)) + 1.0
        return m * m
    return 1.0


def v5_rope_parameters(config: Any) -> dict[str, Any]:
    """The transformers 5 spelling of a config's rope settings: its ``rope_parameters``.

    A flat dict with ``rope_type`` and ``rope_theta`` (and ``partial_rotary_factor`` when it
    is not 1) for single-type models; a dict of such dicts keyed by layer type for Gemma 3
    and other per-layer-type models. Extra keys of the released dict are kept as they are.
    """
    fields = normalize_config(config)

    def clean(entry: LayerRope) -> dict[str, Any]:
        flat = dict(entry.rope_parameters)
        if flat.get("partial_rotary_factor") == 1.0:
            flat.pop("partial_rotary_factor")
        top = entry.config.get("original_max_position_embeddings")
        if top is not None:
            flat["original_max_position_embeddings"] = top
        return flat

    if len(fields.layers) == 1 and fields.layers[0].layer_type == "all":
        return clean(fields.layers[0])
    return {entry.layer_type: clean(entry) for entry in fields.layers}
