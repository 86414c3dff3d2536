r"""The chapter-7 experiment: watch the scaling-law bound of RoPE extrapolation appear.

Plan (:func:`full_plan`; :func:`quick_plan` is the same code path, tiny):

1. **Pre-train** a small RoPE language model (:mod:`ropelab.lab.model`) on the generated corpus
   (:mod:`ropelab.lab.corpus`) at :math:`T_\text{train}` = 128 with base 10000.
2. **Fine-tune** a copy per base at the same length: the pre-training base itself (a control
   that separates the effect of the extra steps), larger bases 1e5, 1e6, 1e7, and smaller ones
   on both sides of Theorem 1's thresholds :math:`\beta_1 = 2T/\pi`, :math:`\beta_2 = T/\pi`,
   :math:`\beta_3 = T/2\pi` (81.5, 40.7, 20.4 for T = 128): 500, 60, 30, 16.
3. One base (1e6) fine-tuned at a longer :math:`T_\text{tune}` = 256 (same tokens per step).
4. **Ablation**: the control fine-tune with only the first :math:`d_\text{extra}/2` rotation
   planes kept in q and k (``keep_planes``), i.e. without the dimensions that never saw a full
   period in pre-training.
5. **Evaluate** every model's validation loss per position up to 16 × :math:`T_\text{train}`,
   measure its supported length (:func:`ropelab.lab.evaluate.supported_length`), compare with
   :func:`ropelab.scaling.predict` (Theorem 3 of Liu et al., arXiv:2310.05209) and Theorem 2's
   :math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}`, and record the split of
   :math:`q_t\cdot k_0` at the critical dimension from the model's real q and k.

Every model is recorded with its command, seeds, versions and wall time in ``results.json`` and a
row of ``summary.csv``; ``loss_curves.csv`` holds the binned loss curves. Training resumes from
the checkpoints in ``ckpt_dir`` (named by a hash of everything that determines them), and
finished evaluations are cached there too, so an interrupted run continues where it stopped.
"""

from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .. import __version__ as ropelab_version
from .. import scaling
from .._checks import check_base, check_count, check_positive
from .corpus import Corpus, CorpusConfig, load_corpus
from .evaluate import (
    bin_curve,
    evaluate,
    last_centre_length,
    qk_summary,
    smoothed_sem,
    supported_length,
)
from .model import LMConfig, RopeLM
from .results import RESULTS_SCHEMA
from .train import TrainConfig, get_batch, load_checkpoint, train

__all__ = [
    "PLANS",
    "Plan",
    "RunSpec",
    "base_label",
    "checkpoint_paths",
    "estimate_seconds",
    "extra_plan",
    "full_plan",
    "large_plan",
    "predicted",
    "quick_plan",
    "run_plan",
    "versions",
]


@dataclass(frozen=True)
class RunSpec:
    """One model of the plan: the pre-trained model or a fine-tune of it.

    Args:
        name: a short label, unique in the plan (``"pretrain"`` is the pre-trained model).
        base: the RoPE base during this run (and at evaluation).
        tune_len: the training length of this run (:math:`T_\\text{train}` or :math:`T_\\text{tune}`).
        keep_planes: rotation planes kept in q and k (``None``: all).
    """

    name: str
    base: float
    tune_len: int
    keep_planes: int | None = None

    @property
    def is_pretrain(self) -> bool:
        return self.name == "pretrain"


@dataclass(frozen=True)
class Plan:
    """Everything that determines the experiment's numbers.

    Args:
        corpus: corpus size and seed.
        model: the architecture (its ``base`` is the pre-training base).
        train_len: :math:`T_\\text{train}`.
        pretrain: the pre-training run (``seq_len == train_len``).
        finetune: every fine-tune's settings at ``train_len``; a run at a longer ``tune_len``
            uses the same tokens per step (``batch_size * train_len / tune_len`` sequences).
        runs: the fine-tunes (the pre-trained model is always evaluated too).
        eval_len: positions evaluated (16 × ``train_len`` in chapter 7).
        eval_windows: validation windows averaged per model.
        eval_batch: windows per forward pass.
        margin: the rise in nats that ends the supported length.
        smooth_window: the moving-average width of :func:`supported_length`.
        bin_width: positions per bin of the curves written to the results.
        model_seed: seeds the pre-trained model's initial weights.
        quick: marks the smoke-test plan in the results.
    """

    corpus: CorpusConfig
    model: LMConfig
    train_len: int
    pretrain: TrainConfig
    finetune: TrainConfig
    runs: tuple[RunSpec, ...]
    eval_len: int
    eval_windows: int
    eval_batch: int = 4
    margin: float = 0.1
    smooth_window: int = 32
    bin_width: int = 16
    model_seed: int = 0
    quick: bool = False

    def __post_init__(self) -> None:
        check_count(self.train_len, "train_len", minimum=8)
        if self.pretrain.seq_len != self.train_len or self.finetune.seq_len != self.train_len:
            raise ValueError("pretrain.seq_len and finetune.seq_len must equal train_len")
        if self.eval_len <= self.train_len:
            raise ValueError(f"eval_len must be > train_len = {self.train_len}")
        names = [r.name for r in self.runs]
        if len(set(names)) != len(names) or "pretrain" in names:
            raise ValueError(f"run names must be unique and not 'pretrain', got {names}")
        for r in self.runs:
            if r.tune_len < self.train_len or r.tune_len >= self.eval_len:
                raise ValueError(f"run {r.name}: tune_len must be in [train_len, eval_len)")
        check_positive(self.margin, "margin")
        check_count(self.smooth_window, "smooth_window")

    @property
    def d_extra(self) -> int:
        """The pre-training critical dimension (Lemma 1) for this head dimension and length."""
        return int(scaling.critical_dim(self.model.head_dim, self.train_len, self.model.base))

    def all_runs(self) -> tuple[RunSpec, ...]:
        """The pre-trained model, then the fine-tunes."""
        return (RunSpec("pretrain", self.model.base, self.train_len), *self.runs)

    def train_config(self, spec: RunSpec) -> TrainConfig:
        """The :class:`TrainConfig` of one run."""
        if spec.is_pretrain:
            return self.pretrain
        if spec.tune_len == self.train_len:
            return self.finetune
        batch = max(1, self.finetune.batch_size * self.train_len // spec.tune_len)
        return replace(self.finetune, seq_len=spec.tune_len, batch_size=batch)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def full_plan() -> Plan:
    """The experiment of chapter 7, sized for about 30-50 minutes on a 2-core laptop CPU.

    4 layers × 4 heads × head dim 32 (16 planes), 0.8 M parameters; pre-training 5000 steps of
    32 × 128 tokens (20.5 M tokens); ten fine-tunes of 400 steps each (1.6 M tokens); evaluation
    of 11 models on 256 windows of 2048 tokens. ``lab/README.md`` gives the measured step times.
    """
    train_len = 128
    model = LMConfig(n_layer=4, n_head=4, head_dim=32, base=10000.0)
    d_extra = int(scaling.critical_dim(model.head_dim, train_len, model.base))  # 12
    pretrain = TrainConfig(
        steps=5000, seq_len=train_len, batch_size=32, lr=2e-3, min_lr=2e-4, warmup=200, seed=0
    )
    finetune = TrainConfig(
        steps=400, seq_len=train_len, batch_size=32, lr=5e-4, min_lr=5e-5, warmup=40, seed=1
    )
    runs = (
        RunSpec("ft-1e4", 1e4, train_len),  # control: the pre-training base, extra steps only
        RunSpec("ft-1e5", 1e5, train_len),
        RunSpec("ft-1e6", 1e6, train_len),
        RunSpec("ft-1e7", 1e7, train_len),
        RunSpec("ft-500", 500.0, train_len),  # above β1 = 81.5
        RunSpec("ft-60", 60.0, train_len),  # between β2 = 40.7 and β1
        RunSpec("ft-30", 30.0, train_len),  # between β3 = 20.4 and β2
        RunSpec("ft-16", 16.0, train_len),  # below β3: every plane sees a full period
        RunSpec("ft-1e6-T256", 1e6, 2 * train_len),  # a longer T_tune
        RunSpec("ablate-1e4", 1e4, train_len, keep_planes=d_extra // 2),  # the control, cut
    )
    return Plan(
        corpus=CorpusConfig(train_chars=4_000_000, val_chars=600_000, seed=0),
        model=model,
        train_len=train_len,
        pretrain=pretrain,
        finetune=finetune,
        runs=runs,
        eval_len=16 * train_len,
        eval_windows=256,
        eval_batch=4,
        margin=0.1,
        smooth_window=32,
        bin_width=16,
    )


def quick_plan() -> Plan:
    """A smoke test of the whole pipeline (a few seconds): tiny model, few steps, one base.

    The same stages as :func:`full_plan` with :math:`T_\\text{train}` = 32: pre-training, a
    fine-tune with base 1e6 at :math:`T_\\text{train}`, the same at :math:`2T_\\text{train}`, and
    the same with ``keep_planes = d_extra / 2``; evaluation up to 16 × 32 positions.
    """
    train_len = 32
    model = LMConfig(n_layer=2, n_head=2, head_dim=32, base=10000.0)
    d_extra = int(scaling.critical_dim(model.head_dim, train_len, model.base))  # 6
    pretrain = TrainConfig(
        steps=30, seq_len=train_len, batch_size=8, lr=3e-3, min_lr=3e-4, warmup=5, ckpt_every=10
    )
    finetune = TrainConfig(
        steps=10, seq_len=train_len, batch_size=8, lr=1e-3, min_lr=1e-4, warmup=2, seed=1
    )
    runs = (
        RunSpec("ft-1e6", 1e6, train_len),
        RunSpec("ft-1e6-T64", 1e6, 2 * train_len),
        RunSpec("ablate-1e6", 1e6, train_len, keep_planes=d_extra // 2),
    )
    return Plan(
        corpus=CorpusConfig(train_chars=200_000, val_chars=40_000, seed=0),
        model=model,
        train_len=train_len,
        pretrain=pretrain,
        finetune=finetune,
        runs=runs,
        eval_len=16 * train_len,
        eval_windows=8,
        eval_batch=4,
        margin=0.1,
        smooth_window=8,
        bin_width=8,
        quick=True,
    )


def large_plan() -> Plan:
    """A larger version of :func:`full_plan` for a GPU: head dimension 64 as in LLaMA, longer.

    6 layers × 6 heads × head dim 64 (32 planes, d_model 384, 10.8 M parameters) at
    :math:`T_\\text{train}` = 256 with base 10000, so :math:`d_\\text{extra}` = 26 and
    :math:`T_\\text{extra}(10^6)` = 1 721; pre-training 10 000 steps of 64 × 256 tokens
    (164 M tokens) on a 40 M-character corpus, fine-tunes of 1 000 steps, evaluation up to
    16 × 256 = 4 096 positions. Run it with ``python -m ropelab.lab --plan large --device cuda``;
    on a 2-core CPU it would take days (``--estimate`` says how long on any machine).
    """
    train_len = 256
    model = LMConfig(n_layer=6, n_head=6, head_dim=64, base=10000.0)
    d_extra = int(scaling.critical_dim(model.head_dim, train_len, model.base))  # 26
    pretrain = TrainConfig(
        steps=10_000, seq_len=train_len, batch_size=64, lr=1e-3, min_lr=1e-4, warmup=500, seed=0
    )
    finetune = TrainConfig(
        steps=1000, seq_len=train_len, batch_size=64, lr=3e-4, min_lr=3e-5, warmup=100, seed=1
    )
    runs = (
        RunSpec("ft-1e4", 1e4, train_len),
        RunSpec("ft-1e5", 1e5, train_len),
        RunSpec("ft-1e6", 1e6, train_len),
        RunSpec("ft-1e7", 1e7, train_len),
        RunSpec("ft-1000", 1000.0, train_len),  # above β1 = 163
        RunSpec("ft-120", 120.0, train_len),  # between β2 = 81.5 and β1
        RunSpec("ft-60", 60.0, train_len),  # between β3 = 40.7 and β2
        RunSpec("ft-30", 30.0, train_len),  # below β3
        RunSpec("ft-1e6-T512", 1e6, 2 * train_len),
        RunSpec("ablate-1e4", 1e4, train_len, keep_planes=d_extra // 2),
    )
    return Plan(
        corpus=CorpusConfig(train_chars=40_000_000, val_chars=2_000_000, seed=0),
        model=model,
        train_len=train_len,
        pretrain=pretrain,
        finetune=finetune,
        runs=runs,
        eval_len=16 * train_len,
        eval_windows=256,
        eval_batch=16,
        margin=0.1,
        smooth_window=64,
        bin_width=32,
    )


#: The named plans of ``python -m ropelab.lab --plan NAME``.
PLANS = {"full": full_plan, "quick": quick_plan, "large": large_plan}


def base_label(base: float) -> str:
    """A short name for a base, as in the plan's run names: ``500``, ``2.5``, ``1e4``, ``3e5``,
    ``1.5e6`` (plain below 10 000, else mantissa and exponent)."""
    base = float(check_base(base))
    if base < 1e4:
        return f"{base:g}"
    mantissa, exponent = f"{base:e}".split("e")
    return f"{float(mantissa):g}e{int(exponent)}"


def extra_plan(
    plan: Plan,
    bases: Sequence[float],
    *,
    tune_len: int | None = None,
    keep_planes: int | None = None,
) -> Plan:
    """``plan`` with its fine-tunes replaced by one per base in ``bases`` (chapter 7's exercise).

    The pre-training is unchanged (so its checkpoint is reused), and each new fine-tune uses the
    plan's fine-tuning settings at ``tune_len`` (default :math:`T_\\text{train}`), keeping
    ``keep_planes`` planes (default all). Runs are named ``ft-<base>[-T<len>][-keep<k>]`` with
    the base written by :func:`base_label`.
    """
    if len(bases) == 0:
        raise ValueError("bases must name at least one base")
    tune = plan.train_len if tune_len is None else check_count(tune_len, "tune_len")
    runs = []
    for base in bases:
        name = f"ft-{base_label(base)}"
        if tune != plan.train_len:
            name += f"-T{tune}"
        if keep_planes is not None:
            name += f"-keep{keep_planes}"
        runs.append(RunSpec(name, float(check_base(base)), tune, keep_planes))
    return replace(plan, runs=tuple(runs))


# --------------------------------------------------------------------------------------
# predictions
# --------------------------------------------------------------------------------------


def predicted(plan: Plan, spec: RunSpec) -> dict[str, Any]:
    """What the scaling laws predict for one model (JSON-ready).

    ``theorem3`` is :func:`ropelab.scaling.predict` for the base and :math:`T_\\text{tune}`;
    ``t_extra`` is Theorem 2's :math:`2\\pi\\beta^{d_\\text{extra}/d}` with the pre-training
    :math:`d_\\text{extra}`, for bases at least the pre-training base (``None`` below it, where
    the theorem says nothing). With ``keep_planes``, q and k keep only planes that all completed a
    full period in pre-training (when ``2 keep_planes <= d_extra``), so no angle of a kept plane
    is unseen at any length and ``expected_supported_length`` is ``None`` (no hard bound): our
    reading of the critical-dimension argument (Liu et al., section 3.3), not a formula of theirs.
    """
    d = plan.model.head_dim
    p = scaling.predict(
        dim=d, train_len=plan.train_len, base=spec.base, tune_len=spec.tune_len,
        pretrain_base=plan.model.base,
    )  # fmt: skip
    t_extra = (  # Theorem 2 is about bases >= the pre-training base
        float(scaling.extrapolation_bound(spec.base, d, plan.train_len, plan.model.base))
        if spec.base >= plan.model.base
        else None
    )
    out: dict[str, Any] = {
        "source": "ropelab.scaling.predict (Theorem 3) and extrapolation_bound (Theorem 2)",
        "theorem3": {
            "regime": p.regime,
            "d_extra": p.d_extra,
            "supported_length": p.supported_length,
            "critical_base": p.critical_base,
            "reason": p.reason,
        },
        "pretrain_d_extra": plan.d_extra,
        "t_extra": t_extra,
        "regime": p.regime,
        "expected_supported_length": p.supported_length,
        "note": None,
    }
    if spec.keep_planes is not None:
        if 2 * spec.keep_planes <= plan.d_extra:
            out["regime"] = "ablation: no unseen planes"
            out["expected_supported_length"] = None
            out["note"] = (
                f"only planes 0..{spec.keep_planes - 1} are kept in q and k; all completed a full "
                f"period within {plan.train_len} tokens in pre-training (d_extra = {plan.d_extra}), "
                "so no kept plane meets an unseen angle: no hard bound expected (our reading of "
                "the critical-dimension argument, not a formula of the paper)"
            )
        else:
            out["note"] = (
                f"{spec.keep_planes} planes kept, more than d_extra/2 = {plan.d_extra // 2}: "
                "the bound of the full model applies"
            )
    return out


# --------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------


def versions() -> dict[str, Any]:
    """Versions and machine facts recorded with every result."""
    try:
        import tqdm

        tqdm_version = tqdm.__version__
    except ImportError:  # pragma: no cover - tqdm comes with transformers
        tqdm_version = None
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "ropelab": ropelab_version,
        "tqdm": tqdm_version,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
    }


def _digest(payload: Any) -> str:
    text = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def _run_keys(plan: Plan) -> dict[str, str]:
    """A hash per run of everything that determines its checkpoint (parents included)."""
    common = {"corpus": asdict(plan.corpus), "model": plan.model.to_dict(), "seed": plan.model_seed}
    pre = RunSpec("pretrain", plan.model.base, plan.train_len)
    keys = {"pretrain": _digest({**common, "train": plan.pretrain.to_dict(), "spec": asdict(pre)})}
    for spec in plan.runs:
        train_cfg = plan.train_config(spec).to_dict()
        keys[spec.name] = _digest(
            {"parent": keys["pretrain"], "train": train_cfg, "spec": asdict(spec)}
        )
    return keys


def checkpoint_paths(plan: Plan, ckpt_dir: str | os.PathLike) -> dict[str, Path]:
    """The checkpoint file of every run of ``plan`` in ``ckpt_dir`` (``name-<hash>.pt``).

    The hash covers the corpus, the model, the training config, the run's RoPE setting, the
    seeds and (for fine-tunes) the pre-training's hash, so a changed setting never resumes from
    a stale file.
    """
    keys = _run_keys(plan)
    return {name: Path(ckpt_dir) / f"{name}-{key}.pt" for name, key in keys.items()}


def _fmt_len(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _log(message: str, progress: bool) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


def _build_pretrain_model(plan: Plan) -> RopeLM:
    torch.manual_seed(plan.model_seed)
    return RopeLM(LMConfig(**plan.model.to_dict()))


def _model_for(plan: Plan, spec: RunSpec, parent_ckpt: Path) -> RopeLM:
    if spec.is_pretrain:
        return _build_pretrain_model(plan)
    state = load_checkpoint(parent_ckpt)
    model = RopeLM(LMConfig(**state["model_config"]))
    model.load_state_dict(state["model"])
    model.set_base(spec.base)  # new frequencies, same weights
    model.set_keep_planes(spec.keep_planes)
    return model


def _evaluate_run(
    plan: Plan, spec: RunSpec, model: RopeLM, corpus: Corpus, progress: bool
) -> dict[str, Any]:
    t0 = time.perf_counter()
    val = torch.from_numpy(corpus.val)
    result = evaluate(
        model, val, plan.eval_len, plan.eval_windows, d_extra=plan.d_extra,
        batch_size=plan.eval_batch, progress=progress, desc=f"eval {spec.name}",
    )  # fmt: skip
    wall = time.perf_counter() - t0
    measured = supported_length(
        result.loss, plan.train_len, margin=plan.margin, window=plan.smooth_window
    )
    context, binned = bin_curve(result.loss, plan.bin_width)
    _, binned_sem = bin_curve(result.sem, plan.bin_width)
    reference = float(result.loss[plan.train_len // 2 : plan.train_len].mean())
    return {
        "measured": {
            "supported_length": measured,
            "censored": measured is None,
            "at_least": (
                last_centre_length(plan.eval_len, plan.smooth_window) if measured is None else None
            ),
            "reference_loss": round(reference, 5),
            "margin": plan.margin,
            "smooth_window": plan.smooth_window,
            "smoothed_sem": round(smoothed_sem(result.sem, plan.smooth_window), 5),
            "loss_at_train_len": round(float(result.loss[plan.train_len - 1]), 5),
            "loss_at_eval_len": round(float(result.loss[-plan.smooth_window :].mean()), 5),
        },
        "loss_curve": {
            "context": [float(c) for c in context],
            "loss": [round(float(v), 5) for v in binned],
            "sem": [round(float(v), 5) for v in binned_sem],
            "bin_width": plan.bin_width,
        },
        "qk_split": {
            "d_extra": plan.d_extra,
            "note": "window-averaged q_t·k_0 (no temperature), planes < d_extra/2 vs the rest",
            **qk_summary(result.qk_lo, result.qk_hi, spec.tune_len, plan.bin_width),
        },
        "eval": {
            "length": plan.eval_len,
            "n_windows": result.n_windows,
            "wall_time_s": round(wall, 2),
        },
    }


def run_plan(
    plan: Plan,
    out_dir: str | os.PathLike,
    ckpt_dir: str | os.PathLike,
    *,
    command: str = "",
    progress: bool = True,
    device: str | None = None,
) -> dict[str, Any]:
    """Run (or resume) every stage of ``plan``; write ``results.json``, ``summary.csv`` and
    ``loss_curves.csv`` to ``out_dir``; return the results dict.

    ``device`` (``"cpu"`` by default, ``"cuda"`` on a GPU) is where models train and are
    evaluated; checkpoints are device-independent, so a run can resume on another device.
    """
    t_start = time.perf_counter()
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    out, ckpts = Path(out_dir), Path(ckpt_dir)
    out.mkdir(parents=True, exist_ok=True)
    ckpts.mkdir(parents=True, exist_ok=True)
    env = {**versions(), "device": str(device or "cpu")}
    corpus = load_corpus(plan.corpus)
    train_tokens = torch.from_numpy(corpus.train)
    paths = checkpoint_paths(plan, ckpts)
    eval_key = _digest(
        {
            k: getattr(plan, k)
            for k in ("eval_len", "eval_windows", "margin", "smooth_window", "bin_width")
        }
    )
    parent_ckpt = paths["pretrain"]
    n_params = None
    records = []
    runs = plan.all_runs()
    for i, spec in enumerate(runs, 1):
        ckpt = paths[spec.name]
        cfg = plan.train_config(spec)
        _log(f"[{i}/{len(runs)}] {spec.name}: base {spec.base:g}, T {spec.tune_len}", progress)
        model = _model_for(plan, spec, parent_ckpt)
        n_params = model.num_params()
        result = train(
            model, train_tokens, cfg, ckpt, progress=progress, desc=f"train {spec.name}",
            device=device,
        )  # fmt: skip
        eval_path = ckpt.with_name(f"{ckpt.stem}-eval-{eval_key}.json")
        if eval_path.exists():
            evaluation = json.loads(eval_path.read_text())
        else:
            evaluation = _evaluate_run(plan, spec, result.model, corpus, progress)
            tmp = eval_path.with_name(eval_path.name + ".tmp")
            tmp.write_text(json.dumps(evaluation))
            os.replace(tmp, eval_path)
        record = {
            "name": spec.name,
            "kind": "pretrain" if spec.is_pretrain else "finetune",
            "parent": None if spec.is_pretrain else "pretrain",
            "base": spec.base,
            "train_len": plan.train_len,
            "tune_len": spec.tune_len,
            "keep_planes": spec.keep_planes,
            "prediction": predicted(plan, spec),
            **evaluation,
            "train": {
                "steps": result.step,
                "tokens": result.step * cfg.batch_size * cfg.seq_len,
                "final_loss": round(result.final_loss, 5),
                "wall_time_s": round(result.wall_time_s, 2),
                "seed": cfg.seed,
                "model_seed": plan.model_seed if spec.is_pretrain else None,
                "config": cfg.to_dict(),
                "checkpoint": ckpt.name,
            },
            "command": command,
            "versions": env,
        }
        records.append(record)
        m, p = record["measured"], record["prediction"]
        expected = p["expected_supported_length"]
        _log(
            f"    measured {m['supported_length'] or '>= ' + str(m['at_least'])}, "
            f"predicted {'none' if expected is None else f'{expected:.0f}'}, "
            f"T_extra {_fmt_len(p['t_extra'])}",
            progress,
        )
    results = {
        "schema": RESULTS_SCHEMA,
        "meta": {
            "command": command,
            "started_utc": started,
            "wall_time_s": round(time.perf_counter() - t_start, 2),
            "sum_train_wall_s": round(sum(r["train"]["wall_time_s"] for r in records), 2),
            "sum_eval_wall_s": round(sum(r["eval"]["wall_time_s"] for r in records), 2),
            "versions": env,
            "quick": plan.quick,
            "corpus_sha256": corpus.sha256,
            "corpus_chars": {"train": int(corpus.train.size), "val": int(corpus.val.size)},
            "model_params": n_params,
            "d_extra": plan.d_extra,
            "thresholds": dict(
                zip(
                    ("beta1", "beta2", "beta3"),
                    scaling.small_base_thresholds(plan.train_len),
                    strict=True,
                )
            ),
            "plan": plan.to_dict(),
        },
        "models": records,
    }
    write_results(results, out)
    return results


_SUMMARY_COLUMNS = (
    "name", "base", "train_len", "tune_len", "keep_planes", "regime", "d_extra",
    "predicted_supported", "t_extra", "measured_supported", "censored", "at_least", "reference_loss",
    "loss_at_eval_len", "qk_first_outside", "qk_rest_outside", "final_train_loss",
    "train_steps", "train_wall_s", "eval_wall_s",
)  # fmt: skip


def _mean_outside(qk: dict[str, Any], part: str) -> float:
    """Mean over layers and heads of the fraction of positions past T_tune out of the seen range."""
    values = [v for layer in qk["layers"] for v in layer[part]["outside_fraction_per_head"]]
    return round(float(np.mean(values)), 4)


def summary_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat row per model (the columns of ``summary.csv``)."""
    rows = []
    for r in results["models"]:
        p, m = r["prediction"], r["measured"]
        rows.append(
            {
                "name": r["name"],
                "base": r["base"],
                "train_len": r["train_len"],
                "tune_len": r["tune_len"],
                "keep_planes": r["keep_planes"],
                "regime": p["regime"],
                "d_extra": p["theorem3"]["d_extra"],
                "predicted_supported": (
                    None
                    if p["expected_supported_length"] is None
                    else round(p["expected_supported_length"], 1)
                ),
                "t_extra": None if p["t_extra"] is None else round(p["t_extra"], 1),
                "measured_supported": m["supported_length"],
                "censored": m["censored"],
                "at_least": m["at_least"],
                "reference_loss": m["reference_loss"],
                "loss_at_eval_len": m["loss_at_eval_len"],
                "qk_first_outside": _mean_outside(r["qk_split"], "first_d_extra"),
                "qk_rest_outside": _mean_outside(r["qk_split"], "rest"),
                "final_train_loss": r["train"]["final_loss"],
                "train_steps": r["train"]["steps"],
                "train_wall_s": r["train"]["wall_time_s"],
                "eval_wall_s": r["eval"]["wall_time_s"],
            }
        )
    return rows


def write_results(results: dict[str, Any], out_dir: str | os.PathLike) -> None:
    """Write ``results.json``, ``summary.csv`` and ``loss_curves.csv`` into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    with open(out / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=_SUMMARY_COLUMNS)
        writer.writeheader()
        writer.writerows(summary_rows(results))
    models = results["models"]
    with open(out / "loss_curves.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["context", *(m["name"] for m in models)])
        context = models[0]["loss_curve"]["context"]
        for j, c in enumerate(context):
            writer.writerow([c, *(m["loss_curve"]["loss"][j] for m in models)])


def format_summary(results: dict[str, Any]) -> str:
    """A fixed-width table (74 columns) of predicted against measured supported lengths.

    Columns: model, base, fine-tuning length, kept planes, Theorem 2's :math:`T_\\text{extra}`,
    the predicted supported length (Theorem 3, or ``none``), the measured one (``>=N`` when
    censored) and the reference loss over :math:`[T_\\text{train}/2, T_\\text{train})`.
    ``summary.csv`` has the regimes and more.
    """
    lines = [
        f"{'model':<13}{'base':>9}{'T':>6}{'keep':>6}{'T_extra':>9}{'predicted':>11}"
        f"{'measured':>10}{'ref loss':>10}"
    ]
    for row in summary_rows(results):
        pred = row["predicted_supported"]
        meas = row["measured_supported"]
        lines.append(
            f"{row['name']:<13}{row['base']:>9g}{row['tune_len']:>6}"
            f"{row['keep_planes'] if row['keep_planes'] is not None else '-':>6}"
            f"{_fmt_len(row['t_extra']):>9}"
            f"{'none' if pred is None else f'{pred:.0f}':>11}"
            f"{'>=' + str(row['at_least']) if meas is None else meas:>10}"
            f"{row['reference_loss']:>10.3f}"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# time estimate
# --------------------------------------------------------------------------------------


def estimate_seconds(plan: Plan, repeats: int = 5, device: str | None = None) -> dict[str, Any]:
    """Time a few training steps and one evaluation batch, and extrapolate to the whole plan.

    Each distinct (sequence length, batch size) is timed for ``repeats`` steps after one warm-up
    step (median); evaluation is timed on one batch of ``eval_batch`` windows of ``eval_len``.
    Corpus generation is timed too. The estimate ignores checkpoint writes (well under a second
    each). ``device`` as in :func:`run_plan`. Returns a JSON-ready dict with the per-step times
    and the totals in seconds.
    """
    repeats = check_count(repeats, "repeats")
    t0 = time.perf_counter()
    corpus = load_corpus(plan.corpus)
    t_corpus = time.perf_counter() - t0
    tokens = torch.from_numpy(corpus.train)
    torch.manual_seed(0)
    model = RopeLM(LMConfig(**plan.model.to_dict())).to(device or "cpu")
    step_times: dict[str, float] = {}
    train_total = 0.0
    for spec in plan.all_runs():
        cfg = plan.train_config(spec)
        key = f"T={cfg.seq_len},B={cfg.batch_size}"
        if key not in step_times:
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
            times = []
            for s in range(repeats + 1):
                x, y = get_batch(tokens, cfg.seq_len, cfg.batch_size, 0, s)
                x, y = x.to(model.tok_emb.weight.device), y.to(model.tok_emb.weight.device)
                _synchronize(device)
                t = time.perf_counter()
                _, loss = model(x, y)
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                _synchronize(device)
                times.append(time.perf_counter() - t)
            step_times[key] = float(np.median(times[1:]))
        train_total += cfg.steps * step_times[key]
    model.eval()
    val = torch.from_numpy(corpus.val)
    t = time.perf_counter()
    evaluate(
        model, val, plan.eval_len, plan.eval_batch, d_extra=plan.d_extra,
        batch_size=plan.eval_batch, progress=False,
    )  # fmt: skip
    _synchronize(device)
    eval_batch_s = time.perf_counter() - t
    n_models = len(plan.all_runs())
    eval_total = n_models * eval_batch_s * (plan.eval_windows / plan.eval_batch)
    return {
        "corpus_s": round(t_corpus, 2),
        "train_step_s": {k: round(v, 4) for k, v in step_times.items()},
        "eval_batch_s": round(eval_batch_s, 3),
        "train_total_s": round(train_total, 1),
        "eval_total_s": round(eval_total, 1),
        "total_s": round(t_corpus + train_total + eval_total, 1),
        "torch_threads": torch.get_num_threads(),
        "device": str(device or "cpu"),
        "models": n_models,
    }


def _synchronize(device: str | None) -> None:
    if device is not None and str(device).startswith("cuda"):
        torch.cuda.synchronize()
