r"""The test-time controls of ``lab/PLAN.md`` section 7: where NTK-aware scaling and YaRN start.

Chapter 7 applies position interpolation, NTK-aware scaling and YaRN from a model's reliable
length :math:`L_0` (Theorem 3's bound: :math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}`
for a fine-tune with a base above :math:`\beta_0`), which is this book's extension of Liu et
al.'s recipe (arXiv:2310.05209, section 4.2), not the papers' or the configs' convention: their
``original_max_position_embeddings`` is the training length. The controls run the same two
methods from :math:`T_\text{train}` = 128 as well, so that the choice of :math:`L_0` is
compared with its alternative rather than assumed.

Models: the registered fine-tunes of seed 0 with a base above :math:`\beta_0` (``ft-1e5``,
``ft-1e6``, ``ft-3e6``, ``ft-1e7``), loaded from the checkpoints their records name. For each,
with *L* = 4 096 and the plan's 128 validation windows:

* ``plain``: the model as trained, read from its registered record (per-window
  :math:`L_\text{past}`, the curve, and the resampled supported lengths);
* ``ntk`` and ``yarn`` from :math:`L_0` (``start = "reliable"``, factor :math:`s = L/L_0`) and
  from :math:`T_\text{train}` (``start = "train"``, :math:`s = L/T_\text{train} = 32`), with
  :func:`ropelab.lab.testtime.plan_method`.

Measures, as in ``PLAN.md`` section 3: :math:`L_\text{past}` = the mean loss over positions
[128, 4 096) (its per-window values stored), and the supported length at full resolution under
the registered (persist 128) and the original (persist 0) rule, measured for a method against
the plain model's reference (its mean loss over [64, 128)), as chapter 7's grid does.
Intervals: the plan's window bootstrap only (10 000 resamples, row *b* of :func:`ropelab.lab.registered.window_draws` with
``window_draw_seed`` = 35, shared by every entry so differences are paired by window), 95 %
percentiles; one seed, so nothing here generalises over training runs, and **no verdict**
rests on it (``PLAN.md`` section 7: descriptive).

:func:`run_controls` evaluates (about a minute of one CPU thread per entry) and writes
``results/testtime_controls.json`` and ``.npz`` (package data, so chapter 7 reads them without
the checkpoints); :func:`summarise` recomputes every number of the JSON from the ``.npz``, and
the tests compare the two. ``python -m ropelab.lab.testtime_controls`` runs it.

Needs torch for :func:`run_controls` only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .registered_report import format_interval
from .registered_view import EXPONENT_MODELS
from .results import RESULTS_DIR

__all__ = [
    "CONTROLS_JSON",
    "CONTROLS_NPZ",
    "CONTROL_METHODS",
    "CONTROL_MODELS",
    "STARTS",
    "entry_key",
    "format_controls",
    "load_controls",
    "run_controls",
    "summarise",
]

#: The fine-tunes the controls run on (seed 0): the bases above beta0 of the exponent fit.
CONTROL_MODELS: tuple[str, ...] = EXPONENT_MODELS
#: The methods whose starting length is varied (ids of :data:`ropelab.lab.testtime.METHODS`).
CONTROL_METHODS: tuple[str, ...] = ("ntk", "yarn")
#: Where a method starts: the reliable length L0 (the book's rule) or T_train (the configs').
STARTS: tuple[str, ...] = ("reliable", "train")
#: The results (package data).
CONTROLS_JSON = RESULTS_DIR / "testtime_controls.json"
CONTROLS_NPZ = RESULTS_DIR / "testtime_controls.npz"
FORMAT = "ropelab.lab test-time controls 1"
ALPHA = 0.05


def entry_key(model: str, method: str, start: str | None = None) -> str:
    """``"<model>/plain"`` or ``"<model>/<method>/<start>"``: the key of one entry."""
    return f"{model}/{method}" if start is None else f"{model}/{method}/{start}"


def _interval(values: np.ndarray) -> list[float]:
    lo, hi = np.percentile(np.asarray(values, dtype=np.float64), [2.5, 97.5])
    return [float(lo), float(hi)]


def _resampled_means(per_window: np.ndarray, draws: np.ndarray) -> np.ndarray:
    return np.asarray(per_window, dtype=np.float64)[draws].mean(axis=1)


def _lengths(boot: np.ndarray, at_least: int) -> np.ndarray:
    b = np.asarray(boot, dtype=np.float64)
    return np.where(b < 0, float(at_least), b)


def summarise(arrays: dict[str, np.ndarray], settings: dict[str, Any]) -> dict[str, Any]:
    """Every number of the controls from their arrays: per entry the mean :math:`L_\\text{past}`
    with its window-bootstrap 95 % interval, the mean loss inside the training window
    (``L_window``, positions [T/2, T), where a method that spoils the short context shows),
    and the supported length (point from the curve,
    interval from the stored resampled lengths) under both rules; per model and method the
    paired differences of :math:`L_\\text{past}`: ``train - reliable``, and each start minus
    ``plain`` (negative: the start helps).

    ``arrays`` maps ``"<key>:window_past"``, ``"<key>:curve"``, ``"<key>:boot_registered"`` and
    ``"<key>:boot_original"`` to arrays (and ``"<model>/plain:window_reference"``: a method's
    supported length is measured against the plain model's reference, as in chapter 7's grid,
    so a method that spoils the short context does not pass); ``settings`` holds the plan's values (``train_len``,
    ``margin``, ``smooth_window``, ``persist``, ``at_least``, ``resamples``,
    ``window_draw_seed``, ``n_windows``).
    """
    from .evaluate import supported_length
    from .registered import window_draws

    s = settings
    draws = window_draws(s["resamples"], s["n_windows"], s["window_draw_seed"])
    entries: dict[str, Any] = {}
    resampled: dict[str, np.ndarray] = {}
    keys = sorted({name.split(":")[0] for name in arrays})
    for key in keys:
        past = arrays[f"{key}:window_past"]
        curve = arrays[f"{key}:curve"].astype(np.float64)
        resampled[key] = _resampled_means(past, draws)
        plain = entry_key(key.split("/")[0], "plain")
        reference = None if key == plain else float(np.mean(arrays[f"{plain}:window_reference"]))
        lengths = {}
        for rule, persist in (("registered", s["persist"]), ("original", 0)):
            point = supported_length(
                curve, s["train_len"], margin=s["margin"], window=s["smooth_window"],
                persist=persist, reference=reference,
            )  # fmt: skip
            boot = _lengths(arrays[f"{key}:boot_{rule}"], s["at_least"])
            lengths[rule] = {"length": point, "interval": _interval(boot)}
        half = s["train_len"] // 2
        entries[key] = {
            "L_window": float(curve[half : s["train_len"]].mean()),
            "L_past": float(np.mean(past)),
            "L_past_interval": _interval(resampled[key]),
            "supported": lengths,
        }
    differences: dict[str, Any] = {}
    for model in s["models"]:
        plain = entry_key(model, "plain")
        for method in s["methods"]:
            train, reliable = (entry_key(model, method, start) for start in ("train", "reliable"))
            for label, a, b in (
                ("train - reliable", train, reliable),
                ("reliable - plain", reliable, plain),
                ("train - plain", train, plain),
            ):
                diff = np.mean(arrays[f"{a}:window_past"] - arrays[f"{b}:window_past"])
                differences[f"{model}/{method}: {label}"] = {
                    "mean": float(diff),
                    "interval": _interval(resampled[a] - resampled[b]),
                }
    return {"entries": entries, "differences": differences}


def load_controls(
    json_path: str | Path = CONTROLS_JSON, npz_path: str | Path = CONTROLS_NPZ
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The committed controls: the JSON and its arrays (the ``.npz``'s SHA-256 checked)."""
    import hashlib

    result = json.loads(Path(json_path).read_text(encoding="utf-8"))
    digest = hashlib.sha256(Path(npz_path).read_bytes()).hexdigest()
    if digest != result["arrays_sha256"]:
        raise ValueError(f"{npz_path} does not match the SHA-256 recorded in {json_path}")
    with np.load(npz_path) as data:
        arrays = {k: data[k] for k in data.files}
    return result, arrays


def format_controls(result: dict[str, Any]) -> str:
    """The controls as a table: per model, the plain model and each method from
    :math:`L_0` and from :math:`T_\\text{train}`: :math:`L_\\text{past}` with its interval, the
    supported length under the registered rule with its interval, then the paired difference
    ``T_train - L0`` of :math:`L_\\text{past}` per method."""
    s = result["settings"]
    lines = [
        "mean loss over positions 64-127 and past 128 (nats/char), supported length",
        "(registered rule), seed 0; [95% window bootstrap]",
        f"{'model':<8}{'method':<7}{'from':>6}{'64-127':>8}{'L_past':>8}{'interval':>16}"
        f"{'length':>8}{'interval':>14}",
    ]
    for model in s["models"]:
        rows = [(entry_key(model, "plain"), "plain", "")]
        for method in s["methods"]:
            for start in s["starts"]:
                ref = result["ref_lens"][entry_key(model, method, start)]
                rows.append((entry_key(model, method, start), method, str(ref)))
        for key, method, ref in rows:
            e = result["entries"][key]
            reg = e["supported"]["registered"]
            lo, hi = (round(x) for x in reg["interval"])
            lines.append(
                f"{model:<8}{method:<7}{ref:>6}{e['L_window']:>8.3f}{e['L_past']:>8.3f}"
                f"{format_interval(e['L_past_interval'], sign=False):>16}"
                f"{reg['length']:>8}{f'[{lo}, {hi}]':>14}"
            )
    lines.append("paired difference of L_past, start at T_train minus start at L0:")
    for model in s["models"]:
        parts = []
        for method in s["methods"]:
            d = result["differences"][f"{model}/{method}: train - reliable"]
            parts.append(f"{method} {d['mean']:+.3f} {format_interval(d['interval'])}")
        lines.append(f"  {model:<8}" + "   ".join(parts))
    return "\n".join(lines)


def _check_plain(model: Any, val: Any, windows: np.ndarray, width: int, rows: int = 4) -> float:
    """The largest difference between the model's binned loss on the first ``rows`` windows and
    the record's, in units of the record's float16 rounding (half a float16 spacing): at most 1
    when the checkpoint is the registered model."""
    import torch

    from .evaluate import window_starts

    length = windows.shape[1] * width
    starts = window_starts(val.numel(), length, windows.shape[0])[:rows]
    offsets = torch.arange(length + 1)
    chunk = val[torch.from_numpy(starts)[:, None] + offsets].long()
    with torch.no_grad():
        model.eval()
        _, loss = model(chunk[:, :-1], chunk[:, 1:], reduction="none")
    binned = loss.double().numpy().reshape(rows, -1, width).mean(2)
    stored = windows[:rows].astype(np.float16)
    half_spacing = np.abs(np.spacing(stored)).astype(np.float64) / 2 + 1e-9
    return float((np.abs(binned - stored.astype(np.float64)) / half_spacing).max())


def run_controls(
    records: str | Path,
    ckpt_dir: str | Path,
    *,
    seed: int = 0,
    models: Sequence[str] = CONTROL_MODELS,
    methods: Sequence[str] = CONTROL_METHODS,
    out_json: str | Path = CONTROLS_JSON,
    out_npz: str | Path = CONTROLS_NPZ,
    progress: bool = True,
) -> dict[str, Any]:
    """Evaluate the controls on the registered models of ``seed`` and write the results.

    Args:
        records: the registered records folder (``lab/registered``).
        ckpt_dir: the checkpoints folder the records name (``lab/checkpoints``).
        seed, models, methods: what to run (the defaults are ``PLAN.md`` section 7's).
        out_json, out_npz: where the results go.
    """
    import hashlib

    import torch

    from .corpus import load_corpus
    from .evaluate import last_centre_length
    from .registered import bootstrap_lengths, load_record, read_plan, registered_plan, window_draws
    from .testtime import describe, method_window_loss, plan_method
    from .train import model_from_checkpoint

    block = read_plan(Path(records).parent / "PLAN.md")
    plan = registered_plan()
    settings = {
        "seed": int(seed),
        "models": list(models),
        "methods": list(methods),
        "starts": list(STARTS),
        "train_len": plan.train_len,
        "eval_len": plan.eval_len,
        "n_windows": plan.eval_windows,
        "margin": plan.margin,
        "smooth_window": plan.smooth_window,
        "persist": plan.persist,
        "at_least": last_centre_length(plan.eval_len, plan.smooth_window),
        "resamples": int(block["bootstrap_resamples"]),
        "window_draw_seed": int(block["window_draw_seed"]),
    }
    draws = window_draws(settings["resamples"], plan.eval_windows, settings["window_draw_seed"])
    val = torch.from_numpy(load_corpus(plan.corpus).val)
    arrays: dict[str, np.ndarray] = {}
    ref_lens: dict[str, int] = {}
    describes: dict[str, str] = {}
    checkpoints: dict[str, Any] = {}
    t0 = time.perf_counter()
    for name in models:
        record, rec_arrays = load_record(records, seed, name)
        ckpt = Path(ckpt_dir) / record["train"]["checkpoint"]
        model = model_from_checkpoint(ckpt)
        gap = _check_plain(model, val, rec_arrays["window_loss"], plan.bin_width)
        if gap > 1.01:  # float32 sums in another order may land a hair past the rounding
            raise ValueError(f"{ckpt} is not the model of record seed-{seed}/{name}: {gap:.3f}")
        checkpoints[name] = {
            "file": ckpt.name,
            "sha256": hashlib.sha256(ckpt.read_bytes()).hexdigest(),
            "largest_binned_difference_in_float16_half_spacings": round(gap, 4),
        }
        plain = entry_key(name, "plain")
        reference = rec_arrays["window_reference"]  # a method is measured against the plain model
        arrays[f"{plain}:window_reference"] = reference
        arrays[f"{plain}:window_past"] = rec_arrays["window_past"]
        arrays[f"{plain}:curve"] = rec_arrays["curve"]
        for rule in ("registered", "original"):
            arrays[f"{plain}:boot_{rule}"] = rec_arrays[f"boot_{rule}"]
        for method in methods:
            for start in STARTS:
                key = entry_key(name, method, start)
                applied = plan_method(
                    method, base=record["base"], head_dim=plan.model.head_dim,
                    train_len=plan.train_len, pretrain_base=plan.model.base,
                    eval_len=plan.eval_len,
                    ref_len=plan.train_len if start == "train" else None,
                )  # fmt: skip
                ref_lens[key] = int(applied.ref_len)
                describes[key] = describe(applied)
                if progress:
                    print(f"{key}: {describes[key]}", file=sys.stderr, flush=True)
                w = method_window_loss(
                    model, val, applied, plan.eval_windows, batch_size=plan.eval_batch
                )
                arrays[f"{key}:window_past"] = w[:, plan.train_len :].mean(1)
                arrays[f"{key}:curve"] = w.mean(0).astype(np.float32)
                for rule, persist in (("registered", plan.persist), ("original", 0)):
                    arrays[f"{key}:boot_{rule}"] = bootstrap_lengths(
                        w, plan, draws, persist, window_reference=reference
                    )
    wall = time.perf_counter() - t0
    # the curve is stored as float32; the summary reads the stored values
    arrays = {k: np.asarray(v) for k, v in arrays.items()}
    Path(out_npz).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out_npz, **arrays)
    with np.load(out_npz) as data:
        stored = {k: data[k] for k in data.files}
    result = {
        "format": FORMAT,
        "plan": "lab/PLAN.md section 7 (descriptive: no verdict rests on it)",
        "settings": settings,
        "ref_lens": ref_lens,
        "methods_described": describes,
        "checkpoints": checkpoints,
        "wall_time_s": round(wall, 1),
        "torch_threads": torch.get_num_threads(),
        **summarise(stored, settings),
        "arrays_sha256": hashlib.sha256(Path(out_npz).read_bytes()).hexdigest(),
    }
    Path(out_json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


def main(argv: list[str] | None = None) -> int:
    """``python -m ropelab.lab.testtime_controls [--records DIR] [--ckpt-dir DIR]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", default="lab/registered")
    parser.add_argument("--ckpt-dir", default="lab/checkpoints")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--print", action="store_true", help="print the committed table, exit")
    parser.add_argument(
        "--summarise", action="store_true",
        help="recompute the committed JSON's numbers from its .npz (no evaluation), exit",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.summarise:
        result, arrays = load_controls()
        result.update(summarise(arrays, result["settings"]))
        CONTROLS_JSON.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if args.print or args.summarise:
        result, _ = load_controls()
        print(format_controls(result))
        return 0
    import torch

    torch.set_num_threads(args.threads)
    result = run_controls(args.records, args.ckpt_dir)
    print(format_controls(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
