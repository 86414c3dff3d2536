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

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._checks import check_count, check_finite_array

__all__ = [
    "LEGACY_TYPE_NAMES",
    "LayerRope",
    "QueryTemperature",
    "RopeFields",
    "as_mapping",
    "normalize_config",
    "v5_rope_parameters",
]

#: Legacy rope type names and what transformers reads them as.
LEGACY_TYPE_NAMES = {"su": "longrope", "mrope": "default"}

_PHI3_TYPES = ("phi3", "phi4_multimodal")
_GEMMA3_TYPES = ("gemma3", "gemma3_text", "gemma3n", "gemma3n_text")
# OLMo 3's config class gives rope_scaling to the full-attention layers only; its sliding
# layers keep plain RoPE with the class's default base (the released rope_theta is consumed
# by the full layers first), in transformers 5.23's Olmo3Config.convert_rope_params_to_dict.
_FULL_ONLY_SCALING = {"olmo3": 500_000.0}
# Layer types whose blocks are not softmax attention, so apply no RoPE (Qwen3-Next's and
# Qwen3.5's Gated DeltaNet, OLMo-Hybrid's linear attention, Mamba and convolution blocks).
_NON_ATTENTION_LAYER_TYPES = ("linear_attention", "mamba", "conv")
# Families whose full-attention layers skip RoPE (Cohere 2 / Command A always; EXAONE 4 when
# it has a sliding window): the attention pattern decides, not a per-layer flag.
_NOPE_FULL_ATTENTION = {"cohere2": False, "exaone4": True}
# Families with a default NoPE interval when no_rope_layers is absent (every interval-th
# layer skips RoPE): Llama 4 and SmolLM3.
_NOPE_INTERVAL_TYPES = ("llama4_text", "smollm3")
_DEEPSEEK_TYPES = ("deepseek_v2", "deepseek_v3", "kimi_k2")  # Kimi K2: DeepSeek-V3's code
_ORIGINAL_LENGTH_TYPES = ("yarn", "longrope", "llama3")
# transformers' model-specific defaults for a missing base.
_GEMMA3_THETA = {"full_attention": 1_000_000.0, "sliding_attention": 10_000.0}


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


def _text_config(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    text = raw.get("text_config")
    return text if isinstance(text, Mapping) else raw


def _model_type(raw: Mapping[str, Any], text: Mapping[str, Any]) -> str:
    return str(text.get("model_type") or raw.get("model_type") or "unknown")


def _head_dim(text: Mapping[str, Any]) -> int:
    if text.get("head_dim") is not None:
        return check_count(text["head_dim"], "head_dim")
    hidden, heads = text.get("hidden_size"), text.get("num_attention_heads")
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
    if model_type in _PHI3_TYPES and name == "yarn":
        renamed = "longrope"
    if renamed is not None:
        notes.append(f"legacy rope type {name!r} read as {renamed!r}")
        return renamed
    return name


def _nested_layer_types(params: Mapping[str, Any], text: Mapping[str, Any]) -> list[str]:
    """Keys of ``params`` that are layer types holding their own rope dict."""
    declared = set(text.get("layer_types") or ()) | {"full_attention", "sliding_attention"}
    declared |= {"main", "compress"}  # DeepSeek-V4's rope groups (not layer types)
    return [k for k, v in params.items() if k in declared and isinstance(v, Mapping)]


def _layer_types(text: Mapping[str, Any], model_type: str, num_layers: int | None) -> list[str]:
    if text.get("layer_types"):
        return [str(t) for t in text["layer_types"]]
    if model_type in ("qwen3_next",) and num_layers is not None:
        interval = check_count(text.get("full_attention_interval", 4), "full_attention_interval")
        return [
            "linear_attention" if (i + 1) % interval else "full_attention"
            for i in range(num_layers)
        ]
    if model_type == "deepseek_v4" and num_layers is not None:
        ratios = text.get("compress_ratios")
        if ratios:  # the released spelling: 0 sliding only, 4 CSA, 128 HCA
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
    if model_type == "olmo3" and num_layers is not None:  # Olmo3Config: every fourth full
        return ["sliding_attention" if (i + 1) % 4 else "full_attention" for i in range(num_layers)]
    if model_type in ("cohere2", "exaone4") and num_layers is not None:
        if model_type == "exaone4" and text.get("sliding_window") is None:
            return ["full_attention"] * num_layers
        pattern = text.get("sliding_window_pattern", 4)
        if isinstance(pattern, str):  # EXAONE 4 also spells it "LLLG"
            pattern = len(pattern)
        pattern = check_count(pattern, "sliding_window_pattern")
        return [
            "sliding_attention" if (i + 1) % pattern else "full_attention"
            for i in range(num_layers)
        ]
    if model_type in _GEMMA3_TYPES and num_layers is not None:
        default = 5 if model_type.startswith("gemma3n") else 6
        pattern = int(
            text.get("sliding_window_pattern") or text.get("_sliding_window_pattern") or default
        )
        return [
            "sliding_attention" if (i + 1) % pattern else "full_attention"
            for i in range(num_layers)
        ]
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
    if model_type == "deepseek_v4" and name in ("main", "compress"):
        main = name == "main"
        return tuple(i for i, t in enumerate(layer_types) if (t == "sliding_attention") == main)
    return tuple(i for i, t in enumerate(layer_types) if t == name)


def _nope_layers(
    text: Mapping[str, Any], model_type: str, num_layers: int | None, layer_types: list[str]
) -> tuple[tuple[int, ...], list[str]]:
    """Layers that apply no RoPE, and why (transformers 5.23's modeling files)."""
    nope: set[int] = set()
    reasons: list[str] = []
    if text.get("no_rope_layers"):
        flagged = {i for i, use in enumerate(text["no_rope_layers"]) if not use}
        if flagged:
            nope |= flagged
            reasons.append("no_rope_layers")
    elif model_type in _NOPE_INTERVAL_TYPES and num_layers is not None:
        interval = check_count(text.get("no_rope_layer_interval", 4), "no_rope_layer_interval")
        nope |= {i for i in range(num_layers) if (i + 1) % interval == 0}
        reasons.append(f"every {interval}th layer, no_rope_layer_interval")
    blocks = {i for i, t in enumerate(layer_types) if t in _NON_ATTENTION_LAYER_TYPES}
    if blocks:
        nope |= blocks
        kinds = sorted({layer_types[i] for i in blocks})
        reasons.append(f"{', '.join(kinds)} blocks have no positions to rotate")
    if model_type in _NOPE_FULL_ATTENTION:
        needs_window = _NOPE_FULL_ATTENTION[model_type]
        if not needs_window or text.get("sliding_window") is not None:
            full = {i for i, t in enumerate(layer_types) if t == "full_attention"}
            if full:
                nope |= full
                reasons.append(f"{model_type}'s full-attention layers skip RoPE")
    return tuple(sorted(nope)), reasons


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


def normalize_config(config: Any) -> RopeFields:
    """Read a released ``config.json`` (or a transformers config) into :class:`RopeFields`.

    See the module docstring for every rule. The input is not modified.

    Raises:
        ValueError: if the head size cannot be found or a count is not a positive integer.
    """
    raw = as_mapping(config)
    text = _text_config(raw)
    model_type = _model_type(raw, text)
    notes: list[str] = []
    if text is not raw:
        notes.append("fields read from text_config")

    v5 = text.get("rope_parameters") is not None and not text.get("rope_scaling")
    spelling = "transformers 5" if v5 else "transformers 4"
    key = "rope_scaling" if text.get("rope_scaling") else "rope_parameters"
    params = text.get(key) or {}
    if not isinstance(params, Mapping):
        raise ValueError(f"{key} must be a dict of rope parameters, got {params!r}")
    params = dict(params)

    num_layers = text.get("num_hidden_layers")
    num_layers = None if num_layers is None else check_count(num_layers, "num_hidden_layers")
    max_len = text.get("max_position_embeddings")
    max_len = None if max_len is None else check_count(max_len, "max_position_embeddings")
    num_heads = text.get("num_attention_heads")
    num_kv = text.get("num_key_value_heads", num_heads)

    # The base and the rotated fraction of each head, with each model's spelling.
    theta = text.get("rope_theta")
    partial = text.get("partial_rotary_factor")
    if model_type == "gpt_neox":
        if theta is None and text.get("rotary_emb_base") is not None:
            theta = text["rotary_emb_base"]
            notes.append("rotary_emb_base read as rope_theta")
        if partial is None:
            partial = text.get("rotary_pct", 0.25)
            notes.append(
                "rotary_pct read as partial_rotary_factor"
                if "rotary_pct" in text
                else "no rotary_pct: GPT-NeoX's default 0.25"
            )
    if partial is None and model_type == "qwen3_next":
        partial = 0.25  # Qwen3NextConfig's default
        notes.append("no partial_rotary_factor: Qwen3-Next's default 0.25")
    partial = 1.0 if partial is None else partial

    # Head sizes: DeepSeek's MLA rotates only part of each query/key head.
    if model_type == "deepseek_v4":
        head_dim = rotary_head = _head_dim(text)
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
        rotary_head = check_count(text["qk_rope_head_dim"], "qk_rope_head_dim")
        head_dim = rotary_head + check_count(text.get("qk_nope_head_dim", 0), "qk_nope_head_dim", 0)
        notes.append(
            f"only qk_rope_head_dim = {rotary_head} of each {head_dim}-wide q/k head rotates"
        )
    else:
        head_dim = rotary_head = _head_dim(text)

    def layer_config(flat: dict[str, Any], head: int | None = None) -> dict[str, Any]:
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

    layer_types = _layer_types(text, model_type, num_layers)
    nested = _nested_layer_types(params, text)
    layers: list[LayerRope] = []
    if nested:
        for name in nested:
            flat = _flat_params(
                params[name],
                model_type=model_type,
                theta=_GEMMA3_THETA.get(name, 10_000.0)
                if model_type in _GEMMA3_TYPES
                else 10_000.0,
                partial=partial,
                notes=notes,
            )
            index = _group_layers(name, layer_types, model_type)
            head = None
            if name == "full_attention" and (
                text.get("global_head_dim") is not None or model_type.startswith("gemma4")
            ):
                head = check_count(text.get("global_head_dim", 512), "global_head_dim")
                notes.append(f"full-attention layers use global_head_dim = {head}")
            layers.append(LayerRope(name, index, layer_config(flat, head)))
    elif model_type == "deepseek_v4":
        main = {
            "rope_type": "default",
            "rope_theta": 10_000.0 if theta is None else theta,
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
        for name, flat in (("main", main), ("compress", compress)):
            index = _group_layers(name, layer_types, model_type)
            layers.append(LayerRope(name, index, layer_config(flat)))
    elif model_type in _FULL_ONLY_SCALING and "sliding_attention" in layer_types:
        full_theta = theta if theta is not None else _FULL_ONLY_SCALING[model_type]
        sliding_theta = _FULL_ONLY_SCALING[model_type]
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
    elif model_type in _GEMMA3_TYPES:
        full_theta = theta if theta is not None else _GEMMA3_THETA["full_attention"]
        local = text.get("rope_local_base_freq")
        local_theta = local if local is not None else _GEMMA3_THETA["sliding_attention"]
        if theta is None:
            notes.append("no rope_theta: Gemma 3's default 1e6 for full-attention layers")
        notes.append(
            "rope_local_base_freq read as the sliding layers' rope_theta"
            if local is not None
            else "no rope_local_base_freq: Gemma 3's default 1e4 for sliding layers"
        )
        full = _flat_params(
            params, model_type=model_type, theta=full_theta, partial=partial, notes=notes
        )
        layers += _scaled_full_plain_sliding(layer_types, full, local_theta, partial, layer_config)
    else:
        if theta is None:
            theta = 10_000.0
        flat = _flat_params(
            params, model_type=model_type, theta=theta, partial=partial, notes=notes
        )
        index = tuple(range(num_layers)) if num_layers is not None else ()
        layers.append(LayerRope("all", index, layer_config(flat)))

    # Layers without any rotary embedding: a per-layer flag (Llama 4, SmolLM3:
    # no_rope_layers[i] == 0), or the attention pattern (linear-attention blocks; Cohere 2's
    # and EXAONE 4's full-attention layers).
    nope, reasons = _nope_layers(text, model_type, num_layers, layer_types)
    if nope:
        notes.append(f"{len(nope)} layers apply no rotary embedding ({'; '.join(reasons)})")
        layers = [
            LayerRope(e.layer_type, tuple(i for i in e.layers if i not in nope), e.config)
            for e in layers
        ]

    temperature = None
    if model_type == "llama4_text" and text.get("attn_temperature_tuning", True):
        temperature = QueryTemperature(
            source="attn_temperature_tuning",
            beta=float(text.get("attn_scale", 0.1)),
            length=check_count(text.get("floor_scale", 8192), "floor_scale"),
            offset=1,
            layers=nope,
        )
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
    if model_type in _DEEPSEEK_TYPES:
        flat = layers[0].rope_parameters
        mscale_all_dim = flat.get("mscale_all_dim") or 0
        factor = flat.get("factor")
        if flat["rope_type"] != "default" and mscale_all_dim and factor and factor > 1:
            m = 0.1 * float(mscale_all_dim) * math.log(float(factor)) + 1.0
            softmax_scale = m * m

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
    )


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
