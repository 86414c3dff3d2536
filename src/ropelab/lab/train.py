r"""Training with seeded batches and checkpoints that resume exactly (chapter 7).

* **Batches.** The batch of step *s* depends only on ``(seed, s)``: offsets drawn by a
  ``torch.Generator`` seeded with ``seed * 2**32 + s``. A resumed run therefore sees the same
  batches as an uninterrupted one, and every fine-tune with the same seed and length sees the same
  data in the same order, so that fine-tunes differ only in their RoPE setting.
* **Optimiser.** AdamW (:math:`\beta_1 = 0.9, \beta_2 = 0.95`), weight decay on matrices only,
  gradient clipping at ``grad_clip``, learning rate with linear warm-up then a cosine to
  ``min_lr`` (nanoGPT):

  .. math:: \eta_s = \eta_\text{min} + \tfrac12(\eta - \eta_\text{min})
      \left(1 + \cos\frac{\pi (s - s_w)}{S - s_w}\right), \quad s_w \le s < S

* **Checkpoints.** Every ``ckpt_every`` steps, at the end, and when interrupted (Ctrl-C, acted
  on at the end of the current step), the
  model, the optimiser state, the step, the per-step losses and the wall time so far are written
  atomically (a temporary file, then :func:`os.replace`). :func:`train` continues from the
  checkpoint when one exists, and returns at once when it is complete.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .._checks import check_count, check_positive
from .model import LMConfig, RopeLM

__all__ = [
    "TrainConfig",
    "TrainResult",
    "final_loss",
    "get_batch",
    "load_checkpoint",
    "lr_at",
    "model_from_checkpoint",
    "train",
]


@dataclass(frozen=True)
class TrainConfig:
    """One training run (pre-training or fine-tuning).

    Args:
        steps: optimiser steps *S*.
        seq_len: training length *T* (tokens per sequence).
        batch_size: sequences per step *B*.
        lr: peak learning rate :math:`\\eta`.
        min_lr: final learning rate :math:`\\eta_\\text{min}` of the cosine.
        warmup: linear warm-up steps :math:`s_w`.
        weight_decay: AdamW weight decay on weight matrices.
        grad_clip: clip the global gradient norm to this value.
        seed: seeds the batches (and nothing else: the model is seeded where it is built).
        ckpt_every: write a checkpoint every this many steps.
    """

    steps: int
    seq_len: int
    batch_size: int = 32
    lr: float = 2e-3
    min_lr: float = 2e-4
    warmup: int = 100
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    seed: int = 0
    ckpt_every: int = 250

    def __post_init__(self) -> None:
        check_count(self.steps, "steps")
        check_count(self.seq_len, "seq_len", minimum=2)
        check_count(self.batch_size, "batch_size")
        check_positive(self.lr, "lr")
        check_positive(self.min_lr, "min_lr", inclusive=True)
        check_count(self.warmup, "warmup", minimum=0)
        check_positive(self.weight_decay, "weight_decay", inclusive=True)
        check_positive(self.grad_clip, "grad_clip")
        check_count(self.seed, "seed", minimum=0)
        check_count(self.ckpt_every, "ckpt_every")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TrainResult:
    """What a finished (or interrupted) run returns."""

    model: RopeLM
    step: int  # steps done
    losses: list[float] = field(default_factory=list)  # training loss of each step
    wall_time_s: float = 0.0  # training time summed over every session of this run
    resumed_from: int = 0  # the step the last session started at (0: from scratch)

    @property
    def final_loss(self) -> float:
        """Mean training loss over the last 10 % of the steps done (:func:`final_loss`)."""
        return final_loss(self.losses)


def final_loss(losses: list[float]) -> float:
    """Mean training loss over the last 10 % of the steps (at least one step; NaN for none)."""
    if not losses:
        return float("nan")
    tail = max(1, len(losses) // 10)
    return float(np.mean(losses[-tail:]))


def lr_at(step: int, config: TrainConfig) -> float:
    """Learning rate of ``step`` (0-based): linear warm-up, then cosine decay to ``min_lr``."""
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    span = max(1, config.steps - config.warmup)
    progress = min(1.0, (step - config.warmup) / span)
    return config.min_lr + 0.5 * (config.lr - config.min_lr) * (1.0 + math.cos(math.pi * progress))


def get_batch(
    tokens: torch.Tensor, seq_len: int, batch_size: int, seed: int, step: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """The batch of ``step``: inputs and next-token targets, each ``(B, T)`` int64.

    Offsets are uniform over the split, drawn by a generator seeded with ``seed * 2**32 + step``.
    """
    if tokens.ndim != 1 or tokens.numel() < seq_len + 2:
        raise ValueError(f"tokens must be 1-D with more than seq_len + 1 = {seq_len + 1} entries")
    g = torch.Generator().manual_seed(int(seed) * 2**32 + int(step))
    starts = torch.randint(0, tokens.numel() - seq_len - 1, (batch_size,), generator=g)  # (B,)
    idx = starts[:, None] + torch.arange(seq_len + 1)  # (B, T+1)
    chunk = tokens[idx].long()  # (B, T+1)
    return chunk[:, :-1], chunk[:, 1:]  # (B, T), (B, T)


class _DeferredInterrupt:
    """Turn the first Ctrl-C into a flag checked between steps (a second one interrupts at once).

    A step interrupted half-way (say inside ``opt.step()``) would leave weights and step count
    out of sync; deferring the interrupt to the end of the step keeps checkpoints exact.
    """

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None

    def _handler(self, signum: int, frame: Any) -> None:
        self.requested = True
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def __enter__(self) -> _DeferredInterrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def _optimizer(model: RopeLM, config: TrainConfig) -> torch.optim.AdamW:
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    groups = [
        {"params": decay, "weight_decay": config.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=config.lr, betas=(0.9, 0.95))


def _save(path: Path, payload: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(dict(payload), tmp)
    os.replace(tmp, path)


def load_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Read a checkpoint written by :func:`train` (a dict; see the module docstring)."""
    return torch.load(Path(path), map_location="cpu", weights_only=True)


def model_from_checkpoint(path: str | os.PathLike) -> RopeLM:
    """Rebuild the model stored in a checkpoint (its config, including base and keep_planes)."""
    state = load_checkpoint(path)
    model = RopeLM(LMConfig(**state["model_config"]))
    model.load_state_dict(state["model"])
    return model


def train(
    model: RopeLM,
    tokens: torch.Tensor,
    config: TrainConfig,
    ckpt_path: str | os.PathLike | None = None,
    *,
    progress: bool = True,
    desc: str = "train",
    stop_after: int | None = None,
    device: str | torch.device | None = None,
) -> TrainResult:
    """Train ``model`` on ``tokens`` (1-D token ids), resuming from ``ckpt_path`` if it exists.

    Args:
        model: the model to train, in its initial state (its weights are replaced by the
            checkpoint's when resuming); its config (base, keep_planes) must match the checkpoint's.
        tokens: the training split, 1-D.
        config: the run's :class:`TrainConfig`; must equal the checkpoint's.
        ckpt_path: where checkpoints go; ``None`` for none.
        progress: show a tqdm bar.
        desc: the bar's label.
        stop_after: stop (after checkpointing) once this many steps are done, as an interruption
            would; for tests of resuming.
        device: where to train (``"cpu"``, ``"cuda"``, ...; ``None``: where the model is).
            Batches are drawn on the CPU, so the data seen does not depend on the device.

    Returns:
        A :class:`TrainResult`.
    """
    from tqdm.auto import tqdm

    path = Path(ckpt_path) if ckpt_path is not None else None
    if device is not None:
        model.to(device)
    device = next(model.parameters()).device
    opt = _optimizer(model, config)
    step, losses, wall = 0, [], 0.0
    if path is not None and path.exists():
        state = load_checkpoint(path)
        if state["train_config"] != config.to_dict():
            raise ValueError(
                f"checkpoint {path} was written for another training config: "
                f"{state['train_config']} != {config.to_dict()}; delete it or change ckpt_dir"
            )
        if state["model_config"] != model.config.to_dict():
            raise ValueError(
                f"checkpoint {path} was written for another model config: "
                f"{state['model_config']} != {model.config.to_dict()}"
            )
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        step, losses, wall = state["step"], list(state["losses"]), state["wall_time_s"]
    resumed_from = step

    def checkpoint() -> None:
        if path is not None:
            payload = {
                "model": model.state_dict(),
                "optimizer": opt.state_dict(),
                "step": step,
                "losses": losses,
                "wall_time_s": wall,
                "train_config": config.to_dict(),
                "model_config": model.config.to_dict(),
                "torch": str(torch.__version__),
            }
            _save(path, payload)

    end = config.steps if stop_after is None else min(config.steps, stop_after)
    model.train()
    bar = tqdm(
        total=config.steps, initial=step, desc=desc, disable=not progress, leave=False, unit="step"
    )
    t0 = time.perf_counter()
    with _DeferredInterrupt() as interrupt:
        while step < end and not interrupt.requested:
            x, y = get_batch(tokens, config.seq_len, config.batch_size, config.seed, step)
            x, y = x.to(device), y.to(device)
            for group in opt.param_groups:
                group["lr"] = lr_at(step, config)
            _, loss = model(x, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            opt.step()
            losses.append(float(loss.item()))
            step += 1
            bar.update(1)
            if step % 10 == 0:
                bar.set_postfix(loss=f"{np.mean(losses[-10:]):.3f}")
            if step % config.ckpt_every == 0 and step < end:
                wall += time.perf_counter() - t0
                t0 = time.perf_counter()
                checkpoint()
    wall += time.perf_counter() - t0
    if step > resumed_from or (path is not None and not path.exists()):
        checkpoint()
    bar.close()
    if interrupt.requested:
        raise KeyboardInterrupt(f"interrupted at step {step}; rerun to resume from {path}")
    model.eval()
    return TrainResult(model, step, losses, wall, resumed_from)
