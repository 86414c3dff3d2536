r"""The chapter-7 experiment: watch the scaling-law bound of RoPE extrapolation appear.

Plan (:func:`full_plan`; :func:`quick_plan` is the same code path, tiny), in named stages
(``python -m ropelab.lab --stage NAME``; all of them by default, in this order):

1. ``pretrain``: **pre-train** a small RoPE language model (:mod:`ropelab.lab.model`) on the
   generated corpus (:mod:`ropelab.lab.corpus`) at :math:`T_\text{train}` = 128 with base 10000.
2. ``finetune``: **fine-tune** a copy per base at the same length: the pre-training base itself
   (a control that separates the effect of the extra steps), larger bases 1e5, 1e6, 3e6, 1e7, and
   smaller ones on both sides of Theorem 1's :math:`\beta_1 = 2T/\pi`, :math:`\beta_2 = T/\pi`,
   :math:`\beta_3 = T/2\pi` (81.5, 40.7, 20.4 for T = 128): 500, 60, 30, 16; one base (1e6)
   at a longer :math:`T_\text{tune}` = 256 (same tokens per step); and the **ablation**, the
   control with only the first :math:`d_\text{extra}/2` rotation planes kept in q and k.
3. ``testtime``: **test-time methods** (:mod:`ropelab.lab.testtime`: position interpolation,
   NTK-aware, YaRN, dynamic NTK and log scaling with :math:`T_\text{train}` and with
   :math:`T_\text{extra}`, xPos as a soft window) applied without training to some models.
4. ``seed1``, ``seed2``, ...: **replicates**: the pre-training and some fine-tunes again with
   other seeds (initial weights and batch order), for error bars (:mod:`ropelab.lab.stats`).
5. ``baseline``: the same model **without RoPE** (``nope``: no position encoding), trained
   like the pre-trained model on the same data with the same budget.

Every model is **evaluated** on the same validation windows up to 32 × :math:`T_\text{train}`:
its supported length (:func:`ropelab.lab.evaluate.supported_length`) next to
:func:`ropelab.scaling.predict` (Theorem 3 of Liu et al., arXiv:2310.05209) and Theorem 2's
:math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}`, and the split of :math:`q_t\cdot k_0`
at the critical dimension from the model's real q and k.

When every stage is done, ``results.json`` (every model, replicate and test-time record, with
command, seeds, versions and wall times), ``summary.csv``, ``loss_curves.csv`` and
``testtime.csv`` are written, and the models of the plan's ``ship`` list are stored compactly
beside them (:mod:`ropelab.lab.store`). Training resumes from the checkpoints in ``ckpt_dir``
(named by a hash of everything that determines them), and every finished evaluation is cached
there too, so an interrupted run, or a stage run on another day, continues where it stopped.
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
from .model import POSITIONS, LMConfig, RopeLM
from .results import RESULTS_SCHEMA, all_records, claim_cell, seed0_records
from .store import (
    MODELS_SUBDIR,
    compact_entry,
    compact_state,
    fingerprint,
    load_compact,
    save_compact,
)
from .testtime import METHODS, evaluate_method, plan_method
from .train import TrainConfig, final_loss, get_batch, load_checkpoint, model_from_checkpoint, train

__all__ = [
    "PLANS",
    "Plan",
    "Run",
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
    "stage_names",
    "stage_runs",
    "versions",
]


@dataclass(frozen=True)
class RunSpec:
    """One model of the plan: the pre-trained model, a fine-tune of it, or a baseline.

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
class Run:
    """One training run: a :class:`RunSpec` in one replicate.

    Replicate *r* uses the model seed ``model_seed + r`` and the batch seeds of the plan's
    pre-training and fine-tuning plus ``2 r`` (:meth:`Plan.train_config`), so replicate 0 is the
    plan as written and no two replicates share a batch. ``kind`` is ``"pretrain"``,
    ``"finetune"`` or ``"baseline"`` (a model without RoPE, trained like the pre-trained one).
    """

    spec: RunSpec
    replicate: int
    kind: str

    @property
    def id(self) -> str:
        """``name`` for replicate 0, ``name-s<r>`` for the others."""
        return self.spec.name if self.replicate == 0 else f"{self.spec.name}-s{self.replicate}"

    @property
    def parent_id(self) -> str | None:
        """The run this one starts from (the pre-trained model of its replicate), or ``None``."""
        if self.kind != "finetune":
            return None
        return "pretrain" if self.replicate == 0 else f"pretrain-s{self.replicate}"


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
        eval_len: positions evaluated (32 × ``train_len`` in chapter 7).
        eval_windows: validation windows averaged per model.
        eval_batch: windows per forward pass.
        margin: the rise in nats that ends the supported length.
        smooth_window: the moving-average width of :func:`supported_length`.
        bin_width: positions per bin of the curves written to the results.
        persist: positions the smoothed loss must stay above the margin for the rise to count
            (:func:`supported_length`); 0 counts the first crossing.
        model_seed: seeds the pre-trained model's initial weights.
        quick: marks the smoke-test plan in the results.
        replicates: how many times the pre-training (and the ``replicated`` fine-tunes) run,
            each with other seeds (:class:`Run`); 1 for none.
        replicated: the fine-tunes repeated in every replicate.
        baselines: models without RoPE (``"nope"``, ``"alibi"``), trained like the pre-trained
            model (same data, steps and initial weights), in replicate 0.
        testtime_models: the models (of replicate 0) the test-time methods are applied to.
        methods: the test-time methods (keys of :data:`ropelab.lab.testtime.METHODS`).
        ship: the models stored compactly with the results (:mod:`ropelab.lab.store`).
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
    persist: int = 0
    model_seed: int = 0
    quick: bool = False
    replicates: int = 1
    replicated: tuple[str, ...] = ()
    baselines: tuple[str, ...] = ()
    testtime_models: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    ship: tuple[str, ...] = ()

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
        if not 0 <= self.persist < self.eval_len:
            raise ValueError(
                f"persist must be in [0, eval_len = {self.eval_len}), got {self.persist}"
            )
        check_count(self.replicates, "replicates")
        if not set(self.replicated) <= set(names):
            raise ValueError(
                f"replicated must name runs of the plan {names}, got {self.replicated}"
            )
        if not set(self.baselines) <= set(POSITIONS[1:]) or len(set(self.baselines)) != len(
            self.baselines
        ):
            raise ValueError(f"baselines must be distinct of {POSITIONS[1:]}, got {self.baselines}")
        if set(names) & set(POSITIONS):
            raise ValueError(f"run names must not be a position signal {POSITIONS}, got {names}")
        rope_names = ["pretrain", *names]
        if not set(self.testtime_models) <= set(rope_names):
            raise ValueError(
                f"testtime_models must name models of the plan {rope_names}, "
                f"got {self.testtime_models}"
            )
        if not set(self.methods) <= set(METHODS):
            raise ValueError(f"methods must be of {sorted(METHODS)}, got {self.methods}")
        if not set(self.ship) <= set(rope_names) | set(self.baselines):
            raise ValueError(f"ship must name models of the plan, got {self.ship}")

    @property
    def d_extra(self) -> int:
        """The pre-training critical dimension (Lemma 1) for this head dimension and length."""
        return int(scaling.critical_dim(self.model.head_dim, self.train_len, self.model.base))

    def all_runs(self) -> tuple[RunSpec, ...]:
        """The pre-trained model, then the fine-tunes (replicate 0, RoPE)."""
        return (RunSpec("pretrain", self.model.base, self.train_len), *self.runs)

    def train_config(self, spec: RunSpec, replicate: int = 0) -> TrainConfig:
        """The :class:`TrainConfig` of one run (batch seeds shifted by ``2 * replicate``)."""
        if spec.is_pretrain or spec.name in self.baselines:
            cfg = self.pretrain
        elif spec.tune_len == self.train_len:
            cfg = self.finetune
        else:
            batch = max(1, self.finetune.batch_size * self.train_len // spec.tune_len)
            cfg = replace(self.finetune, seq_len=spec.tune_len, batch_size=batch)
        return cfg if replicate == 0 else replace(cfg, seed=cfg.seed + 2 * replicate)

    def baseline_model(self, position: str) -> LMConfig:
        """The architecture of a baseline: the plan's model with another position signal."""
        return LMConfig(**{**self.model.to_dict(), "position": position})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def full_plan() -> Plan:
    """The experiment of chapter 7, in six stages on a 2-core laptop CPU (``lab/README.md``).

    2 layers × 4 heads × head dim 32 (16 planes), 0.4 M parameters; pre-training 2500 steps of
    32 × 128 tokens (10.2 M tokens), three times (seeds 0, 1, 2); eleven fine-tunes of 400
    steps each (1.6 M tokens), all of them in every replicate; a no-position baseline with the
    pre-training's budget; eight test-time methods on five models; evaluation of every model
    on 128 windows of 4096 tokens (32 × ``train_len``: every base under test, 1e7's
    T_extra = 2650 included, breaks inside the window). ``lab/README.md`` gives the measured
    times.
    """
    train_len = 128
    model = LMConfig(n_layer=2, n_head=4, head_dim=32, base=10000.0)
    d_extra = int(scaling.critical_dim(model.head_dim, train_len, model.base))  # 12
    pretrain = TrainConfig(
        steps=2500, seq_len=train_len, batch_size=32, lr=2e-3, min_lr=2e-4, warmup=100, seed=0
    )
    finetune = TrainConfig(
        steps=400, seq_len=train_len, batch_size=32, lr=5e-4, min_lr=5e-5, warmup=40, seed=1
    )
    runs = (
        RunSpec("ft-1e4", 1e4, train_len),  # control: the pre-training base, extra steps only
        RunSpec("ft-1e5", 1e5, train_len),
        RunSpec("ft-1e6", 1e6, train_len),
        RunSpec("ft-3e6", 3e6, train_len),  # between 1e6 and 1e7, where the lengths bend
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
        eval_len=32 * train_len,
        eval_windows=128,
        eval_batch=4,
        margin=0.1,
        smooth_window=32,
        bin_width=16,
        persist=train_len,  # the rise must last a training length: a bump of the text is not it
        replicates=3,
        replicated=tuple(run.name for run in runs),
        baselines=("nope",),
        testtime_models=("pretrain", "ft-16", "ft-1e5", "ft-1e6", "ft-1e7"),
        methods=tuple(METHODS),
        ship=(
            "pretrain",
            "ft-500",
            "ft-16",
            "ft-1e5",
            "ft-1e6",
            "ft-1e7",
            "ablate-1e4",
            "nope",
        ),
    )


def quick_plan() -> Plan:
    """A smoke test of the whole pipeline (seconds): tiny model, few steps, every stage.

    The same stages as :func:`full_plan` with :math:`T_\\text{train}` = 32: pre-training, a
    fine-tune with base 1e6 at :math:`T_\\text{train}`, the same at :math:`2T_\\text{train}`,
    the same with ``keep_planes = d_extra / 2``, a small base (4, below
    :math:`\\beta_3 = 5.1`); every test-time method on the pre-trained model and base 1e6; a
    second replicate of the pre-training and of base 1e6; the two baselines without RoPE;
    evaluation up to 16 × 32 positions.
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
        RunSpec("ft-4", 4.0, train_len),
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
        replicates=2,
        replicated=("ft-1e6",),
        baselines=("nope", "alibi"),
        testtime_models=("pretrain", "ft-1e6", "ft-4"),
        methods=tuple(METHODS),
        ship=("pretrain", "ft-1e6", "nope"),
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
    the base written by :func:`base_label`. Replicates, baselines, test-time methods and
    shipped models are dropped: the new plan has the stages ``pretrain`` and ``finetune`` only.
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
    return replace(
        plan, runs=tuple(runs), replicates=1, replicated=(), baselines=(), testtime_models=(),
        methods=(), ship=(),
    )  # fmt: skip


# --------------------------------------------------------------------------------------
# predictions
# --------------------------------------------------------------------------------------


def predicted(plan: Plan, spec: RunSpec) -> dict[str, Any]:
    """What the scaling laws predict for one model (JSON-ready).

    ``theorem3`` is :func:`ropelab.scaling.predict` for the base and :math:`T_\\text{tune}`;
    ``t_extra`` is Theorem 2's :math:`2\\pi\\beta^{d_\\text{extra}/d}` with the pre-training
    :math:`d_\\text{extra}`, for bases at least the pre-training base (``None`` below it, where
    the theorem says nothing).

    ``claim`` says what the scaling laws claim, in the form the chapter tests it:

    ``d_extra_tune`` is the critical dimension that governs the model by Theorem 3: the
    pre-training's :math:`d_\\text{extra}` above the critical base :math:`\\beta_0`, and
    :math:`d'_\\text{extra}` (below) at or below it.

    * ``"bound"``: a bound, ``expected_supported_length`` (Theorem 2 or 3);
    * ``"longer than control"``: a base below the pre-training base, whose critical dimension
      grows to ``d_extra_tune`` :math:`= d'_\\text{extra} = 2\\lceil\\frac d2
      \\log_\\beta\\frac{T_\\text{tune}}{2\\pi}\\rceil`: Theorem 1 says that fine-tuning with any
      base below 10 000 improves extrapolation over the control (the same steps with the
      pre-training base), and more so each time another pair of dimensions completes a period
      (:math:`\\beta_1, \\beta_2, \\beta_3` mark where the improvement accelerates);
    * ``"no hard bound (conjecture)"``: every plane completes a period (:math:`d'_\\text{extra}
      = d`); near-unbounded extrapolation is the source's conjecture, not a theorem;
    * ``"no hard bound (our reading)"``: the ablation, which keeps only planes that completed
      a period in pre-training (when ``2 keep_planes <= d_extra``): our reading of the
      critical-dimension argument (Liu et al., section 3.3), not a formula of theirs.

    ``expected_supported_length`` is the bound, or ``None`` for the last three claims (for a
    smaller base with :math:`d'_\\text{extra} < d`, Theorem 3's :math:`T_\\text{tune}` stays in
    ``theorem3``: it is where the improvement starts, not a prediction of no improvement).
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
    if spec.base > p.critical_base:  # Theorem 3: the pre-training's critical dimension governs
        d_tune = plan.d_extra
    else:  # eq. 16c: the critical dimension at the fine-tuning length with the new base
        d_tune = int(min(d, scaling.critical_dim(d, spec.tune_len, spec.base)))
    if spec.base >= plan.model.base:
        claim, expected = "bound", p.supported_length
    elif d_tune >= d:
        claim, expected = "no hard bound (conjecture)", None
    else:
        claim, expected = "longer than control", None
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
        "d_extra_tune": d_tune,
        "t_extra": t_extra,
        "regime": p.regime,
        "claim": claim,
        "expected_supported_length": expected,
        "note": None,
    }
    if spec.keep_planes is not None:
        if 2 * spec.keep_planes <= plan.d_extra:
            out["regime"] = "ablation: no unseen planes"
            out["claim"] = "no hard bound (our reading)"
            out["expected_supported_length"] = None
            out["note"] = (
                f"only planes 0..{spec.keep_planes - 1} are kept in q and k; all completed a full "
                f"period within {plan.train_len} tokens in pre-training (d_extra = {plan.d_extra}), "
                "so no kept plane meets an unseen angle: no hard bound expected (our reading of "
                "the critical-dimension argument, not a formula of the paper); the softmax "
                f"temperature becomes 1/sqrt({2 * spec.keep_planes}) instead of 1/sqrt({d})"
            )
        else:
            out["note"] = (
                f"{spec.keep_planes} planes kept, more than d_extra/2 = {plan.d_extra // 2}: "
                "the bound of the full model applies"
            )
    return out


def _baseline_prediction(position: str) -> dict[str, Any]:
    what = {"nope": "no position encoding", "alibi": "ALiBi (a linear distance penalty)"}
    return {
        "source": "none: a baseline without RoPE",
        "theorem3": None,
        "pretrain_d_extra": None,
        "d_extra_tune": None,
        "t_extra": None,
        "regime": f"baseline: {what[position]}",
        "claim": "baseline",
        "expected_supported_length": None,
        "note": "trained like the pre-trained model (same data, steps and initial weights)",
    }


# --------------------------------------------------------------------------------------
# runs, stages and checkpoints
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


def _pretrain_spec(plan: Plan) -> RunSpec:
    return RunSpec("pretrain", plan.model.base, plan.train_len)


def stage_names(plan: Plan) -> list[str]:
    """The plan's stages in the order ``run_plan`` runs them: ``pretrain``, ``finetune``,
    ``testtime`` (if the plan has methods), ``seed1`` ... (one per extra replicate),
    ``baseline`` (if it has baselines)."""
    names = ["pretrain", "finetune"]
    if plan.testtime_models and plan.methods:
        names.append("testtime")
    names += [f"seed{r}" for r in range(1, plan.replicates)]
    if plan.baselines:
        names.append("baseline")
    return names


def stage_runs(plan: Plan, stage: str) -> tuple[Run, ...]:
    """The training runs of one stage (``testtime`` has none: it evaluates trained models)."""
    if stage not in stage_names(plan):
        raise ValueError(f"stage must be one of {stage_names(plan)}, got {stage!r}")
    if stage == "pretrain":
        return (Run(_pretrain_spec(plan), 0, "pretrain"),)
    if stage == "finetune":
        return tuple(Run(spec, 0, "finetune") for spec in plan.runs)
    if stage == "testtime":
        return ()
    if stage == "baseline":
        return tuple(
            Run(RunSpec(b, plan.model.base, plan.train_len), 0, "baseline") for b in plan.baselines
        )
    r = int(stage[len("seed") :])
    replicated = tuple(
        Run(spec, r, "finetune") for spec in plan.runs if spec.name in plan.replicated
    )
    return (Run(_pretrain_spec(plan), r, "pretrain"), *replicated)


def _all_training_runs(plan: Plan) -> list[Run]:
    return [run for stage in stage_names(plan) for run in stage_runs(plan, stage)]


def _run_keys(plan: Plan) -> dict[str, str]:
    """A hash per run of everything that determines its checkpoint (parents included).

    Replicate 0's keys are those of the plan before replicates and baselines existed, so their
    checkpoints stay valid.
    """
    common = {"corpus": asdict(plan.corpus), "model": plan.model.to_dict(), "seed": plan.model_seed}
    pre = _pretrain_spec(plan)
    keys = {"pretrain": _digest({**common, "train": plan.pretrain.to_dict(), "spec": asdict(pre)})}
    for spec in plan.runs:
        train_cfg = plan.train_config(spec).to_dict()
        keys[spec.name] = _digest(
            {"parent": keys["pretrain"], "train": train_cfg, "spec": asdict(spec)}
        )
    for r in range(1, plan.replicates):
        parent = keys[f"pretrain-s{r}"] = _digest(
            {
                **common,
                "seed": plan.model_seed + r,
                "train": plan.train_config(pre, r).to_dict(),
                "spec": asdict(pre),
                "replicate": r,
            }
        )
        for spec in plan.runs:
            if spec.name in plan.replicated:
                keys[f"{spec.name}-s{r}"] = _digest(
                    {
                        "parent": parent,
                        "train": plan.train_config(spec, r).to_dict(),
                        "spec": asdict(spec),
                    }
                )
    for b in plan.baselines:
        spec = RunSpec(b, plan.model.base, plan.train_len)
        keys[b] = _digest(
            {
                **common,
                "model": plan.baseline_model(b).to_dict(),
                "train": plan.train_config(spec).to_dict(),
                "spec": asdict(spec),
            }
        )
    return keys


def checkpoint_paths(plan: Plan, ckpt_dir: str | os.PathLike) -> dict[str, Path]:
    """The checkpoint file of every run of ``plan`` in ``ckpt_dir`` (``<run id>-<hash>.pt``).

    Keys are run ids (:attr:`Run.id`). The hash covers the corpus, the model, the training
    config, the run's RoPE setting, the seeds and (for fine-tunes) the pre-training's hash, so a
    changed setting never resumes from a stale file.
    """
    keys = _run_keys(plan)
    return {name: Path(ckpt_dir) / f"{name}-{key}.pt" for name, key in keys.items()}


def _eval_key(plan: Plan) -> str:
    keys = ["eval_len", "eval_windows", "margin", "smooth_window", "bin_width"]
    if plan.persist:  # plans without it keep their cached evaluations
        keys.append("persist")
    return _digest({k: getattr(plan, k) for k in keys})


def _eval_path(ckpt: Path, eval_key: str) -> Path:
    return ckpt.with_name(f"{ckpt.stem}-eval-{eval_key}.json")


def _write_json(path: Path, payload: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload))
    os.replace(tmp, path)


def _fmt_len(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _log(message: str, verbose: bool) -> None:
    if verbose:
        print(message, file=sys.stderr, flush=True)


def _build_pretrain_model(plan: Plan, replicate: int = 0) -> RopeLM:
    torch.manual_seed(plan.model_seed + replicate)
    return RopeLM(LMConfig(**plan.model.to_dict()))


def _model_for(plan: Plan, run: Run, parent_ckpt: Path | None) -> RopeLM:
    if run.kind == "pretrain":
        return _build_pretrain_model(plan, run.replicate)
    if run.kind == "baseline":
        torch.manual_seed(plan.model_seed)  # the pre-trained model's initial weights
        return RopeLM(plan.baseline_model(run.spec.name))
    assert parent_ckpt is not None
    if not parent_ckpt.exists():
        raise FileNotFoundError(f"{parent_ckpt} is missing: run the stage that pre-trains it first")
    state = load_checkpoint(parent_ckpt)
    model = RopeLM(LMConfig(**state["model_config"]))
    model.load_state_dict(state["model"])
    model.set_base(run.spec.base)  # new frequencies, same weights
    model.set_keep_planes(run.spec.keep_planes)
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
        result.loss, plan.train_len, margin=plan.margin, window=plan.smooth_window,
        persist=plan.persist,
    )  # fmt: skip
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
            "persist": plan.persist,
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


def _testtime_path(ckpt: Path, method: str, key: str) -> Path:
    return ckpt.with_name(f"{ckpt.stem}-tt-{method}-{key}.json")


def _measure_method(
    plan: Plan, loss: np.ndarray, sem: np.ndarray, reference: float, wall: float
) -> dict[str, Any]:
    """The supported length of a method's curve, against the plain model's reference level."""
    t = plan.train_len
    found = supported_length(
        loss, t, margin=plan.margin, window=plan.smooth_window, reference=reference,
        persist=plan.persist,
    )  # fmt: skip
    context, binned = bin_curve(loss, plan.bin_width)
    _, binned_sem = bin_curve(sem, plan.bin_width)
    return {
        "measured": {
            "supported_length": found,
            "censored": found is None,
            "at_least": (
                last_centre_length(plan.eval_len, plan.smooth_window) if found is None else None
            ),
            "reference_loss": round(reference, 5),
            "method_reference_loss": round(float(loss[t // 2 : t].mean()), 5),
            "mean_loss_past_train": round(float(loss[t:].mean()), 5),
            "loss_at_eval_len": round(float(loss[-plan.smooth_window :].mean()), 5),
            "margin": plan.margin,
            "smooth_window": plan.smooth_window,
            "persist": plan.persist,
        },
        "loss_curve": {
            "context": [float(c) for c in context],
            "loss": [round(float(v), 5) for v in binned],
            "sem": [round(float(v), 5) for v in binned_sem],
            "bin_width": plan.bin_width,
        },
        "eval": {"n_windows": plan.eval_windows, "wall_time_s": round(wall, 2)},
    }


class _Context:
    """What every stage needs: the plan, the folders, the corpus (loaded once), the device."""

    def __init__(
        self, plan: Plan, ckpt_dir: Path, device: str | None, progress: bool, verbose: bool
    ) -> None:
        self.plan = plan
        self.ckpts = ckpt_dir
        self.device = device
        self.progress = progress
        self.verbose = verbose
        self.paths = checkpoint_paths(plan, ckpt_dir)
        self.eval_key = _eval_key(plan)
        self._corpus: Corpus | None = None

    @property
    def corpus(self) -> Corpus:
        if self._corpus is None:
            self._corpus = load_corpus(self.plan.corpus)
        return self._corpus

    def eval_path(self, run_id: str) -> Path:
        return _eval_path(self.paths[run_id], self.eval_key)

    def method_path(self, name: str, method: str, settings: dict[str, Any]) -> Path:
        key = _digest({"eval": self.eval_key, "method": method, "settings": settings})
        return _testtime_path(self.paths[name], method, key)


def _train_and_evaluate(ctx: _Context, run: Run) -> None:
    plan, ckpt = ctx.plan, ctx.paths[run.id]
    eval_path = ctx.eval_path(run.id)
    if eval_path.exists():  # written only after the training finished
        _log(f"  {run.id}: done", ctx.verbose)
        return
    spec, cfg = run.spec, plan.train_config(run.spec, run.replicate)
    _log(f"  {run.id}: base {spec.base:g}, T {spec.tune_len}, {cfg.steps} steps", ctx.verbose)
    parent = ctx.paths[run.parent_id] if run.parent_id else None
    model = _model_for(plan, run, parent)
    result = train(
        model, torch.from_numpy(ctx.corpus.train), cfg, ckpt, progress=ctx.progress,
        desc=f"train {run.id}", device=ctx.device,
    )  # fmt: skip
    evaluation = _evaluate_run(plan, spec, result.model, ctx.corpus, ctx.progress)
    _write_json(eval_path, evaluation)
    m = evaluation["measured"]
    _log(
        f"  {run.id}: trained in {result.wall_time_s:.0f} s, evaluated in "
        f"{evaluation['eval']['wall_time_s']:.0f} s; supported "
        f"{m['supported_length'] or '>= ' + str(m['at_least'])}",
        ctx.verbose,
    )


def _testtime_stage(ctx: _Context) -> None:
    plan = ctx.plan
    val = torch.from_numpy(ctx.corpus.val)
    specs = {s.name: s for s in plan.all_runs()}
    for name in plan.testtime_models:
        eval_path = ctx.eval_path(name)
        if not eval_path.exists():
            raise FileNotFoundError(f"{name} is not trained and evaluated yet: run its stage first")
        reference = json.loads(eval_path.read_text())["measured"]["reference_loss"]
        model = None
        for method in plan.methods:
            applied = plan_method(
                method, base=specs[name].base, head_dim=plan.model.head_dim,
                train_len=plan.train_len, pretrain_base=plan.model.base, eval_len=plan.eval_len,
            )  # fmt: skip
            if not applied.applicable:
                continue
            path = ctx.method_path(name, method, applied.settings)
            if path.exists():
                continue
            if model is None:
                model = model_from_checkpoint(ctx.paths[name]).to(ctx.device or "cpu")
            t0 = time.perf_counter()
            loss, sem = evaluate_method(
                model, val, applied, plan.eval_windows, batch_size=plan.eval_batch
            )
            wall = time.perf_counter() - t0
            record = _measure_method(plan, loss, sem, reference, wall)
            _write_json(path, record)
            m = record["measured"]
            _log(
                f"  {name} + {method}: {wall:.0f} s; supported "
                f"{m['supported_length'] or '>= ' + str(m['at_least'])}, mean loss past "
                f"{plan.train_len} {m['mean_loss_past_train']:.3f}",
                ctx.verbose,
            )


def _missing(ctx: _Context) -> list[str]:
    """What is not done yet: run ids without an evaluation, and test-time methods."""
    plan = ctx.plan
    missing = [r.id for r in _all_training_runs(plan) if not ctx.eval_path(r.id).exists()]
    specs = {s.name: s for s in plan.all_runs()}
    for name in plan.testtime_models:
        for method in plan.methods:
            applied = plan_method(
                method, base=specs[name].base, head_dim=plan.model.head_dim,
                train_len=plan.train_len, pretrain_base=plan.model.base, eval_len=plan.eval_len,
            )  # fmt: skip
            if applied.applicable and not ctx.method_path(name, method, applied.settings).exists():
                missing.append(f"{name}+{method}")
    return missing


# --------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------


def run_plan(
    plan: Plan,
    out_dir: str | os.PathLike,
    ckpt_dir: str | os.PathLike,
    *,
    command: str = "",
    progress: bool = True,
    device: str | None = None,
    stages: Sequence[str] | None = None,
    verbose: bool = True,
) -> dict[str, Any] | None:
    """Run (or resume) the ``stages`` of ``plan`` (default: all, in :func:`stage_names` order);
    once every stage is done, write the results to ``out_dir`` and return them.

    Writes ``results.json``, ``summary.csv``, ``loss_curves.csv``, ``testtime.csv`` and the
    compact models of ``plan.ship`` (``out_dir/models/``). Returns ``None`` (and writes nothing)
    while a stage is still missing; the log says which. ``device`` (``"cpu"`` by default,
    ``"cuda"`` on a GPU) is where models train and are evaluated; checkpoints are
    device-independent, so a run can resume on another device. ``verbose`` prints a line per
    run to stderr; ``progress`` shows progress bars.
    """
    ckpts = Path(ckpt_dir)
    ckpts.mkdir(parents=True, exist_ok=True)
    order = stage_names(plan)
    chosen = order if stages is None else list(stages)
    unknown = [s for s in chosen if s not in order]
    if unknown:
        raise ValueError(f"stages must be of {order}, got {unknown}")
    ctx = _Context(plan, ckpts, device, progress, verbose)
    for stage in order:
        if stage not in chosen:
            continue
        t0 = time.perf_counter()
        _log(f"stage {stage}", verbose)
        if stage == "testtime":
            _testtime_stage(ctx)
        else:
            for run in stage_runs(plan, stage):
                _train_and_evaluate(ctx, run)
        _log(f"stage {stage}: {time.perf_counter() - t0:.0f} s in this session", verbose)
    missing = _missing(ctx)
    if missing:
        _log(
            f"results not written: {len(missing)} parts to do ({', '.join(missing[:6])}"
            f"{', ...' if len(missing) > 6 else ''}); run the remaining stages",
            verbose,
        )
        return None
    env = {**versions(), "device": str(device or "cpu")}
    results = _assemble(ctx, command, env)
    _export_models(ctx, results, Path(out_dir))
    write_results(results, out_dir)
    return results


def _train_record(ctx: _Context, run: Run) -> dict[str, Any]:
    plan, ckpt = ctx.plan, ctx.paths[run.id]
    cfg = plan.train_config(run.spec, run.replicate)
    state = load_checkpoint(ckpt)
    model_seed = {"pretrain": plan.model_seed + run.replicate, "baseline": plan.model_seed}
    return {
        "steps": state["step"],
        "tokens": state["step"] * cfg.batch_size * cfg.seq_len,
        "final_loss": round(final_loss(list(state["losses"])), 5),
        "wall_time_s": round(state["wall_time_s"], 2),
        "seed": cfg.seed,
        "model_seed": model_seed.get(run.kind),
        "config": cfg.to_dict(),
        "checkpoint": ckpt.name,
    }


def _run_record(ctx: _Context, run: Run, command: str, env: dict[str, Any]) -> dict[str, Any]:
    plan, spec = ctx.plan, run.spec
    evaluation = json.loads(ctx.eval_path(run.id).read_text())
    baseline = run.kind == "baseline"
    return {
        "name": spec.name,
        "id": run.id,
        "replicate": run.replicate,
        "kind": run.kind,
        "position": spec.name if baseline else "rope",
        "parent": run.parent_id,
        "base": None if baseline else spec.base,
        "train_len": plan.train_len,
        "tune_len": spec.tune_len,
        "keep_planes": spec.keep_planes,
        "prediction": _baseline_prediction(spec.name) if baseline else predicted(plan, spec),
        **evaluation,
        "train": _train_record(ctx, run),
        "command": command,
        "versions": env,
    }


def _testtime_records(ctx: _Context) -> list[dict[str, Any]]:
    plan = ctx.plan
    specs = {s.name: s for s in plan.all_runs()}
    records = []
    for name in plan.testtime_models:
        for method in plan.methods:
            applied = plan_method(
                method, base=specs[name].base, head_dim=plan.model.head_dim,
                train_len=plan.train_len, pretrain_base=plan.model.base, eval_len=plan.eval_len,
            )  # fmt: skip
            record: dict[str, Any] = {
                "model": name,
                "replicate": 0,
                "base": specs[name].base,
                "method": method,
                "label": METHODS[method],
                "applicable": applied.applicable,
                "reason": applied.reason,
                "ref_len": applied.ref_len,
                "settings": applied.settings,
                "measured": None,
                "loss_curve": None,
                "eval": None,
            }
            if applied.applicable:
                path = ctx.method_path(name, method, applied.settings)
                record.update(json.loads(path.read_text()))
            records.append(record)
    return records


def _assemble(ctx: _Context, command: str, env: dict[str, Any]) -> dict[str, Any]:
    plan = ctx.plan
    models, baselines, replicates, stages = [], [], [], {}
    for stage in stage_names(plan):
        runs = stage_runs(plan, stage)
        records = [_run_record(ctx, run, command, env) for run in runs]
        for run, record in zip(runs, records, strict=True):
            if run.kind == "baseline":
                baselines.append(record)
            elif run.replicate == 0:
                models.append(record)
            else:
                replicates.append(record)
        stages[stage] = {
            "runs": [run.id for run in runs],
            "train_wall_s": round(sum(r["train"]["wall_time_s"] for r in records), 2),
            "eval_wall_s": round(sum(r["eval"]["wall_time_s"] for r in records), 2),
        }
    testtime = _testtime_records(ctx)
    if "testtime" in stages:
        stages["testtime"]["runs"] = list(plan.testtime_models)
        stages["testtime"]["eval_wall_s"] = round(
            sum(r["eval"]["wall_time_s"] for r in testtime if r["eval"]), 2
        )
    for entry in stages.values():
        entry["wall_s"] = round(entry["train_wall_s"] + entry["eval_wall_s"], 2)
    return {
        "schema": RESULTS_SCHEMA,
        "meta": {
            "command": command,
            "assembled_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "stages": stages,
            "sum_train_wall_s": round(sum(s["train_wall_s"] for s in stages.values()), 2),
            "sum_eval_wall_s": round(sum(s["eval_wall_s"] for s in stages.values()), 2),
            "versions": env,
            "quick": plan.quick,
            "corpus_sha256": ctx.corpus.sha256,
            "corpus_chars": {
                "train": int(ctx.corpus.train.size),
                "val": int(ctx.corpus.val.size),
            },
            "model_params": RopeLM(LMConfig(**plan.model.to_dict())).num_params(),
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
        "models": models,
        "baselines": baselines,
        "replicates": replicates,
        "testtime": testtime,
    }


def _export_models(ctx: _Context, results: dict[str, Any], out: Path) -> None:
    """Store the models of ``plan.ship`` compactly in ``out/models`` and record their hashes.

    A file that already holds exactly these float16 weights is kept (so rerunning a finished
    plan does not rewrite committed files); files of models no longer shipped are removed.
    """
    plan = ctx.plan
    folder = out / MODELS_SUBDIR
    val = torch.from_numpy(ctx.corpus.val)
    by_name = {r["name"]: r for r in seed0_records(results)}
    for name in plan.ship:
        path = folder / f"{name}.pt"
        model = model_from_checkpoint(ctx.paths[name])
        entry = _reuse_compact(path, model)
        if entry is None:
            entry = save_compact(model, path)
        rounded = load_compact(name, {"models": [{"name": name, "compact": entry}]},
                               results_dir=out)  # fmt: skip
        entry["fingerprint"] = {
            "windows": 2,
            "length": plan.eval_len,
            "of_windows": plan.eval_windows,
            "mean_loss": fingerprint(rounded, val, plan.eval_len, plan.eval_windows, k=2),
        }
        by_name[name]["compact"] = entry
    if folder.is_dir():
        for stale in folder.glob("*.pt"):
            if stale.stem not in plan.ship:
                stale.unlink()


def _reuse_compact(path: Path, model: RopeLM) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    payload = torch.load(path, map_location="cpu", weights_only=True)
    state = compact_state(model)
    same = (
        payload.get("model_config") == model.config.to_dict()
        and payload.get("state", {}).keys() == state.keys()
        and all(torch.equal(payload["state"][k], v) for k, v in state.items())
    )
    if not same:
        return None
    return compact_entry(path, model)


# --------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------


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
    """One flat row per model, baseline and replicate (the columns of ``summary.csv``)."""
    rows = []
    for r in all_records(results):
        p, m = r["prediction"], r["measured"]
        theorem3 = p["theorem3"] or {}
        rows.append(
            {
                "id": r["id"],
                "name": r["name"],
                "replicate": r["replicate"],
                "position": r["position"],
                "base": r["base"],
                "train_len": r["train_len"],
                "tune_len": r["tune_len"],
                "keep_planes": r["keep_planes"],
                "regime": p["regime"],
                "claim": p["claim"],
                "d_extra": theorem3.get("d_extra"),
                "d_extra_tune": p["d_extra_tune"],
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


_TESTTIME_COLUMNS = (
    "model", "replicate", "base", "method", "label", "applicable", "ref_len", "supported",
    "censored", "at_least", "reference_loss", "method_reference_loss", "mean_loss_past_train",
    "loss_at_eval_len", "eval_wall_s", "reason",
)  # fmt: skip


def testtime_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat row per test-time record (the columns of ``testtime.csv``)."""
    rows = []
    for r in results.get("testtime", []):
        m = r["measured"] or {}
        rows.append(
            {
                "model": r["model"],
                "replicate": r["replicate"],
                "base": r["base"],
                "method": r["method"],
                "label": r["label"],
                "applicable": r["applicable"],
                "ref_len": r["ref_len"],
                "supported": m.get("supported_length"),
                "censored": m.get("censored"),
                "at_least": m.get("at_least"),
                "reference_loss": m.get("reference_loss"),
                "method_reference_loss": m.get("method_reference_loss"),
                "mean_loss_past_train": m.get("mean_loss_past_train"),
                "loss_at_eval_len": m.get("loss_at_eval_len"),
                "eval_wall_s": (r["eval"] or {}).get("wall_time_s"),
                "reason": r["reason"],
            }
        )
    return rows


def write_results(results: dict[str, Any], out_dir: str | os.PathLike) -> None:
    """Write ``results.json``, ``summary.csv``, ``loss_curves.csv`` and ``testtime.csv``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    rows = summary_rows(results)
    with open(out / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    records = all_records(results)
    with open(out / "loss_curves.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["context", *(m["id"] for m in records)])
        context = records[0]["loss_curve"]["context"]
        for j, c in enumerate(context):
            writer.writerow([c, *(m["loss_curve"]["loss"][j] for m in records)])
    testtime = results.get("testtime", [])
    path = out / "testtime.csv"
    if testtime:
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=_TESTTIME_COLUMNS)
            writer.writeheader()
            writer.writerows(testtime_rows(results))
    elif path.exists():
        path.unlink()


def format_summary(results: dict[str, Any]) -> str:
    """A fixed-width table (74 columns) of predicted against measured supported lengths: the
    models of seed 0, then the baselines.

    Columns: model, base, fine-tuning length, kept planes, Theorem 2's :math:`T_\\text{extra}`,
    the prediction (a bound; ``>ctrl``: longer than the control ``ft-1e4``, Theorem 1;
    ``conj.``: no hard bound, the source's conjecture; ``none``: no hard bound, our reading of
    the ablation; ``-``: a baseline), the measured length (``>=N`` when censored) and the
    reference loss over :math:`[T_\\text{train}/2, T_\\text{train})`. ``summary.csv`` has the
    regimes, the other seeds and more.
    """
    lines = [
        f"{'model':<13}{'base':>9}{'T':>6}{'keep':>6}{'T_extra':>9}{'predicted':>11}"
        f"{'measured':>10}{'ref loss':>10}"
    ]
    for r in seed0_records(results):
        meas = r["measured"]["supported_length"]
        base = "-" if r["base"] is None else f"{r['base']:g}"
        lines.append(
            f"{r['name']:<13}{base:>9}{r['tune_len']:>6}"
            f"{r['keep_planes'] if r['keep_planes'] is not None else '-':>6}"
            f"{_fmt_len(r['prediction']['t_extra']):>9}"
            f"{claim_cell(r):>11}"
            f"{'>=' + str(r['measured']['at_least']) if meas is None else meas:>10}"
            f"{r['measured']['reference_loss']:>10.3f}"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# time estimate
# --------------------------------------------------------------------------------------


def estimate_seconds(plan: Plan, repeats: int = 5, device: str | None = None) -> dict[str, Any]:
    """Time a few training steps and one evaluation batch, and extrapolate to every stage.

    Each distinct (sequence length, batch size) is timed for ``repeats`` steps after one warm-up
    step (median); evaluation is timed on one batch of ``eval_batch`` windows of ``eval_len``,
    and a test-time method is charged that time per window in proportion to the tokens its
    forward passes read (dynamic NTK reads a window several times). Corpus generation is timed
    too; checkpoint writes (well under a second each) are ignored. ``device`` as in
    :func:`run_plan`. Returns a JSON-ready dict with the per-step times and the totals in
    seconds, per stage and in all.
    """
    repeats = check_count(repeats, "repeats")
    t0 = time.perf_counter()
    corpus = load_corpus(plan.corpus)
    t_corpus = time.perf_counter() - t0
    tokens = torch.from_numpy(corpus.train)
    torch.manual_seed(0)
    model = RopeLM(LMConfig(**plan.model.to_dict())).to(device or "cpu")
    step_times: dict[str, float] = {}

    def step_time(cfg: TrainConfig) -> float:
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
        return step_times[key]

    model.eval()
    val = torch.from_numpy(corpus.val)
    t = time.perf_counter()
    evaluate(
        model, val, plan.eval_len, plan.eval_batch, d_extra=plan.d_extra,
        batch_size=plan.eval_batch, progress=False,
    )  # fmt: skip
    _synchronize(device)
    eval_batch_s = time.perf_counter() - t
    eval_model_s = eval_batch_s * plan.eval_windows / plan.eval_batch
    model.train()
    stages: dict[str, dict[str, float]] = {}
    specs = {s.name: s for s in plan.all_runs()}
    for stage in stage_names(plan):
        train_s = eval_s = 0.0
        for run in stage_runs(plan, stage):
            cfg = plan.train_config(run.spec, run.replicate)
            train_s += cfg.steps * step_time(cfg)
            eval_s += eval_model_s
        if stage == "testtime":
            for name in plan.testtime_models:
                for method in plan.methods:
                    applied = plan_method(
                        method, base=specs[name].base, head_dim=plan.model.head_dim,
                        train_len=plan.train_len, pretrain_base=plan.model.base,
                        eval_len=plan.eval_len,
                    )  # fmt: skip
                    if applied.applicable:
                        read = sum(seg.stop for seg in applied.segments)
                        eval_s += eval_model_s * read / plan.eval_len
        stages[stage] = {
            "train_s": round(train_s, 1),
            "eval_s": round(eval_s, 1),
            "total_s": round(train_s + eval_s, 1),
        }
    train_total = sum(s["train_s"] for s in stages.values())
    eval_total = sum(s["eval_s"] for s in stages.values())
    return {
        "corpus_s": round(t_corpus, 2),
        "train_step_s": {k: round(v, 4) for k, v in step_times.items()},
        "eval_batch_s": round(eval_batch_s, 3),
        "stages": stages,
        "train_total_s": round(train_total, 1),
        "eval_total_s": round(eval_total, 1),
        "total_s": round(t_corpus + train_total + eval_total, 1),
        "torch_threads": torch.get_num_threads(),
        "device": str(device or "cpu"),
        "models": len(_all_training_runs(plan)),
    }


def _synchronize(device: str | None) -> None:
    if device is not None and str(device).startswith("cuda"):
        torch.cuda.synchronize()
