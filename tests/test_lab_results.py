"""The committed results of chapter 7 (ropelab/lab/results/): produced by the current full plan,
internally consistent, their predictions equal to the formulas computed here by hand, and the
shipped models the ones the numbers were measured on."""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import asdict
from pathlib import PurePosixPath

import numpy as np
import pytest
import torch

from ropelab.lab.corpus import load_corpus
from ropelab.lab.evaluate import window_starts
from ropelab.lab.experiment import (
    checkpoint_paths,
    extra_plan,
    format_summary,
    full_plan,
    stage_names,
    stage_runs,
)
from ropelab.lab.results import (
    RESULTS_DIR,
    load_results,
    model_names,
    model_record,
    replicate_records,
    supported_or_censored,
    testtime_records,
)
from ropelab.lab.stats import seed_exponent_fit
from ropelab.lab.store import load_compact, sha256_file, shipped_models
from ropelab.lab.testtime import METHODS, plan_method


@pytest.fixture(scope="module")
def results():
    return load_results()


@pytest.fixture(scope="module")
def plan():
    return full_plan()


def test_results_are_committed_and_packaged(results):
    for name in ("results.json", "summary.csv", "loss_curves.csv", "testtime.csv"):
        path = RESULTS_DIR / name
        assert path.is_file(), f"{path} is missing: run make lab and commit its results"
        assert path.stat().st_size < 3_000_000  # small enough to commit
    models = sorted((RESULTS_DIR / "models").glob("*.pt"))
    assert [p.stem for p in models] == sorted(shipped_models(results))
    assert sum(p.stat().st_size for p in models) < 16_000_000  # the repository's budget


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
    files = [
        p
        for p in RESULTS_DIR.rglob("*")
        if p.is_file() and p.suffix in (".json", ".csv", ".pt", ".npz")
    ]
    assert len(files) >= 8
    for path in files:
        rel = PurePosixPath(path.relative_to(package).as_posix())
        assert any(rel.match(g) for g in globs), f"{rel} is not in the package data"


def test_results_come_from_the_current_full_plan(results, plan):
    meta = results["meta"]
    assert meta["quick"] is False and results["schema"] == 2
    assert meta["plan"] == json.loads(json.dumps(asdict(plan)))
    assert meta["corpus_sha256"] == load_corpus(plan.corpus).sha256
    assert list(meta["stages"]) == stage_names(plan)
    runs = [run for stage in stage_names(plan) for run in stage_runs(plan, stage)]
    records = {
        r["id"]: r for r in [*results["models"], *results["baselines"], *results["replicates"]]
    }
    rope0 = [x.id for x in runs if x.replicate == 0 and x.kind != "baseline"]
    assert [r["id"] for r in results["models"]] == rope0
    assert [r["id"] for r in results["baselines"]] == [x.id for x in runs if x.kind == "baseline"]
    assert [r["id"] for r in results["replicates"]] == [x.id for x in runs if x.replicate > 0]
    paths = checkpoint_paths(plan, "unused")
    for run in runs:
        record = records[run.id]
        cfg = plan.train_config(run.spec, run.replicate)
        assert record["train"]["checkpoint"] == paths[run.id].name  # same hash: same settings
        assert record["train"]["steps"] == cfg.steps
        assert record["train"]["config"] == asdict(cfg)
        assert record["train"]["seed"] == cfg.seed
        assert record["train"]["tokens"] == cfg.steps * cfg.batch_size * cfg.seq_len
        assert record["replicate"] == run.replicate and record["kind"] == run.kind
        assert record["keep_planes"] == run.spec.keep_planes
        assert record["base"] == (None if run.kind == "baseline" else run.spec.base)
        assert record["versions"]["torch"].startswith("2.13.0")
        assert record["eval"]["n_windows"] == plan.eval_windows
        assert record["command"] and record["train"]["wall_time_s"] > 0
    for stage, entry in meta["stages"].items():
        assert entry["wall_s"] > 0, stage
    # three seeds of the pre-training and of every replicated fine-tune
    for name in ("pretrain", *plan.replicated):
        assert [r["replicate"] for r in replicate_records(results, name)] == [0, 1, 2]
    nope = model_record(results, "nope")
    assert nope["train"]["config"] == model_record(results, "pretrain")["train"]["config"]


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
        assert 128 < record["measured"]["supported_length"] < plan.eval_len


def test_predictions_match_the_formulas(results):
    # T_train = 128, d = 32, pre-training base 1e4: d_extra = 2 ceil(16 log_1e4(128 / 2π)) = 12
    d_extra = 2 * math.ceil(16 * math.log(128 / (2 * math.pi)) / math.log(1e4))
    assert d_extra == 12 == results["meta"]["d_extra"]
    beta = results["meta"]["thresholds"]
    assert beta["beta1"] == pytest.approx(2 * 128 / math.pi)
    assert beta["beta2"] == pytest.approx(128 / math.pi)
    assert beta["beta3"] == pytest.approx(128 / (2 * math.pi))
    for r in [*results["models"], *results["baselines"], *results["replicates"]]:
        t_extra = r["prediction"]["t_extra"]
        if r["base"] is not None and r["base"] >= 1e4:
            assert t_extra == pytest.approx(2 * math.pi * r["base"] ** (d_extra / 32))
        else:
            assert t_extra is None
    assert model_record(results, "ft-1e6")["prediction"]["t_extra"] == pytest.approx(1117, abs=1)
    # Theorem 1: below 10 000 the claim is an improvement over the control, with d'_extra
    for name, base in (("ft-500", 500), ("ft-60", 60), ("ft-30", 30), ("ft-16", 16)):
        p = model_record(results, name)["prediction"]
        d_tune = min(32, 2 * math.ceil(16 * math.log(128 / (2 * math.pi)) / math.log(base)))
        assert p["d_extra_tune"] == d_tune
        assert p["expected_supported_length"] is None
        assert p["claim"] == (
            "no hard bound (conjecture)" if d_tune == 32 else "longer than control"
        )
    assert model_record(results, "nope")["prediction"]["claim"] == "baseline"


def test_curves_tables_and_measurements_agree(results, plan):
    n_bins = plan.eval_len // plan.bin_width
    records = [*results["models"], *results["baselines"], *results["replicates"]]
    with open(RESULTS_DIR / "loss_curves.csv") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["context", *(r["id"] for r in records)]
    assert len(rows) == 1 + n_bins
    table = np.array(rows[1:], dtype=float)
    for j, r in enumerate(records, start=1):
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
    assert [s["id"] for s in summary] == [r["id"] for r in records]
    for s, r in zip(summary, records, strict=True):
        measured = r["measured"]["supported_length"]
        assert s["measured_supported"] == ("" if measured is None else str(measured))


def test_testtime_records_follow_the_plan_and_their_curves(results, plan):
    records = testtime_records(results, replicate=None)
    assert [(r["model"], r["method"]) for r in records] == [
        (m, k) for m in plan.testtime_models for k in plan.methods
    ]
    assert set(plan.methods) == set(METHODS)
    bases = {s.name: s.base for s in plan.all_runs()}
    with open(RESULTS_DIR / "testtime.csv") as f:
        table = list(csv.DictReader(f))
    assert len(table) == len(records)
    for r, row in zip(records, table, strict=True):
        applied = plan_method(
            r["method"], base=bases[r["model"]], head_dim=32, train_len=128,
            pretrain_base=1e4, eval_len=plan.eval_len,
        )  # fmt: skip
        assert r["applicable"] == applied.applicable and r["ref_len"] == applied.ref_len
        assert row["method"] == r["method"] and row["model"] == r["model"]
        if not r["applicable"]:
            assert r["measured"] is None and r["reason"] == applied.reason
            continue
        assert r["settings"] == json.loads(json.dumps(applied.settings))
        loss = np.asarray(r["loss_curve"]["loss"])
        m = r["measured"]
        assert (
            m["reference_loss"] == model_record(results, r["model"])["measured"]["reference_loss"]
        )
        assert m["method_reference_loss"] == pytest.approx(loss[4:8].mean(), abs=2e-5)
        assert m["mean_loss_past_train"] == pytest.approx(loss[8:].mean(), abs=2e-5)
        found = m["supported_length"]
        assert m["censored"] == (found is None)
        if found is not None:  # the rise happens at the recorded length, give or take a bin
            i = int(found) // 16
            assert max(loss[max(0, i - 2) : i + 2]) > m["reference_loss"] + 0.05
    # the pre-trained model sits at beta0: Theorem 3's bound is T_train, so it has no T_extra
    # variant; base 1e7's T_extra (2650) lies inside the evaluated length, so it has one
    applicable = {(r["model"], r["method"]): r["applicable"] for r in records}
    assert not applicable[("pretrain", "dyn-extra")] and not applicable[("pretrain", "log-extra")]
    assert applicable[("ft-1e7", "dyn-extra")] and applicable[("ft-1e7", "log-extra")]
    assert all(r["ref_len"] == 128 for r in records if r["model"] == "pretrain" and r["ref_len"])


def test_shipped_models_are_the_measured_ones(results, plan):
    """Each compact file passes the hash check and, loaded, gives the recorded fingerprint: the
    loss over the first two evaluation windows of its float16 weights."""
    names = shipped_models(results)
    assert set(names) == set(plan.ship)
    val = torch.from_numpy(load_corpus(plan.corpus).val)
    starts = torch.from_numpy(window_starts(val.numel(), plan.eval_len, plan.eval_windows)[:2])
    chunk = val[starts[:, None] + torch.arange(plan.eval_len + 1)].long()
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for name in names:
            entry = model_record(results, name)["compact"]
            path = RESULTS_DIR / "models" / entry["file"]
            assert sha256_file(path) == entry["sha256"] and path.stat().st_size == entry["bytes"]
            model = load_compact(name)
            record = model_record(results, name)
            if record["kind"] != "baseline":
                assert model.config.base == record["base"]
                assert model.config.keep_planes == record["keep_planes"]
            with torch.no_grad():
                _, loss = model(chunk[:, :-1], chunk[:, 1:])
            assert loss.item() == pytest.approx(entry["fingerprint"]["mean_loss"], abs=2e-4)
    finally:
        torch.set_num_threads(before)


def test_the_fitted_exponent_and_its_interval(results):
    """The exponent per seed through the bases above beta0 (not the pre-trained model, at beta0),
    recomputed here with numpy's polyfit, and its t interval over the seeds."""
    per_seed = {}
    for name in ("ft-1e5", "ft-1e6", "ft-3e6", "ft-1e7"):
        for r in replicate_records(results, name):
            length, censored = supported_or_censored(r)
            assert not censored, f"{name} seed {r['replicate']} is cut off by the window"
            per_seed.setdefault(r["replicate"], []).append((r["base"], length))
    assert sorted(per_seed) == [0, 1, 2] and all(len(v) == 4 for v in per_seed.values())
    slopes = [
        np.polyfit(np.log([b for b, _ in v]), np.log([n for _, n in v]), 1)[0]
        for _, v in sorted(per_seed.items())
    ]
    fit = seed_exponent_fit(results)
    np.testing.assert_allclose(fit.per_seed, slopes, rtol=1e-10)
    half = 4.302653 * np.std(slopes, ddof=1) / np.sqrt(3)  # t_{0.975, 2} from published tables
    assert fit.exponent.ci == pytest.approx(half, rel=1e-5)
    assert fit.bases == (1e5, 1e6, 3e6, 1e7)


def test_load_results_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"python -m ropelab\.lab"):
        load_results(tmp_path)
    (tmp_path / "results.json").write_text(json.dumps({"schema": 1, "models": [{}]}))
    with pytest.raises(ValueError, match="schema"):
        load_results(tmp_path / "results.json")
    (tmp_path / "results.json").write_text(json.dumps({"schema": 2, "models": []}))
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
    assert max(len(line) for line in lines) <= 79  # fits a book page without scrolling
    claims = {
        "bound": None, "longer than control": ">ctrl", "no hard bound (conjecture)": "conj.",
        "no hard bound (our reading)": "none", "baseline": "-",
    }  # fmt: skip
    for line, r in zip(lines[1:], [*results["models"], *results["baselines"]], strict=True):
        name, base, tune, keep, t_extra, predicted, measured, ref = line.split()
        assert name == r["name"] and int(tune) == r["tune_len"]
        assert base == ("-" if r["base"] is None else f"{r['base']:g}")
        assert keep == ("-" if r["keep_planes"] is None else str(r["keep_planes"]))
        if r["prediction"]["t_extra"] is None:
            assert t_extra == "-"
        else:
            assert float(t_extra) == pytest.approx(r["prediction"]["t_extra"], abs=0.5)
        p = r["prediction"]
        expected = claims[p["claim"]] or f"{p['expected_supported_length']:.0f}"
        assert predicted == expected
        m = r["measured"]["supported_length"]
        assert measured == (f">={r['measured']['at_least']}" if m is None else str(m))
        assert float(ref) == pytest.approx(r["measured"]["reference_loss"], abs=5e-4)
