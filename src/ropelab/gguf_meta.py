r"""A config's rotary embedding in llama.cpp's GGUF metadata, and back (chapter 8A).

llama.cpp does not read ``config.json``: its converter (``convert_hf_to_gguf.py``) writes the
rope settings into the GGUF file as key/value metadata named ``{arch}.rope.*`` and, where a
rope type needs a number per plane, as small tensors. This module writes the same settings
for a config, in the key names of the ``gguf`` package (``gguf.Keys.Rope``), and reads them
back into frequencies:

* ``{arch}.rope.freq_base`` (:math:`\beta`), ``{arch}.rope.dimension_count`` (the rotated
  dimension *d*), and for Gemma 3-style local layers ``{arch}.rope.freq_base_swa``;
* ``{arch}.rope.scaling.type`` (``none``, ``linear``, ``yarn``, ``longrope``),
  ``.scaling.factor``, ``.scaling.original_context_length``, ``.scaling.attn_factor`` and
  YaRN's ``.scaling.yarn_beta_fast`` / ``.scaling.yarn_beta_slow`` /
  ``.scaling.yarn_log_multiplier`` (DeepSeek's :math:`0.1\,\mu_{\text{all}}`);
* Llama 3.1 scaling has no scaling type in GGUF: the converter stores its per-plane divisors
  as the tensor ``rope_freqs``, :math:`f_i = \theta_i / \theta'_i` (1 for a kept plane,
  *s* for an interpolated one, the blend between), and llama.cpp divides each frequency by
  its entry; LongRoPE's two lists become ``rope_factors_long`` and ``rope_factors_short``.

:func:`gguf_rope_metadata` builds the record, :func:`write_gguf` and :func:`read_gguf_rope`
round-trip it through a real GGUF file with the ``gguf`` package's ``GGUFWriter`` and
``GGUFReader``, and :func:`frequencies_from_gguf` turns metadata back into
:math:`\theta'_i`, which equal :func:`ropelab.frequencies_from_config`'s.

Source: llama.cpp (``ggml-org/llama.cpp`` at commit a458664fc83b6513baea7adafcb0ef0626b006f8:
``convert_hf_to_gguf.py`` and the per-model converter modules, e.g. the Llama 3 ``rope_freqs``
computation of the EXAONE converters) and ``gguf-py``'s ``constants.py`` (``Keys.Rope``,
``MODEL_TENSOR.ROPE_FREQS``), as the ``gguf`` package 0.19.0 ships them. Only the rope
metadata is written: no weights. Explained in chapter 8A of the book.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .config_fields import normalize_config
from .core import inv_freq
from .rope_config import RopeSpec, frequencies_from_config, rope_spec_from_config

__all__ = [
    "ARCHITECTURES",
    "LLAMA_CPP_ROPE_MODES",
    "GGUFRope",
    "frequencies_from_gguf",
    "gguf_rope_metadata",
    "read_gguf_rope",
    "write_gguf",
]

#: ``model_type`` → llama.cpp's architecture name (``gguf.MODEL_ARCH_NAMES``); others keep
#: their model type.
ARCHITECTURES = {
    "llama": "llama",
    "mistral": "llama",
    "qwen2": "qwen2",
    "qwen3": "qwen3",
    "qwen3_moe": "qwen3moe",
    "qwen3_next": "qwen3next",
    "deepseek_v2": "deepseek2",
    "deepseek_v3": "deepseek2",
    "kimi_k2": "deepseek2",
    "glm4_moe": "glm4moe",
    "smollm3": "smollm3",
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


#: How llama.cpp pairs the rotated coordinates, by architecture (``llama_model_rope_type`` in
#: ``src/llama-model.cpp`` of ggml-org/llama.cpp at commit a5410f046c01d01330c8a42f13b64a211fedf2c3):
#: ``NORM`` rotates consecutive pairs (the interleaved layout), ``NEOX`` pairs coordinate *i*
#: with *i* + d/2 (the half split), ``MROPE`` the multi-axis sections of Qwen2-VL. Only the
#: architectures of the shipped configs that this commit lists; later commits add more (and
#: an interleaved multi-axis mode, ``LLAMA_ROPE_TYPE_IMROPE``, which
#: ``src/llama-kv-cache.cpp`` at commit 3514e9f6e795d3b3cd88d6614f6c07e7ce6f916f handles).
LLAMA_CPP_ROPE_MODES = {
    "llama": "NORM",
    "llama4": "NORM",
    "deepseek2": "NORM",
    "cohere2": "NORM",
    "qwen2": "NEOX",
    "qwen3": "NEOX",
    "qwen3moe": "NEOX",
    "olmo2": "NEOX",
    "phi3": "NEOX",
    "gemma3": "NEOX",
    "gptneox": "NEOX",
    "qwen2vl": "MROPE",
}


@dataclass(frozen=True)
class GGUFRope:
    """The rope metadata of one model in GGUF form.

    Attributes:
        arch: llama.cpp's architecture name (the ``{arch}`` of every key).
        values: ``{key: value}`` with the full key names (``"llama.rope.freq_base"``).
        tensors: ``{name: float32 array}``: ``rope_freqs``, ``rope_factors_long/short``.
        notes: what GGUF cannot hold for this config (a second layer type's scaling, ...).
    """

    arch: str
    values: dict[str, Any]
    tensors: dict[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def key(self, name: str) -> str:
        """The full key of a ``gguf.Keys.Rope`` name: ``key("FREQ_BASE")``."""
        import gguf

        return getattr(gguf.Keys.Rope, name).format(arch=self.arch)


def _key(arch: str, name: str) -> str:
    import gguf

    return getattr(gguf.Keys.Rope, name).format(arch=arch)


def gguf_rope_metadata(config: Any) -> GGUFRope:
    r"""The GGUF rope metadata of a released ``config.json`` (as llama.cpp names it).

    The first rope group with scaling (or the only one) gives the main keys; a second base
    for sliding-window layers (Gemma 3, OLMo 3) goes to ``freq_base_swa``. Llama 3.1 scaling
    becomes the ``rope_freqs`` tensor of divisors :math:`\theta_i/\theta'_i`; LongRoPE its
    two factor tensors. Rope types GGUF has no name for (dynamic NTK) are reported in
    ``notes`` and written unscaled, as the converter writes them.

    Raises:
        ValueError: as :func:`ropelab.config_fields.normalize_config` does.
    """
    fields = normalize_config(config)
    arch = ARCHITECTURES.get(fields.model_type, fields.model_type)
    notes: list[str] = []
    scaled = [e for e in fields.layers if e.rope_parameters["rope_type"] != "default"]
    main = scaled[0] if scaled else fields.layers[-1]
    others = [e for e in fields.layers if e is not main]
    spec = rope_spec_from_config(main.config)
    values: dict[str, Any] = {
        _key(arch, "FREQ_BASE"): float(spec.rope_theta),
        _key(arch, "DIMENSION_COUNT"): int(spec.rotary_dim),
    }
    tensors: dict[str, np.ndarray] = {}
    kind = spec.rope_type
    if kind == "linear":
        values[_key(arch, "SCALING_TYPE")] = "linear"
        values[_key(arch, "SCALING_FACTOR")] = float(spec.factor)
    elif kind == "yarn":
        values[_key(arch, "SCALING_TYPE")] = "yarn"
        values[_key(arch, "SCALING_FACTOR")] = float(spec.factor)
        values[_key(arch, "SCALING_ORIG_CTX_LEN")] = int(spec.original_max_position_embeddings)
        values[_key(arch, "SCALING_YARN_BETA_FAST")] = float(spec.beta_fast)
        values[_key(arch, "SCALING_YARN_BETA_SLOW")] = float(spec.beta_slow)
        _, attention = frequencies_from_config(main.config)
        values[_key(arch, "SCALING_ATTN_FACTOR")] = float(attention)
        if spec.mscale_all_dim:
            values[_key(arch, "SCALING_YARN_LOG_MUL")] = 0.1 * float(spec.mscale_all_dim)
        if not spec.truncate:
            notes.append("truncate false: GGUF has no key for it; read back, the ramp is rounded")
    elif kind == "llama3":
        theta = inv_freq(spec.rotary_dim, spec.rope_theta)
        scaled_theta, _ = frequencies_from_config(main.config)
        tensors["rope_freqs"] = (theta / scaled_theta).astype(np.float32)
    elif kind == "longrope":
        values[_key(arch, "SCALING_TYPE")] = "longrope"
        values[_key(arch, "SCALING_ORIG_CTX_LEN")] = int(spec.original_max_position_embeddings)
        _, attention = frequencies_from_config(main.config)
        values[_key(arch, "SCALING_ATTN_FACTOR")] = float(attention)
        tensors["rope_factors_long"] = np.asarray(spec.long_factor, dtype=np.float32)
        tensors["rope_factors_short"] = np.asarray(spec.short_factor, dtype=np.float32)
    elif kind == "dynamic":
        notes.append("dynamic NTK has no GGUF scaling type: llama.cpp runs it unscaled")
    elif kind == "proportional":
        notes.append("proportional RoPE (Gemma 4) has no GGUF scaling type")
    for entry in others:
        params = entry.rope_parameters
        if params["rope_type"] == "default" and "sliding" in entry.layer_type:
            values[_key(arch, "FREQ_BASE_SWA")] = float(params["rope_theta"])
        else:
            notes.append(f"{entry.layer_type}: a second rope group GGUF's keys do not hold")
    if fields.nope_layers:
        notes.append(f"{len(fields.nope_layers)} NoPE layers: stored by the architecture")
    return GGUFRope(arch=arch, values=values, tensors=tensors, notes=tuple(notes))


def write_gguf(path: str | Path, rope: GGUFRope) -> Path:
    """Write ``rope`` into a GGUF file at ``path`` with ``gguf.GGUFWriter`` (no weights)."""
    import gguf

    path = Path(path)
    writer = gguf.GGUFWriter(str(path), rope.arch)
    for key, value in rope.values.items():
        if isinstance(value, str):
            writer.add_string(key, value)
        elif isinstance(value, int):
            writer.add_uint32(key, value)
        else:
            writer.add_float32(key, float(value))
    for name, array in rope.tensors.items():
        writer.add_tensor(name, np.ascontiguousarray(array, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def read_gguf_rope(path: str | Path) -> GGUFRope:
    """Read the ``{arch}.rope.*`` keys and the rope tensors of a GGUF file (``GGUFReader``)."""
    import gguf

    reader = gguf.GGUFReader(str(path))
    arch_field = reader.fields["general.architecture"]
    arch = bytes(arch_field.parts[arch_field.data[0]]).decode()
    values: dict[str, Any] = {}
    for name, item in reader.fields.items():
        if not name.startswith(f"{arch}.rope."):
            continue
        part = item.parts[item.data[0]]
        if item.types[0] == gguf.GGUFValueType.STRING:
            values[name] = bytes(part).decode()
        elif item.types[0] == gguf.GGUFValueType.UINT32:
            values[name] = int(part[0])
        else:
            values[name] = float(part[0])
    tensors = {
        t.name: np.array(t.data, dtype=np.float32)
        for t in reader.tensors
        if t.name in ("rope_freqs", "rope_factors_long", "rope_factors_short")
    }
    return GGUFRope(arch=arch, values=values, tensors=tensors)


def frequencies_from_gguf(rope: GGUFRope, seq_len: int | None = None) -> np.ndarray:
    r"""The frequencies :math:`\theta'_i` that GGUF rope metadata prescribes (float64).

    .. math:: \theta'_i = \beta^{-2i/d} / f_i

    with :math:`f_i` the ``rope_freqs`` entry (Llama 3.1), *s* for linear scaling, LongRoPE's
    short or long factor (long beyond the original length), and YaRN's ramp between 1 and *s*
    (:func:`ropelab.rope_config.yarn_frequencies` with the stored base, dimension, factor,
    original length and rotation counts).
    """
    values: Mapping[str, Any] = rope.values
    arch = rope.arch
    base = float(values[_key(arch, "FREQ_BASE")])
    dim = int(values[_key(arch, "DIMENSION_COUNT")])
    theta = inv_freq(dim, base)
    kind = values.get(_key(arch, "SCALING_TYPE"), "none")
    if "rope_freqs" in rope.tensors:
        return theta / rope.tensors["rope_freqs"].astype(np.float64)
    if kind == "linear":
        return theta / float(values[_key(arch, "SCALING_FACTOR")])
    if kind == "longrope":
        original = int(values[_key(arch, "SCALING_ORIG_CTX_LEN")])
        long = seq_len is not None and seq_len > original
        factors = rope.tensors["rope_factors_long" if long else "rope_factors_short"]
        return theta / factors.astype(np.float64)
    if kind == "yarn":
        spec = RopeSpec(
            rope_type="yarn",
            head_dim=dim,
            rope_theta=base,
            factor=float(values[_key(arch, "SCALING_FACTOR")]),
            original_max_position_embeddings=int(values[_key(arch, "SCALING_ORIG_CTX_LEN")]),
            beta_fast=float(values[_key(arch, "SCALING_YARN_BETA_FAST")]),
            beta_slow=float(values[_key(arch, "SCALING_YARN_BETA_SLOW")]),
            truncate=True,
        )
        return frequencies_from_config(spec)[0]
    if not math.isfinite(base):
        raise ValueError(f"{_key(arch, 'FREQ_BASE')} must be finite, got {base}")
    return theta
