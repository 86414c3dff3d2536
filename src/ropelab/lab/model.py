r"""A small decoder-only language model built on :class:`ropelab.torch_modules.CausalSelfAttention`.

Chapter 7 pre-trains it at a short length with base 10000, then fine-tunes copies with other
bases, so the RoPE base can be changed after construction (:meth:`RopeLM.set_base`, which rebuilds
the cos/sin caches) and so can the number of rotation planes kept in q and k
(:meth:`RopeLM.set_keep_planes`, the critical-dimension ablation of Liu et al.,
arXiv:2310.05209).

Two baselines share everything but the position signal (``LMConfig.position``): ``"nope"``
(no position encoding at all: causal attention alone, whose only clue to order is the causal
mask, Haviv et al. 2022) and ``"alibi"`` (ALiBi's linear distance penalty,
:func:`ropelab.windows.alibi_bias`, Press et al. 2022). Their attention is
:class:`BaselineAttention`.

Architecture (nanoGPT-style, pre-norm; the only position information is RoPE in attention):

.. math::
    h_0 = E[x], \quad
    h_{\ell+1}' = h_\ell + \mathrm{Attn}_\ell(\mathrm{LN}(h_\ell)), \quad
    h_{\ell+1} = h_{\ell+1}' + \mathrm{MLP}_\ell(\mathrm{LN}(h_{\ell+1}')), \quad
    \mathrm{logits} = \mathrm{LN}(h_L)\,E^\top

with a GELU MLP of width ``mlp_ratio * d_model`` and, by default, the output head tied to the
embedding *E*.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from .._checks import check_base, check_count, check_dim, check_layout
from ..core import coordinate_planes
from ..torch_modules import AttentionConfig, CausalSelfAttention, RotaryEmbedding
from ..windows import alibi_slopes
from .corpus import VOCAB

__all__ = ["POSITIONS", "BaselineAttention", "LMConfig", "RopeLM", "plane_of_coordinate"]

#: The position signals a :class:`RopeLM` can use (``LMConfig.position``).
POSITIONS = ("rope", "nope", "alibi")


@dataclass
class LMConfig:
    """Hyper-parameters of :class:`RopeLM` (shapes in comments: B batch, T length).

    Args:
        vocab_size: number of token ids *V* (the characters of :data:`ropelab.lab.corpus.VOCAB`).
        n_layer: number of transformer blocks *L*.
        n_head: attention heads per block *H*.
        head_dim: per-head width (even); ``head_dim / 2`` rotation planes.
        mlp_ratio: MLP width as a multiple of ``d_model``.
        base: RoPE base :math:`\\beta`.
        keep_planes: keep only the first ``keep_planes`` rotation planes of q and k (``None``: all).
        layout: ``"half"`` (transformers' rotate_half) or ``"interleaved"``.
        tie_weights: share the embedding and the output head.
        position: ``"rope"`` (default), or a baseline without RoPE: ``"nope"`` (no position
            encoding) or ``"alibi"`` (a linear distance penalty per head).
    """

    vocab_size: int = len(VOCAB)  # V
    n_layer: int = 2  # L
    n_head: int = 4  # H
    head_dim: int = 32  # hd = 32 -> 16 rotation planes
    mlp_ratio: int = 4  # MLP hidden = mlp_ratio * d_model
    base: float = 10000.0  # β
    keep_planes: int | None = None  # None: all hd/2 planes
    layout: str = "half"
    tie_weights: bool = True
    position: str = "rope"

    def __post_init__(self) -> None:
        self.vocab_size = check_count(self.vocab_size, "vocab_size")
        self.n_layer = check_count(self.n_layer, "n_layer")
        self.n_head = check_count(self.n_head, "n_head")
        self.head_dim = check_dim(self.head_dim, "head_dim")
        self.mlp_ratio = check_count(self.mlp_ratio, "mlp_ratio")
        self.base = check_base(self.base)
        self.layout = check_layout(self.layout)
        if self.position not in POSITIONS:
            raise ValueError(f"position must be one of {POSITIONS}, got {self.position!r}")

    @property
    def d_model(self) -> int:
        """Model width *C* = ``n_head * head_dim``."""
        return self.n_head * self.head_dim

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict; ``position`` only when it is not ``"rope"``.

        Checkpoint names hash this dict, so leaving the default out keeps the names (and the
        resumability) of every RoPE model from before the baselines existed.
        """
        fields = asdict(self)
        if fields["position"] == "rope":
            del fields["position"]
        return fields


def plane_of_coordinate(head_dim: int, layout: str) -> torch.Tensor:
    """The rotation plane of each coordinate of a head (``(head_dim,)``, int64).

    ``"half"`` pairs coordinates ``c`` and ``c + hd/2`` (plane ``c mod hd/2``); ``"interleaved"``
    pairs ``2i`` and ``2i + 1`` (plane ``c // 2``). "The first :math:`d_\\text{extra}`
    dimensions" of the scaling-laws paper (interleaved numbering) are the planes
    ``0 .. d_extra/2 - 1``. The pairing is :func:`ropelab.core.coordinate_planes`'s.
    """
    return torch.from_numpy(coordinate_planes(check_dim(head_dim, "head_dim"), layout))


class BaselineAttention(CausalSelfAttention):
    r"""Causal self-attention without RoPE: the lab's baselines (chapter 7).

    The projections, their initialisation and the temperature :math:`1/\sqrt{d_h}` are those
    of :class:`~ropelab.torch_modules.CausalSelfAttention` (its rotary module is built and never
    used, so a baseline and a RoPE model built from the same seed start from the same weights).
    Only the logits differ:

    * ``"nope"``: :math:`\tau\, q_t^\top k_s` for :math:`s \le t`; no position signal but the
      causal mask.
    * ``"alibi"``: :math:`\tau\, q_t^\top k_s - m_h (t - s)` with the slopes :math:`m_h` of
      :func:`ropelab.windows.alibi_slopes` (Press et al. 2022, "Train Short, Test Long").
    """

    def __init__(self, config: AttentionConfig, position: str) -> None:
        if position not in POSITIONS[1:]:
            raise ValueError(f"position must be one of {POSITIONS[1:]}, got {position!r}")
        if config.keep_planes is not None:
            raise ValueError("keep_planes must be None for a model without RoPE")
        super().__init__(config)
        self.position = position
        slopes = torch.from_numpy(alibi_slopes(config.n_heads)).float()  # (H,)
        self.register_buffer("slopes", slopes, persistent=False)

    def alibi_bias(self, length: int) -> torch.Tensor:
        """The additive logit bias ``(H, T, T)``: :math:`-m_h (t - s)`, ``-inf`` for s > t."""
        t = torch.arange(length, device=self.slopes.device)
        distance = (t[:, None] - t[None, :]).float()  # (T, T)
        bias = -self.slopes[:, None, None] * distance  # (H, T, T)
        return bias.masked_fill(distance < 0, float("-inf"))

    def forward(
        self, x: torch.Tensor, positions: Any = None, return_qk: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Attend causally over ``x`` ``(B, T, d_model)``; ``positions`` must be ``None``."""
        if positions is not None:
            raise ValueError("positions must be None: a model without RoPE reads them from order")
        q, k, v = self._project_heads(x)  # (B, H, T, hd) each
        if self.position == "alibi":
            bias = self.alibi_bias(x.shape[1]).to(dtype=q.dtype)  # (H, T, T)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)  # (B, H, T, hd)
        else:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, H, T, hd)
        y = self._merge_heads(y)  # (B, T, d_model)
        if return_qk:
            return y, q, k
        return y


class Block(nn.Module):
    """Pre-norm transformer block: causal self-attention (RoPE or a baseline), then a GELU MLP."""

    def __init__(self, config: LMConfig) -> None:
        super().__init__()
        C = config.d_model
        self.ln1 = nn.LayerNorm(C)
        attention = AttentionConfig(
            d_model=C,
            n_heads=config.n_head,
            head_dim=config.head_dim,
            base=config.base,
            layout=config.layout,
            keep_planes=config.keep_planes,
        )
        if config.position == "rope":
            self.attn = CausalSelfAttention(attention)
        else:
            self.attn = BaselineAttention(attention, config.position)
        self.ln2 = nn.LayerNorm(C)
        self.mlp = nn.Sequential(
            nn.Linear(C, config.mlp_ratio * C),
            nn.GELU(),
            nn.Linear(config.mlp_ratio * C, C),
        )

    def forward(
        self, x: torch.Tensor, return_qk: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        """``x`` ``(B, T, C)`` -> ``(x, q, k)``; q, k ``(B, H, T, hd)`` rotated, or ``None``."""
        if return_qk:
            a, q, k = self.attn(self.ln1(x), return_qk=True)  # (B, T, C), (B, H, T, hd) x2
        else:
            a, q, k = self.attn(self.ln1(x)), None, None  # (B, T, C)
        x = x + a  # (B, T, C)
        x = x + self.mlp(self.ln2(x))  # (B, T, C)
        return x, q, k


class RopeLM(nn.Module):
    """Decoder-only character LM whose only position signal is RoPE (chapter 7).

    ``forward(idx, targets)`` returns ``(logits, loss)``; with ``return_qk=True`` also the rotated
    (and, with ``keep_planes``, masked) queries and keys of every layer, as
    :class:`~ropelab.torch_modules.CausalSelfAttention` returns them.
    """

    def __init__(self, config: LMConfig) -> None:
        super().__init__()
        if not isinstance(config, LMConfig):
            raise ValueError(f"config must be an LMConfig, got {type(config).__name__}")
        self.config = config
        C = config.d_model
        self.tok_emb = nn.Embedding(config.vocab_size, C)  # (V, C)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(C)
        self.lm_head = nn.Linear(C, config.vocab_size, bias=False)  # (V, C)
        if config.tie_weights:
            self.lm_head.weight = self.tok_emb.weight
        self.apply(self._init_weights)
        # GPT-2: residual projections scaled by 1/sqrt(2L)
        for name, p in self.named_parameters():
            if name.endswith("o_proj.weight") or name.endswith("mlp.2.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def num_params(self) -> int:
        """Number of distinct parameters (the tied head counted once)."""
        return sum(p.numel() for p in self.parameters())

    # ---------------------------------------------------------------- RoPE settings

    def _require_rope(self, what: str) -> None:
        if self.config.position != "rope":
            raise ValueError(f"{what}: position must be 'rope', got {self.config.position!r}")

    @property
    def base(self) -> float:
        """The RoPE base :math:`\\beta` in use."""
        return self.config.base

    def set_base(self, base: float) -> None:
        r"""Use base :math:`\beta` from now on: :math:`\theta_i = \beta^{-2i/d}`; caches rebuilt.

        The weights are unchanged (RoPE has no parameters), so this is the first step of the
        fine-tuning with another base of Liu et al. (arXiv:2310.05209), chapter 7.
        """
        base = check_base(base)
        self._require_rope("set_base")
        self.config.base = base
        for block in self.blocks:
            old = block.attn.rotary
            rotary = RotaryEmbedding(
                old.head_dim, base, layout=old.layout, rotary_dim=old.rotary_dim
            )
            block.attn.rotary = rotary.to(device=old.cos_cached.device)
            block.attn.config.base = base

    @property
    def keep_planes(self) -> int | None:
        """Rotation planes of q and k kept in every layer (``None``: all)."""
        return self.config.keep_planes

    def set_keep_planes(self, keep_planes: int | None) -> None:
        """Keep only the first ``keep_planes`` planes of q and k (temperature 1/sqrt(2k))."""
        if keep_planes is not None:
            self._require_rope("set_keep_planes")
        for block in self.blocks:
            block.attn.keep_planes = keep_planes  # validates the value
        self.config.keep_planes = keep_planes

    # ---------------------------------------------------------------- forward

    def forward(
        self,
        idx: torch.Tensor,
        targets: torch.Tensor | None = None,
        return_qk: bool = False,
        reduction: str = "mean",
    ) -> Any:
        """Logits for token ids ``idx`` ``(B, T)``.

        Args:
            idx: int64 token ids, ``(B, T)``.
            targets: next-token ids ``(B, T)`` or ``None``.
            return_qk: also return ``[(q, k), ...]`` per layer, each ``(B, H, T, hd)``.
            reduction: ``"mean"`` (a scalar loss) or ``"none"`` (per-token loss ``(B, T)``).

        Returns:
            ``(logits (B, T, V), loss)`` with ``loss`` ``None`` when there are no targets, and
            the per-layer ``(q, k)`` list appended when ``return_qk``.
        """
        if not torch.is_tensor(idx) or idx.ndim != 2:
            raise ValueError("idx must be a (batch, seq) tensor of token ids")
        x = self.tok_emb(idx)  # (B, T, C)
        qks: list[tuple[torch.Tensor, torch.Tensor]] = []
        for block in self.blocks:
            x, q, k = block(x, return_qk=return_qk)  # (B, T, C)
            if return_qk:
                qks.append((q, k))
        logits = self.lm_head(self.ln_f(x))  # (B, T, V)
        loss = None
        if targets is not None:
            if reduction not in ("mean", "none"):
                raise ValueError(f"reduction must be 'mean' or 'none', got {reduction!r}")
            loss = F.cross_entropy(
                logits.reshape(-1, logits.shape[-1]),  # (B·T, V)
                targets.reshape(-1),  # (B·T,)
                reduction=reduction,
            )
            if reduction == "none":
                loss = loss.view(targets.shape)  # (B, T)
        if return_qk:
            return logits, loss, qks
        return logits, loss
