r"""A config's rotary embedding in llama.cpp's GGUF metadata, and back (chapter 8A).

llama.cpp does not read ``config.json``: its converter (``convert_hf_to_gguf.py``) writes the
rope settings into the GGUF file as key/value metadata named ``{arch}.rope.*`` and, where a
rope type needs a number per plane, as small tensors. This module writes what that converter
writes for a config, in the key names of ``gguf-py`` (``gguf.Keys.Rope``, restated in
:data:`ROPE_KEYS`), and reads a file back into the frequencies llama.cpp computes from it:

* ``{arch}.rope.freq_base`` (:math:`\beta`): the ``rope_theta`` of the ``full_attention``
  rope group, else of the top-level rope parameters (the converter copies a top-level
  ``rope_theta`` into them); none when the config has none (llama.cpp then uses 10,000).
  Gemma 3 always writes it (default :math:`10^6`); Phi-2 and GPT-NeoX never do.
* ``{arch}.rope.freq_base_swa``: the ``sliding_attention`` group's ``rope_theta`` (Gemma 3's
  ``rope_local_base_freq`` becomes that group).
* ``{arch}.rope.dimension_count`` (the rotated dimension *d*): written only by the converter
  classes in :data:`DIMENSION_COUNT`; without it llama.cpp rotates the whole head.
* ``{arch}.rope.dimension_sections``: M-RoPE's ``mrope_section``, padded with zeros to four.
* ``{arch}.rope.scaling.type`` (``linear``, ``yarn``, ``longrope``), ``.scaling.factor``,
  ``.scaling.original_context_length``; for YaRN also ``.scaling.yarn_attn_factor``,
  ``.scaling.yarn_beta_fast``, ``.scaling.yarn_beta_slow`` and ``.scaling.yarn_ext_factor``
  *only* when the config spells them, and DeepSeek's ``.scaling.yarn_log_multiplier``
  (:math:`0.1\,\mu_{\text{all}}`; Ministral 3 writes :math:`\mu_{\text{all}}` itself).
* Llama 3.1 scaling has no scaling type in GGUF: the Llama converter stores its per-plane
  divisors as the tensor ``rope_freqs.weight``, :math:`f_i = \theta_i / \theta'_i`.
  LongRoPE (Phi-3) has none either: the Phi-3 converter writes ``rope_factors_long.weight``
  and ``rope_factors_short.weight`` and ``.scaling.attn_factor``
  :math:`= \sqrt{1 + \ln s / \ln L}` with :math:`s` = ``max_position_embeddings`` / *L*.

What llama.cpp does with a file (:func:`frequencies_from_gguf`,
:func:`llamacpp_attention_factor`) is not what the config says in two places: the loader reads
``yarn_beta_fast``/``yarn_beta_slow`` only for Grok and Mistral 3 (every other architecture
uses 32 and 1), and ``yarn_attn_factor`` only for Grok; YaRN's attention factor is computed,
``.scaling.attn_factor`` (default 1) × :math:`(1 + 0.1 \ln s)`.

:func:`gguf_rope_metadata` builds the record, :func:`write_gguf` and :func:`read_gguf_rope`
round-trip it through a real GGUF file with the ``gguf`` package's ``GGUFWriter`` and
``GGUFReader``.

Source: llama.cpp release v0.4.0 (squashed commit 80fb11ac73e66d89eae2c6a91d8a77428fa733ed),
as npm ``node-llama-cpp`` 3.21.1 ships it in ``llama/gitRelease.bundle`` (``make llamacpp``).
*Measured* (``tools/llamacpp_measure.py`` converted tiny transformers models with that
release's ``convert_hf_to_gguf.py`` and ran them; ``src/ropelab/measured/llamacpp.json``):
the keys and tensors written for the architectures llama (linear, YaRN with and without
attention factor and betas, Llama 3.1), qwen2, qwen3 (YaRN), phi2 (partial rotation),
gemma3 (two bases) and qwen2vl (M-RoPE), and that llama.cpp's log-probabilities for YaRN
match transformers' with betas 32/1 and the computed attention factor, not the file's.
*Read from the source* (everything else): the generic rope keys in
``conversion/base.py`` (``TextModel.__init__`` and ``set_gguf_parameters``), the classes in
``conversion/llama.py``, ``qwen.py``, ``phi.py``, ``gemma.py``, ``deepseek.py``, ``glm.py``,
``gptneox.py``, ``mistral3.py``, the key names in ``gguf-py/gguf/constants.py``, and the
loader in ``src/llama-model.cpp``, ``src/llama-context.cpp``, ``src/models/deepseek2.cpp``,
``src/models/grok.cpp``, ``src/models/mistral3.cpp`` and ``ggml/src/ggml-cpu/ops.cpp``
(``rope_yarn``). Only the rope metadata is written: no weights. Explained in chapter 8A.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .config_fields import LEGACY_TYPE_NAMES, as_mapping, normalize_config
from .core import inv_freq
from .rope_config import ROPE_TYPES, RopeSpec, RopeType, frequencies_from_config

__all__ = [
    "ARCHITECTURES",
    "DIMENSION_COUNT",
    "LLAMA_CPP_ROPE_MODES",
    "ROPE_KEYS",
    "GGUFRope",
    "frequencies_from_gguf",
    "gguf_rope_metadata",
    "llamacpp_attention_factor",
    "llamacpp_softmax_scale",
    "read_gguf_rope",
    "write_gguf",
]

#: ``model_type`` → llama.cpp's architecture name (``gguf.MODEL_ARCH_NAMES``); others keep
#: their model type.
ARCHITECTURES = {
    "llama": "llama",
    "mistral": "llama",
    "cohere": "command-r",
    "qwen2": "qwen2",
    "qwen2_moe": "qwen2moe",
    "qwen3": "qwen3",
    "qwen3_moe": "qwen3moe",
    "qwen3_next": "qwen3next",
    "qwen2_vl": "qwen2vl",
    "qwen2_vl_text": "qwen2vl",
    "qwen2_5_vl": "qwen2vl",
    "qwen2_5_vl_text": "qwen2vl",
    "qwen3_vl": "qwen3vl",
    "qwen3_vl_text": "qwen3vl",
    "deepseek_v2": "deepseek2",
    "deepseek_v3": "deepseek2",
    "kimi_k2": "deepseek2",
    "glm4_moe": "glm4moe",
    "smollm3": "smollm3",
    "phi": "phi2",
    "phi3": "phi3",
    "olmo2": "olmo2",
    "olmo3": "olmo2",
    "gpt_oss": "gpt-oss",
    "gemma3_text": "gemma3",
    "gemma3n_text": "gemma3n",
    "llama4_text": "llama4",
    "gpt_neox": "gptneox",
    "ministral3": "mistral3",
}

#: The ``gguf.Keys.Rope`` key names (``gguf-py/gguf/constants.py``), so that the record needs
#: no ``gguf`` package; ``tests/test_gguf_meta.py`` checks them against the package.
ROPE_KEYS = {
    "DIMENSION_COUNT": "{arch}.rope.dimension_count",
    "DIMENSION_SECTIONS": "{arch}.rope.dimension_sections",
    "FREQ_BASE": "{arch}.rope.freq_base",
    "FREQ_BASE_SWA": "{arch}.rope.freq_base_swa",
    "SCALING_TYPE": "{arch}.rope.scaling.type",
    "SCALING_FACTOR": "{arch}.rope.scaling.factor",
    "SCALING_ATTN_FACTOR": "{arch}.rope.scaling.attn_factor",
    "SCALING_ORIG_CTX_LEN": "{arch}.rope.scaling.original_context_length",
    "SCALING_YARN_LOG_MUL": "{arch}.rope.scaling.yarn_log_multiplier",
    "SCALING_YARN_EXT_FACTOR": "{arch}.rope.scaling.yarn_ext_factor",
    "SCALING_YARN_ATTN_FACTOR": "{arch}.rope.scaling.yarn_attn_factor",
    "SCALING_YARN_BETA_FAST": "{arch}.rope.scaling.yarn_beta_fast",
    "SCALING_YARN_BETA_SLOW": "{arch}.rope.scaling.yarn_beta_slow",
}

#: Who writes ``{arch}.rope.dimension_count``, and how (v0.4.0's converter classes). ``None``:
#: the class never calls ``add_rope_dimension_count``, and llama.cpp rotates the whole head
#: (``{arch}.attention.key_length``, else embedding length / head count). An architecture
#: missing here is not restated: only ``TextModel``'s generic keys are written for it.
DIMENSION_COUNT: dict[str, str | None] = {
    # conversion/llama.py, LlamaModel and its subclasses (conversion/mistral3.py: Ministral3)
    "llama": "head_dim, else hidden_size // num_attention_heads (LlamaModel)",
    "llama4": "head_dim, else hidden_size // num_attention_heads (LlamaModel)",
    "smollm3": "head_dim, else hidden_size // num_attention_heads (LlamaModel)",
    "mistral3": "head_dim, else hidden_size // num_attention_heads (LlamaModel)",
    "deepseek2": "qk_rope_head_dim (conversion/deepseek.py, DeepseekV2Model)",
    "glm4moe": "int(head * partial_rotary_factor), default 0.5 (conversion/glm.py)",
    "qwen3next": "int(head * partial_rotary_factor), default 0.25 (conversion/qwen.py)",
    "phi2": "int(partial_rotary_factor * hidden_size) // num_attention_heads (conversion/phi.py)",
    "phi3": "int(partial_rotary_factor * hidden_size) // num_attention_heads, default 1",
    "gptneox": "int(rotary_pct * (hidden_size // num_attention_heads)) (conversion/gptneox.py)",
    "qwen2": None,
    "qwen2moe": None,
    "qwen3": None,
    "qwen3moe": None,
    "qwen2vl": None,
    "gemma3": None,
    "gemma3n": None,
    "olmo2": None,
    "gpt-oss": None,
}

#: Classes whose ``set_gguf_parameters`` does not call ``TextModel``'s: none of the generic
#: rope keys (conversion/phi.py's Phi2Model and Phi3MiniModel, conversion/gptneox.py).
_OWN_KEYS = ("phi2", "phi3", "gptneox")
#: LlamaModel's classes: ``rope_freqs.weight`` for Llama 3.1 scaling (generate_extra_tensors).
_LLAMA_CLASSES = ("llama", "llama4", "smollm3", "mistral3")
#: The loader reads ``yarn_beta_fast``/``yarn_beta_slow`` only for these (src/models/*.cpp).
_READS_BETAS = ("grok", "mistral3")
#: The sliding layers' base without ``freq_base_swa`` (None: ``freq_base``), unscaled
#: (src/llama-hparams.h's default 10,000; src/models/olmo2.cpp copies the base).
_SWA_DEFAULT_BASE = {"gemma3": 10000.0, "olmo2": None}
#: ... ``yarn_log_multiplier`` only for these (deepseek2.cpp divides it by 0.1 again).
_READS_LOG_MUL = ("deepseek2", "mistral3")


#: How llama.cpp pairs the rotated coordinates, by architecture (``llama_model_rope_type`` in
#: ``src/llama-model.cpp`` of llama.cpp release v0.4.0, the source node-llama-cpp 3.21.1
#: ships): ``NORM`` rotates consecutive pairs (the interleaved layout), ``NEOX`` pairs
#: coordinate *i* with *i* + d/2 (the half split), ``MROPE`` turns Qwen2-VL's sections by
#: different position axes, ``IMROPE`` interleaves them plane by plane (Qwen3-VL, Qwen3.5).
#: Measured in chapter 8A's runs (``ropelab/measured/llamacpp.json``): llama (its converter
#: permutes the query rows, and the logits then agree with transformers'), qwen2, qwen3,
#: phi2, gemma3, qwen2vl, qwen3vl and command-r (no permutation, logits agree: Cohere's
#: transformers code already rotates adjacent pairs); the rest are read from
#: that function. glm4moe is ``MROPE`` when its file has rope sections.
LLAMA_CPP_ROPE_MODES = {
    "llama": "NORM",
    "llama4": "NORM",
    "smollm3": "NORM",
    "mistral3": "NORM",
    "deepseek2": "NORM",
    "cohere2": "NORM",
    "command-r": "NORM",
    "qwen2": "NEOX",
    "qwen3": "NEOX",
    "qwen3moe": "NEOX",
    "qwen3next": "NEOX",
    "olmo2": "NEOX",
    "phi2": "NEOX",
    "phi3": "NEOX",
    "gemma3": "NEOX",
    "gemma3n": "NEOX",
    "gpt-oss": "NEOX",
    "glm4moe": "NEOX",
    "gptneox": "NEOX",
    "qwen2vl": "MROPE",
    "qwen3vl": "IMROPE",
    "qwen35": "IMROPE",
    "qwen35moe": "IMROPE",
}

_TENSORS = ("rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight")


@dataclass(frozen=True)
class GGUFRope:
    """The rope metadata of one model in GGUF form.

    Attributes:
        arch: llama.cpp's architecture name (the ``{arch}`` of every key).
        values: ``{key: value}`` with the full key names (``"llama.rope.freq_base"``), in the
            order the converter writes them.
        tensors: ``{name: float32 array}`` with the tensor names of the file:
            ``rope_freqs.weight``, ``rope_factors_long.weight``, ``rope_factors_short.weight``.
        notes: what GGUF cannot hold for this config, or where the converter stops.
        head_dim: the head size llama.cpp rotates when there is no ``dimension_count``
            (``{arch}.attention.key_length`` in a file); None when there is one.
    """

    arch: str
    values: dict[str, Any]
    tensors: dict[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    head_dim: int | None = None

    def key(self, name: str) -> str:
        """The full key of a ``gguf.Keys.Rope`` name: ``key("FREQ_BASE")``."""
        return _key(self.arch, name)


def _key(arch: str, name: str) -> str:
    return ROPE_KEYS[name].format(arch=arch)


def _hparams(config: Any) -> dict[str, Any]:
    """The converter's hparams: the config with ``text_config`` moved to the top level."""
    raw = dict(as_mapping(config))
    text = raw.get("text_config")
    if isinstance(text, Mapping):
        raw = {**raw, **text}
    return raw


def _find(hparams: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    """``find_hparam``: the value of the first key present (None when none is)."""
    for key in keys:
        if key in hparams:
            return hparams[key]
    return None


_GLOBAL_THETA = (
    "global_rope_theta",
    "rope_global_theta",
    "rope_theta_global",
    "rope_theta",
    "rotary_emb_base",
)
_LOCAL_THETA = (
    "local_rope_theta",
    "rope_local_theta",
    "rope_theta_local",
    "swa_rope_theta",
    "rope_local_base_freq",
)


def _rope_parameters(hparams: Mapping[str, Any]) -> dict[str, Any]:
    """``TextModel.__init__``'s ``self.rope_parameters`` (conversion/base.py): the config's
    rope dict with the top-level base, local base, type, partial factor and original length
    copied in when it has no per-layer-type groups."""
    params = hparams.get("rope_parameters", hparams.get("rope_scaling")) or {}
    params = dict(params)
    theta = _find(hparams, _GLOBAL_THETA)
    local = _find(hparams, _LOCAL_THETA)
    partial = _find(hparams, ("partial_rotary_factor", "rope_pct", "rope_percent"))
    original = _find(hparams, ("original_max_position_embeddings",))
    if "full_attention" not in params and "sliding_attention" not in params:
        if local is not None:
            params["sliding_attention"] = {"rope_theta": local}
        if "rope_theta" not in params and theta is not None:
            params["rope_theta"] = theta
        if "rope_type" not in params and params.get("type") is not None:
            params["rope_type"] = params["type"]
        if "partial_rotary_factor" not in params and partial is not None:
            params["partial_rotary_factor"] = partial
        if "original_max_position_embeddings" not in params and original is not None:
            params["original_max_position_embeddings"] = original
    return params


def _head(hparams: Mapping[str, Any]) -> int:
    """``head_dim``, else ``hidden_size // num_attention_heads`` (as the classes compute it)."""
    if hparams.get("head_dim") is not None:
        return int(hparams["head_dim"])
    return int(hparams["hidden_size"]) // int(hparams["num_attention_heads"])


def _rope_record(name: Any) -> RopeType | None:
    """The record of a rope type as the converter reads the name (legacy names such as
    ``"su"`` as transformers reads them); None for a name that is no rope type."""
    if not isinstance(name, str):
        return None
    return ROPE_TYPES.get(LEGACY_TYPE_NAMES.get(name, name))


def _scaling_keys(
    record: RopeType, main: Mapping[str, Any], put: Callable[[str, Any, type], None], notes: list
) -> None:
    """``TextModel.set_gguf_parameters``' scaling keys for a rope type (conversion/base.py):
    nothing unless every ``"gate"`` key is set, then ``.scaling.type`` and the record's
    :class:`ropelab.rope_config.GGUFKey` entries in order; the record's note."""
    if record.gguf_note is not None:
        notes.append(record.gguf_note)
    if record.gguf_scaling_type is None:
        return
    if any(key.when == "gate" and key.value(main) is None for key in record.gguf_keys):
        return
    put("SCALING_TYPE", record.gguf_scaling_type, str)
    for key in record.gguf_keys:
        value = key.value(main)
        if value is not None:
            put(key.name, value, int if key.kind == "int" else float)
        elif key.when == "needed":
            notes.append(f"{record.title} without {key.reads[0]}: the converter stops")


def gguf_rope_metadata(config: Any) -> GGUFRope:
    r"""The GGUF rope metadata llama.cpp's converter (release v0.4.0) writes for a config.

    The converter reads the config as it is: the ``full_attention`` rope group, else the
    top-level rope parameters, gives the main keys; keys the config does not spell are not
    written (llama.cpp's defaults apply). See the module docstring for each key and
    :data:`DIMENSION_COUNT` for the rotated dimension.

    Raises:
        ValueError: as :func:`ropelab.config_fields.normalize_config` does.
    """
    fields = normalize_config(config)
    hparams = _hparams(config)
    if _head_or_none(hparams) is None:
        # the converter reads AutoConfig(...).to_dict() (conversion/base.py, load_hparams):
        # the class's defaults fill what config.json omits, as normalize_config's table does
        hparams = {**hparams, "head_dim": fields.head_dim}
    arch = ARCHITECTURES.get(fields.model_type, fields.model_type)
    params = _rope_parameters(hparams)
    main = params.get("full_attention", params)
    main = main if isinstance(main, Mapping) else {}
    values: dict[str, Any] = {}
    tensors: dict[str, np.ndarray] = {}
    notes: list[str] = []
    rope_type = main.get("rope_type")
    if main.get("truncate") is False:
        notes.append("truncate false: GGUF has no key for it; read back, the ramp is rounded")

    def put(name: str, value: Any, kind: type) -> None:
        values[_key(arch, name)] = kind(value)

    if arch not in _OWN_KEYS:  # TextModel.set_gguf_parameters (conversion/base.py)
        record = _rope_record(rope_type)
        if record is not None:
            _scaling_keys(record, main, put, notes)
        if "mrope_section" in params:
            sections = [int(x) for x in params["mrope_section"]]
            put("DIMENSION_SECTIONS", [*sections, 0, 0, 0, 0][:4], list)
        if main.get("rope_theta") is not None:
            put("FREQ_BASE", main["rope_theta"], float)
        sliding = params.get("sliding_attention")
        if isinstance(sliding, Mapping) and sliding.get("rope_theta") is not None:
            put("FREQ_BASE_SWA", sliding["rope_theta"], float)
        if arch not in DIMENSION_COUNT:
            notes.append(f"{arch}: the converter class is not restated, only the generic keys")

    # The classes' own keys (conversion/*.py).
    if arch in ("gemma3", "gemma3n"):
        theta = main.get("rope_theta", 1_000_000.0)
        put("FREQ_BASE", 1_000_000.0 if theta is None else theta, float)
    elif arch in _LLAMA_CLASSES:
        put("DIMENSION_COUNT", _head(hparams), int)
        record = _rope_record(str(rope_type or "").lower())
        if record is not None and record.gguf_tensor_values is not None and main:
            tensors[record.gguf_tensor] = record.gguf_tensor_values(main, _head(hparams))
        if arch == "mistral3" and hparams.get("model_type") == "ministral3":
            if params.get("mscale_all_dim") is not None:
                put("SCALING_YARN_LOG_MUL", params["mscale_all_dim"], float)
    elif arch == "deepseek2":
        if hparams.get("qk_rope_head_dim") is None:
            notes.append("DeepSeek 2 without qk_rope_head_dim: the converter stops")
        else:
            put("DIMENSION_COUNT", hparams["qk_rope_head_dim"], int)
        if params.get("mscale_all_dim") is not None:
            put("SCALING_YARN_LOG_MUL", 0.1 * float(params["mscale_all_dim"]), float)
    elif arch in ("glm4moe", "qwen3next"):
        partial = params.get("partial_rotary_factor")
        if partial is None:
            partial = 0.5 if arch == "glm4moe" else 0.25
        put("DIMENSION_COUNT", int(_head(hparams) * partial), int)
    elif arch == "phi2":
        if params.get("partial_rotary_factor") is None or _hidden(hparams) is None:
            notes.append("Phi-2 without partial_rotary_factor or hidden_size: the converter stops")
        else:
            hidden, heads = _hidden(hparams)
            put("DIMENSION_COUNT", int(params["partial_rotary_factor"] * hidden) // heads, int)
        notes.append("no freq_base: llama.cpp uses 10,000")
    elif arch == "gptneox":
        if hparams.get("rotary_pct") is None or _hidden(hparams) is None:
            notes.append("GPT-NeoX without rotary_pct or hidden_size: the converter stops")
        else:
            hidden, heads = _hidden(hparams)
            put("DIMENSION_COUNT", int(hparams["rotary_pct"] * (hidden // heads)), int)
        notes.append("no freq_base: llama.cpp uses 10,000")
    elif arch == "phi3":
        _phi3(hparams, params, main, put, tensors, notes)
    elif arch == "command-r":  # conversion/command_r.py: no scaling, whatever the config says
        put("SCALING_TYPE", "none", str)
    if fields.nope_layers:
        notes.append(f"{len(fields.nope_layers)} NoPE layers: stored by the architecture")
    return GGUFRope(
        arch=arch,
        values=values,
        tensors=tensors,
        notes=tuple(dict.fromkeys(notes)),
        head_dim=None if _key(arch, "DIMENSION_COUNT") in values else _head_or_none(hparams),
    )


def _hidden(hparams: Mapping[str, Any]) -> tuple[int, int] | None:
    """(``hidden_size``, ``num_attention_heads``), or None when the config lacks either."""
    hidden, heads = hparams.get("hidden_size"), hparams.get("num_attention_heads")
    if hidden is None or heads is None:
        return None
    return int(hidden), int(heads)


def _head_or_none(hparams: Mapping[str, Any]) -> int | None:
    try:
        return _head(hparams)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None


def _phi3(hparams, params, main, put, tensors, notes) -> None:
    """Phi3MiniModel (conversion/phi.py): no generic keys, no scaling type; LongRoPE's
    attention factor and factor tensors when the config has ``long_factor``."""
    original = params.get("original_max_position_embeddings")
    longest = _find(hparams, ("n_positions", "max_position_embeddings"))
    if original is None or longest is None or _hidden(hparams) is None:
        notes.append(
            "Phi-3 without original_max_position_embeddings, max_position_embeddings or "
            "hidden_size: the converter stops"
        )
        return
    hidden, heads = _hidden(hparams)
    put("SCALING_ORIG_CTX_LEN", original, int)
    partial = params.get("partial_rotary_factor")
    partial = 1.0 if partial is None else partial
    put("DIMENSION_COUNT", int(partial * hidden) // heads, int)
    if main.get("rope_theta") is not None:
        put("FREQ_BASE", main["rope_theta"], float)
    long, short = params.get("long_factor"), params.get("short_factor")
    if not long:
        return
    scale = float(longest) / float(original)
    record = _rope_record(str(params.get("rope_type", "")).lower())
    if record is not None and record.default_attention == "longrope":
        attention = math.sqrt(1 + math.log(scale) / math.log(original)) if scale > 1 else 1.0
    else:  # the YaRN formula (the converter's other branch)
        attention = 0.1 * math.log(scale) + 1.0 if scale > 1 else 1.0
    put("SCALING_ATTN_FACTOR", attention, float)
    if not isinstance(long, list) or not isinstance(short, list):
        notes.append("LongRoPE without both factor lists: the converter stops")
        return
    tensors["rope_factors_long.weight"] = np.asarray(long, dtype=np.float32)
    tensors["rope_factors_short.weight"] = np.asarray(short, dtype=np.float32)


def write_gguf(path: str | Path, rope: GGUFRope) -> Path:
    """Write ``rope`` into a GGUF file at ``path`` with ``gguf.GGUFWriter`` (no weights); the
    head size goes to ``{arch}.attention.key_length``."""
    import gguf

    path = Path(path)
    writer = gguf.GGUFWriter(str(path), rope.arch)
    for key, value in rope.values.items():
        if isinstance(value, str):
            writer.add_string(key, value)
        elif isinstance(value, list):
            writer.add_array(key, value)
        elif isinstance(value, int):
            writer.add_uint32(key, value)
        else:
            writer.add_float32(key, float(value))
    if rope.head_dim is not None:
        writer.add_uint32(gguf.Keys.Attention.KEY_LENGTH.format(arch=rope.arch), rope.head_dim)
    for name, array in rope.tensors.items():
        writer.add_tensor(name, np.ascontiguousarray(array, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def read_gguf_rope(path: str | Path) -> GGUFRope:
    """Read the ``{arch}.rope.*`` keys, the head size and the rope tensors of a GGUF file."""
    import gguf

    reader = gguf.GGUFReader(str(path))
    arch = str(reader.fields["general.architecture"].contents())
    values: dict[str, Any] = {}
    for name, item in reader.fields.items():
        if name.startswith(f"{arch}.rope."):
            values[name] = item.contents()
    key_length = reader.fields.get(gguf.Keys.Attention.KEY_LENGTH.format(arch=arch))
    tensors = {
        t.name: np.array(t.data, dtype=np.float32) for t in reader.tensors if t.name in _TENSORS
    }
    head = None if key_length is None else int(key_length.contents())
    return GGUFRope(arch=arch, values=values, tensors=tensors, head_dim=head)


def _scaling(rope: GGUFRope) -> tuple[str, float]:
    """llama.cpp's scaling type (``linear`` when the file has none) and factor *s*
    (``rope_freq_scale_train`` = 1/s; 1 when absent or 0, and for type ``none``)."""
    kind = str(rope.values.get(_key(rope.arch, "SCALING_TYPE"), "linear"))
    factor = float(rope.values.get(_key(rope.arch, "SCALING_FACTOR"), 0.0))
    if factor == 0.0 or kind == "none":
        factor = 1.0
    return kind, factor


def frequencies_from_gguf(
    rope: GGUFRope, seq_len: int | None = None, *, swa: bool = False
) -> np.ndarray:
    r"""The frequencies :math:`\theta'_i` llama.cpp computes from GGUF rope metadata.

    .. math:: \theta'_i = \beta^{-2i/d} / (f_i\, s)

    with *d* the ``dimension_count`` (else the head size), :math:`\beta` the ``freq_base``
    (else 10,000), :math:`f_i` the ``rope_freqs.weight`` entry, or LongRoPE's long factors
    when the context ``seq_len`` exceeds the original length (short ones otherwise), and
    *s* the scaling factor. YaRN mixes the interpolated and the original frequencies with
    ggml's ramp (``rope_yarn``), with betas 32 and 1 for every architecture but Grok and
    Mistral 3, whatever the file says. ``swa``: the sliding-window layers' frequencies,
    unscaled, at ``freq_base_swa`` (without it: 10,000 for Gemma 3, ``freq_base`` for OLMo 2/3;
    other architectures raise ValueError).
    """
    values: Mapping[str, Any] = rope.values
    arch = rope.arch
    base = float(values.get(_key(arch, "FREQ_BASE"), 10000.0))
    dim = values.get(_key(arch, "DIMENSION_COUNT"), rope.head_dim)
    if dim is None:
        raise ValueError("no dimension_count and no head size: the rotated dimension is unknown")
    dim = int(dim)
    if not math.isfinite(base):
        raise ValueError(f"{_key(arch, 'FREQ_BASE')} must be finite, got {base}")
    if swa:
        if arch not in _SWA_DEFAULT_BASE:
            raise ValueError(f"sliding layers of {arch} are not restated (gemma3, olmo2 are)")
        default = base if _SWA_DEFAULT_BASE[arch] is None else _SWA_DEFAULT_BASE[arch]
        return inv_freq(dim, float(values.get(_key(arch, "FREQ_BASE_SWA"), default)))
    theta = inv_freq(dim, base)
    if "rope_freqs.weight" in rope.tensors:
        theta = theta / rope.tensors["rope_freqs.weight"].astype(np.float64)
    elif "rope_factors_long.weight" in rope.tensors:
        original = int(values[_key(arch, "SCALING_ORIG_CTX_LEN")])
        long = seq_len is not None and seq_len > original
        factors = rope.tensors["rope_factors_long.weight" if long else "rope_factors_short.weight"]
        theta = theta / factors.astype(np.float64)
    kind, factor = _scaling(rope)
    if kind != "yarn":
        return theta / factor
    fast, slow = 32.0, 1.0
    if arch in _READS_BETAS:
        fast = float(values.get(_key(arch, "SCALING_YARN_BETA_FAST"), fast))
        slow = float(values.get(_key(arch, "SCALING_YARN_BETA_SLOW"), slow))
    spec = RopeSpec(
        rope_type="yarn",
        head_dim=dim,
        rope_theta=base,
        factor=factor,
        original_max_position_embeddings=int(values[_key(arch, "SCALING_ORIG_CTX_LEN")]),
        beta_fast=fast,
        beta_slow=slow,
        truncate=True,
    )
    scaled = frequencies_from_config(spec)[0]
    return scaled * (theta / inv_freq(dim, base))  # rope factors, where the file has them


def _mscale(scale: float, mscale: float) -> float:
    return 1.0 if scale <= 1.0 else 0.1 * mscale * math.log(scale) + 1.0


def _attention_parts(rope: GGUFRope) -> tuple[float, float]:
    """(the factor ggml's rope puts on cos and sin, llama_context's ``yarn_attn_factor``)."""
    values, arch = rope.values, rope.arch
    kind, factor = _scaling(rope)
    attn = float(values.get(_key(arch, "SCALING_ATTN_FACTOR"), 1.0))  # rope_attn_factor
    if kind != "yarn":  # ext_factor 0: hparams.yarn_attn_factor (Grok reads the key) × attn
        if arch == "grok":
            attn *= float(values.get(_key(arch, "SCALING_YARN_ATTN_FACTOR"), 1.0))
        return attn, attn
    log_mul = values.get(_key(arch, "SCALING_YARN_LOG_MUL")) if arch in _READS_LOG_MUL else None
    if log_mul:
        mscale_all = float(log_mul) / 0.1 if arch == "deepseek2" else float(log_mul)
        mscale = mscale_all if arch == "deepseek2" and mscale_all != 1.0 else 1.0
        own = _mscale(factor, mscale) / _mscale(factor, mscale_all)
    else:
        own = _mscale(factor, 1.0)
    ramp = 1.0 + 0.1 * math.log(factor)  # ggml's rope_yarn multiplies by it; cparams cancel it
    return own * attn, own / ramp * attn


def llamacpp_attention_factor(rope: GGUFRope) -> float:
    r"""The factor llama.cpp puts on cos and sin (so on every rotated q and k) for a file.

    YaRN: ``.scaling.attn_factor`` (default 1) × :math:`(1 + 0.1 \ln s)` (1 for
    :math:`s \le 1`): ``llama_context`` sets ``yarn_attn_factor`` to
    :math:`m(s) / (1 + 0.1 \ln s)` and ggml's ``rope_yarn`` multiplies by :math:`1 + 0.1 \ln s`
    again. With a ``yarn_log_multiplier`` (DeepSeek 2: the key / 0.1 = :math:`\mu_{\text{all}}`;
    Mistral 3: the key) it is :math:`m(s, \mu) / m(s, \mu_{\text{all}})` instead, 1 for DeepSeek,
    whose :math:`m^2` goes to the softmax scale (:func:`llamacpp_softmax_scale`). Other types:
    the ``.scaling.attn_factor`` key (LongRoPE's), default 1. ``yarn_attn_factor`` in the file
    is read for Grok only, and there overwritten by the computed factor.
    """
    return _attention_parts(rope)[0]


def llamacpp_softmax_scale(rope: GGUFRope) -> float:
    r"""The factor on :math:`1/\sqrt{d}` llama.cpp uses for a file: DeepSeek 2's
    :math:`(a (1 + 0.1 \ln s)(1 + 0.1\,\mu_{\text{all}} \ln s))^2` with *a* the
    ``yarn_attn_factor`` llama_context passes (src/models/deepseek2.cpp); 1 elsewhere."""
    if rope.arch != "deepseek2":
        return 1.0
    _, factor = _scaling(rope)
    _, passed = _attention_parts(rope)
    log_mul = float(rope.values.get(_key(rope.arch, "SCALING_YARN_LOG_MUL"), 0.0)) / 0.1
    growth = math.log(factor)
    m = passed * (1.0 + 0.1 * growth) * (1.0 + 0.1 * log_mul * growth)
    return m * m
