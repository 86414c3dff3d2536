"""The committed results of chapter 7 (ropelab/lab/results/): produced by the current full plan,
internally consistent, and their predictions equal to the formulas computed here by hand."""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import asdict
from pathlib import PurePosixPath

import numpy as np
import pytest

from ropelab.lab.corpus import load_corpus
from ropelab.lab.experiment import checkpoint_paths, extra_plan, format_summary, full_plan
from ropelab.lab.results import (
    RESULTS_DIR,
    load_results,
    model_names,
    model_record,
    supported_or_censored,
)


@pytest.fixture(scope="module")
def results():
    return load_results()


@pytest.fixture(scope="module")
def plan():
    return full_plan()


def test_results_are_committed_and_packaged():
    for name in ("results.json", "summary.csv", "loss_curves.csv"):
        path = RESULTS_DIR / name
        assert path.is_file(), f"{path} is missing: run make lab and commit its results"
        assert path.stat().st_size < 2_000_000  # small enough to commit


def test_results_ship_with_the_package():
    """Colab installs ropelab with pip: the package data must include every results file."""
    pyproject = (RESULTS_DIR.parents[3] / "pyproject.toml").read_text()  # no tomllib on 3.10
    block = re.search(
        r"\[tool\.setuptools\.package-data\][^\[]*?ropelab = \[(.*?)\]", pyproject, re.S
    )
    assert block is not None
    globs = re.findall(r'"([^"]+)"', block.group(1))
    assert "lab/results/*.json" in globs
    package = RESULTS_DIR.parents[1]
    files = [p for p in RESULTS_DIR.rglob("*") if p.is_file() and p.suffix in (".json", ".csv")]
    assert len(files) >= 3
    for path in files:
        rel = PurePosixPath(path.relative_to(package).as_posix())
        assert any(rel.match(g) for g in globs), f"{rel} is not in the package data"


def test_results_come_from_the_current_full_plan(results, plan):
    meta = results["meta"]
    assert meta["quick"] is False
    assert meta["plan"] == json.loads(json.dumps(asdict(plan)))
    assert meta["corpus_sha256"] == load_corpus(plan.corpus).sha256
    assert model_names(results) == [r.name for r in plan.all_runs()]
    paths = checkpoint_paths(plan, "unused")
    for record, spec in zip(results["models"], plan.all_runs(), strict=True):
        cfg = plan.train_config(spec)
        assert record["train"]["checkpoint"] == paths[spec.name].name  # same hash: same settings
        assert record["train"]["steps"] == cfg.steps
        assert record["train"]["config"] == asdict(cfg)
        assert record["train"]["tokens"] == cfg.steps * cfg.batch_size * cfg.seq_len
        assert record["base"] == spec.base and record["keep_planes"] == spec.keep_planes
        assert record["versions"]["torch"].startswith("2.13.0")
        assert record["eval"]["n_windows"] == plan.eval_windows
        assert record["command"] and record["train"]["wall_time_s"] > 0


def test_exercise_results_come_from_two_more_fine_tunes(results, plan):
    """Chapter 7's first exercise: bases 3e5 and 3e6 fine-tuned from the same pre-training."""
    extra = load_results(RESULTS_DIR / "exercise")
    extra_runs = extra_plan(plan, [3e5, 3e6])
    assert extra["meta"]["plan"] == json.loads(json.dumps(asdict(extra_runs)))
    assert model_names(extra) == ["pretrain", "ft-3e5", "ft-3e6"]
    paths = checkpoint_paths(extra_runs, "unused")
    for record in extra["models"]:
        assert record["train"]["checkpoint"] == paths[record["name"]].name
    # the same pre-trained model as the main results, so the same curve
    assert extra["models"][0]["loss_curve"] == results["models"][0]["loss_curve"]
    for record in extra["models"][1:]:
        bound = 2 * math.pi * record["base"] ** (12 / 32)
        assert record["prediction"]["t_extra"] == pytest.approx(bound)
        assert 128 < record["measured"]["supported_length"] < 2048


def test_predictions_match_the_formulas(results):
    # T_train = 128, d = 32, pre-training base 1e4: d_extra = 2 ceil(16 log_1e4(128 / 2π)) = 12
    d_extra = 2 * math.ceil(16 * math.log(128 / (2 * math.pi)) / math.log(1e4))
    assert d_extra == 12 == results["meta"]["d_extra"]
    beta = results["meta"]["thresholds"]
    assert beta["beta1"] == pytest.approx(2 * 128 / math.pi)
    assert beta["beta2"] == pytest.approx(128 / math.pi)
    assert beta["beta3"] == pytest.approx(128 / (2 * math.pi))
    for r in results["models"]:
        t_extra = r["prediction"]["t_extra"]
        if r["base"] >= 1e4:
            assert t_extra == pytest.approx(2 * math.pi * r["base"] ** (d_extra / 32))
        else:
            assert t_extra is None
    assert model_record(results, "ft-1e6")["prediction"]["t_extra"] == pytest.approx(1117, abs=1)
    assert model_record(results, "ft-16")["prediction"]["expected_supported_length"] is None
    assert model_record(results, "ft-500")["prediction"]["expected_supported_length"] == 128


def test_curves_tables_and_measurements_agree(results, plan):
    n_bins = plan.eval_len // plan.bin_width
    with open(RESULTS_DIR / "loss_curves.csv") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["context", *model_names(results)]
    assert len(rows) == 1 + n_bins
    table = np.array(rows[1:], dtype=float)
    for j, r in enumerate(results["models"], start=1):
        curve = r["loss_curve"]
        assert len(curve["loss"]) == len(curve["sem"]) == len(curve["context"]) == n_bins
        np.testing.assert_allclose(table[:, j], curve["loss"])
        # bins of 16 positions: bins 4..7 are exactly positions [64, 128), the reference window
        reference = np.mean(curve["loss"][plan.train_len // 2 // 16 : plan.train_len // 16])
        assert r["measured"]["reference_loss"] == pytest.approx(reference, abs=2e-5)
        length, censored = supported_or_censored(r)
        assert censored == r["measured"]["censored"]
        assert plan.train_len < length <= plan.eval_len
        if censored:
            assert length == plan.eval_len - plan.smooth_window + plan.smooth_window // 2 + 1
        else:  # past the supported length, the loss is above the reference + margin somewhere
            i = int(length) // plan.bin_width
            near = curve["loss"][max(0, i - 2) : i + 2]
            assert max(near) > reference + plan.margin / 2
        assert all(0.0 < v < 10.0 for v in curve["loss"])
    with open(RESULTS_DIR / "summary.csv") as f:
        summary = list(csv.DictReader(f))
    assert [s["name"] for s in summary] == model_names(results)
    for s, r in zip(summary, results["models"], strict=True):
        measured = r["measured"]["supported_length"]
        assert s["measured_supported"] == ("" if measured is None else str(measured))


def test_load_results_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"python -m ropelab\.lab"):
        load_results(tmp_path)
    (tmp_path / "results.json").write_text(json.dumps({"schema": 99, "models": [{}]}))
    with pytest.raises(ValueError, match="schema"):
        load_results(tmp_path / "results.json")
    (tmp_path / "results.json").write_text(json.dumps({"schema": 1, "models": []}))
    with pytest.raises(ValueError, match="no models"):
        load_results(tmp_path)


def test_model_record_and_censoring(results):
    assert model_record(results, "pretrain")["kind"] == "pretrain"
    with pytest.raises(ValueError, match="name must be one of"):
        model_record(results, "ft-42")
    fake = {"name": "x", "measured": {"supported_length": None, "at_least": 2033}}
    assert supported_or_censored(fake) == (2033.0, True)
    fake["measured"] = {"supported_length": 300, "at_least": None}
    assert supported_or_censored(fake) == (300.0, False)
    fake["measured"] = {"supported_length": None, "at_least": None}
    with pytest.raises(ValueError, match="at_least"):
        supported_or_censored(fake)


def test_format_summary_lists_every_model(results):
    lines = format_summary(results).splitlines()
    assert lines[0].split() == [
        "model", "base", "T", "keep", "T_extra", "predicted", "measured", "ref", "loss"
    ]  # fmt: skip
    assert max(len(line) for line in lines) <= 80  # fits a book page without scrolling
    for line, r in zip(lines[1:], results["models"], strict=True):
        name, base, tune, keep, t_extra, predicted, measured, ref = line.split()
        assert name == r["name"] and float(base) == r["base"] and int(tune) == r["tune_len"]
        assert keep == ("-" if r["keep_planes"] is None else str(r["keep_planes"]))
        if r["prediction"]["t_extra"] is None:
            assert t_extra == "-"
        else:
            assert float(t_extra) == pytest.approx(r["prediction"]["t_extra"], abs=0.5)
        expected = r["prediction"]["expected_supported_length"]
        assert predicted == ("none" if expected is None else f"{expected:.0f}")
        m = r["measured"]["supported_length"]
        assert measured == (f">={r['measured']['at_least']}" if m is None else str(m))
        assert float(ref) == pytest.approx(r["measured"]["reference_loss"], abs=5e-4)
