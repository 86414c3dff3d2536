r"""Hybrid stacks of 2025 models (chapter 10): which layers rotate, and how much of a head.

Each function reads the fields a released config uses and returns the per-layer pattern the
engine builds from them (transformers 5.23: ``configuration_smollm3.py``,
``configuration_qwen3_next.py``, ``configuration_qwen3_5.py``, ``modeling_qwen3_5.py``):

* **SmolLM3**: ``no_rope_layers[i] = int((i + 1) % no_rope_layer_interval != 0)``, 1 for a
  RoPE layer, 0 for NoPE; with the interval 4 every fourth layer has no position encoding
  (:func:`rope_flags_every`).
* **Qwen3-Next** and **Qwen3.5**: ``layer_types[i]`` is ``"full_attention"`` when
  ``(i + 1) % full_attention_interval == 0``, else ``"linear_attention"`` (Gated DeltaNet,
  no RoPE) (:func:`full_attention_flags`); the full-attention layers rotate
  ``int(head_dim * partial_rotary_factor)`` coordinates of each head
  (:func:`rotary_dims`: a quarter of 256). Qwen3.5 spreads those planes over time, height
  and width with ``mrope_section`` (11, 11, 10), interleaved plane by plane
  (:func:`ropelab.multimodal.plane_axes` ``"interleaved"``).
* **Kimi Linear** (Kimi Team, 2025, arXiv:2510.26692): three Kimi Delta Attention layers for
  every MLA layer, and the MLA layers use no position encoding; only the MLA layers keep a
  cache that grows with the context (:func:`growing_cache_share`).
"""

from __future__ import annotations

from ._checks import check_count, check_positive

__all__ = ["full_attention_flags", "growing_cache_share", "rope_flags_every", "rotary_dims"]


def rope_flags_every(num_layers: int, interval: int) -> list[int]:
    """SmolLM3's ``no_rope_layers``: 1 (RoPE) except every ``interval``-th layer (0, NoPE)."""
    num_layers = check_count(num_layers, "num_layers")
    interval = check_count(interval, "interval")
    return [int((i + 1) % interval != 0) for i in range(num_layers)]


def full_attention_flags(num_layers: int, interval: int) -> list[bool]:
    """Qwen3-Next's and Qwen3.5's layer types: True for ``"full_attention"`` (every
    ``interval``-th layer), False for ``"linear_attention"``."""
    num_layers = check_count(num_layers, "num_layers")
    interval = check_count(interval, "interval")
    return [(i + 1) % interval == 0 for i in range(num_layers)]


def rotary_dims(head_dim: int, partial_rotary_factor: float) -> int:
    """Coordinates rotated per head: ``int(head_dim * partial_rotary_factor)`` (transformers'
    default RoPE of Qwen3-Next and Qwen3.5); half as many planes."""
    head_dim = check_count(head_dim, "head_dim")
    factor = check_positive(partial_rotary_factor, "partial_rotary_factor")
    if factor > 1:
        raise ValueError(f"partial_rotary_factor must be in (0, 1]; got {factor}")
    return int(head_dim * factor)


def growing_cache_share(attention_layers: int, linear_layers: int) -> float:
    """The share of a full-attention stack's KV cache a hybrid keeps at long context: its
    attention layers over all layers (linear-attention layers keep a state of fixed size)."""
    attention_layers = check_count(attention_layers, "attention_layers")
    linear_layers = check_count(linear_layers, "linear_layers", minimum=0)
    return attention_layers / (attention_layers + linear_layers)
