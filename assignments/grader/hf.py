"""The references of the hidden tests: transformers' Llama rotary embedding,
``apply_rotary_pos_emb`` and rope init functions (the pinned release), and
what ``ropelab.diagnose_rope`` finds in a student's rotation."""

from __future__ import annotations

import functools
import textwrap

import numpy as np


@functools.cache
def _modules():
    import torch
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.llama import modeling_llama

    return torch, LlamaConfig, ROPE_INIT_FUNCTIONS, modeling_llama


def llama_config(dim: int, params: dict, **top):
    _, config_class, _, _ = _modules()
    return config_class(
        head_dim=dim,
        hidden_size=4 * dim,
        num_attention_heads=4,
        rope_parameters=dict(params),
        **top,
    )


def default_inv_freq(dim: int, base: float) -> np.ndarray:
    """transformers' LlamaRotaryEmbedding.inv_freq (float32)."""
    _, _, _, llama = _modules()
    config = llama_config(dim, {"rope_type": "default", "rope_theta": base})
    rotary = llama.LlamaRotaryEmbedding(config)
    return rotary.inv_freq.double().numpy()


def init_inv_freq(dim: int, params: dict, **top) -> np.ndarray:
    """``ROPE_INIT_FUNCTIONS[rope_type]`` on a Llama config (float32)."""
    _, _, functions, _ = _modules()
    config = llama_config(dim, params, **top)
    inv, _ = functions[params["rope_type"]](config)
    return inv.double().numpy()


def rotate_half(x: np.ndarray, positions, base: float) -> np.ndarray:
    """x (..., seq, d) rotated by transformers: the Llama rotary embedding's
    cos and sin and ``apply_rotary_pos_emb`` (pairs (i, i + d/2))."""
    torch, _, _, llama = _modules()
    x = np.asarray(x, dtype=np.float64)
    dim, seq = x.shape[-1], x.shape[-2]
    config = llama_config(dim, {"rope_type": "default", "rope_theta": base})
    rotary = llama.LlamaRotaryEmbedding(config)
    flat = torch.tensor(x.reshape(1, -1, seq, dim))
    position_ids = torch.tensor(np.asarray(positions, dtype=np.int64))[None]
    cos, sin = rotary(flat, position_ids)
    out, _ = llama.apply_rotary_pos_emb(flat, flat, cos, sin)
    return out.numpy().reshape(x.shape)


def rotate_interleaved(x: np.ndarray, positions, base: float) -> np.ndarray:
    """Pairs (2i, 2i + 1): the same rotation after moving coordinate 2i to
    i and 2i + 1 to i + d/2 (and back)."""
    x = np.asarray(x, dtype=np.float64)
    dim = x.shape[-1]
    order = np.concatenate([np.arange(0, dim, 2), np.arange(1, dim, 2)])
    rotated = rotate_half(x[..., order], positions, base)
    out = np.empty_like(rotated)
    out[..., order] = rotated
    return out


def diagnosis(fn, layout: str, dim: int, base: float) -> str:
    """What ``ropelab.diagnose_rope`` says about ``fn(x, positions)``,
    indented for the report ('' when it finds nothing)."""
    from ropelab import diagnose_rope

    found = diagnose_rope(fn, layout=layout, dim=dim, base=base)
    if found.ok:
        return ""
    text = found.format(width=68)
    return "What ropelab.diagnose finds in your code:\n" + textwrap.indent(
        text, "  "
    )
