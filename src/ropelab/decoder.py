r"""The config decoder: one JSON-ready record of what a ``config.json`` does (chapter 8A).

:func:`decode_config` is the record the book's browser decoder (``ropelab-decoder.js``) and
``python -m ropelab describe --json`` show: :func:`ropelab.describe_config`'s numbers per
layer type, plus

* the plain frequencies of the same base and rotated dimension (the figure's reference);
* chapter 6's bounds at the layer type's trained length *T* (the original length of a
  scaled type, else ``max_position_embeddings``): the planes that complete a period within
  *T*, the critical dimension :math:`d_\text{extra} = 2\lceil \frac d2 \log_\beta
  \frac{T}{2\pi}\rceil` and the bound :math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}`
  for the base itself (:mod:`ropelab.scaling`, Theorem 2);
* the extended length: original length × factor where the type has both;
* the GGUF keys llama.cpp's converter (release v0.4.0) writes (:mod:`ropelab.gguf_meta`,
  which needs no ``gguf`` package);
* warnings for the mix-ups chapter 8 teaches (:data:`WARNINGS`);
* the layer map of a stack whose layers are not all attention with RoPE: ``layer_kinds``
  (one kind a layer, empty when every layer rotates) and ``layer_map`` (per group: ``kind``,
  ``layer_type`` for the RoPE groups, ``layers``; :func:`ropelab.describe.layer_map`).

:func:`decode_text` reads the pasted text: JSON only (never evaluated); text that is not a
JSON object, or a config the decoder cannot read, gives ``{"error": message}`` naming the
line or the field.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .config_fields import normalize_config
from .core import inv_freq
from .describe import describe_config, layer_map
from .gguf_meta import gguf_rope_metadata
from .rope_config import ROPE_TYPES

__all__ = ["WARNINGS", "decode_config", "decode_text", "gguf_keys"]

#: Warning codes and what they flag. The first four are per layer: a rope type's record lists
#: those its layers can raise (:attr:`ropelab.rope_config.RopeType.layer_warnings`).
WARNINGS = {
    "factor-vs-lengths": "factor differs from max_position_embeddings / original length",
    "no-op-block": "a scaling block with factor 1 changes nothing",
    "yarn-truncate": "YaRN with truncate false: engines that round the ramp differ",
    "dynamic-cache": "dynamic scaling changes the frequencies with the length",
    "nope-layers": "some layers apply no RoPE",
    "spelling": "transformers 4 reads rope_scaling and rope_theta only",
    "transformers": "transformers 5.23 cannot load the file as released",
}


def _round(x: float) -> float:
    """12 significant digits: what the browser's check compares (float64 noise removed)."""
    return float(f"{x:.12g}")


def gguf_keys(config: Any) -> list[list[Any]]:
    """The GGUF rope keys llama.cpp's converter writes for ``config``: ``[[key, value], ...]``
    in the order it writes them, then the tensors as ``["tensor <name>", "<n> values"]``, as
    :func:`ropelab.gguf_meta.gguf_rope_metadata` gives them (floats to 12 digits)."""
    rope = gguf_rope_metadata(config)
    keys: list[list[Any]] = [
        [key, _round(value) if isinstance(value, float) else value]
        for key, value in rope.values.items()
    ]
    keys += [[f"tensor {name}", f"{array.size} values"] for name, array in rope.tensors.items()]
    return keys


def _bounds(rotary_dim: int, base: float, trained: int | None) -> dict[str, Any] | None:
    if trained is None or trained <= 2 * math.pi or base <= 1:
        return None
    waves = [2 * math.pi * base ** (2 * i / rotary_dim) for i in range(rotary_dim // 2)]
    planes = sum(1 for w in waves if w <= trained)
    d_extra = min(
        2 * math.ceil(rotary_dim / 2 * math.log(trained / (2 * math.pi)) / math.log(base)),
        rotary_dim,
    )
    return {
        "trained_length": trained,
        "full_period_planes": planes,
        "critical_dim": d_extra,
        "bound": _round(2 * math.pi * base ** (d_extra / rotary_dim)),
    }


def _warnings(raw: Any, record: dict[str, Any]) -> list[list[str]]:
    out: list[list[str]] = []
    text = raw.get("text_config") if isinstance(raw.get("text_config"), dict) else raw
    for layer in record["layers"]:
        kind, factor, original = layer["rope_type"], layer["factor"], layer["original_length"]
        checks = ROPE_TYPES[kind].layer_warnings
        where = "" if layer["layer_type"] == "all" else f" ({layer['layer_type']})"
        declared = record["max_position_embeddings"]
        if "factor-vs-lengths" in checks and factor and original and declared:
            if abs(declared / original - factor) > 1e-9 * factor and declared != original:
                out.append(
                    [
                        "factor-vs-lengths",
                        f"factor {factor:g}{where} but max_position_embeddings / original "
                        f"= {declared:,} / {original:,} = {declared / original:g}: "
                        "engines that size their tables from one or the other disagree",
                    ]
                )
        if "no-op-block" in checks and factor == 1:
            out.append(["no-op-block", f"{kind} with factor 1{where}: the block changes nothing"])
        params = dict(layer["parameters"])
        if "yarn-truncate" in checks and params.get("truncate") is False:
            out.append(
                [
                    "yarn-truncate",
                    f"YaRN with truncate false{where}: GGUF has no key for it and engines "
                    "that round the ramp's ends compute other frequencies",
                ]
            )
        if "dynamic-cache" in checks:
            out.append(
                [
                    "dynamic-cache",
                    f"dynamic scaling{where}: the frequencies follow the longest length seen, "
                    "so keys cached at one length do not match queries at another; vLLM uses "
                    "one table for the longest length",
                ]
            )
    if record["nope_layers"]:
        out.append(
            [
                "nope-layers",
                f"{record['nope_layers']} of {record['num_layers']} layers apply no RoPE: "
                + "; ".join(record["nope_reasons"]),
            ]
        )
    if record["model_type"] == "kimi_k2":
        out.append(
            [
                "transformers",
                "transformers 5.23 registers no model_type 'kimi_k2': the card says to run it "
                "as deepseek_v3, as decoded here",
            ]
        )
    tuning = text.get("attn_temperature_tuning")
    if (
        record["model_type"] == "llama4_text"
        and tuning is not None
        and not isinstance(tuning, bool)
    ):
        out.append(
            [
                "transformers",
                f"attn_temperature_tuning {json.dumps(tuning, ensure_ascii=False)}: transformers 5.23's strict "
                "config wants true or false; the model's code reads it for truth",
            ]
        )
    scaling = text.get("rope_scaling") if isinstance(text.get("rope_scaling"), dict) else {}
    if scaling.get("type") == "su" or scaling.get("rope_type") == "su":
        out.append(
            [
                "transformers",
                "rope type 'su': transformers 5.23 renames it to longrope only after checking "
                "the dict, and rejects the file as released; read here as longrope",
            ]
        )
    if record["spelling"] == "transformers 5" and text.get("rope_theta") is None:
        out.append(
            [
                "spelling",
                "rope_parameters is transformers 5's spelling: transformers 4 reads "
                "rope_scaling and rope_theta only, and would run plain RoPE with base 10,000",
            ]
        )
    return out


def decode_config(config: Any) -> dict[str, Any]:
    """The decoder's record of a config (module docstring); numbers rounded to 12 digits.

    Raises:
        ValueError: as :func:`ropelab.describe_config` (naming the field).
    """
    description = describe_config(config)
    fields = normalize_config(config)
    layers = []
    for layer, entry in zip(description.layers, fields.layers, strict=True):
        inv = list(layer.inv_freq)
        rotating = [x for x in inv if x > 0]
        plain = inv_freq(2 * len(rotating), layer.base) if rotating else []
        trained = layer.original_length or description.max_position_embeddings
        extended = None
        if layer.factor is not None and layer.original_length is not None:
            extended = round(layer.original_length * layer.factor)
        layers.append(
            {
                "layer_type": layer.layer_type,
                "num_layers": layer.num_layers,
                "rope_type": layer.rope_type,
                "base": _round(layer.base),
                "rotary_dim": layer.rotary_dim,
                "factor": None if layer.factor is None else _round(layer.factor),
                "original_length": layer.original_length,
                "extended_length": extended,
                "attention_factor": _round(layer.attention_factor),
                "kept": layer.kept,
                "stretched": layer.stretched,
                "interpolated": layer.interpolated,
                "longest_wavelength": [_round(w) for w in layer.longest_wavelength],
                "parameters": [
                    [k, _round(v) if isinstance(v, float) else v] for k, v in layer.parameters
                ],
                "inv_freq": [_round(x) for x in inv],
                "plain": [_round(float(x)) for x in plain],
                "bounds": _bounds(layer.rotary_dim, layer.base, trained),
                "layers": list(entry.layers),
            }
        )
    temperature = description.query_temperature
    record: dict[str, Any] = {
        "name": description.name,
        "model_type": description.model_type,
        "spelling": description.spelling,
        "head_dim": description.head_dim,
        "num_heads": description.num_heads,
        "num_kv_heads": description.num_kv_heads,
        "num_layers": description.num_layers,
        "max_position_embeddings": description.max_position_embeddings,
        "layers": layers,
        "nope_layers": len(description.nope_layers),
        "nope_reasons": list(description.nope_reasons),
        "layer_kinds": list(fields.layer_kinds),
        "layer_map": layer_map(fields),
        "softmax_scale": _round(description.softmax_scale),
        "query_temperature": None
        if temperature is None
        else {
            "source": temperature.source,
            "beta": _round(temperature.beta),
            "length": temperature.length,
            "offset": temperature.offset,
            "layers": len(temperature.layers),
        },
        "notes": list(description.notes),
        "report": str(description),
    }
    record["gguf"] = gguf_keys(config)
    record["warnings"] = _warnings(config if isinstance(config, dict) else {}, record)
    return record


def decode_text(text: str) -> dict[str, Any]:
    """Decode pasted text: a JSON object, parsed and never evaluated.

    Returns:
        :func:`decode_config`'s record, or ``{"error": message}`` naming the line and column
        of a JSON error, or the field the decoder cannot read.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return {"error": f"not JSON: {error.msg} at line {error.lineno}, column {error.colno}"}
    if not isinstance(data, dict):
        return {"error": f"the text must be a JSON object (a config), got {type(data).__name__}"}
    try:
        return decode_config(data)
    except (ValueError, TypeError) as error:
        return {"error": str(error)}
