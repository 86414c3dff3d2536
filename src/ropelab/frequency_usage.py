r"""Which frequencies a model uses: the size of its queries and keys plane by plane (chapter 9).

Barbero et al. (2024, *Round and Round We Go*) read how a trained model uses RoPE's planes
from the norm of each plane's two coordinates. For a query :math:`q` and plane *i* with
coordinates :math:`(a_i, b_i)`,

.. math:: \lVert q\rVert_i = \sqrt{q_{a_i}^2 + q_{b_i}^2},

and the same for keys. The rotation by :math:`m\theta_i` keeps this length (chapter 1), so
it is the same before and after RoPE: it measures how much of the score *can* come from
plane *i*, whatever the positions. In Gemma 7B they found the largest norms on the
lowest-frequency planes, which barely turn within the training length and so act as
position-free "semantic" channels, while a few heads use the highest frequencies for sharp
positional patterns.

:func:`plane_norms` computes the per-plane norms of any array; :func:`qk_plane_norms` runs
a :class:`ropelab.lab.model.RopeLM` and averages them per layer and head. Needs torch only
for :func:`qk_plane_norms`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_dim, check_layout
from .core import _is_torch, plane_coordinates

__all__ = ["PlaneNorms", "plane_norms", "plane_share", "qk_plane_norms"]


def plane_norms(x: Any, layout: str = "half") -> np.ndarray:
    r"""The norm of every rotation plane of ``x``: :math:`\sqrt{x_{a_i}^2 + x_{b_i}^2}`.

    Args:
        x: numpy array or torch tensor ``(..., d)`` with an even last axis.
        layout: ``"half"`` (planes ``(i, i + d/2)``) or ``"interleaved"`` (``(2i, 2i + 1)``).

    Returns:
        float64 array ``(..., d/2)``.
    """
    layout = check_layout(layout)
    if _is_torch(x):
        x = x.detach().cpu().double().numpy()
    x = np.asarray(x, dtype=np.float64)
    dim = check_dim(x.shape[-1] if x.ndim else 0, "the last axis of x")
    first, second = plane_coordinates(dim, layout)
    return np.hypot(x[..., first], x[..., second])


def plane_share(norms: Any) -> np.ndarray:
    r"""Each plane's share of the total squared norm: :math:`\lVert q\rVert_i^2 / \sum_j \lVert q\rVert_j^2`.

    Taken over the last axis; rows sum to 1. Useful to compare layers of different scale.
    """
    norms = np.asarray(norms, dtype=np.float64)
    if norms.ndim == 0 or norms.shape[-1] == 0:
        raise ValueError("norms must have at least one plane on its last axis")
    squared = norms**2
    total = squared.sum(axis=-1, keepdims=True)
    if np.any(total <= 0):
        raise ValueError("norms must not be all zero along the last axis")
    return squared / total


@dataclass(frozen=True)
class PlaneNorms:
    """Mean per-plane norms of a model's queries and keys.

    Attributes:
        q, k: float64 arrays ``(n_layer, n_head, n_planes)``: the norm of each plane,
            averaged over the batch and the positions.
        theta: the frequencies of the planes, ``(n_planes,)``.
        layout: the model's plane pairing.
    """

    q: np.ndarray
    k: np.ndarray
    theta: np.ndarray
    layout: str

    @property
    def n_layer(self) -> int:
        return int(self.q.shape[0])

    @property
    def n_planes(self) -> int:
        return int(self.q.shape[-1])


def qk_plane_norms(model: Any, idx: Any) -> PlaneNorms:
    r"""Run a :class:`ropelab.lab.model.RopeLM` on ``idx`` and measure its per-plane q and k norms.

    The model returns its rotated queries and keys per layer (``return_qk=True``); since the
    rotation keeps each plane's norm, their plane norms are those of :math:`W_q x` and
    :math:`W_k x`. Planes that ``keep_planes`` removed have norm 0.

    Args:
        model: a ``RopeLM`` (put in eval mode for the measurement, then restored).
        idx: int64 token ids, a ``(batch, seq)`` tensor.

    Returns:
        :class:`PlaneNorms` with ``q`` and ``k`` of shape ``(n_layer, n_head, head_dim/2)``.
    """
    import torch

    from .lab.model import RopeLM

    if not isinstance(model, RopeLM):
        raise ValueError(f"model must be a ropelab.lab.model.RopeLM, got {type(model).__name__}")
    if not torch.is_tensor(idx) or idx.ndim != 2 or idx.numel() == 0:
        raise ValueError("idx must be a non-empty (batch, seq) tensor of token ids")
    layout = model.config.layout
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            _, _, qks = model(idx, return_qk=True)
    finally:
        model.train(was_training)
    q = np.stack([plane_norms(qq, layout).mean(axis=(0, 2)) for qq, _ in qks])
    k = np.stack([plane_norms(kk, layout).mean(axis=(0, 2)) for _, kk in qks])
    theta = model.blocks[0].attn.rotary.inv_freq.numpy()
    return PlaneNorms(q=q, k=k, theta=theta, layout=layout)
