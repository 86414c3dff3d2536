r"""The committed results of chapter 7's experiment, and reading them back.

``python -m ropelab.lab`` (``make lab``) writes the full plan's results into
:data:`RESULTS_DIR`, a folder of this package that is committed with the repository and shipped
with the package, so the chapter's notebook plots the same numbers on the static site, in
Binder and in Colab without training anything. ``results.json`` holds every model: its RoPE
setting, what the scaling laws predict for it, its measured supported length, its binned loss
curve, its q·k split, and how it was trained (see :mod:`ropelab.lab.experiment`).

Layout (schema 2): ``models`` holds one record per RoPE model of the first replicate (seed 0),
``baselines`` the models without RoPE (same fields, ``base`` null), ``replicates`` the records of
the other seeds (same fields, with ``replicate`` > 0), and ``testtime`` one record per (model,
replicate, test-time method)
(:mod:`ropelab.lab.testtime`). Shipped models are in ``models/`` (:mod:`ropelab.lab.store`).

This module needs neither torch nor matplotlib.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from .._checks import check_count, check_positive

__all__ = [
    "RESULTS_DIR",
    "RESULTS_SCHEMA",
    "all_records",
    "baseline_names",
    "claim_cell",
    "load_results",
    "model_names",
    "model_record",
    "remeasure_binned",
    "replicate_records",
    "seed0_records",
    "stays_above",
    "supported_or_censored",
    "testtime_record",
    "testtime_records",
]

#: The folder of the committed results (``results.json``, ``summary.csv``, ``loss_curves.csv``).
RESULTS_DIR = Path(__file__).resolve().parent / "results"

#: The version of the layout of ``results.json`` this code reads.
RESULTS_SCHEMA = 2


def load_results(path: str | os.PathLike | None = None) -> dict[str, Any]:
    """Read ``results.json`` from ``path`` (a file or its folder; default :data:`RESULTS_DIR`).

    Raises:
        FileNotFoundError: no results there (run ``python -m ropelab.lab`` first).
        ValueError: the file is not a results file of this schema, or has no models.
    """
    target = RESULTS_DIR if path is None else Path(path)
    if target.is_dir():
        target = target / "results.json"
    if not target.exists():
        raise FileNotFoundError(
            f"no lab results at {target}: run `python -m ropelab.lab` (make lab) to create them"
        )
    results = json.loads(target.read_text())
    if not isinstance(results, dict) or results.get("schema") != RESULTS_SCHEMA:
        raise ValueError(f"{target} is not a results file of schema {RESULTS_SCHEMA}")
    if not results.get("models"):
        raise ValueError(f"{target} holds no models")
    return results


def model_names(results: dict[str, Any]) -> list[str]:
    """The RoPE models of ``results`` (seed 0) in the order they were run, the pre-trained model
    first (:func:`baseline_names` lists the models without RoPE)."""
    return [m["name"] for m in results["models"]]


def baseline_names(results: dict[str, Any]) -> list[str]:
    """The models without RoPE of ``results`` (``"nope"``, ``"alibi"``), in the order run."""
    return [m["name"] for m in results.get("baselines", [])]


def seed0_records(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of seed 0: the RoPE models in the order run, then the baselines."""
    return [*results["models"], *results.get("baselines", [])]


def all_records(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every trained model's record: :func:`seed0_records`, then the other seeds."""
    return [*seed0_records(results), *results.get("replicates", [])]


def model_record(results: dict[str, Any], name: str) -> dict[str, Any]:
    """The record of the model or baseline called ``name`` (seed 0); ``ValueError`` listing the
    names if absent."""
    for record in seed0_records(results):
        if record["name"] == name:
            return record
    names = [*model_names(results), *baseline_names(results)]
    raise ValueError(f"name must be one of {names}, got {name!r}")


def replicate_records(results: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """Every replicate of model ``name``, seed 0 first (``ValueError`` if there is none)."""
    first = model_record(results, name)
    others = [r for r in results.get("replicates", []) if r["name"] == name]
    return [first, *sorted(others, key=lambda r: r["replicate"])]


def testtime_records(
    results: dict[str, Any], model: str | None = None, replicate: int | None = 0
) -> list[dict[str, Any]]:
    """The test-time records of ``model`` (all models: ``None``) and ``replicate`` (all:
    ``None``), in the order they were run."""
    return [
        r
        for r in results.get("testtime", [])
        if (model is None or r["model"] == model)
        and (replicate is None or r["replicate"] == replicate)
    ]


def testtime_record(
    results: dict[str, Any], model: str, method: str, replicate: int = 0
) -> dict[str, Any]:
    """The record of ``method`` applied to ``model`` (``ValueError`` naming what exists)."""
    for r in testtime_records(results, model, replicate):
        if r["method"] == method:
            return r
    have = sorted({(r["model"], r["method"]) for r in results.get("testtime", [])})
    raise ValueError(f"model and method must be one of {have}, got {(model, method)}")


def claim_cell(record: dict[str, Any]) -> str:
    """What the scaling laws claim for a model, as tables print it: its bound (``1117``),
    ``>ctrl`` (longer than the control ``ft-1e4``, Theorem 1), ``conj.`` (no hard bound: the
    source's conjecture), ``none`` (no hard bound: our reading, the ablation) or ``-`` (a
    baseline without RoPE)."""
    prediction = record["prediction"]
    claim = prediction["claim"]
    if claim == "bound":
        return f"{prediction['expected_supported_length']:.0f}"
    return {
        "longer than control": ">ctrl",
        "no hard bound (conjecture)": "conj.",
        "no hard bound (our reading)": "none",
    }.get(claim, "-")


def supported_or_censored(record: dict[str, Any]) -> tuple[float, bool]:
    """A model's measured supported length and whether it is censored.

    Returns ``(length, False)`` when the loss rose past the margin within the evaluated length,
    and ``(at_least, True)`` when it never did: the model supports *at least* ``at_least``.
    """
    measured = record["measured"]
    if measured["supported_length"] is not None:
        return float(measured["supported_length"]), False
    at_least = measured["at_least"]
    if at_least is None or not math.isfinite(at_least):
        raise ValueError(f"model {record['name']!r}: a censored result needs 'at_least'")
    return float(at_least), True


def stays_above(above: Any, persist: int) -> np.ndarray:
    """``out[j]``: ``above[j : j + persist]`` is all true (clipped at the end; ``above[j]`` for
    ``persist`` 0 or 1)."""
    above = np.asarray(above, dtype=bool)
    span = max(1, int(persist))
    below = np.concatenate(([0], np.cumsum(~above)))
    stop = np.minimum(np.arange(above.size) + span, above.size)
    return above & (below[stop] - below[: above.size] == 0)


def remeasure_binned(
    record: dict[str, Any],
    train_len: int,
    margin: float,
    *,
    smooth_bins: int = 2,
    persist: int | None = None,
) -> float | None:
    r"""The supported length read again off the *binned* loss curve, with another ``margin``.

    The same rule as :func:`ropelab.lab.evaluate.supported_length`, on bins instead of
    positions: the reference is the mean of the bins inside :math:`[T_\text{train}/2,
    T_\text{train})`, the curve is smoothed by a moving average of ``smooth_bins`` bins (2 bins
    of 16 = the 32 positions of the full measurement), and the result is the mean context of the
    first window, centred at or past :math:`T_\text{train}`, whose loss exceeds the reference by
    more than ``margin`` and stays above for ``persist`` positions (rounded up to whole bins;
    default the ``persist`` recorded with the measurement, 0 if none); ``None`` if none does.
    Resolution: one bin, but the binned curve is another curve, not a coarser reading of the
    same one: at the recorded margin it differs from the recorded full-resolution length by up
    to 6 bins (96 tokens; ft-3e6, seed 2, of ``results.json``) and by 1.5 to 6 bins on three of
    its 37 seed records, so it is a descriptive re-reading for other margins, never a second
    interval for a recorded length (chapter 7).
    """
    curve = record["loss_curve"]
    loss = np.asarray(curve["loss"], dtype=np.float64)
    context = np.asarray(curve["context"], dtype=np.float64)
    width = check_count(curve["bin_width"], "bin_width")
    train_len = check_count(train_len, "train_len", minimum=2 * width)
    margin = check_positive(margin, "margin")
    smooth_bins = check_count(smooth_bins, "smooth_bins")
    if train_len % width or (train_len // 2) % width:
        raise ValueError(f"train_len must be a multiple of 2 x bin_width = {2 * width}")
    reference = float(loss[train_len // 2 // width : train_len // width].mean())
    kernel = np.ones(smooth_bins) / smooth_bins
    smooth = np.convolve(loss, kernel, mode="valid")  # smooth[j] = mean(loss[j : j + k])
    centre = np.convolve(context, kernel, mode="valid")
    if persist is None:
        persist = int(record.get("measured", {}).get("persist", 0) or 0)
    bins = -(-int(persist) // width)
    above = (centre >= train_len) & stays_above(smooth > reference + margin, bins)
    if not above.any():
        return None
    return float(centre[np.argmax(above)])
