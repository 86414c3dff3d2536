r"""The pre-registered runs of issue 35 (``lab/PLAN.md``): ten seeds, one record per model.

``lab/PLAN.md`` fixes, before the runs, the models, the seeds, the measures and the analysis;
its last section is a machine-readable block that :func:`read_plan` parses, so the runner and
the plan cannot drift apart (a test compares them).

:func:`run_registered` trains and evaluates, for every seed of the plan's ``run_order`` (seeds
3 to 9 first, then the re-runs of 0 to 2), the pre-trained model and its fine-tunes with
:func:`ropelab.lab.experiment.full_plan`'s settings (replicate *r*: model seed *r*, batch seeds
shifted by 2 *r*; the checkpoints are those of ``python -m ropelab.lab``, in the same folder),
and writes one record per seed and model to ``<out>/seed-<k>/<model>.json`` with its arrays in
``<model>.npz`` (:func:`write_record`):

* ``window_loss``: the loss of every validation window, binned at ``plan.bin_width`` positions
  (``(n_windows, eval_len / bin_width)``, float16);
* ``curve`` and ``sem``: the loss averaged over windows at full resolution and its standard
  error (float32);
* ``window_reference``, ``window_past``, ``window_within``, ``window_past_extra``: per window
  (float64), the mean loss over :math:`[T/2, T)`, over :math:`[T, L)`, over
  :math:`[T, \lceil T_\text{extra}\rceil)` and over :math:`[\lceil T_\text{extra}\rceil, L)`
  (NaN without a :math:`T_\text{extra}`), with *T* the training length and *L* the evaluated one.

The JSON record holds the settings, the training record, the wall times, the scalar measures
(``PLAN.md`` section 3) and the SHA-256 of the ``.npz``, which :func:`load_record` checks. A
record is written only after its model is trained and evaluated (the arrays first, then the
JSON, each atomically), so an existing JSON means "done". Several processes may run at once:
each claims a model with a lock file (``<ckpt_dir>/registered-locks/``, holding its process id;
a lock whose process is gone is taken over), and a fine-tune waits for its seed's pre-training.
A run that is stopped loses at most the model in progress, and training resumes from its last
checkpoint (every 250 steps).

``python -m ropelab.lab.registered`` (``make lab-registered``) runs it; ``--list`` prints what is
done and what is left.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .evaluate import bin_curve, last_centre_length, supported_length, window_starts
from .experiment import (
    Plan,
    Run,
    RunSpec,
    _model_for,
    checkpoint_paths,
    full_plan,
    predicted,
    versions,
)
from .model import RopeLM
from .results import remeasure_binned
from .train import final_loss, load_checkpoint, train

__all__ = [
    "RECORD_FORMAT",
    "Task",
    "bootstrap_lengths",
    "evaluate_windows",
    "load_record",
    "measure",
    "read_plan",
    "record_paths",
    "registered_plan",
    "run_registered",
    "status",
    "supported_lengths",
    "tasks",
    "window_draws",
    "write_record",
]

#: The format tag of every record.
RECORD_FORMAT = "ropelab.lab registered record 1"

_BLOCK = re.compile(r"^```registered\n(.*?)^```", re.S | re.M)
_LINE = re.compile(r"^([a-z_][a-z0-9_]*)\s*=\s*(.+)$")


def read_plan(path: str | os.PathLike) -> dict[str, Any]:
    """The machine-readable block of ``lab/PLAN.md``: ``key = <JSON value>`` lines in a fenced
    block marked ``registered``, as a dict.

    Raises:
        ValueError: no such block, a line that is not ``key = value``, a value that is not JSON,
            or a key given twice.
    """
    text = Path(path).read_text(encoding="utf-8")
    match = _BLOCK.search(text)
    if match is None:
        raise ValueError(f"path must hold a ```registered block, {path} has none")
    out: dict[str, Any] = {}
    for number, line in enumerate(match.group(1).splitlines(), 1):
        if not line.strip():
            continue
        m = _LINE.match(line.strip())
        if m is None:
            raise ValueError(f"line {number} of the registered block is not 'key = value': {line}")
        key, raw = m.groups()
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number} ({key}): the value is not JSON: {raw}") from error
        if key in out:
            raise ValueError(f"line {number}: key {key!r} is given twice")
        out[key] = value
    return out


def registered_plan(base: Plan | None = None, models: Sequence[str] | None = None) -> Plan:
    """``base`` (default :func:`full_plan`) with only the fine-tunes named in ``models`` (the
    pre-trained model is always there), repeated in every replicate up to seed 9, and no
    baselines, test-time methods or shipped models. Checkpoint names are those of ``base``."""
    plan = full_plan() if base is None else base
    names = [s.name for s in plan.runs] if models is None else [m for m in models]
    unknown = [m for m in names if m != "pretrain" and m not in {s.name for s in plan.runs}]
    if unknown:
        raise ValueError(
            f"models must be runs of the plan {[s.name for s in plan.runs]}: {unknown}"
        )
    runs = tuple(s for s in plan.runs if s.name in names)
    return replace(
        plan, runs=runs, replicates=max(plan.replicates, 10),
        replicated=tuple(s.name for s in runs), baselines=(), testtime_models=(), methods=(),
        ship=(),
    )  # fmt: skip


@dataclass(frozen=True)
class Task:
    """One model of one seed: its :class:`~ropelab.lab.experiment.Run` and its parent's id."""

    run: Run

    @property
    def seed(self) -> int:
        """The seed (the run's replicate)."""
        return self.run.replicate

    @property
    def name(self) -> str:
        """The model's name in the plan (``pretrain``, ``ft-1e6``, ...)."""
        return self.run.spec.name

    @property
    def id(self) -> str:
        """The run id, as in the checkpoint names (``ft-1e6-s3``)."""
        return self.run.id


def tasks(plan: Plan, seeds: Sequence[int]) -> list[Task]:
    """Every model of every seed, in order: per seed, the pre-training, then the fine-tunes."""
    out = []
    for seed in seeds:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seeds must be integers >= 0, got {seed!r}")
        if seed >= plan.replicates:
            raise ValueError(f"seeds must be < replicates = {plan.replicates}, got {seed}")
        pre = RunSpec("pretrain", plan.model.base, plan.train_len)
        out.append(Task(Run(pre, int(seed), "pretrain")))
        out += [Task(Run(spec, int(seed), "finetune")) for spec in plan.runs]
    return out


def record_paths(out: str | os.PathLike, seed: int, name: str) -> tuple[Path, Path]:
    """``(<out>/seed-<seed>/<name>.json, <out>/seed-<seed>/<name>.npz)``."""
    folder = Path(out) / f"seed-{int(seed)}"
    return folder / f"{name}.json", folder / f"{name}.npz"


@torch.no_grad()
def evaluate_windows(
    model: RopeLM, tokens: torch.Tensor, length: int, n_windows: int, batch_size: int = 4
) -> np.ndarray:
    """The loss of every position of every window, ``(n_windows, length)`` float64: the windows
    of :func:`ropelab.lab.evaluate.evaluate` (same starts), without the q·k split."""
    starts = window_starts(tokens.numel(), length, n_windows)
    device = next(model.parameters()).device
    model.eval()
    offsets = torch.arange(length + 1)
    rows = []
    for i in range(0, n_windows, batch_size):
        s = torch.from_numpy(starts[i : i + batch_size])
        chunk = tokens[s[:, None] + offsets].long().to(device)  # (b, L+1)
        _, loss = model(chunk[:, :-1], chunk[:, 1:], reduction="none")  # (b, L)
        rows.append(loss.double().cpu().numpy())
    return np.concatenate(rows, axis=0)


def window_draws(n_resamples: int, n_windows: int, seed: int) -> np.ndarray:
    """The window half of the bootstrap (``PLAN.md`` section 5): row *b* holds the ``n_windows``
    window indices, drawn with replacement, of resample *b*,
    ``numpy.random.default_rng(seed).integers(0, n_windows, size=(n_resamples, n_windows))``.
    The same rows for every model and seed, so the pairing by window is kept."""
    n_resamples = int(n_resamples)
    if n_resamples < 1 or n_windows < 1:
        raise ValueError("n_resamples and n_windows must be >= 1")
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_windows, size=(n_resamples, n_windows))


def supported_lengths(
    curves: np.ndarray,
    ref_len: int,
    *,
    margin: float,
    window: int,
    persist: int,
    reference: np.ndarray | None = None,
) -> np.ndarray:
    """:func:`ropelab.lab.evaluate.supported_length` of every row of ``curves`` ``(B, L)`` at
    once (int64; -1 where censored); ``reference`` ``(B,)`` replaces each row's own mean over
    ``[ref_len/2, ref_len)`` (a test-time method is measured against the plain model's)."""
    c = np.asarray(curves, dtype=np.float64)
    if c.ndim != 2 or c.shape[1] <= ref_len or not 1 <= window <= ref_len:
        raise ValueError(f"curves must be (B, L) with L > ref_len = {ref_len}")
    if reference is None:
        reference = c[:, ref_len // 2 : ref_len].mean(1, keepdims=True)
    else:
        reference = np.asarray(reference, dtype=np.float64).reshape(-1, 1)
        if reference.shape[0] != c.shape[0]:
            raise ValueError(f"reference must have one value per curve, {c.shape[0]}")
    cum = np.concatenate([np.zeros((c.shape[0], 1)), np.cumsum(c, axis=1)], axis=1)
    smooth = (cum[:, window:] - cum[:, :-window]) / window  # (B, L - window + 1)
    centres = np.arange(smooth.shape[1]) + window // 2
    above = smooth > reference + margin
    span = max(1, int(persist))
    below = np.concatenate(
        [np.zeros((c.shape[0], 1), dtype=np.int64), np.cumsum(~above, axis=1)], axis=1
    )
    stop = np.minimum(np.arange(above.shape[1]) + span, above.shape[1])
    ok = above & (below[:, stop] - below[:, : above.shape[1]] == 0) & (centres >= ref_len)
    first = np.argmax(ok, axis=1)
    return np.where(ok.any(axis=1), centres[first] + 1, -1)


def bootstrap_lengths(
    window_loss: np.ndarray,
    plan: Plan,
    draws: np.ndarray,
    persist: int,
    chunk: int = 500,
    window_reference: np.ndarray | None = None,
) -> np.ndarray:
    """The supported length (full resolution) of the window-averaged curve of every window
    resample in ``draws`` (:func:`window_draws`), int16, -1 where censored. With
    ``window_reference`` (one reference loss per window, another model's), the reference of a
    resample is the mean of its windows' values instead of its own curve's."""
    w = np.asarray(window_loss, dtype=np.float64)
    n = w.shape[0]
    out = np.empty(draws.shape[0], dtype=np.int16)
    for i in range(0, draws.shape[0], chunk):
        rows = draws[i : i + chunk]
        counts = np.zeros((rows.shape[0], n))
        np.add.at(counts, (np.arange(rows.shape[0])[:, None], rows), 1.0)
        curves = counts @ w / rows.shape[1]
        reference = (
            None
            if window_reference is None
            else counts @ np.asarray(window_reference, dtype=np.float64) / rows.shape[1]
        )
        out[i : i + chunk] = supported_lengths(
            curves, plan.train_len, margin=plan.margin, window=plan.smooth_window,
            persist=persist, reference=reference,
        )  # fmt: skip
    return out


def measure(
    window_loss: np.ndarray,
    plan: Plan,
    t_extra: float | None,
    draws: np.ndarray | None = None,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The scalar measures (``PLAN.md`` section 3) and the arrays of one model's record, from
    its per-window losses ``(n_windows, eval_len)``; with ``draws`` (:func:`window_draws`) also
    the supported length of every window resample under both rules (``boot_registered``,
    ``boot_original``)."""
    w = np.asarray(window_loss, dtype=np.float64)
    if w.ndim != 2 or w.shape[1] != plan.eval_len or not np.all(np.isfinite(w)):
        raise ValueError(f"window_loss must be finite, (n_windows, {plan.eval_len})")
    t, width = plan.train_len, plan.bin_width
    if plan.eval_len % width:
        raise ValueError(f"eval_len must be a multiple of bin_width = {width}")
    curve = w.mean(0)
    n = w.shape[0]
    sem = w.std(0, ddof=1) / math.sqrt(n) if n > 1 else np.zeros_like(curve)
    extra = None if t_extra is None else math.ceil(t_extra)
    if extra is not None and not t < extra < plan.eval_len:
        extra = None  # no range inside the window to read
    nan = np.full(n, np.nan)
    arrays = {
        "window_loss": w.reshape(n, -1, width).mean(2).astype(np.float16),
        "curve": curve.astype(np.float32),
        "sem": sem.astype(np.float32),
        "window_reference": w[:, t // 2 : t].mean(1),
        "window_past": w[:, t:].mean(1),
        "window_within": nan if extra is None else w[:, t:extra].mean(1),
        "window_past_extra": nan if extra is None else w[:, extra:].mean(1),
    }
    if draws is not None:
        arrays["boot_registered"] = bootstrap_lengths(w, plan, draws, plan.persist)
        arrays["boot_original"] = bootstrap_lengths(w, plan, draws, 0)
    context, binned = bin_curve(curve, width)
    binned16 = arrays["window_loss"].astype(np.float64).mean(0)

    def lengths(persist: int) -> dict[str, Any]:
        full = supported_length(
            curve, t, margin=plan.margin, window=plan.smooth_window, persist=persist
        )
        record = {"loss_curve": {"context": context, "loss": binned16, "bin_width": width}}
        smooth_bins = max(1, plan.smooth_window // width)
        read = remeasure_binned(record, t, plan.margin, smooth_bins=smooth_bins, persist=persist)
        return {"full": full, "binned": read}

    reference = float(arrays["window_reference"].mean())

    def mean_of(key: str) -> float | None:
        values = arrays[key]
        return None if np.isnan(values).all() else round(float(values.mean()), 6)

    measured = {
        "reference_loss": round(reference, 6),
        "mean_loss_past_train": mean_of("window_past"),
        "mean_loss_within_t_extra": mean_of("window_within"),
        "mean_loss_past_t_extra": mean_of("window_past_extra"),
        "t_extra_position": extra,
        "margin": plan.margin,
        "smooth_window": plan.smooth_window,
        "bin_width": width,
        "supported": {
            "registered": {"persist": plan.persist, **lengths(plan.persist)},
            "original": {"persist": 0, **lengths(0)},
        },
        "at_least": last_centre_length(plan.eval_len, plan.smooth_window),
        "loss_at_eval_len": round(float(curve[-plan.smooth_window :].mean()), 6),
        "binned_mean_check": round(float(np.abs(binned16 - binned).max()), 6),
    }
    return measured, arrays


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_record(
    out: str | os.PathLike, seed: int, name: str, record: dict[str, Any], arrays: dict[str, Any]
) -> Path:
    """Write ``arrays`` (``.npz``, compressed) and then ``record`` (``.json``, with the arrays'
    file name, size and SHA-256 added), each atomically; return the JSON's path."""
    json_path, npz_path = record_paths(out, seed, name)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = npz_path.with_name(npz_path.stem + ".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, npz_path)
    full = {
        **record,
        "arrays": {
            "file": npz_path.name,
            "sha256": _sha256(npz_path),
            "bytes": npz_path.stat().st_size,
            "keys": sorted(arrays),
        },
    }
    tmp_json = json_path.with_name(json_path.name + ".tmp")
    tmp_json.write_text(json.dumps(full, indent=1) + "\n")
    os.replace(tmp_json, json_path)
    return json_path


def load_record(
    out: str | os.PathLike, seed: int, name: str
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """A record and its arrays; ``ValueError`` when the ``.npz`` is not the one recorded."""
    json_path, npz_path = record_paths(out, seed, name)
    record = json.loads(json_path.read_text())
    if _sha256(npz_path) != record["arrays"]["sha256"]:
        raise ValueError(f"{npz_path} does not match the SHA-256 recorded in {json_path.name}")
    with np.load(npz_path) as data:
        arrays = {k: data[k] for k in data.files}
    return record, arrays


# --------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's process
        return True
    return True


def _claim(lock: Path) -> bool:
    """Create ``lock`` holding this process id; take over a lock whose process is gone."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            try:
                pid = int(lock.read_text().strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid == os.getpid() or (pid and _alive(pid)):
                return pid == os.getpid()
            lock.unlink(missing_ok=True)  # a stale lock: its process is gone
            continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        return True
    return False


def _done(out: Path, task: Task) -> bool:
    return record_paths(out, task.seed, task.name)[0].exists()


def _parent(plan: Plan, task: Task) -> Task | None:
    if task.run.kind != "finetune":
        return None
    return Task(Run(RunSpec("pretrain", plan.model.base, plan.train_len), task.seed, "pretrain"))


def status(plan: Plan, seeds: Sequence[int], out: str | os.PathLike) -> dict[str, list[str]]:
    """``{"done": [...], "left": [...]}``: the task ids with and without a record."""
    out = Path(out)
    done, left = [], []
    for task in tasks(plan, seeds):
        (done if _done(out, task) else left).append(f"seed {task.seed} {task.name}")
    return {"done": done, "left": left}


def _run_task(
    plan: Plan, task: Task, out: Path, paths: dict[str, Path], *, plan_sha256: str | None,
    command: str, device: str | None, progress: bool, corpus: Any,
    bootstrap: tuple[int, int] | None,
) -> dict[str, Any]:  # fmt: skip
    run, spec = task.run, task.run.spec
    cfg = plan.train_config(spec, run.replicate)
    parent = paths[run.parent_id] if run.parent_id else None
    parent_retrained = False
    if parent is not None and not parent.exists():  # recorded elsewhere, checkpoint not here
        pre = _parent(plan, task)
        assert pre is not None
        train(
            _model_for(plan, pre.run, None), torch.from_numpy(corpus.train),
            plan.train_config(pre.run.spec, run.replicate), parent, progress=progress,
            desc=f"train {pre.id} again", device=device,
        )  # fmt: skip
        parent_retrained = True
    model = _model_for(plan, run, parent)
    result = train(
        model, torch.from_numpy(corpus.train), cfg, paths[run.id], progress=progress,
        desc=f"train {run.id}", device=device,
    )  # fmt: skip
    t0 = time.perf_counter()
    window_loss = evaluate_windows(
        result.model, torch.from_numpy(corpus.val), plan.eval_len, plan.eval_windows,
        batch_size=plan.eval_batch,
    )  # fmt: skip
    eval_wall = time.perf_counter() - t0
    prediction = predicted(plan, spec)
    t1 = time.perf_counter()
    draws = (
        None if bootstrap is None else window_draws(bootstrap[0], plan.eval_windows, bootstrap[1])
    )
    measured, arrays = measure(window_loss, plan, prediction["t_extra"], draws)
    measure_wall = time.perf_counter() - t1
    state = load_checkpoint(paths[run.id])
    record = {
        "format": RECORD_FORMAT,
        "plan_md_sha256": plan_sha256,
        "seed": run.replicate,
        "name": spec.name,
        "id": run.id,
        "kind": run.kind,
        "parent": run.parent_id,
        "parent_retrained": parent_retrained,
        "base": spec.base,
        "train_len": plan.train_len,
        "tune_len": spec.tune_len,
        "t_extra": prediction["t_extra"],
        "claim": prediction["claim"],
        "measured": measured,
        "train": {
            "steps": state["step"],
            "tokens": state["step"] * cfg.batch_size * cfg.seq_len,
            "final_loss": round(final_loss(list(state["losses"])), 5),
            "wall_time_s": round(state["wall_time_s"], 2),
            "seed": cfg.seed,
            "model_seed": plan.model_seed + run.replicate if run.kind == "pretrain" else None,
            "config": cfg.to_dict(),
            "checkpoint": paths[run.id].name,
        },
        "eval": {
            "length": plan.eval_len,
            "n_windows": plan.eval_windows,
            "wall_time_s": round(eval_wall, 2),
            "measure_wall_s": round(measure_wall, 2),
            "bootstrap": None
            if bootstrap is None
            else {"resamples": bootstrap[0], "window_draw_seed": bootstrap[1]},
        },
        "corpus_sha256": corpus.sha256,
        "command": command,
        "versions": {**versions(), "device": str(device or "cpu")},
    }
    write_record(out, run.replicate, spec.name, record, arrays)
    return record


def run_registered(
    plan: Plan,
    seeds: Sequence[int],
    out: str | os.PathLike,
    ckpt_dir: str | os.PathLike,
    *,
    plan_sha256: str | None = None,
    command: str = "",
    device: str | None = None,
    progress: bool = False,
    verbose: bool = True,
    wait_s: float = 30.0,
    max_tasks: int | None = None,
    bootstrap: tuple[int, int] | None = None,
) -> list[str]:
    """Train, evaluate and record every model of every seed in ``seeds`` (module docstring).

    Skips what has a record, claims one model at a time, waits ``wait_s`` seconds (and looks
    again) when every model left is claimed by another process or waits for a pre-training in
    progress; stops after ``max_tasks`` models (``None``: when everything is recorded).
    ``bootstrap``: ``(resamples, window_draw_seed)`` of :func:`window_draws`, to record the
    supported length of every window resample. Returns the ids recorded by this call.
    """
    from .corpus import load_corpus

    out, ckpts = Path(out), Path(ckpt_dir)
    ckpts.mkdir(parents=True, exist_ok=True)
    paths = checkpoint_paths(plan, ckpts)
    locks = ckpts / "registered-locks"
    todo = tasks(plan, seeds)
    corpus = None
    recorded: list[str] = []
    while max_tasks is None or len(recorded) < max_tasks:
        left = [t for t in todo if not _done(out, t)]
        if not left:
            break
        chosen = None
        for task in left:
            parent = _parent(plan, task)
            if parent is not None and not _done(out, parent):
                continue
            lock = locks / f"{task.id}.lock"
            if _claim(lock):
                if _done(out, task):  # recorded by another process meanwhile
                    lock.unlink(missing_ok=True)
                    continue
                chosen = (task, lock)
                break
        if chosen is None:
            if wait_s <= 0:
                break
            time.sleep(wait_s)
            continue
        task, lock = chosen
        try:
            if corpus is None:
                corpus = load_corpus(plan.corpus)
            t0 = time.perf_counter()
            if verbose:
                print(f"seed {task.seed} {task.name}: start", file=sys.stderr, flush=True)
            record = _run_task(
                plan, task, out, paths, plan_sha256=plan_sha256, command=command, device=device,
                progress=progress, corpus=corpus, bootstrap=bootstrap,
            )  # fmt: skip
            recorded.append(task.id)
            if verbose:
                m = record["measured"]
                print(
                    f"seed {task.seed} {task.name}: recorded in {time.perf_counter() - t0:.0f} s "
                    f"(train {record['train']['wall_time_s']:.0f} s in all, eval "
                    f"{record['eval']['wall_time_s']:.0f} s); loss past T_train "
                    f"{m['mean_loss_past_train']:.3f}, supported "
                    f"{m['supported']['registered']['full']}",
                    file=sys.stderr,
                    flush=True,
                )
        finally:
            lock.unlink(missing_ok=True)
    return recorded


def main(argv: list[str] | None = None) -> int:
    """``python -m ropelab.lab.registered``: run (or resume) the registered seeds."""
    args_list = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(
        prog="python -m ropelab.lab.registered",
        description="The pre-registered runs of lab/PLAN.md: per seed and model, train, "
        "evaluate every validation window and write a record to lab/registered/ (resumable; "
        "several processes may share the work).",
    )
    parser.add_argument("--plan-md", default="lab/PLAN.md", help="the registered plan")
    parser.add_argument("--out", default="lab/registered", help="records (committed)")
    parser.add_argument("--ckpt-dir", default="lab/checkpoints", help="checkpoints (git-ignored)")
    parser.add_argument(
        "--seed", type=int, action="append", default=None,
        help="only these seeds (repeatable; default: the plan's run_order)",
    )  # fmt: skip
    parser.add_argument("--threads", type=int, default=None, help="torch threads")
    parser.add_argument("--device", default=None, help="cpu (default), cuda, ...")
    parser.add_argument("--max-models", type=int, default=None, help="stop after this many")
    parser.add_argument("--no-wait", action="store_true", help="exit instead of waiting")
    parser.add_argument("--list", action="store_true", help="print what is done and left, exit")
    parser.add_argument("--progress", action="store_true", help="progress bars")
    args = parser.parse_args(args_list)
    if args.threads is not None:
        if args.threads < 1:
            parser.error("--threads must be >= 1")
        torch.set_num_threads(args.threads)
    registered = read_plan(args.plan_md)
    plan = registered_plan(models=[m for m in registered["models"] if m != "pretrain"])
    seeds = registered["run_order"] if args.seed is None else args.seed
    unknown = [s for s in seeds if s not in registered["seeds"]]
    if unknown:
        parser.error(f"--seed must be of the plan's seeds {registered['seeds']}, got {unknown}")
    if args.list:
        state = status(plan, seeds, args.out)
        print(f"done ({len(state['done'])}): {', '.join(state['done']) or '-'}")
        print(f"left ({len(state['left'])}): {', '.join(state['left']) or '-'}")
        return 0
    recorded = run_registered(
        plan, seeds, args.out, args.ckpt_dir,
        plan_sha256=_sha256(Path(args.plan_md)),
        command=shlex.join(["python", "-m", "ropelab.lab.registered", *args_list]),
        device=args.device, progress=args.progress, wait_s=0.0 if args.no_wait else 30.0,
        max_tasks=args.max_models,
        bootstrap=(registered["bootstrap_resamples"], registered["window_draw_seed"]),
    )  # fmt: skip
    print(f"recorded {len(recorded)} models: {', '.join(recorded) or '-'}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
