"""The lab's trained models, stored compactly and shipped with the results (chapter 7).

Checkpoints (``lab/checkpoints/``, float32 weights plus the optimiser state, about 10 MB each)
are not committed. The models a reader needs to try a test-time method without training (the
plan's ``ship`` list) are written next to the results by the full run, in
``results/models/<name>.pt``: float16 weights (the tied output head stored once), the model's
config, nothing else, about 0.8 MB each. Their SHA-256 is recorded in ``results.json``
(``record["compact"]``), and :func:`load_compact` refuses a file whose hash differs, so a model
loaded in Colab is the one the committed numbers were measured on (its float32 checkpoint,
rounded to float16).

``record["compact"]["fingerprint"]`` is the mean loss of the rounded model over the first
windows of the validation split; a test recomputes it from the shipped file.

Needs torch.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .._checks import check_count
from .evaluate import window_starts
from .model import LMConfig, RopeLM
from .results import RESULTS_DIR, load_results, model_record, seed0_records

__all__ = [
    "COMPACT_FORMAT",
    "MODELS_SUBDIR",
    "compact_entry",
    "compact_state",
    "fingerprint",
    "load_compact",
    "save_compact",
    "sha256_file",
    "shipped_models",
]

#: The format tag written into every compact model file.
COMPACT_FORMAT = "ropelab.lab compact model 1"

#: The folder of the compact models, inside a results folder.
MODELS_SUBDIR = "models"


def sha256_file(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes, as 64 hex digits."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def compact_state(model: RopeLM) -> dict[str, torch.Tensor]:
    """The model's weights in float16, without the output head when it is tied to the embedding."""
    state = {}
    for key, value in model.state_dict().items():
        if key == "lm_head.weight" and model.config.tie_weights:
            continue
        state[key] = value.detach().to("cpu", torch.float16).clone()
    return state


def save_compact(model: RopeLM, path: str | os.PathLike) -> dict[str, Any]:
    """Write ``model`` compactly to ``path``; return the record's ``compact`` entry (file name,
    SHA-256, size in bytes, dtype, parameter count)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": COMPACT_FORMAT,
        "model_config": model.config.to_dict(),
        "state": compact_state(model),
    }
    tmp = path.with_name(path.name + ".tmp")
    torch.save(payload, tmp)
    os.replace(tmp, path)
    return compact_entry(path, model)


def compact_entry(path: str | os.PathLike, model: RopeLM) -> dict[str, Any]:
    """The record of a compact file in ``results.json``: its name, SHA-256, size, dtype and
    the model's parameter count (``load_compact`` checks the hash against it)."""
    path = Path(path)
    return {
        "file": path.name,
        "sha256": sha256_file(path),
        "bytes": path.stat().st_size,
        "dtype": "float16",
        "params": model.num_params(),
    }


def _model_from_payload(payload: dict[str, Any]) -> RopeLM:
    if payload.get("format") != COMPACT_FORMAT:
        raise ValueError(f"not a compact model of format {COMPACT_FORMAT!r}")
    model = RopeLM(LMConfig(**payload["model_config"]))
    state = {k: v.float() for k, v in payload["state"].items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    allowed = ["lm_head.weight"] if model.config.tie_weights else []
    if list(missing) != allowed or unexpected:
        raise ValueError(f"compact model does not fit: missing {missing}, unexpected {unexpected}")
    model.eval()
    return model


def shipped_models(results: dict[str, Any]) -> list[str]:
    """The names of the models whose compact file ships with ``results``."""
    return [r["name"] for r in seed0_records(results) if r.get("compact")]


def load_compact(
    name: str,
    results: dict[str, Any] | None = None,
    *,
    results_dir: str | os.PathLike | None = None,
) -> RopeLM:
    """Load the shipped model ``name`` (float32 weights from its float16 file), after checking
    the file's SHA-256 against the committed results.

    Args:
        name: a model of :func:`shipped_models`.
        results: the results that record the hash (default: those in ``results_dir``).
        results_dir: the results folder (default :data:`ropelab.lab.results.RESULTS_DIR`).

    Raises:
        ValueError: ``name`` is not shipped, or the file's hash differs from the recorded one.
        FileNotFoundError: the file is missing.
    """
    folder = Path(RESULTS_DIR if results_dir is None else results_dir)
    if results is None:
        results = load_results(folder)
    record = model_record(results, name)
    entry = record.get("compact")
    if not entry:
        raise ValueError(f"name must be one of the shipped models {shipped_models(results)}")
    path = folder / MODELS_SUBDIR / entry["file"]
    if not path.is_file():
        raise FileNotFoundError(f"no compact model at {path}")
    found = sha256_file(path)
    if found != entry["sha256"]:
        raise ValueError(
            f"{path} has SHA-256 {found[:16]}..., the results record {entry['sha256'][:16]}...: "
            "the file is not the model these results were measured on"
        )
    payload = torch.load(path, map_location="cpu", weights_only=True)
    return _model_from_payload(payload)


@torch.no_grad()
def fingerprint(
    model: RopeLM, tokens: torch.Tensor, length: int, n_windows: int, k: int = 2
) -> float:
    """Mean loss over every position of the first ``k`` of the ``n_windows`` evaluation windows
    of ``length`` tokens (:func:`ropelab.lab.evaluate.window_starts`), computed in float32."""
    k = check_count(k, "k")
    starts = window_starts(tokens.numel(), length, n_windows)[:k]
    offsets = torch.arange(length + 1)
    chunk = tokens[torch.from_numpy(starts)[:, None] + offsets].long()  # (k, L+1)
    model.eval()
    _, loss = model(chunk[:, :-1], chunk[:, 1:])
    return float(np.round(loss.item(), 6))
