r"""Test-time context extension applied to the lab's trained models, with no training (chapter 7).

Chapter 6 derives the methods; here each one is applied to a trained :class:`RopeLM` through
the functions chapter 6 uses, and the loss per position is measured as for the plain model
(same validation windows, same supported-length rule). With *d* the head dimension, β the
model's base, *L* the evaluated length and :math:`L_0` the length the method treats as the
original context:

=============  ==============================  ================================================
id             method                          how it is applied
=============  ==============================  ================================================
``pi``         position interpolation          :func:`ropelab.rope_config.frequencies_from_config`,
                                               ``rope_type="linear"``, factor :math:`s = L/L_0`
``ntk``        NTK-aware scaling               base :math:`\beta s^{d/(d-2)}`: dynamic NTK's base
                                               (:func:`ropelab.rope_config.dynamic_ntk_base`) at
                                               length :math:`sL_0` with factor 1
``yarn``       YaRN                            ``rope_type="yarn"``, factor *s*, original
                                               :math:`L_0`: the ramp and the temperature
``dyn-train``  dynamic NTK, eq. 20             base :math:`\beta\alpha_t`,
                                               :math:`\alpha_t` = :func:`ropelab.scaling.dynamic_ntk_alpha`
                                               of :math:`(t, T_\text{train})`
``dyn-extra``  dynamic NTK with T_extra        the same with :math:`(t, T_\text{extra})`
``log-train``  log scaling, eq. 18             query :math:`\times\, p_t` =
                                               :func:`ropelab.scaling.log_scale` of
                                               :math:`(t, T_\text{train})`
``log-extra``  log scaling with T_extra        the same with :math:`(t, T_\text{extra})`
``xpos``       xPos as a soft window, eq. 19   plane *n* of the score times
                                               :math:`\zeta_n^{(t-s)/L_0}`
                                               (:func:`ropelab.windows.xpos_scales`)
=============  ==============================  ================================================

Here *t* = position + 1 is the current length, as in the source's eqs. 18 and 20 (Liu et al.,
arXiv:2310.05209, section 4.2 and its Figure 11). :math:`L_0` is the model's *reliable length*
(:func:`reliable_length`), Theorem 3's bound: Theorem 2's
:math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}` for a base above the pre-training base
:math:`\beta_0`, and :math:`T_\text{train}` for :math:`\beta \le \beta_0` (the pre-trained
model included: 128, not 199). **One rule** (chapters 6 and 7): Liu et al. start log scaling,
xPos and dynamic NTK from :math:`T_\text{extra}` on models fine-tuned with a larger base
(section 4.2); position interpolation, NTK-aware scaling and YaRN are started from the same
:math:`L_0` here as the book's extension of that recipe, not the paper's, and chapter 7 measures
where it fails (a model that breaks before its :math:`T_\text{extra}`). A method that would change nothing within the evaluated length
(a factor :math:`s \le 1`, or :math:`T_\text{extra} \ge L`) is recorded as not applicable, with
the reason.

**Dynamic NTK, exactly.** Eq. 20 gives the query at length *t* the frequencies of base
:math:`\beta\alpha_t`, for every key it attends to. :math:`\alpha_t` is constant on
:math:`(2^{k-1}T, 2^kT]`, so the loss at every position of such a segment is read off one forward
pass over the window's first :math:`2^kT` tokens with that base: a handful of passes per window
(:func:`plan_method` returns the segments).

Needs torch.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from .. import scaling
from .._checks import check_count
from ..rope_config import dynamic_ntk_base, frequencies_from_config
from ..torch_modules import RotaryEmbedding
from ..windows import xpos_scales
from .evaluate import window_starts
from .model import RopeLM, plane_of_coordinate

__all__ = [
    "METHODS",
    "AppliedMethod",
    "Segment",
    "describe",
    "evaluate_method",
    "installed",
    "method_window_loss",
    "plan_method",
    "reliable_length",
]

#: Every method's id and its name in tables and figures.
METHODS: dict[str, str] = {
    "pi": "position interpolation",
    "ntk": "NTK-aware",
    "yarn": "YaRN",
    "dyn-train": "dynamic NTK (T_train)",
    "dyn-extra": "dynamic NTK (T_extra)",
    "log-train": "log scaling (T_train)",
    "log-extra": "log scaling (T_extra)",
    "xpos": "xPos window",
}


@dataclass
class Segment:
    """Positions ``start .. stop-1`` are read off a forward pass of ``stop`` tokens with these
    frequencies (float64, one per plane) and this attention factor (scales cos and sin)."""

    start: int
    stop: int
    inv_freq: np.ndarray
    attention_factor: float = 1.0
    base: float | None = None  # the base the frequencies come from, when there is one


@dataclass
class AppliedMethod:
    """One method set up for one model (see :func:`plan_method`).

    Attributes:
        method: the id (a key of :data:`METHODS`).
        ref_len: the length the method treats as the original context (tokens), or ``None``.
        applicable: ``False`` when the method changes nothing within the evaluated length or
            needs a :math:`T_\\text{extra}` the model does not have; ``reason`` says which.
        segments: the forward passes (one for every method but dynamic NTK).
        query_scale: ``(L,)`` factor on each query (log scaling), or ``None``.
        xpos_len: the length *T* of xPos's decay :math:`\\zeta_n^{(t-s)/T}`, or ``None``.
        settings: JSON-ready description (factor, bases, ...).
    """

    method: str
    ref_len: int | None
    applicable: bool
    reason: str | None = None
    segments: list[Segment] = field(default_factory=list)
    query_scale: np.ndarray | None = None
    xpos_len: float | None = None
    settings: dict[str, Any] = field(default_factory=dict)


def reliable_length(base: float, head_dim: int, train_len: int, pretrain_base: float) -> int:
    r"""The length a test-time method treats as the model's original context (tokens).

    Theorem 3's bound (Liu et al., arXiv:2310.05209) for a model fine-tuned at ``train_len``
    from a pre-training with base :math:`\beta_0` = ``pretrain_base``: Theorem 2's
    :math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}` (rounded to a whole token) for
    ``base > pretrain_base``, and ``train_len`` for ``base <= pretrain_base``: at
    :math:`\beta = \beta_0` the bound is :math:`T_\text{tune}`, not Theorem 2's
    :math:`T_\text{extra}` (199 for the lab's pre-trained model, against 128).
    """
    if base > pretrain_base:
        bound = scaling.extrapolation_bound(base, head_dim, train_len, pretrain_base)
        return round(float(bound))
    return int(train_len)


def _default_freqs(base: float, head_dim: int) -> np.ndarray:
    theta, _ = frequencies_from_config({"head_dim": head_dim, "rope_theta": base})
    return np.asarray(theta, dtype=np.float64)


def plan_method(
    method: str,
    *,
    base: float,
    head_dim: int,
    train_len: int,
    pretrain_base: float,
    eval_len: int,
    ref_len: int | None = None,
) -> AppliedMethod:
    """Set up ``method`` (a key of :data:`METHODS`) for a model with RoPE base ``base``.

    Args:
        method: the method's id.
        base: the model's base β (after fine-tuning).
        head_dim: *d*.
        train_len: :math:`T_\\text{train}` of pre-training (and of the fine-tunes).
        pretrain_base: the pre-training base (10 000): :math:`T_\\text{extra}` exists for
            ``base >= pretrain_base``.
        eval_len: the evaluated length *L*.
        ref_len: the length the method treats as the original context, :math:`L_0`, instead of
            the book's rule (``None``): position interpolation, NTK-aware scaling, YaRN and the
            xPos window from the reliable length, the ``-train`` methods from
            :math:`T_\\text{train}`, the ``-extra`` ones from :math:`T_\\text{extra}`. The
            test-time controls of ``lab/PLAN.md`` section 7 start NTK-aware scaling and YaRN
            from :math:`T_\\text{train}` with it (:mod:`ropelab.lab.testtime_controls`).

    Returns:
        An :class:`AppliedMethod` (``applicable`` is ``False``, with a reason, when the method
        would leave the model unchanged within ``eval_len``).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    eval_len = check_count(eval_len, "eval_len", minimum=2)
    train_len = check_count(train_len, "train_len", minimum=2)
    plain = _default_freqs(base, head_dim)
    t_extra = (
        reliable_length(base, head_dim, train_len, pretrain_base) if base > pretrain_base else None
    )
    reliable = reliable_length(base, head_dim, train_len, pretrain_base)
    t = np.arange(1, eval_len + 1, dtype=np.float64)  # the current length at each position

    if method in ("pi", "ntk", "yarn", "xpos"):
        ref = reliable
    elif method.endswith("-train"):
        ref = train_len
    else:
        ref = t_extra
    if ref_len is not None:
        ref = check_count(ref_len, "ref_len", minimum=2)
    if ref is None:
        return AppliedMethod(
            method, None, False,
            f"base {base:g} <= {pretrain_base:g} = beta0: Theorem 3's bound is T_train; "
            "no T_extra beyond it",
        )  # fmt: skip
    if ref >= eval_len and method != "xpos":
        return AppliedMethod(
            method, ref, False,
            f"its original length {ref} >= the evaluated length {eval_len}: nothing to extend",
        )  # fmt: skip

    factor = eval_len / ref
    if method == "pi":
        config = {
            "head_dim": head_dim, "rope_theta": base,
            "rope_scaling": {"rope_type": "linear", "factor": factor},
        }  # fmt: skip
        theta, attn = frequencies_from_config(config)
        seg = Segment(0, eval_len, np.asarray(theta, np.float64), float(attn))
        settings = {"factor": factor, "original_len": ref}
        return AppliedMethod(method, ref, True, None, [seg], settings=settings)
    if method == "ntk":
        new_base = dynamic_ntk_base(base, head_dim, 1.0, eval_len, ref)
        seg = Segment(0, eval_len, _default_freqs(new_base, head_dim), 1.0, new_base)
        settings = {"factor": factor, "original_len": ref, "base": new_base}
        return AppliedMethod(method, ref, True, None, [seg], settings=settings)
    if method == "yarn":
        config = {
            "head_dim": head_dim, "rope_theta": base, "max_position_embeddings": eval_len,
            "rope_scaling": {
                "rope_type": "yarn", "factor": factor, "original_max_position_embeddings": ref,
            },
        }  # fmt: skip
        theta, attn = frequencies_from_config(config)
        seg = Segment(0, eval_len, np.asarray(theta, np.float64), float(attn))
        settings = {"factor": factor, "original_len": ref, "attention_factor": float(attn)}
        return AppliedMethod(method, ref, True, None, [seg], settings=settings)
    if method == "xpos":
        seg = Segment(0, eval_len, plain, 1.0, base)
        settings = {"scale_len": ref, "gamma": 0.4}
        return AppliedMethod(method, ref, True, None, [seg], xpos_len=float(ref), settings=settings)
    if method.startswith("log"):
        scale = np.asarray(scaling.log_scale(t, ref), dtype=np.float64)
        seg = Segment(0, eval_len, plain, 1.0, base)
        settings = {"log_base": ref, "max_factor": float(scale[-1])}
        return AppliedMethod(method, ref, True, None, [seg], query_scale=scale, settings=settings)
    # dynamic NTK (eq. 20): base β·α_t, α_t constant on (2^(k-1) T, 2^k T]
    alpha = np.asarray(scaling.dynamic_ntk_alpha(t, ref), dtype=np.int64)
    edges = [0, *(np.flatnonzero(np.diff(alpha)) + 1).tolist(), eval_len]
    segments = []
    for start, stop in itertools.pairwise(edges):
        new_base = base * float(alpha[start])
        segments.append(Segment(start, stop, _default_freqs(new_base, head_dim), 1.0, new_base))
    settings = {
        "ref_len": ref,
        "alpha": [int(alpha[s.start]) for s in segments],
        "segments": [[s.start + 1, s.stop] for s in segments],  # lengths t covered
    }
    return AppliedMethod(method, ref, True, None, segments, settings=settings)


class _MethodRotary(nn.Module):
    """Stands in for a :class:`CausalSelfAttention`'s rotary module: rotates q and k with the
    method's frequencies, then scales them by position (log scaling, xPos)."""

    def __init__(
        self,
        rotary: RotaryEmbedding,
        q_scale: torch.Tensor | None,
        k_scale: torch.Tensor | None,
    ) -> None:
        super().__init__()
        self.rotary = rotary
        self.q_scale = q_scale  # (T, hd) or (T, 1)
        self.k_scale = k_scale

    def rotate_qk(
        self, q: torch.Tensor, k: torch.Tensor, positions: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if positions is not None:
            raise ValueError("positions must be None: a method covers positions 0 .. T-1")
        q, k = self.rotary.rotate_qk(q, k)  # (B, H, T, hd)
        length = q.shape[-2]
        if self.q_scale is not None:
            q = q * self.q_scale[:length].to(dtype=q.dtype, device=q.device)
        if self.k_scale is not None:
            k = k * self.k_scale[:length].to(dtype=k.dtype, device=k.device)
        return q, k


def _rotary_for(model: RopeLM, applied: AppliedMethod, seg: Segment) -> _MethodRotary:
    cfg = model.config
    rotary = RotaryEmbedding(
        cfg.head_dim, layout=cfg.layout, inv_freq=seg.inv_freq,
        attention_factor=seg.attention_factor,
    )  # fmt: skip
    q_scale = k_scale = None
    if applied.query_scale is not None:
        q_scale = torch.from_numpy(applied.query_scale[: seg.stop, None]).float()  # (T, 1)
    if applied.xpos_len is not None:
        centre = (seg.stop - 1) / 2.0  # xPos's factors depend on t - s only; centring keeps
        positions = np.arange(seg.stop) - centre  # them within float32 at long distances
        q_planes, k_planes = xpos_scales(positions, cfg.head_dim, applied.xpos_len)  # (T, d/2)
        plane = plane_of_coordinate(cfg.head_dim, cfg.layout).numpy()  # (hd,)
        q_scale = torch.from_numpy(q_planes[:, plane]).float()  # (T, hd)
        k_scale = torch.from_numpy(k_planes[:, plane]).float()
    return _MethodRotary(rotary, q_scale, k_scale)


@contextmanager
def installed(model: RopeLM, rotary: nn.Module) -> Iterator[RopeLM]:
    """Use ``rotary`` in every attention layer of ``model`` inside the ``with`` block."""
    if model.config.position != "rope":
        raise ValueError(f"model must use RoPE, got position {model.config.position!r}")
    old = [block.attn.rotary for block in model.blocks]
    try:
        for block in model.blocks:
            block.attn.rotary = rotary
        yield model
    finally:
        for block, original in zip(model.blocks, old, strict=True):
            block.attn.rotary = original


@torch.no_grad()
def evaluate_method(
    model: RopeLM,
    tokens: torch.Tensor,
    applied: AppliedMethod,
    n_windows: int,
    *,
    batch_size: int = 4,
) -> tuple[np.ndarray, np.ndarray]:
    """Loss per position of ``model`` with ``applied`` on ``n_windows`` validation windows.

    The windows are those of :func:`ropelab.lab.evaluate.evaluate` for the same length and
    count, so the curve pairs with the plain model's. Returns ``(loss, sem)``, each ``(L,)``
    with *L* the end of the last segment.
    """
    window_loss = method_window_loss(model, tokens, applied, n_windows, batch_size=batch_size)
    n = window_loss.shape[0]
    mean = window_loss.mean(0)
    sem = window_loss.std(0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros_like(mean)
    return mean, sem


@torch.no_grad()
def method_window_loss(
    model: RopeLM,
    tokens: torch.Tensor,
    applied: AppliedMethod,
    n_windows: int,
    *,
    batch_size: int = 4,
) -> np.ndarray:
    """The loss at every position of every validation window with ``applied``, ``(n_windows,
    L)`` float64, *L* the end of the last segment; the windows of
    :func:`ropelab.lab.evaluate.evaluate` for that length and count."""
    if not applied.applicable:
        raise ValueError(f"applied must be applicable, got {applied.method}: {applied.reason}")
    n_windows = check_count(n_windows, "n_windows")
    batch_size = check_count(batch_size, "batch_size")
    length = applied.segments[-1].stop
    starts = window_starts(tokens.numel(), length, n_windows)
    device = next(model.parameters()).device
    out = np.zeros((n_windows, length), dtype=np.float64)
    model.eval()
    for seg in applied.segments:
        offsets = torch.arange(seg.stop + 1)
        with installed(model, _rotary_for(model, applied, seg).to(device)):
            for i in range(0, n_windows, batch_size):
                s = torch.from_numpy(starts[i : i + batch_size])  # (b,)
                chunk = tokens[s[:, None] + offsets].long().to(device)  # (b, stop+1)
                _, loss = model(chunk[:, :-1], chunk[:, 1:], reduction="none")  # (b, stop)
                part = loss[:, seg.start : seg.stop].double().cpu().numpy()
                out[i : i + len(s), seg.start : seg.stop] = part
    return out


def describe(applied: AppliedMethod) -> str:
    """One line: the method's name and its settings (for logs and tables)."""
    name = METHODS[applied.method]
    if not applied.applicable:
        return f"{name}: not applicable ({applied.reason})"
    s = applied.settings
    if "factor" in s:
        return f"{name}: factor {s['factor']:.3g} over {s['original_len']} tokens"
    if "alpha" in s:
        return f"{name}: alpha {s['alpha']} from {s['ref_len']} tokens"
    if "log_base" in s:
        return f"{name}: log base {s['log_base']}, up to x{s['max_factor']:.3f}"
    return f"{name}: decay length {s['scale_len']}"
