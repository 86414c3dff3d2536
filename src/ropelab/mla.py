r"""Decoupled RoPE in multi-head latent attention (DeepSeek-V2 and V3; chapter 9).

Multi-head latent attention (MLA) caches one small *latent* vector per token instead of the
keys and values of every head (DeepSeek-V2, section 2.1). With :math:`h_t` the token's
hidden state:

.. math::
    c_t = W^{DKV} h_t \in \mathbb R^{d_c}, \qquad
    k^C_{t,i} = W^{UK}_i c_t, \qquad v_{t,i} = W^{UV}_i c_t,

and the score of head *i* between a query at *m* and a key at *n* is
:math:`q_{m,i}^\top k^C_{n,i} = (W^{Q}_i x_m)^\top W^{UK}_i c_n
= x_m^\top \big(W^{Q\top}_i W^{UK}_i\big) c_n`. The product
:math:`A_i = W^{Q\top}_i W^{UK}_i` is computed once, so at inference the up-projection
:math:`W^{UK}` is *absorbed* into the query and the keys are never rebuilt from the cache.

RoPE breaks this: rotating both sides puts :math:`R_m^\top R_n = R_{n-m}` between the two
matrices, :math:`x_m^\top W^{Q\top}_i R_{n-m} W^{UK}_i c_n`, a matrix that changes with the
offset (:mod:`ropelab.proofs_beyond` proves both statements). MLA therefore keeps the
content part unrotated and adds a separate, *decoupled* RoPE part: a query part
:math:`q^R_{m,i} = R_m W^{QR}_i x_m` per head and one key part
:math:`k^R_n = R_n W^{KR} h_n` of :math:`d_h^R` = 64 dimensions shared by all heads. The
cache per token and layer holds :math:`c_n` and :math:`k^R_n`:

.. math:: d_c + d^R_h = 512 + 64 = 576 \text{ elements}

against :math:`2 n_h d_h` = 2 · 128 · 128 = 32,768 for multi-head attention with the same
heads, "equal to GQA with only 2.25 groups" (DeepSeek-V2, Table 1:
:math:`(d_c + d_h^R)\,l \approx \tfrac92 d_h l`, with :math:`d_c = 4d_h`,
:math:`d_h^R = d_h/2`).

Sources: DeepSeek-AI, *DeepSeek-V2* (arXiv 2405.04434), section 2.1 and Table 1;
*DeepSeek-V3 Technical Report* (arXiv 2412.19437), section 2.1.1; the released configs
(``kv_lora_rank``, ``qk_rope_head_dim``, ``qk_nope_head_dim``, ``v_head_dim``), shipped in
:mod:`ropelab.configs`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_count, check_finite_array, check_layout
from .core import rotation_matrix

__all__ = [
    "MLACache",
    "absorbed_matrix",
    "mha_cache_elements",
    "mla_cache",
    "offset_dependence",
    "rotated_product",
]

_MLA_KEYS = (
    "num_attention_heads",
    "num_hidden_layers",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
)


def mha_cache_elements(n_heads: int, head_dim: int, n_kv_heads: int | None = None) -> int:
    r"""Elements a multi-head (or grouped-query) attention layer caches per token: :math:`2 n_{kv} d_h`.

    Keys and values, :math:`d_h` each, for every key/value head (``n_kv_heads``; all
    ``n_heads`` when ``None``). DeepSeek-V2, Table 1 (MHA: :math:`2 n_h d_h`; GQA:
    :math:`2 n_g d_h`).
    """
    n_heads = check_count(n_heads, "n_heads")
    head_dim = check_count(head_dim, "head_dim")
    groups = n_heads if n_kv_heads is None else check_count(n_kv_heads, "n_kv_heads")
    if groups > n_heads:
        raise ValueError(f"n_kv_heads must be in [1, n_heads={n_heads}], got {groups}")
    return 2 * groups * head_dim


@dataclass(frozen=True)
class MLACache:
    r"""The KV-cache arithmetic of an MLA model, per token.

    Attributes:
        n_heads: :math:`n_h`.
        n_layers: *l*.
        latent_dim: :math:`d_c` (``kv_lora_rank``).
        rope_dim: :math:`d_h^R` (``qk_rope_head_dim``), the shared rotated key.
        head_dim: :math:`d_h` (``qk_nope_head_dim``), the per-head content dimension.
        v_head_dim: the per-head value dimension.
    """

    n_heads: int
    n_layers: int
    latent_dim: int
    rope_dim: int
    head_dim: int
    v_head_dim: int

    @property
    def per_layer(self) -> int:
        r""":math:`d_c + d_h^R` elements per token and layer (576 for DeepSeek-V2/V3)."""
        return self.latent_dim + self.rope_dim

    @property
    def mha_per_layer(self) -> int:
        r"""DeepSeek-V2's baseline (Table 1), heads of :math:`d_h`: :math:`2 n_h d_h` (32,768).

        Heads of :math:`d_h` for keys and values alike; multi-head attention with DeepSeek's own
        heads (keys :math:`d_h + d_h^R = 192`, values 128) would cache
        :math:`n_h (d_h + d_h^R + d_v)` (40,960).
        """
        return mha_cache_elements(self.n_heads, self.head_dim)

    @property
    def ratio(self) -> float:
        """How many times smaller MLA's cache is than :attr:`mha_per_layer`."""
        return self.mha_per_layer / self.per_layer

    @property
    def gqa_groups(self) -> float:
        r"""The number of GQA groups with the same cache: :math:`(d_c + d_h^R) / 2d_h` (2.25)."""
        return self.per_layer / (2 * self.head_dim)

    @property
    def per_token(self) -> int:
        """Elements per token over all layers."""
        return self.per_layer * self.n_layers

    def bytes_per_token(self, bytes_per_element: int = 2) -> int:
        """Bytes per token over all layers (2 bytes per element: bfloat16)."""
        return self.per_token * check_count(bytes_per_element, "bytes_per_element")


def mla_cache(config: Mapping[str, Any]) -> MLACache:
    """The cache arithmetic of a DeepSeek-style config (``kv_lora_rank``, ``qk_rope_head_dim``, ...).

    Reads a released ``config.json`` mapping (a nested ``text_config`` is used when present),
    such as ``ropelab.configs.load_config("deepseek-v3")``. Chapter 9.

    Raises:
        ValueError: a key is missing or not a positive integer.
    """
    if not isinstance(config, Mapping):
        raise ValueError(f"config must be a mapping, got {type(config).__name__}")
    fields = config.get("text_config", config)
    missing = [key for key in _MLA_KEYS if key not in fields]
    if missing:
        raise ValueError(f"config must have the MLA keys {list(_MLA_KEYS)}; missing {missing}")
    value = {key: check_count(fields[key], key) for key in _MLA_KEYS}
    return MLACache(
        n_heads=value["num_attention_heads"],
        n_layers=value["num_hidden_layers"],
        latent_dim=value["kv_lora_rank"],
        rope_dim=value["qk_rope_head_dim"],
        head_dim=value["qk_nope_head_dim"],
        v_head_dim=value["v_head_dim"],
    )


def _matrix(values: Any, name: str) -> np.ndarray:
    array = check_finite_array(values, name)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got shape {array.shape}")
    return array


def absorbed_matrix(w_q: Any, w_uk: Any) -> np.ndarray:
    r"""The absorbed matrix :math:`A = W_Q^\top W_{UK}` of one head, without RoPE.

    ``w_q`` maps the query input to the head (:math:`d_h \times d_q`), ``w_uk`` the latent to
    the head's key (:math:`d_h \times d_c`); the score is :math:`x^\top A c`.
    """
    w_q, w_uk = _matrix(w_q, "w_q"), _matrix(w_uk, "w_uk")
    if w_q.shape[0] != w_uk.shape[0]:
        raise ValueError(
            f"w_q and w_uk must have the same number of rows (the head dimension), "
            f"got {w_q.shape[0]} and {w_uk.shape[0]}"
        )
    return w_q.T @ w_uk


def rotated_product(
    w_q: Any, w_uk: Any, m: float, n: float, *, base: float = 10000.0, layout: str = "half"
) -> np.ndarray:
    r"""What absorption would need if RoPE rotated the content part: :math:`W_Q^\top R_m^\top R_n W_{UK}`.

    It equals :math:`W_Q^\top R_{n-m} W_{UK}`: a different matrix for every offset.
    """
    w_q, w_uk = _matrix(w_q, "w_q"), _matrix(w_uk, "w_uk")
    absorbed_matrix(w_q, w_uk)  # checks the shapes
    layout = check_layout(layout)
    dim = w_q.shape[0]
    r_m = rotation_matrix(m, dim, base, layout)
    r_n = rotation_matrix(n, dim, base, layout)
    return w_q.T @ r_m.T @ r_n @ w_uk


def offset_dependence(
    w_q: Any, w_uk: Any, offsets: Any, *, base: float = 10000.0, layout: str = "half"
) -> np.ndarray:
    r"""The relative change :math:`\lVert W_Q^\top R_r W_{UK} - A\rVert_F / \lVert A\rVert_F` per offset *r*.

    Zero at *r* = 0 and, for generic weights, nonzero at every other offset: no single
    precomputed matrix serves all offsets. Chapter 9 plots it.
    """
    offsets = check_finite_array(offsets, "offsets")
    absorbed = absorbed_matrix(w_q, w_uk)
    scale = np.linalg.norm(absorbed)
    if scale == 0:
        raise ValueError("w_q and w_uk must give a nonzero absorbed matrix")
    changes = [
        np.linalg.norm(
            rotated_product(w_q, w_uk, 0.0, float(r), base=base, layout=layout) - absorbed
        )
        for r in offsets.ravel()
    ]
    return np.asarray(changes).reshape(offsets.shape) / scale
