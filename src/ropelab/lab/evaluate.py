r"""Validation loss per position, the supported length, and the q·k split (chapter 7).

**Loss per position.** ``loss[t]`` is the cross-entropy of predicting token *t + 1* of a window
from tokens *0..t* (a context of *t + 1* tokens), averaged over ``n_windows`` validation windows
whose starts are evenly spaced over the validation split (the same windows for every model).

**Supported length** (:func:`supported_length`). With :math:`T_\text{ref}` the training length,
the reference is the mean loss over the second half of the training window,

.. math:: \bar\ell = \operatorname{mean}\{\ell_t : T_\text{ref}/2 \le t < T_\text{ref}\},

the loss is smoothed by a centred moving average of ``window`` positions,
:math:`\tilde\ell_c = \operatorname{mean}\{\ell_t : |t - c| \le w/2\}`, and the supported length is
the context length :math:`c + 1` of the first centre :math:`c \ge T_\text{ref}` with
:math:`\tilde\ell_c > \bar\ell + \text{margin}`. If the smoothed loss never gets there within
the evaluated length, the model supports at least that length and the function returns ``None``
(a censored value). Liu et al. (arXiv:2310.05209) read the supported length off perplexity
curves by eye; this makes the reading reproducible. The margin (0.1 nats by default) should be
several standard errors of :math:`\tilde\ell` (:func:`smoothed_sem` estimates it).

**q·k split.** After the critical-dimension argument of Liu et al. (section 3.3), the score of a
query at position *t* with the key at position 0 is split into the planes that saw a full period
in pre-training and the rest:

.. math::
    q_t^\top k_0 = \underbrace{\sum_{i < d_\text{extra}/2} q_{t,(i)}^\top k_{0,(i)}}_{\text{first }
    d_\text{extra}\text{ dims}} + \underbrace{\sum_{i \ge d_\text{extra}/2}
    q_{t,(i)}^\top k_{0,(i)}}_{\text{the rest}}

computed from the model's real rotated (and masked) q and k
(``CausalSelfAttention(return_qk=True)``), averaged over windows, without the temperature.
:func:`qk_summary` says, per layer and head, how often each part leaves the range it took within
the fine-tuning length.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .._checks import check_count, check_positive
from .model import RopeLM, plane_of_coordinate
from .results import stays_above

__all__ = [
    "EvalResult",
    "bin_curve",
    "evaluate",
    "last_centre_length",
    "qk_summary",
    "smoothed_sem",
    "supported_length",
    "window_starts",
]


@dataclass
class EvalResult:
    """Per-position loss and q·k split of one model.

    Attributes:
        loss: ``(L,)`` mean loss at each position over the windows.
        sem: ``(L,)`` standard error of that mean.
        n_windows: number of windows averaged.
        qk_lo: ``(n_layer, H, L)`` mean of :math:`q_t\\cdot k_0` over the first ``d_extra`` dims.
        qk_hi: ``(n_layer, H, L)`` the same over the other dims.
        d_extra: the split used.
    """

    loss: np.ndarray
    sem: np.ndarray
    n_windows: int
    qk_lo: np.ndarray
    qk_hi: np.ndarray
    d_extra: int


def window_starts(n_tokens: int, length: int, n_windows: int) -> np.ndarray:
    """``n_windows`` start offsets evenly spaced over ``[0, n_tokens - length - 1]`` (int64)."""
    n_tokens = check_count(n_tokens, "n_tokens")
    length = check_count(length, "length")
    n_windows = check_count(n_windows, "n_windows")
    last = n_tokens - length - 1
    if last < 0:
        raise ValueError(f"length must be < n_tokens = {n_tokens}, got {length}")
    return np.linspace(0, last, n_windows).round().astype(np.int64)


@torch.no_grad()
def evaluate(
    model: RopeLM,
    tokens: torch.Tensor,
    length: int,
    n_windows: int,
    *,
    d_extra: int,
    batch_size: int = 4,
    progress: bool = True,
    desc: str = "eval",
) -> EvalResult:
    """Loss per position and the q·k split over ``n_windows`` windows of ``length`` tokens.

    Args:
        model: a :class:`RopeLM` (put in eval mode).
        tokens: the validation split, 1-D token ids.
        length: positions per window (up to 16 × the training length in chapter 7).
        n_windows: windows averaged (evenly spaced, see :func:`window_starts`).
        d_extra: the split of :math:`q_t\\cdot k_0` (an even number of dimensions, ``<= head_dim``).
        batch_size: windows per forward pass.
        progress: show a tqdm bar.
    """
    from tqdm.auto import tqdm

    cfg = model.config
    d_extra = check_count(d_extra, "d_extra", minimum=0)
    if d_extra % 2 or d_extra > cfg.head_dim:
        raise ValueError(f"d_extra must be even and <= head_dim = {cfg.head_dim}, got {d_extra}")
    batch_size = check_count(batch_size, "batch_size")
    starts = window_starts(tokens.numel(), length, n_windows)
    device = next(model.parameters()).device  # evaluate where the model is; sums on the CPU
    lo_mask = (plane_of_coordinate(cfg.head_dim, cfg.layout) < d_extra // 2).float()  # (hd,)
    lo_mask = lo_mask.to(device)
    loss_sum = torch.zeros(length, dtype=torch.float64)
    loss_sq = torch.zeros(length, dtype=torch.float64)
    lo_sum = torch.zeros(cfg.n_layer, cfg.n_head, length, dtype=torch.float64)
    hi_sum = torch.zeros_like(lo_sum)
    model.eval()
    offsets = torch.arange(length + 1)
    for i in tqdm(
        range(0, n_windows, batch_size), desc=desc, disable=not progress, leave=False, unit="batch"
    ):
        s = torch.from_numpy(starts[i : i + batch_size])  # (b,)
        chunk = tokens[s[:, None] + offsets].long().to(device)  # (b, L+1)
        _, loss, qks = model(chunk[:, :-1], chunk[:, 1:], return_qk=True, reduction="none")
        loss = loss.double().cpu()  # (b, L)
        loss_sum += loss.sum(0)
        loss_sq += (loss**2).sum(0)
        for layer, (q, k) in enumerate(qks):  # (b, H, L, hd) each
            prod = q * k[:, :, :1, :]  # (b, H, L, hd): q_t ⊙ k_0 per coordinate
            lo = (prod * lo_mask).sum(-1)  # (b, H, L)
            lo_sum[layer] += lo.sum(0).double().cpu()
            hi_sum[layer] += (prod.sum(-1) - lo).sum(0).double().cpu()
    n = n_windows
    mean = loss_sum / n
    var = (loss_sq / n - mean**2).clamp_min(0.0) * n / max(n - 1, 1)
    return EvalResult(
        loss=mean.numpy(),
        sem=(var / n).sqrt().numpy(),
        n_windows=n,
        qk_lo=(lo_sum / n).numpy(),
        qk_hi=(hi_sum / n).numpy(),
        d_extra=d_extra,
    )


def _moving_average(x: np.ndarray, window: int) -> np.ndarray:
    """Mean over ``window`` consecutive entries: entry *j* averages ``x[j : j + window]``."""
    c = np.concatenate(([0.0], np.cumsum(x, dtype=np.float64)))
    return (c[window:] - c[:-window]) / window


def supported_length(
    loss: Any,
    ref_len: int,
    *,
    margin: float = 0.1,
    window: int | None = None,
    reference: float | None = None,
    persist: int = 0,
) -> int | None:
    r"""The supported context length read off a loss-per-position curve (module docstring).

    Args:
        loss: ``loss[t]`` for a context of ``t + 1`` tokens, 1-D, finite, longer than ``ref_len``.
        ref_len: the training length :math:`T_\text{ref}` (reference window
            ``[ref_len/2, ref_len)``; the search starts at centre ``ref_len``); ``>= 2``.
        margin: the rise in nats that counts as "no longer supported", > 0.
        window: width of the centred moving average, ``1 <= window <= ref_len`` (default
            ``max(1, ref_len // 4)``).
        reference: the level the rise is measured from; default the curve's own mean over
            ``[ref_len/2, ref_len)``. A test-time method is measured against the plain model's
            level, so that a method which spoils the short context does not pass.
        persist: how many positions the smoothed loss must *stay* above the reference plus
            ``margin`` from the crossing on (to the end of the curve at most), ``>= 0``; 0
            counts the first crossing. A bump of the loss that comes back down (the text of
            the evaluation windows is harder at some positions for every model alike) is then
            not read as the end of the supported length.

    Returns:
        The first context length (``c + 1``) whose smoothed loss exceeds the reference by more
        than ``margin`` (for ``persist`` positions), or ``None`` if there is none within the
        curve (censored: at least :func:`last_centre_length`).
    """
    curve = np.asarray(loss, dtype=np.float64)
    if curve.ndim != 1 or not np.all(np.isfinite(curve)):
        raise ValueError("loss must be a 1-D array of finite numbers")
    ref_len = check_count(ref_len, "ref_len", minimum=2)
    if curve.size <= ref_len:
        raise ValueError(f"loss must be longer than ref_len = {ref_len}, got {curve.size} entries")
    margin = check_positive(margin, "margin")
    window = max(1, ref_len // 4) if window is None else check_count(window, "window")
    if window > ref_len:
        raise ValueError(f"window must be in [1, ref_len = {ref_len}], got {window}")
    if reference is None:
        reference = float(curve[ref_len // 2 : ref_len].mean())
    elif not np.isfinite(reference):
        raise ValueError(f"reference must be a finite number, got {reference}")
    if isinstance(persist, bool) or not isinstance(persist, (int, np.integer)) or persist < 0:
        raise ValueError(f"persist must be an integer >= 0, got {persist!r}")
    smooth = _moving_average(curve, window)  # smooth[j] = mean(curve[j : j + window])
    centres = np.arange(smooth.size) + window // 2  # the centre of each average
    above = (centres >= ref_len) & stays_above(smooth > reference + margin, int(persist))
    if not above.any():
        return None
    return int(centres[np.argmax(above)]) + 1


def last_centre_length(length: int, window: int) -> int:
    """The largest context length :func:`supported_length` can return for a curve of ``length``.

    A censored result (``None``) means "supported at least this far": ``length - window +
    window // 2 + 1``, the context of the last centre of the moving average.
    """
    length = check_count(length, "length")
    window = check_count(window, "window")
    if window > length:
        raise ValueError(f"window must be <= length = {length}, got {window}")
    return length - window + window // 2 + 1


def smoothed_sem(sem: Any, window: int) -> float:
    """Typical standard error of a ``window``-position average, treating positions as independent.

    :math:`\\sqrt{\\operatorname{mean}(\\mathrm{sem}^2) / w}`: a guide to choosing the margin of
    :func:`supported_length` (neighbouring positions share context, so it is a lower bound).
    """
    sem = np.asarray(sem, dtype=np.float64)
    window = check_count(window, "window")
    return float(np.sqrt(np.mean(sem**2) / window))


def bin_curve(curve: Any, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Average ``curve`` (1-D, index t = context t + 1) in consecutive bins of ``width``.

    Returns:
        ``(context, mean)``: the mean context length of each bin and the bin means; a last,
        shorter bin is kept.
    """
    values = np.asarray(curve, dtype=np.float64)
    width = check_count(width, "width")
    edges = np.arange(0, values.size, width)
    means = np.add.reduceat(values, edges) / np.diff(np.append(edges, values.size))
    ends = np.minimum(edges + width, values.size)
    context = (edges + 1 + ends) / 2.0  # mean of context lengths edges+1 .. ends
    return context, means


def qk_summary(qk_lo: np.ndarray, qk_hi: np.ndarray, seen_len: int, bin_width: int) -> dict:
    """Summarise the q·k split of :func:`evaluate` (JSON-ready).

    For each layer and head and each part, the range ``[min, max]`` of the window-averaged
    :math:`q_t\\cdot k_0` over ``t < seen_len`` (the fine-tuning length), the fraction of the
    positions ``t >= seen_len`` where it lies outside that range, and the first such position
    (context length ``t + 1``; ``None`` if it never leaves). Also the head-averaged curves of each
    layer, binned by ``bin_width``.
    """
    seen_len = check_count(seen_len, "seen_len", minimum=2)
    n_layer, n_head, length = qk_lo.shape
    if seen_len >= length:
        raise ValueError(f"seen_len must be < the evaluated length {length}, got {seen_len}")
    out: dict[str, Any] = {"seen_len": seen_len, "layers": []}
    for layer in range(n_layer):
        entry: dict[str, Any] = {"layer": layer}
        for part, scores in (("first_d_extra", qk_lo[layer]), ("rest", qk_hi[layer])):
            fractions, firsts = [], []
            for head in range(n_head):
                s = scores[head]
                lo, hi = s[:seen_len].min(), s[:seen_len].max()
                tail = s[seen_len:]
                outside = (tail < lo) | (tail > hi)
                fractions.append(round(float(outside.mean()), 4))
                firsts.append(int(np.argmax(outside)) + seen_len + 1 if outside.any() else None)
            context, mean = bin_curve(scores.mean(0), bin_width)
            entry[part] = {
                "outside_fraction_per_head": fractions,
                "first_outside_per_head": firsts,
                "head_mean_curve": [round(float(v), 5) for v in mean],
            }
        entry["context"] = [float(c) for c in context]
        out["layers"].append(entry)
    return out
