r"""How serving engines and kernels run a config's RoPE, restated in NumPy (chapter 8A).

Each function restates, in our own NumPy, one documented behaviour of an engine, so that the
book can run it next to transformers' and ``ropelab``'s numbers. Sources (read at the named
commits; described in our words):

* **vLLM** (``vllm-project/vllm``): the default context length
  (:func:`vllm_max_model_len`, ``vllm/config/model.py`` at commit 18ec6629); ``get_rope`` in
  ``vllm/model_executor/layers/rotary_embedding/__init__.py`` (commit 926c71f6) picks one
  class per ``rope_type`` and rotates ``int(head_size * partial_rotary_factor)``
  coordinates, half-split when ``is_neox_style`` and interleaved otherwise. Every class
  computes one table of cos and sin at construction and indexes it by position:

  - YaRN (``yarn_scaling_rope.py``, commit ffdc9857) and DeepSeek's YaRN
    (``deepseek_scaling_rope.py``, commit 7bc8d408) build the table for
    ``original_max_position_embeddings * factor`` positions with the scaled frequencies at
    every position, cos and sin multiplied by the attention factor (DeepSeek's: the ratio
    of the two :math:`0.1\,\mu\ln s + 1` terms). YaRN is static: a short prompt gets the
    stretched frequencies too, which is why the Qwen cards warn against adding the block
    for short texts.
  - dynamic NTK (``dynamic_ntk_scaling_rope.py``, commit 50feac95) computes its base once,
    for the length ``max_position_embeddings * factor``, and uses it at every position:
    :func:`vllm_dynamic_frequencies`. transformers leaves a short sequence unscaled.

* **flash-attention's rotary kernel** (``Dao-AILab/flash-attention``,
  ``flash_attn/ops/triton/rotary.py``, commit a9a3170f): ``apply_rotary(x, cos, sin,
  seqlen_offsets, cu_seqlens, max_seqlen, interleaved, inplace, conjugate)`` rotates the
  first ``2 * cos.shape[-1]`` coordinates of each head by the table row
  ``row + seqlen_offsets``, where ``row`` counts from 0 inside each sequence (with
  ``cu_seqlens``, inside each packed document), pairs adjacent coordinates when
  ``interleaved`` and the two halves otherwise, negates sin when ``conjugate`` (the inverse
  rotation, used for the backward pass), and copies the other coordinates:
  :func:`flash_rotary_reference`.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

from ._checks import check_count
from .config_fields import normalize_config
from .core import inv_freq
from .rope_config import ROPE_TYPES, RopeSpec, dynamic_ntk_base, rope_spec_from_config

__all__ = [
    "flash_rotary_reference",
    "vllm_cache_length",
    "vllm_dynamic_frequencies",
    "vllm_max_model_len",
]


def vllm_max_model_len(config: Any) -> int:
    """The context length vLLM serves a config at by default (no ``--max-model-len``).

    vLLM's rule (``_get_and_verify_max_len`` in ``vllm/config/model.py``, commit 18ec6629),
    without a tokenizer's ``model_max_length``, by each rope type's
    :attr:`ropelab.rope_config.RopeType.vllm_max_len`: start from
    ``max_position_embeddings``; for every rope group whose type is not LongRoPE or Llama 3.1
    scaling take its ``factor`` (a YaRN group also replaces the length by its
    ``original_max_position_embeddings``) and multiply; Gemma 3 and 3n are left unscaled
    (their declared length is already the extended one). With LongRoPE the default is the
    *original* length.
    """
    fields = normalize_config(config)
    length = fields.max_position_embeddings
    if length is None:
        raise ValueError("max_position_embeddings is required to derive vLLM's max_model_len")
    groups = [entry.rope_parameters for entry in fields.layers]
    rules = [_vllm_max_len_rule(params["rope_type"]) for params in groups]
    if "gemma3" not in fields.model_type:
        factor = 1.0
        for params, rule in zip(groups, rules, strict=True):
            if rule in ("scaled", "original_scaled"):
                factor = params.get("factor") or factor
                if rule == "original_scaled":
                    length = params["original_max_position_embeddings"]
        length = length * factor
    if "original" in rules:
        top = (config.get("text_config") or config) if isinstance(config, dict) else {}
        return int(top.get("original_max_position_embeddings", length))
    return int(length)


def _vllm_max_len_rule(rope_type: str) -> str:
    """:attr:`ropelab.rope_config.RopeType.vllm_max_len` of a rope type; ``"scaled"`` (vLLM's
    branch for every other type) for a name that is no rope type."""
    record = ROPE_TYPES.get(rope_type)
    return "scaled" if record is None else record.vllm_max_len


def vllm_cache_length(config: Any) -> int:
    """The number of positions in vLLM's cos/sin table for a config's (main) rope dict.

    By the rope type's :attr:`ropelab.rope_config.RopeType.vllm_cache`: YaRN and DeepSeek's
    YaRN: ``original_max_position_embeddings * factor``; dynamic NTK:
    ``max_position_embeddings * factor``; the other types: ``max_position_embeddings``.
    """
    spec = config if isinstance(config, RopeSpec) else rope_spec_from_config(config)
    max_len = check_count(spec.max_position_embeddings, "max_position_embeddings")
    rule = ROPE_TYPES[spec.rope_type].vllm_cache
    if rule == "original_scaled":
        return int(spec.original_max_position_embeddings * spec.factor)
    if rule == "max_scaled":
        return int(max_len * spec.factor)
    return max_len


def vllm_dynamic_frequencies(config: Any) -> np.ndarray:
    r"""vLLM's dynamic NTK frequencies: one base, for the length :math:`L = s L_{\max}`.

    .. math:: \beta' = \beta\,(s \cdot s - (s - 1))^{d/(d-2)},\qquad
              \theta'_i = \beta'^{-2i/d}

    (:func:`ropelab.rope_config.dynamic_ntk_base` at ``seq_len = factor *
    max_position_embeddings``), used at every position, short prompts included.
    """
    spec = config if isinstance(config, RopeSpec) else rope_spec_from_config(config)
    if spec.rope_type != "dynamic":
        raise ValueError(f"rope_type must be 'dynamic', got {spec.rope_type!r}")
    length = int(spec.max_position_embeddings * spec.factor)
    base = dynamic_ntk_base(
        spec.rope_theta, spec.rotary_dim, spec.factor, length, spec.max_position_embeddings
    )
    return inv_freq(spec.rotary_dim, base)


def flash_rotary_reference(
    x: np.ndarray,
    cos: np.ndarray,
    sin: np.ndarray,
    *,
    seqlen_offsets: int | np.ndarray = 0,
    cu_seqlens: np.ndarray | None = None,
    interleaved: bool = False,
    conjugate: bool = False,
) -> np.ndarray:
    r"""What flash-attention's ``apply_rotary`` computes (module docstring), in NumPy.

    For each token at row *r* of its sequence (of its document with ``cu_seqlens``) and
    offset *o*, plane *i* with coordinates :math:`(x_a, x_b)` (adjacent if ``interleaved``,
    else *i* and :math:`i + d/2`) becomes

    .. math:: (x_a c - x_b s,\; x_a s + x_b c),\quad c = \cos[r + o, i],\;
              s = \pm\sin[r + o, i]

    with the minus sign when ``conjugate``.

    Args:
        x: ``(batch, seqlen, nheads, headdim)``, or ``(total, nheads, headdim)`` with
            ``cu_seqlens``.
        cos, sin: ``(seqlen_ro, rotary_dim / 2)`` tables.
        seqlen_offsets: an integer, or one per sequence (the decode offset).
        cu_seqlens: ``(batch + 1,)`` start indices of packed documents, or None.
        interleaved: GPT-J pairing (adjacent coordinates) instead of the half split.
        conjugate: rotate by the negative angle.
    """
    x = np.asarray(x, dtype=np.float64)
    cos = np.asarray(cos, dtype=np.float64)
    sin = -np.asarray(sin, dtype=np.float64) if conjugate else np.asarray(sin, np.float64)
    half = cos.shape[-1]
    if cu_seqlens is None:
        batch, seqlen = x.shape[:2]
        rows = np.broadcast_to(np.arange(seqlen), (batch, seqlen))
        offsets = np.broadcast_to(np.asarray(seqlen_offsets), (batch,))
        index = rows + offsets[:, None]
    else:
        starts = np.asarray(cu_seqlens)
        index = np.empty(x.shape[0], dtype=np.int64)
        offsets = np.broadcast_to(np.asarray(seqlen_offsets), (len(starts) - 1,))
        for doc, (a, b) in enumerate(pairwise(starts)):
            index[a:b] = np.arange(b - a) + offsets[doc]
    if np.any(index >= cos.shape[0]):
        raise ValueError(
            f"row + seqlen_offsets must be < seqlen_ro = {cos.shape[0]}, got {index.max()}"
        )
    c = cos[index][..., None, :]
    s = sin[index][..., None, :]
    out = x.copy()
    if interleaved:
        a, b = x[..., 0 : 2 * half : 2], x[..., 1 : 2 * half : 2]
        out[..., 0 : 2 * half : 2] = a * c - b * s
        out[..., 1 : 2 * half : 2] = a * s + b * c
    else:
        a, b = x[..., :half], x[..., half : 2 * half]
        out[..., :half] = a * c - b * s
        out[..., half : 2 * half] = a * s + b * c
    return out
