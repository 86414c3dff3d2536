r"""RoPE as PyTorch modules: a cached rotary embedding and two attention layers.

Chapter 3 builds :class:`RotaryEmbedding` (the fast elementwise form of RoFormer eq. 34 with
a cos/sin cache) and :class:`CausalSelfAttention` (a nanoGPT-style layer using it); chapter 7
uses them for the context-extension experiments (``from_config`` accepts every rope type of
transformers: default, linear, dynamic, yarn, longrope, llama3) and for the ablation of the
scaling-laws paper that removes the planes beyond the critical dimension (``keep_planes``).
:class:`RotaryLinearAttention` is RoPE inside linear attention, RoFormer eq. 19.

Conventions are those of :mod:`ropelab.core`: plane *i* turns by :math:`m\theta_i` at
position *m*; ``layout="half"`` pairs coordinates ``(i, i + r)`` of the rotary part
(transformers' ``rotate_half``, the default here), ``layout="interleaved"`` pairs
``(2i, 2i + 1)`` (RoFormer, Meta's Llama).

Sources:
    * J. Su, Y. Lu, S. Pan, A. Murtadha, B. Wen, Y. Liu, *RoFormer: Enhanced Transformer with
      Rotary Position Embedding*, arXiv:2104.09864 (eq. 15, 19, 34).
    * A. Katharopoulos, A. Vyas, N. Pappas, F. Fleuret, *Transformers are RNNs: Fast
      Autoregressive Transformers with Linear Attention*, ICML 2020, arXiv:2006.16236
      (the feature map :math:`\phi(x) = \mathrm{elu}(x) + 1` and the causal cumulative sums).
    * X. Liu, H. Yan, S. Zhang, C. An, X. Qiu, D. Lin, *Scaling Laws of RoPE-based
      Extrapolation*, arXiv:2310.05209 (the critical dimension, ``keep_planes``).
    * Hugging Face transformers, ``modeling_rope_utils.py`` (``dynamic_rope_update``) and
      ``LlamaRotaryEmbedding``, whose numbers :class:`RotaryEmbedding` reproduces.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ._checks import (
    check_base,
    check_count,
    check_dim,
    check_finite_array,
    check_layout,
    check_positive,
)
from .core import apply_rope, coordinate_planes, rope_angles, rotate_pairs
from .core import inv_freq as default_inv_freq
from .rope_config import ROPE_TYPES, RopeSpec, frequencies_from_config, rope_spec_from_config

__all__ = [
    "AttentionConfig",
    "CausalSelfAttention",
    "RotaryEmbedding",
    "RotaryLinearAttention",
]

_MIN_CACHE_LEN = 16


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def _next_power_of_two(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def _frequencies(spec: RopeSpec, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    theta, factor = frequencies_from_config(spec, seq_len=seq_len)
    return np.asarray(theta, dtype=np.float64), float(factor)


# --------------------------------------------------------------------------------------
# RotaryEmbedding
# --------------------------------------------------------------------------------------


class RotaryEmbedding(nn.Module):
    r"""Rotary position embedding with a growing cos/sin cache (chapter 3; chapter 7).

    At position *m*, plane *i* of the rotary part turns by :math:`m\theta_i`; YaRN and
    LongRoPE also scale cos and sin by an attention factor *s*, as transformers does:

    .. math::
        \cos_{m,i} = s\cos(m\theta_i), \qquad \sin_{m,i} = s\sin(m\theta_i), \qquad
        \theta_i = \beta^{-2i/r}\ \text{(default)}

    and :meth:`rotate` applies RoFormer eq. 34 elementwise (:func:`ropelab.core.rotate_pairs`).

    **Cache.** The angles :math:`m\theta_i` are formed in float64 (:func:`ropelab.core.rope_angles`)
    and only cos and sin are rounded to the cache dtype (float32 unless ``dtype`` says
    otherwise), so the result at position :math:`2^{20}` is within 1e-5 of the exact one
    (transformers forms the angles in float32 and is about 1e-2 off there). The cache holds
    positions ``0 .. L-1``; a request for a position ``>= L`` grows it to the next power of two
    by computing only the new positions. Positions beyond ``max_cache_len``, and fractional
    positions, are computed directly in float64 and not cached. Converting the module's dtype
    (``.double()``) rebuilds the cache in the new dtype from float64 angles.

    **Frequencies that depend on the length** (``from_config``), with
    :math:`L = \max(\text{positions}) + 1` as in transformers' ``dynamic_rope_update``:

    * ``dynamic`` (NTK-aware, dynamic): when *L* exceeds the largest length the frequencies
      were computed for (initially ``max_position_embeddings``), they are recomputed for *L*;
      when *L* is back within ``max_position_embeddings`` they are reset to the original ones.
    * ``longrope``: the ``long_factor`` frequencies are used when
      :math:`L >` ``original_max_position_embeddings``, the ``short_factor`` ones otherwise.

    Each change of frequencies empties the cache.

    Args:
        head_dim: the head dimension, a positive even integer.
        base: :math:`\beta > 0` of the default frequencies (ignored when ``inv_freq`` is given).
        layout: ``"half"`` (default, as transformers) or ``"interleaved"``.
        rotary_dim: the number of rotated coordinates (partial rotary embedding, as GPT-NeoX and
            Phi); positive, even, ``<= head_dim``. Default: ``head_dim``, or ``2 * len(inv_freq)``.
        inv_freq: frequencies :math:`\theta_i` overriding ``base`` (``rotary_dim / 2`` entries).
        attention_factor: *s* > 0 multiplying cos and sin.
        dtype: floating dtype of the cache (float32 by default).
        max_cache_len: the largest number of positions kept in the cache.
    """

    def __init__(
        self,
        head_dim: int,
        base: float = 10000.0,
        *,
        layout: str = "half",
        rotary_dim: int | None = None,
        inv_freq: Any = None,
        attention_factor: float = 1.0,
        dtype: torch.dtype = torch.float32,
        max_cache_len: int = 2**17,
    ) -> None:
        super().__init__()
        self.head_dim = check_dim(head_dim, "head_dim")
        self.layout = check_layout(layout)
        if inv_freq is not None:
            theta = check_finite_array(
                inv_freq.detach().cpu().numpy() if torch.is_tensor(inv_freq) else inv_freq,
                "inv_freq",
            )
            if theta.ndim != 1 or theta.size == 0:
                raise ValueError(f"inv_freq must be a non-empty 1-D array, got shape {theta.shape}")
            if rotary_dim is None:
                rotary_dim = 2 * theta.size
            self.base: float | None = None
        else:
            self.base = check_base(base)
        self.rotary_dim = check_dim(
            self.head_dim if rotary_dim is None else rotary_dim, "rotary_dim"
        )
        if self.rotary_dim > self.head_dim:
            raise ValueError(
                f"rotary_dim must be <= head_dim={self.head_dim}, got {self.rotary_dim}"
            )
        if inv_freq is None:
            theta = default_inv_freq(self.rotary_dim, self.base)
        elif 2 * theta.size != self.rotary_dim:
            raise ValueError(
                f"inv_freq has {theta.size} entries but rotary_dim={self.rotary_dim} "
                f"needs {self.rotary_dim // 2}"
            )
        if not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
            raise ValueError(f"dtype must be a floating torch dtype, got {dtype!r}")
        self.max_cache_len = check_count(max_cache_len, "max_cache_len")
        self._theta = theta  # float64, the current frequencies
        self._original_theta = theta
        self._attention_factor = check_positive(attention_factor, "attention_factor")
        # length-dependent frequencies (set by from_config)
        self.rope_type = "default"
        self._spec: RopeSpec | None = None
        self.max_position_embeddings: int | None = None
        self.original_max_position_embeddings: int | None = None
        self._freq_seq_len: int | None = None  # dynamic: the length the frequencies are for
        self._cache_dtype = dtype
        planes = self.rotary_dim // 2
        self.register_buffer("cos_cached", torch.empty(0, planes, dtype=dtype), persistent=False)
        self.register_buffer("sin_cached", torch.empty(0, planes, dtype=dtype), persistent=False)

    # ----------------------------------------------------------------- construction

    @classmethod
    def from_config(
        cls,
        config: Any,
        *,
        layout: str = "half",
        dtype: torch.dtype = torch.float32,
        max_cache_len: int = 2**17,
    ) -> RotaryEmbedding:
        """Build from a transformers-style config (a dict, a ``PretrainedConfig`` or a ``RopeSpec``).

        The frequencies and attention factor come from
        :func:`ropelab.rope_config.frequencies_from_config` (the numbers of transformers'
        ``ROPE_INIT_FUNCTIONS``) for rope types default, linear, dynamic, yarn, longrope and
        llama3; :func:`ropelab.rope_config.rope_spec_from_config` resolves the config
        (head dimension, ``partial_rotary_factor``, the context lengths) as transformers does.
        """
        spec = rope_spec_from_config(config)
        theta, factor = _frequencies(spec)
        module = cls(
            spec.head_dim,
            layout=layout,
            inv_freq=theta,
            attention_factor=factor,
            dtype=dtype,
            max_cache_len=max_cache_len,
        )
        module._spec = spec
        module.rope_type = spec.rope_type
        module.max_position_embeddings = spec.max_position_embeddings
        module.original_max_position_embeddings = spec.original_max_position_embeddings
        if ROPE_TYPES[spec.rope_type].length_policy == "longest_seen":
            module._freq_seq_len = spec.max_position_embeddings
        return module

    # ----------------------------------------------------------------- state

    @property
    def inv_freq(self) -> torch.Tensor:
        r"""The frequencies :math:`\theta_i` in use now, float64, shape ``(rotary_dim / 2,)``."""
        return torch.from_numpy(self._theta.copy())

    @property
    def attention_factor(self) -> float:
        """The scale *s* applied to cos and sin."""
        return self._attention_factor

    @property
    def cache_len(self) -> int:
        """The number of positions held in the cache."""
        return int(self.cos_cached.shape[0])

    def clear_cache(self) -> None:
        """Empty the cos/sin cache (it is refilled on demand)."""
        planes = self.rotary_dim // 2
        kwargs = {"dtype": self.cos_cached.dtype, "device": self.cos_cached.device}
        self.cos_cached = torch.empty(0, planes, **kwargs)
        self.sin_cached = torch.empty(0, planes, **kwargs)
        self._cache_dtype = self.cos_cached.dtype

    def _set_frequencies(self, theta: np.ndarray, attention_factor: float) -> None:
        if np.array_equal(theta, self._theta) and attention_factor == self._attention_factor:
            return
        self._theta = theta
        self._attention_factor = attention_factor
        self.clear_cache()

    def _update_frequencies(self, seq_len: int) -> None:
        """transformers' ``dynamic_rope_update``, by the rope type's ``length_policy``.

        ``"longest_seen"`` (dynamic NTK): the frequencies of the longest length seen, back to
        the originals once the length is within ``max_position_embeddings``. ``"current"``
        (LongRoPE): the frequencies of the current length.
        """
        if self._spec is None:
            return
        policy = ROPE_TYPES[self._spec.rope_type].length_policy
        if policy == "longest_seen":
            max_pos = self.max_position_embeddings
            assert max_pos is not None and self._freq_seq_len is not None
            if seq_len > self._freq_seq_len:  # growth: the frequencies of this length
                theta, factor = _frequencies(self._spec, seq_len=seq_len)
                self._set_frequencies(theta, factor)
                self._freq_seq_len = seq_len
            elif seq_len <= max_pos and self._freq_seq_len > max_pos:  # back within: reset
                self._set_frequencies(self._original_theta, self._attention_factor)
                self._freq_seq_len = max_pos
        elif policy == "current":
            theta, _ = _frequencies(self._spec, seq_len=seq_len)
            self._set_frequencies(theta, self._attention_factor)

    def _cos_sin_from_angles(self, angles: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        cos, sin = np.cos(angles), np.sin(angles)  # float64
        if self._attention_factor != 1.0:
            cos *= self._attention_factor
            sin *= self._attention_factor
        kwargs = {"dtype": self.cos_cached.dtype, "device": self.cos_cached.device}
        return torch.from_numpy(cos).to(**kwargs), torch.from_numpy(sin).to(**kwargs)

    @torch.no_grad()
    def _grow_cache(self, length: int) -> None:
        """Make the cache hold positions ``0 .. length-1``, computing only the missing ones."""
        if self.cos_cached.dtype != self._cache_dtype:  # the module's dtype was converted
            self.clear_cache()
        current = self.cache_len
        if length <= current:
            return
        new_len = min(max(_next_power_of_two(length), _MIN_CACHE_LEN), self.max_cache_len)
        new_len = max(new_len, length)
        positions = np.arange(current, new_len, dtype=np.float64)
        cos, sin = self._cos_sin_from_angles(rope_angles(positions, self._theta))  # (n, r)
        self.cos_cached = torch.cat((self.cos_cached, cos), dim=0)  # (new_len, r)
        self.sin_cached = torch.cat((self.sin_cached, sin), dim=0)  # (new_len, r)

    def _check_positions(self, positions: Any) -> torch.Tensor:
        pos = torch.as_tensor(positions)
        if pos.dtype == torch.bool or pos.is_complex():
            raise ValueError(f"positions must be real numbers, got dtype {pos.dtype}")
        if pos.ndim > 2:
            raise ValueError(
                f"positions must have shape (seq,) or (batch, seq), got {tuple(pos.shape)}"
            )
        if pos.numel() and pos.is_floating_point() and not bool(torch.isfinite(pos).all()):
            raise ValueError("positions must be finite (no NaN or infinity)")
        if pos.numel() and bool((pos < 0).any()):
            raise ValueError(f"positions must be >= 0, got a minimum of {pos.min().item():g}")
        return pos

    def cos_sin_planes(self, positions: Any) -> tuple[torch.Tensor, torch.Tensor]:
        r"""Per-plane :math:`s\cos(m\theta_i)` and :math:`s\sin(m\theta_i)`.

        Args:
            positions: non-negative positions, shape ``(seq,)`` or ``(batch, seq)``; integers
                are read from the cache, fractional values are computed in float64.

        Returns:
            ``(cos, sin)``, each of shape ``positions.shape + (rotary_dim / 2,)`` in the cache
            dtype, on the module's device.
        """
        pos = self._check_positions(positions)
        planes = self.rotary_dim // 2
        if pos.numel() == 0:
            empty = self.cos_cached.new_empty((*pos.shape, planes))
            return empty, empty.clone()
        seq_len = math.floor(pos.max().item()) + 1
        self._update_frequencies(seq_len)
        integral = not pos.is_floating_point() or bool((pos == pos.floor()).all())
        if integral and seq_len <= self.max_cache_len:
            self._grow_cache(seq_len)
            index = pos.to(device=self.cos_cached.device, dtype=torch.long)
            return self.cos_cached[index], self.sin_cached[index]  # (..., T, r)
        if self.cos_cached.dtype != self._cache_dtype:
            self.clear_cache()
        angles = rope_angles(pos.detach().cpu().double().numpy(), self._theta)  # (..., T, r)
        return self._cos_sin_from_angles(angles)

    # ----------------------------------------------------------------- public API

    def forward(self, positions: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """``(cos, sin)`` over the rotary coordinates, laid out like the coordinates they multiply.

        With ``layout="half"`` this is exactly what transformers' ``LlamaRotaryEmbedding``
        returns (``cat((c, c))``); with ``"interleaved"`` each plane's value is repeated
        twice. Shape ``positions.shape + (rotary_dim,)``, cache dtype.
        """
        cos, sin = self.cos_sin_planes(positions)  # (..., T, r)
        planes = torch.from_numpy(coordinate_planes(self.rotary_dim, self.layout))
        planes = planes.to(cos.device)
        return cos[..., planes], sin[..., planes]  # (..., T, 2r)

    def _prepare(
        self, x: torch.Tensor, positions: Any, name: str = "x"
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if not torch.is_tensor(x) or x.ndim < 2:
            raise ValueError(f"{name} must be a tensor of shape (..., seq, head_dim)")
        if x.shape[-1] != self.head_dim:
            raise ValueError(
                f"the last axis of {name} must be head_dim={self.head_dim}, got {x.shape[-1]}"
            )
        seq = x.shape[-2]
        if positions is None:
            positions = torch.arange(seq, device=x.device)
        pos = self._check_positions(positions)
        if pos.ndim == 0 or pos.shape[-1] != seq:
            raise ValueError(
                f"positions must have shape (seq,) or (batch, seq) with seq={seq} "
                f"matching {name}, got {tuple(pos.shape)}"
            )
        if pos.ndim == 2 and (x.ndim < 3 or x.shape[0] != pos.shape[0]):
            raise ValueError(
                f"positions of shape (batch, seq) need {name} of shape (batch, ..., seq, head_dim) "
                f"with batch={pos.shape[0]}, got {tuple(x.shape)}"
            )
        cos, sin = self.cos_sin_planes(pos)  # (T, r) or (B, T, r)
        cos = cos.to(device=x.device, dtype=x.dtype)
        sin = sin.to(device=x.device, dtype=x.dtype)
        if pos.ndim == 2:  # (B, T, r) -> (B, 1, ..., 1, T, r)
            shape = (pos.shape[0],) + (1,) * (x.ndim - 3) + tuple(cos.shape[1:])
            cos, sin = cos.reshape(shape), sin.reshape(shape)
        return cos, sin

    def rotate(self, x: torch.Tensor, positions: Any = None) -> torch.Tensor:
        r"""Rotate ``x`` (queries or keys) by RoPE: :math:`x \mapsto s\,R_{\Theta,m}\,x`.

        Args:
            x: tensor ``(batch, heads, seq, head_dim)`` (any ``(..., seq, head_dim)`` with
                positions of shape ``(seq,)``).
            positions: shape ``(seq,)`` or ``(batch, seq)``; default ``0 .. seq-1``.

        Returns:
            The rotated tensor, same shape and dtype; coordinates past ``rotary_dim`` unchanged.
        """
        cos, sin = self._prepare(x, positions)
        return rotate_pairs(x, cos, sin, self.layout)

    def rotate_qk(
        self, q: torch.Tensor, k: torch.Tensor, positions: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Rotate queries and keys at the same positions (one cache lookup for both)."""
        cos, sin = self._prepare(q, positions, "q")
        if k.shape[-2:] != q.shape[-2:]:
            raise ValueError(
                f"k must have the same (seq, head_dim) as q, got {tuple(k.shape)} and {tuple(q.shape)}"
            )
        cos_k, sin_k = cos.to(k.dtype), sin.to(k.dtype)
        return rotate_pairs(q, cos, sin, self.layout), rotate_pairs(k, cos_k, sin_k, self.layout)

    def rotate_float64(self, x: Any, positions: Any) -> Any:
        """Reference: :func:`ropelab.core.apply_rope` with this module's frequencies (float64 angles)."""
        return apply_rope(
            x,
            positions,
            inv_freq=self._theta,
            layout=self.layout,
            attention_factor=self._attention_factor,
        )

    def extra_repr(self) -> str:
        return (
            f"head_dim={self.head_dim}, rotary_dim={self.rotary_dim}, layout={self.layout!r}, "
            f"rope_type={self.rope_type!r}, attention_factor={self._attention_factor:g}, "
            f"cache_len={self.cache_len}"
        )


# --------------------------------------------------------------------------------------
# attention layers
# --------------------------------------------------------------------------------------


@dataclass
class AttentionConfig:
    r"""Hyper-parameters of :class:`CausalSelfAttention` and :class:`RotaryLinearAttention`.

    Args:
        d_model: model width *C*.
        n_heads: number of heads *H*; ``d_model`` must be divisible by it unless ``head_dim``
            is given.
        head_dim: per-head width (default ``d_model // n_heads``), positive and even.
        base: RoPE base :math:`\beta` (used when ``rope_parameters`` is ``None``).
        layout: ``"half"`` or ``"interleaved"``.
        rope_parameters: transformers-style ``rope_parameters`` (``rope_type``, ``factor``,
            ...); ``rope_theta`` defaults to ``base``.
        max_position_embeddings: the context length the rope parameters refer to.
        partial_rotary_factor: fraction of each head that is rotated.
        bias: biases in the projections.
        dropout: dropout probability on the attention weights and the output, in ``[0, 1)``.
        keep_planes: if set, keep only the first ``keep_planes`` rotation planes of q and k
            (``1 <= keep_planes <= head_dim / 2``) and use the temperature
            :math:`1/\sqrt{2\,\text{keep\_planes}}`.
    """

    d_model: int
    n_heads: int
    head_dim: int | None = None
    base: float = 10000.0
    layout: str = "half"
    rope_parameters: Mapping[str, Any] | None = None
    max_position_embeddings: int = 2048
    partial_rotary_factor: float = 1.0
    bias: bool = False
    dropout: float = 0.0
    keep_planes: int | None = None

    def __post_init__(self) -> None:
        self.d_model = check_count(self.d_model, "d_model")
        self.n_heads = check_count(self.n_heads, "n_heads")
        if self.head_dim is None:
            if self.d_model % self.n_heads:
                raise ValueError(
                    f"d_model must be divisible by n_heads when head_dim is not given, "
                    f"got d_model={self.d_model}, n_heads={self.n_heads}"
                )
            self.head_dim = self.d_model // self.n_heads
        self.head_dim = check_dim(self.head_dim, "head_dim")
        self.base = check_base(self.base)
        self.layout = check_layout(self.layout)
        self.max_position_embeddings = check_count(
            self.max_position_embeddings, "max_position_embeddings"
        )
        factor = check_positive(self.partial_rotary_factor, "partial_rotary_factor")
        if factor > 1.0:
            raise ValueError(f"partial_rotary_factor must be in (0, 1], got {factor:g}")
        self.partial_rotary_factor = factor
        dropout = check_positive(self.dropout, "dropout", inclusive=True)
        if dropout >= 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout:g}")
        self.dropout = dropout
        self.keep_planes = _check_keep_planes(self.keep_planes, self.head_dim)
        if self.rope_parameters is not None and not isinstance(self.rope_parameters, Mapping):
            raise ValueError(f"rope_parameters must be a mapping, got {self.rope_parameters!r}")

    @property
    def rotary_dim(self) -> int:
        """``int(head_dim * partial_rotary_factor)``, as transformers computes it."""
        assert self.head_dim is not None
        return check_dim(int(self.head_dim * self.partial_rotary_factor), "rotary_dim")

    def rope_config(self) -> dict[str, Any]:
        """A transformers-style config dict for :meth:`RotaryEmbedding.from_config`."""
        parameters = {"rope_type": "default", "rope_theta": self.base}
        parameters.update(dict(self.rope_parameters or {}))
        if self.partial_rotary_factor != 1.0:
            parameters.setdefault("partial_rotary_factor", self.partial_rotary_factor)
        return {
            "hidden_size": self.d_model,
            "num_attention_heads": self.n_heads,
            "head_dim": self.head_dim,
            "max_position_embeddings": self.max_position_embeddings,
            "partial_rotary_factor": parameters.get("partial_rotary_factor", 1.0),
            "rope_parameters": parameters,
        }

    def make_rotary(self) -> RotaryEmbedding:
        """The :class:`RotaryEmbedding` this config describes."""
        assert self.head_dim is not None
        if self.rope_parameters is None:
            return RotaryEmbedding(
                self.head_dim, self.base, layout=self.layout, rotary_dim=self.rotary_dim
            )
        return RotaryEmbedding.from_config(self.rope_config(), layout=self.layout)


def _check_keep_planes(keep_planes: Any, head_dim: int) -> int | None:
    if keep_planes is None:
        return None
    limit = head_dim // 2
    try:
        value = check_count(keep_planes, "keep_planes")
    except ValueError:
        value = None
    if value is None or value > limit:
        raise ValueError(
            f"keep_planes must be an integer in [1, head_dim/2] = [1, {limit}], got {keep_planes!r}"
        )
    return value


def _plane_of_coordinate(head_dim: int, rotary_dim: int, layout: str) -> torch.Tensor:
    """The rotation-plane index of each coordinate of a head.

    Rotary coordinates follow the layout (``c`` and ``c + r`` for ``"half"``, ``2i`` and
    ``2i + 1`` for ``"interleaved"``); the non-rotated tail counts as planes ``r, r+1, ...``
    taken two coordinates at a time.
    """
    r = rotary_dim // 2
    coords = torch.arange(head_dim)
    rotary = torch.from_numpy(coordinate_planes(2 * r, layout))
    tail = r + (coords[2 * r :] - 2 * r) // 2
    return torch.cat((rotary, tail))


class _HeadProjections(nn.Module):
    """What both attention layers share: q/k/v/o projections, the rotary embedding, head split."""

    def __init__(self, config: AttentionConfig) -> None:
        super().__init__()
        if not isinstance(config, AttentionConfig):
            raise ValueError(f"config must be an AttentionConfig, got {type(config).__name__}")
        assert config.head_dim is not None
        self.config = config
        self.n_heads = config.n_heads
        self.head_dim = config.head_dim
        inner = config.n_heads * config.head_dim
        self.q_proj = nn.Linear(config.d_model, inner, bias=config.bias)
        self.k_proj = nn.Linear(config.d_model, inner, bias=config.bias)
        self.v_proj = nn.Linear(config.d_model, inner, bias=config.bias)
        self.o_proj = nn.Linear(inner, config.d_model, bias=config.bias)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.rotary = config.make_rotary()

    def _project_heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``x`` ``(B, T, d_model)`` -> q, k, v, each ``(B, H, T, hd)``, not yet rotated."""
        if not torch.is_tensor(x) or x.ndim != 3 or x.shape[-1] != self.config.d_model:
            raise ValueError(
                f"x must have shape (batch, seq, d_model={self.config.d_model}), "
                f"got {tuple(x.shape) if torch.is_tensor(x) else type(x).__name__}"
            )
        B, T, _ = x.shape
        H, hd = self.n_heads, self.head_dim
        q = self.q_proj(x).view(B, T, H, hd).transpose(1, 2)  # (B, H, T, hd)
        k = self.k_proj(x).view(B, T, H, hd).transpose(1, 2)  # (B, H, T, hd)
        v = self.v_proj(x).view(B, T, H, hd).transpose(1, 2)  # (B, H, T, hd)
        return q, k, v

    def _merge_heads(self, y: torch.Tensor) -> torch.Tensor:
        """``y`` ``(B, H, T, hd)`` -> output projection ``(B, T, d_model)``."""
        B, H, T, hd = y.shape
        y = y.transpose(1, 2).reshape(B, T, H * hd)  # (B, T, H·hd)
        return self.resid_dropout(self.o_proj(y))  # (B, T, d_model)


class CausalSelfAttention(_HeadProjections):
    r"""nanoGPT-style causal self-attention with RoPE on queries and keys (chapter 3).

    .. math::
        \mathrm{softmax}_{n \le m}\Big(\tau\,(R_{\Theta,m} W_q x_m)^\top (R_{\Theta,n} W_k x_n)\Big)
        = \mathrm{softmax}_{n \le m}\big(\tau\, x_m^\top W_q^\top R_{\Theta,n-m} W_k x_n\big)

    (RoFormer eq. 16), so the scores depend on positions only through :math:`n - m`. The
    temperature is :math:`\tau = 1/\sqrt{d_h}`, or :math:`1/\sqrt{2k}` when only the first
    :math:`k` = ``keep_planes`` planes of q and k are kept (the critical-dimension ablation of
    Liu et al., arXiv:2310.05209; chapter 7). ``keep_planes`` may be changed after construction.
    Attention itself is :func:`torch.nn.functional.scaled_dot_product_attention`.
    """

    def __init__(self, config: AttentionConfig) -> None:
        super().__init__(config)
        planes = _plane_of_coordinate(self.head_dim, self.rotary.rotary_dim, config.layout)
        self.register_buffer("_plane_index", planes, persistent=False)
        self.keep_planes = config.keep_planes

    @property
    def keep_planes(self) -> int | None:
        """Number of rotation planes of q and k kept (``None``: all of them)."""
        return self._keep_planes

    @keep_planes.setter
    def keep_planes(self, value: int | None) -> None:
        self._keep_planes = _check_keep_planes(value, self.head_dim)

    def plane_mask(self) -> torch.Tensor | None:
        """1.0 on the coordinates of the kept planes, 0.0 elsewhere; ``None`` if all are kept."""
        if self._keep_planes is None:
            return None
        return (self._plane_index < self._keep_planes).float()

    def forward(
        self, x: torch.Tensor, positions: Any = None, return_qk: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Attend causally over ``x`` of shape ``(B, T, d_model)``.

        Args:
            x: input, ``(B, T, d_model)``.
            positions: ``(T,)`` or ``(B, T)``; default ``0 .. T-1``.
            return_qk: also return the rotated (and masked) q and k, each ``(B, H, T, hd)``.

        Returns:
            ``y`` of shape ``(B, T, d_model)``, or ``(y, q, k)``.
        """
        q, k, v = self._project_heads(x)  # (B, H, T, hd) each
        q, k = self.rotary.rotate_qk(q, k, positions)  # (B, H, T, hd)
        scale = None  # 1/sqrt(hd), the default of scaled_dot_product_attention
        mask = self.plane_mask()
        if mask is not None:
            mask = mask.to(device=q.device, dtype=q.dtype)  # (hd,)
            q, k = q * mask, k * mask  # (B, H, T, hd), planes >= keep_planes zeroed
            scale = 1.0 / math.sqrt(2 * self._keep_planes)
        y = F.scaled_dot_product_attention(
            q,
            k,
            v,
            dropout_p=self.config.dropout if self.training else 0.0,
            is_causal=True,
            scale=scale,
        )  # (B, H, T, hd)
        y = self._merge_heads(y)  # (B, T, d_model)
        if return_qk:
            return y, q, k
        return y


class RotaryLinearAttention(_HeadProjections):
    r"""RoPE in linear attention, RoFormer eq. 19 (chapter 3).

    With the feature map :math:`\phi(x) = \mathrm{elu}(x) + 1` of Katharopoulos et al.
    (arXiv:2006.16236), the output at position *m* is

    .. math::
        \mathrm{Attention}(Q, K, V)_m =
        \frac{\sum_{n \le m} \big(R_{\Theta,m}\,\phi(q_m)\big)^\top
              \big(R_{\Theta,n}\,\phi(k_n)\big)\, v_n}
             {\sum_{n \le m} \phi(q_m)^\top \phi(k_n)}

    The denominator is left unrotated so that it stays positive (the numerator, with rotated
    features, may be negative: the weights no longer form a convex combination, as RoFormer
    notes). Because :math:`(R_m a)^\top (R_n b)` factorises, the causal sums are prefix sums:

    .. math::
        S_m = \sum_{n \le m} (R_n \phi(k_n))\, v_n^\top, \quad
        z_m = \sum_{n \le m} \phi(k_n), \quad
        \mathrm{out}_m = \frac{(R_m\phi(q_m))^\top S_m}{\phi(q_m)^\top z_m},

    computed with :func:`torch.cumsum` in O(T) time (O(T·d²) memory). With ``causal=False``
    the sums run over all *n*.

    Args:
        config: an :class:`AttentionConfig` (``keep_planes`` is not supported here).
        causal: sum over ``n <= m`` (True) or over every ``n``.
        eps: lower bound on the denominator (guards float32 underflow of :math:`\phi`).
    """

    def __init__(self, config: AttentionConfig, *, causal: bool = True, eps: float = 1e-6) -> None:
        super().__init__(config)
        if config.keep_planes is not None:
            raise ValueError("keep_planes must be None for RotaryLinearAttention")
        self.causal = bool(causal)
        self.eps = check_positive(eps, "eps")

    def attend(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, positions: Any = None
    ) -> torch.Tensor:
        """Eq. 19 on per-head tensors ``q, k, v`` of shape ``(B, H, T, hd)``; returns ``(B, H, T, hd_v)``."""
        phi_q = F.elu(q) + 1  # (B, H, T, hd), > 0
        phi_k = F.elu(k) + 1  # (B, H, T, hd), > 0
        rot_q, rot_k = self.rotary.rotate_qk(phi_q, phi_k, positions)  # (B, H, T, hd)
        if self.causal:
            kv = torch.einsum("bhnd,bhne->bhnde", rot_k, v).cumsum(dim=2)  # (B, H, T, hd, hd_v)
            num = torch.einsum("bhmd,bhmde->bhme", rot_q, kv)  # (B, H, T, hd_v)
            z = phi_k.cumsum(dim=2)  # (B, H, T, hd)
        else:
            kv = torch.einsum("bhnd,bhne->bhde", rot_k, v)  # (B, H, hd, hd_v)
            num = torch.einsum("bhmd,bhde->bhme", rot_q, kv)  # (B, H, T, hd_v)
            z = phi_k.sum(dim=2, keepdim=True)  # (B, H, 1, hd)
        den = (phi_q * z).sum(dim=-1, keepdim=True)  # (B, H, T, 1), unrotated, > 0
        return num / den.clamp_min(self.eps)  # (B, H, T, hd_v)

    def forward(self, x: torch.Tensor, positions: Any = None) -> torch.Tensor:
        """Project ``x`` of shape ``(B, T, d_model)``, attend with :meth:`attend`, project back."""
        q, k, v = self._project_heads(x)  # (B, H, T, hd) each
        y = self.attend(q, k, v, positions)  # (B, H, T, hd)
        return self._merge_heads(y)  # (B, T, d_model)
