r"""``describe_config``: what a released ``config.json`` makes the rotary embedding do (chapter 8).

:func:`describe_config` reads a config as released (:func:`ropelab.config_fields.normalize_config`
handles the spellings), computes every layer type's frequencies with
:func:`ropelab.frequencies_from_config`, and compares them plane by plane with plain RoPE of
the same base and rotary dimension, :math:`\theta_i = \beta^{-2i/d}`:

* a plane is **kept** when :math:`\theta'_i = \theta_i`,
* **interpolated** when :math:`\theta'_i = \theta_i / s` (divided by the full factor *s*),
* **stretched** otherwise (slowed by some other amount: YaRN's ramp, Llama 3's middle band,
  LongRoPE's searched factors, a larger base).

It also reports what scales attention outside the rotary part: DeepSeek's :math:`m^2` on the
softmax and the position-dependent query temperatures of Llama 4 and Ministral 3. The result
is a frozen :class:`RopeDescription` whose ``str`` is a short report. Explained in chapter 8
of the book.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .config_fields import KIND_WORDS, LayerRope, RopeFields, normalize_config
from .rope_config import ROPE_TYPES, frequencies_from_config

__all__ = [
    "LayerDescription",
    "RopeDescription",
    "describe_config",
    "layer_map",
    "layer_spans",
    "plane_kinds",
]

_TOLERANCE = 1e-9  # relative; float64 formulas of the same numbers agree to ~1e-15


def plane_kinds(theta: Any, scaled: Any, factor: float | None) -> np.ndarray:
    """Label each plane ``"kept"``, ``"interpolated"`` or ``"stretched"`` (module docstring).

    ``theta`` and ``scaled`` are the frequencies before and after scaling; ``factor`` is *s*
    (``None``: no factor, nothing is "interpolated"). A plane whose frequency is 0 in both
    (a non-rotating plane of the ``proportional`` type) counts as kept.
    """
    theta = np.asarray(theta, dtype=np.float64)
    scaled = np.asarray(scaled, dtype=np.float64)
    if theta.shape != scaled.shape:
        raise ValueError(
            f"theta and scaled must have the same shape, got {theta.shape}, {scaled.shape}"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(theta > 0, scaled / theta, 1.0)
    labels = np.full(theta.shape, "stretched", dtype=object)
    labels[np.abs(ratio - 1) <= _TOLERANCE] = "kept"
    if factor is not None and factor != 1:
        labels[np.abs(ratio * factor - 1) <= _TOLERANCE] = "interpolated"
    return labels.astype(str)


@dataclass(frozen=True)
class LayerDescription:
    """The rotary embedding of one layer type.

    Attributes:
        layer_type: ``"all"`` or a layer type of the config.
        num_layers: layers of this type that apply RoPE (``None`` if unknown).
        rope_type: the (normalised) rope type.
        base: ``rope_theta``.
        rotary_dim: rotated coordinates per head (*d*).
        factor: the scale *s* (``None`` for unscaled RoPE).
        original_length: the pre-extension context length, where the method has one.
        attention_factor: the factor on cos and sin (so on the logits, squared).
        kept, stretched, interpolated: plane counts (:func:`plane_kinds`).
        longest_wavelength: ``(before, after)`` the longest wavelength, in tokens.
        parameters: the method's other parameters, as ``(name, value)`` pairs.
        inv_freq: the frequencies :math:`\\theta'_i` (float64).
    """

    layer_type: str
    num_layers: int | None
    rope_type: str
    base: float
    rotary_dim: int
    factor: float | None
    original_length: int | None
    attention_factor: float
    kept: int
    stretched: int
    interpolated: int
    longest_wavelength: tuple[float, float]
    parameters: tuple[tuple[str, Any], ...]
    inv_freq: tuple[float, ...]

    def lines(self, total: int | None = None) -> list[str]:
        """The report of this layer type, a few lines of at most 79 characters.

        ``total``: the model's layer count; a single layer type that covers fewer layers
        (the others apply no RoPE) is reported as "n of total layers".
        """
        if self.layer_type == "all":
            where = "all layers" if self.num_layers is None else f"all {self.num_layers} layers"
            if total is not None and self.num_layers is not None and self.num_layers < total:
                where = f"{self.num_layers} of {total} layers"
        else:
            count = "" if self.num_layers is None else f", {self.num_layers} layers"
            where = self.layer_type + count
        head = f"  {where}: {self.rope_type}, base {self.base:,.0f}"
        if self.factor is not None:
            head += f", factor {self.factor:g}"
        if self.original_length is not None:
            head += f", original {self.original_length:,}"
        planes = (
            f"    {self.rotary_dim} dims rotate: planes kept {self.kept}, "
            f"stretched {self.stretched}, interpolated {self.interpolated}"
        )
        before, after = self.longest_wavelength
        waves = f"    longest wavelength {before:,.0f} -> {after:,.0f} tokens"
        out = [head, planes, waves]
        extra = [f"{name} {_fmt(value)}" for name, value in self.parameters]
        if self.attention_factor != 1.0:
            extra.append(f"cos/sin x {self.attention_factor:.6f}")
        if extra:
            out.extend(_wrap(extra, "    "))
        return out


@dataclass(frozen=True)
class RopeDescription:
    """What a config's rotary embedding does, as :func:`describe_config` decodes it.

    It holds the normalised :class:`ropelab.config_fields.RopeFields` (``fields``) and reads
    every attribute of it through (all but ``layers``, which this record replaces by its
    per-layer-type descriptions), so a field added to ``RopeFields`` is an attribute here too.

    Attributes:
        name: the model (from the config's ``_source`` or ``_name_or_path``) or its type.
        fields: the normalised fields it describes.
        layers: one :class:`LayerDescription` per layer type.
        model_type: the text model's type (from ``fields``, as every attribute below).
        spelling: ``"transformers 4"`` or ``"transformers 5"``.
        head_dim: query/key head size.
        num_heads, num_kv_heads, num_layers: as in the config.
        max_position_embeddings: the declared context length.
        nope_layers: layers without any rotary embedding.
        softmax_scale: factor on :math:`1/\\sqrt{d}` (1 unless DeepSeek-style YaRN).
        query_temperature: the position-dependent query factor, if any.
        notes: how the released spelling was read.
        nope_reasons: why the NoPE layers apply no rotary embedding.
    """

    name: str
    fields: RopeFields
    layers: tuple[LayerDescription, ...]

    def __getattr__(self, attribute: str) -> Any:
        """The attributes of ``fields`` (:data:`_FROM_FIELDS`), read through."""
        if attribute in _FROM_FIELDS:
            return getattr(self.fields, attribute)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {attribute!r}")

    def to_dict(self) -> dict[str, Any]:
        """``name``, then every field of ``fields`` in order, ``layers`` as described here
        (the layout ``dataclasses.asdict`` gave when the fields were copied)."""
        out: dict[str, Any] = {"name": self.name, **dataclasses.asdict(self.fields)}
        out["layers"] = [dataclasses.asdict(layer) for layer in self.layers]
        return out

    def __str__(self) -> str:
        lines = [self.name]
        kind = f"  {self.model_type}, {self.spelling} spelling"
        if self.num_layers is not None:
            kind += f", {self.num_layers} layers"
        lines.append(kind)
        heads = []
        if self.num_heads is not None:
            heads.append(f"{self.num_heads} query heads")
        if self.num_kv_heads is not None and self.num_kv_heads != self.num_heads:
            heads.append(f"{self.num_kv_heads} key/value heads")
        lines.append("  " + ", ".join([*heads, f"q/k head {self.head_dim}"]))
        if self.max_position_embeddings is not None:
            lines.append(f"  max_position_embeddings {self.max_position_embeddings:,}")
        for layer in self.layers:
            lines.extend(layer.lines(self.num_layers))
        hybrid = set(self.layer_kinds) - {"rope", "nope"}
        if hybrid or (self.layer_kinds and not self.layers):
            lines.extend(_map_lines(self.fields))
        elif self.nope_layers:
            colon = ":" if self.nope_reasons else ""
            lines.append(f"  {len(self.nope_layers)} layers without RoPE (NoPE){colon}")
            if self.nope_reasons:
                lines.extend(_wrap(list(self.nope_reasons), "    "))
        if self.softmax_scale != 1.0:
            lines.append(f"  softmax scale 1/sqrt({self.head_dim}) x {self.softmax_scale:.6f}")
        temp = self.query_temperature
        if temp is not None:
            which = "all layers" if len(temp.layers) == self.num_layers else "the NoPE layers"
            offset = "(m + 1)" if temp.offset else "m"
            lines.append(
                f"  queries of {which} x 1 + {temp.beta:g} ln(1 + floor({offset} / {temp.length:,}))"
            )
            lines.append(f"    (from {temp.source}; first > 1 at position {temp.first_change():,})")
        return "\n".join(lines)


def layer_spans(indices: Any) -> str:
    """Layer indices in short form: runs as ``0-2``, an arithmetic progression as
    ``3, 7, …, 47``, at most four runs shown (``…`` between the third and the last)."""
    idx = sorted(int(i) for i in indices)
    if not idx:
        return ""
    steps = {b - a for a, b in itertools.pairwise(idx)}
    if len(idx) >= 4 and len(steps) == 1 and steps != {1}:
        return f"{idx[0]}, {idx[1]}, …, {idx[-1]}"
    runs: list[str] = []
    start = prev = idx[0]
    for i in [*idx[1:], None]:  # type: ignore[list-item]
        if i is not None and i == prev + 1:
            prev = i
            continue
        runs.append(str(start) if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    if len(runs) > 4:
        runs = [*runs[:3], "…", runs[-1]]
    return ", ".join(runs)


def layer_map(fields: RopeFields) -> list[dict[str, Any]]:
    """Per layer group, what its layers are: ``kind`` (attention with RoPE ``rope``, without
    ``nope``, ``state_space``, ``linear_attention``, ``no_attention``), ``layer_type`` (the
    rope group of a ``rope`` entry, else None) and ``layers``, in order of first layer.
    Empty for a model whose every layer applies RoPE."""
    if not fields.layer_kinds:
        return []
    out: list[dict[str, Any]] = []
    for entry in fields.layers:
        if entry.layers:
            out.append(
                {"kind": "rope", "layer_type": entry.layer_type, "layers": list(entry.layers)}
            )
    for kind in dict.fromkeys(fields.layer_kinds):
        if kind != "rope":
            index = [i for i, k in enumerate(fields.layer_kinds) if k == kind]
            out.append({"kind": kind, "layer_type": None, "layers": index})
    return sorted(out, key=lambda e: e["layers"][0])


def _map_lines(fields: RopeFields) -> list[str]:
    """The report's layer map: one line per group (:func:`layer_map`)."""
    lines = [f"  layer map ({len(fields.layer_kinds)} layers):"]
    if not fields.layers:
        lines[0] = f"  no layer applies RoPE; layer map ({len(fields.layer_kinds)} layers):"
    for entry in layer_map(fields):
        word = KIND_WORDS[entry["kind"]]
        if entry["kind"] == "rope" and entry["layer_type"] != "all":
            word += f" ({entry['layer_type']})"
        count = len(entry["layers"])
        lines.extend(_wrap([f"{count} {word}: {layer_spans(entry['layers'])}"], "    "))
    if fields.nope_reasons:
        lines.extend(_wrap(list(fields.nope_reasons), "    "))
    return lines


#: The attributes a :class:`RopeDescription` reads from its ``RopeFields``: all but ``layers``.
_FROM_FIELDS = frozenset(f.name for f in dataclasses.fields(RopeFields)) - {"layers"}


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() and abs(value) >= 1000 else f"{value:g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _wrap(items: list[str], indent: str, width: int = 79) -> list[str]:
    lines, current = [], indent
    for item in items:
        piece = item if current == indent else ", " + item
        if len(current) + len(piece) > width and current != indent:
            lines.append(current + ",")
            current, piece = indent, item
        current += piece
    lines.append(current)
    return lines


def _method_parameters(flat: dict[str, Any], original: int | None) -> tuple[tuple[str, Any], ...]:
    """The method's parameters, then multi-axis (M-RoPE) sections where the dict has them:
    ``mrope_section`` (planes per axis: time, height, width) and whether the axes are
    interleaved plane by plane (``mrope_interleaved``, Qwen3-VL) or in blocks (Qwen2-VL)."""
    record = ROPE_TYPES[flat["rope_type"]]
    out = tuple(pair for shown in record.described for pair in shown.pairs(flat, original))
    sections = flat.get("mrope_section")
    if sections:
        out += (
            ("mrope_section", "/".join(str(int(x)) for x in sections)),
            ("mrope_interleaved", bool(flat.get("mrope_interleaved", False))),
        )
    return out


def _describe_layer(entry: LayerRope, seq_len: int | None) -> LayerDescription:
    flat = entry.rope_parameters
    inv, attention = frequencies_from_config(entry.config, seq_len)
    kind = flat["rope_type"]
    record = ROPE_TYPES[kind]  # frequencies_from_config has checked the name
    if record.reference == "factor_one":
        reference_params = dict(flat, factor=1.0)
    else:  # "plain"
        reference_params = {
            "rope_type": "default",
            "rope_theta": flat["rope_theta"],
            "partial_rotary_factor": flat.get("partial_rotary_factor", 1.0),
        }
    reference = dict(entry.config, rope_parameters=reference_params)
    reference.pop("original_max_position_embeddings", None)
    theta, _ = frequencies_from_config(reference)
    original = entry.config.get("original_max_position_embeddings") or flat.get(
        "original_max_position_embeddings"
    )
    factor = flat.get("factor")
    if not record.original_length:
        original = None
    elif factor is None:  # null or missing: max / original, as rope_spec_from_config reads it
        max_len = entry.config.get("max_position_embeddings")
        factor = None if (max_len is None or original is None) else max_len / original
    if record.factor is None:
        factor = None
    labels = plane_kinds(theta, inv, None if factor is None else float(factor))
    rotating = inv > 0
    return LayerDescription(
        layer_type=entry.layer_type,
        num_layers=len(entry.layers) if entry.layers else None,
        rope_type=kind,
        base=float(flat["rope_theta"]),
        rotary_dim=2 * int(np.count_nonzero(theta > 0)),
        factor=None if factor is None else float(factor),
        original_length=None if original is None else int(original),
        attention_factor=float(attention),
        kept=int(np.sum(labels == "kept")),
        stretched=int(np.sum(labels == "stretched")),
        interpolated=int(np.sum(labels == "interpolated")),
        longest_wavelength=(
            float(2 * math.pi / theta[theta > 0].min()),
            float(2 * math.pi / inv[rotating].min()),
        ),
        parameters=_method_parameters(flat, None if original is None else int(original)),
        inv_freq=tuple(float(x) for x in inv),
    )


def _name(config: Any, fields: RopeFields) -> str:
    if isinstance(config, dict):
        source = config.get("_source")
        if isinstance(source, dict) and source.get("model"):
            return str(source["model"])
        if config.get("_name_or_path"):
            return str(config["_name_or_path"])
    return fields.model_type


def _released_key(config: Any, message: str) -> str:
    """``message`` with ``rope_parameters`` read as ``rope_scaling`` when the released file
    spells its rope dict ``rope_scaling`` (the normalised form always says rope_parameters)."""
    raw = config if isinstance(config, dict) else {}
    text = raw.get("text_config") if isinstance(raw.get("text_config"), dict) else raw
    if text.get("rope_scaling"):
        return message.replace("rope_parameters", "rope_scaling")
    return message


def describe_config(config: Any, seq_len: int | None = None) -> RopeDescription:
    """Decode a released ``config.json`` (mapping or transformers config) into a report.

    Args:
        config: the config as released: transformers 4 or 5 spelling, nested
            ``text_config`` allowed (see :mod:`ropelab.config_fields`).
        seq_len: the current sequence length, for the rope types that depend on it
            (``dynamic``; ``longrope`` switches to its long factors beyond the original
            length); ``None`` means "at initialisation", as in transformers.

    Returns:
        A :class:`RopeDescription`; ``print`` it for the report.
    """
    fields = normalize_config(config)
    try:
        layers = tuple(_describe_layer(entry, seq_len) for entry in fields.layers)
    except ValueError as error:  # name the key the released file uses
        raise ValueError(_released_key(config, str(error))) from None
    return RopeDescription(name=_name(config, fields), fields=fields, layers=layers)
