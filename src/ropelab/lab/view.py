r"""The data of chapter 7's interactive figure: chosen models' loss curves, re-read at a margin.

:func:`lab_view_data` reads the committed results (:mod:`ropelab.lab.results`) and returns,
for each chosen model, its binned loss curve up to a length, its predicted bound and its
supported length re-measured on the binned curve with the chosen margin
(:func:`ropelab.lab.results.remeasure_binned`). Nothing is trained or evaluated. The figure
that draws it is :func:`ropelab.plots.lab_view.plot_lab_view`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from .._checks import check_count, check_positive
from .results import load_results, model_names, model_record, remeasure_binned

__all__ = ["DEFAULT_MODELS", "committed_model_names", "lab_view_data"]

#: The models the figure opens with (those of the committed results that exist).
DEFAULT_MODELS = ("pretrain", "ft-1e5", "ft-1e6", "ft-1e7")


@cache
def _committed_results() -> dict[str, Any]:
    return load_results()


def committed_model_names() -> tuple[str, ...]:
    """The names of the models in the committed results, in their order."""
    return tuple(model_names(_committed_results()))


def lab_view_data(
    names: Sequence[str],
    margin: float,
    max_len: int,
    results: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What chapter 7's results figure draws (JSON-ready lists).

    Args:
        names: models to show (at least one), names of ``results``.
        margin: the rise in nats over the reference loss that ends the supported length, > 0.
        max_len: the longest context length shown, an integer >= 1.
        results: the lab's results (default: the committed ones).

    Returns:
        ``{"margin", "max_len", "train_len", "bases", "models": [{"name", "kind", "base",
        "context", "loss", "predicted", "remeasured", "recorded"}, ...]}``; ``bases`` lists
        every fine-tuning base of ``results`` (the figure gives each its colour);
        ``remeasured`` is ``None`` when the loss never rises ``margin`` above the reference
        within the evaluated length.
    """
    results = _committed_results() if results is None else results
    if isinstance(names, str) or not names:
        raise ValueError(f"names must be a non-empty list of model names, got {names!r}")
    margin = check_positive(margin, "margin")
    max_len = check_count(max_len, "max_len")
    train_len = results["meta"]["plan"]["train_len"]
    models = []
    for name in names:
        record = model_record(results, name)
        curve = record["loss_curve"]
        keep = [i for i, c in enumerate(curve["context"]) if c <= max_len]
        predicted = record["prediction"]["expected_supported_length"]
        models.append(
            {
                "name": name,
                "kind": record["kind"],
                "base": record["base"],
                "context": [float(curve["context"][i]) for i in keep],
                "loss": [float(curve["loss"][i]) for i in keep],
                "predicted": None if predicted is None else float(predicted),
                "remeasured": remeasure_binned(record, train_len, margin),
                "recorded": record["measured"]["supported_length"],
            }
        )
    bases = sorted({r["base"] for r in results["models"] if r["kind"] != "pretrain"})
    return {
        "margin": margin,
        "max_len": max_len,
        "train_len": train_len,
        "bases": bases,
        "models": models,
    }
