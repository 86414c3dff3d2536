"""The pre-registered runs (lab/PLAN.md, ropelab.lab.registered): the plan's machine-readable
block against the code, the measures of a record, the record store, resuming, and every record
committed so far."""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from ropelab import scaling
from ropelab.lab.corpus import load_corpus
from ropelab.lab.evaluate import evaluate, supported_length
from ropelab.lab.experiment import checkpoint_paths, full_plan, predicted, quick_plan
from ropelab.lab.registered import (
    RECORD_FORMAT,
    bootstrap_lengths,
    evaluate_windows,
    load_record,
    measure,
    read_plan,
    record_paths,
    registered_plan,
    run_registered,
    status,
    supported_lengths,
    tasks,
    window_draws,
    write_record,
)
from ropelab.lab.train import model_from_checkpoint

ROOT = Path(__file__).resolve().parents[1]
PLAN_MD = ROOT / "lab" / "PLAN.md"
RECORDS = ROOT / "lab" / "registered"


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def registered():
    return read_plan(PLAN_MD)


# --------------------------------------------------------------------------------------
# the plan
# --------------------------------------------------------------------------------------


def test_plan_block_matches_the_code(registered):
    full = full_plan()
    plan = registered_plan(models=[m for m in registered["models"] if m != "pretrain"])
    assert registered["seeds"] == list(range(10))
    assert sorted(registered["run_order"]) == registered["seeds"]
    assert registered["run_order"][-3:] == registered["seen_seeds"] == [0, 1, 2]
    assert registered["models"][0] == "pretrain"
    assert [r.name for r in plan.runs] == registered["models"][1:]
    assert registered["control"] == "ft-1e4"
    assert set(registered["exponent_models"]) | set(registered["small_base_models"]) | {
        registered["control"]
    } == set(registered["models"][1:])
    specs = {r.name: r for r in plan.runs}
    assert all(specs[m].base > full.model.base for m in registered["exponent_models"])
    assert all(specs[m].base < full.model.base for m in registered["small_base_models"])
    assert all(r.tune_len == full.train_len and r.keep_planes is None for r in plan.runs)
    for key in ("train_len", "eval_len", "eval_windows", "margin", "smooth_window", "persist"):
        assert getattr(plan, key) == getattr(full, key) == registered[key], key
    assert registered["record_bin_width"] == plan.bin_width == 16
    assert registered["original_persist"] == 0
    assert registered["theorem2_exponent"] == full.d_extra / full.model.head_dim == 0.375
    assert registered["alpha"] == 0.05 and registered["bootstrap_resamples"] == 10_000
    assert registered["window_draw_seed"] == 35 and registered["seed_draw_seed"] == 36
    # the registered plan trains exactly the committed plan's models: same checkpoints
    committed = checkpoint_paths(full, "ck")
    mine = checkpoint_paths(plan, "ck")
    assert all(mine[k] == committed[k] for k in committed if k in mine)
    assert len(mine) == 10 * 10 and plan.replicates == 10
    assert plan.train_config(specs["ft-60"], 7).seed == full.finetune.seed + 14


def test_plan_precedes_its_numbers_in_the_text():
    text = PLAN_MD.read_text()
    for phrase in ("persist", "first-crossing", "after", "0.18", "0.79", "bootstrap"):
        assert phrase in text
    # the power figures of section 6 are what the stated simulation gives
    x = np.array([0.322, 0.351, 0.178])
    rng = np.random.default_rng(35)
    from ropelab.lab.stats import t_quantile

    def power(n: int) -> float:
        d = rng.normal(x.mean(), x.std(ddof=1), size=(200_000, n))
        se = d.std(1, ddof=1) / math.sqrt(n)
        return float((np.abs(d.mean(1) - 0.375) / se > t_quantile(0.975, n - 1)).mean())

    assert round(power(3), 2) == 0.18
    assert round(power(10), 2) == 0.79


def test_read_plan_rejects_bad_blocks(tmp_path):
    path = tmp_path / "p.md"
    path.write_text("# no block\n")
    with pytest.raises(ValueError, match="registered block"):
        read_plan(path)
    path.write_text("```registered\nseeds = [1, 2]\nnot a pair\n```\n")
    with pytest.raises(ValueError, match="line 2"):
        read_plan(path)
    path.write_text("```registered\nseeds = [1, 2\n```\n")
    with pytest.raises(ValueError, match="not JSON"):
        read_plan(path)
    path.write_text("```registered\na = 1\na = 2\n```\n")
    with pytest.raises(ValueError, match="twice"):
        read_plan(path)
    path.write_text('text\n```registered\na = 1\n\nb = "x"\n```\nmore\n')
    assert read_plan(path) == {"a": 1, "b": "x"}


def test_registered_plan_and_tasks():
    plan = registered_plan(quick_plan(), models=["ft-4"])
    assert [r.name for r in plan.runs] == ["ft-4"] and plan.replicated == ("ft-4",)
    assert plan.baselines == () and plan.methods == () and plan.ship == ()
    order = [t.id for t in tasks(plan, [3, 0])]
    assert order == ["pretrain-s3", "ft-4-s3", "pretrain", "ft-4"]
    with pytest.raises(ValueError, match="models must be runs"):
        registered_plan(quick_plan(), models=["ft-77"])
    with pytest.raises(ValueError, match="seeds must be < replicates"):
        tasks(plan, [10])
    with pytest.raises(ValueError, match="seeds must be integers"):
        tasks(plan, [-1])


# --------------------------------------------------------------------------------------
# measures and records
# --------------------------------------------------------------------------------------


def _step_windows(plan, at: int, bump: tuple[int, int] | None = None, n: int = 4) -> np.ndarray:
    """Loss 1 + window index / 100 before position ``at``, 2 after; optionally a bump of +1
    over positions ``bump``."""
    w = np.ones((n, plan.eval_len)) + np.arange(n)[:, None] / 100
    w[:, at:] += 1.0
    if bump is not None:
        w[:, bump[0] : bump[1]] += 1.0
    return w


def test_measure_on_a_step_and_a_bump():
    plan = replace(quick_plan(), persist=64)  # train_len 32, eval 512, bins of 8, smoothing 8
    m, arrays = measure(_step_windows(plan, 200), plan, t_extra=100.0)
    assert m["t_extra_position"] == 100
    # exact per-window means: rows 1.00..1.03 before 200, +1 from 200 on
    assert arrays["window_reference"] == pytest.approx(1 + np.arange(4) / 100)
    past = 1 + np.arange(4) / 100 + (512 - 200) / (512 - 32)
    assert arrays["window_past"] == pytest.approx(past)
    assert arrays["window_within"] == pytest.approx(1 + np.arange(4) / 100)
    assert arrays["window_past_extra"] == pytest.approx(1 + np.arange(4) / 100 + 312 / 412)
    assert m["reference_loss"] == pytest.approx(1.015)
    assert m["mean_loss_past_train"] == pytest.approx(past.mean(), abs=1e-6)
    assert arrays["window_loss"].shape == (4, 64) and arrays["window_loss"].dtype == np.float16
    assert arrays["curve"].shape == (512,) and arrays["curve"].dtype == np.float32
    # the average of positions 193..200 is the first to hold a raised one (1/8 > 0.1 nats):
    # centre 197, context 198; binned (bins of 8, no smoothing): bin 25, context 204.5
    assert m["supported"]["registered"]["full"] == 198
    assert m["supported"]["original"]["full"] == 198
    assert m["supported"]["registered"]["binned"] == pytest.approx(204.5)
    # a bump over 120..150 that comes back down: only the first-crossing rule stops there
    m, _ = measure(_step_windows(plan, 300, bump=(120, 150)), plan, t_extra=None)
    assert m["supported"]["original"]["full"] == 118
    assert m["supported"]["registered"]["full"] == 298
    assert m["supported"]["original"]["binned"] < 130 < 290 < m["supported"]["registered"]["binned"]
    assert m["mean_loss_within_t_extra"] is None and m["mean_loss_past_t_extra"] is None
    assert m["binned_mean_check"] < 1e-3
    # flat: censored under both rules
    m, _ = measure(np.ones((2, plan.eval_len)), plan, t_extra=None)
    assert m["supported"]["registered"] == {"persist": 64, "full": None, "binned": None}
    with pytest.raises(ValueError, match="window_loss"):
        measure(np.ones((2, 100)), plan, None)


def test_supported_lengths_equal_the_rule_row_by_row():
    rng = np.random.default_rng(1)
    t, length = 32, 400
    curves = 1 + 0.05 * rng.standard_normal((40, length))
    for i, row in enumerate(curves):
        at = 40 + 7 * i
        row[at:] += 0.5 if i % 5 else 0.0  # every fifth row stays flat: censored
        if i % 3 == 0:
            row[at - 30 : at - 20] += 0.6  # a bump before the rise
    for persist in (0, 16, 64):
        got = supported_lengths(curves, t, margin=0.1, window=8, persist=persist)
        want = [supported_length(r, t, margin=0.1, window=8, persist=persist) for r in curves]
        assert got.tolist() == [-1 if v is None else v for v in want]
    assert (got == -1).sum() == 8
    with pytest.raises(ValueError, match="curves"):
        supported_lengths(curves[:, :20], t, margin=0.1, window=8, persist=0)


def test_window_draws_and_bootstrap_lengths():
    plan = quick_plan()  # train 32, eval 512, smoothing 8, margin 0.1
    draws = window_draws(50, 8, 35)
    assert draws.shape == (50, 8) and draws.min() >= 0 and draws.max() <= 7
    np.testing.assert_array_equal(draws, window_draws(50, 8, 35))  # the same for every model
    expected = np.random.default_rng(35).integers(0, 8, size=(50, 8))
    np.testing.assert_array_equal(draws, expected)
    assert not np.array_equal(draws, window_draws(50, 8, 36))
    rng = np.random.default_rng(2)
    w = 1 + 0.1 * rng.standard_normal((8, plan.eval_len))
    w[:1, 150:] += 1.0  # one window rises at 150: the resamples without it never do
    for persist in (0, 40):
        boot = bootstrap_lengths(w, plan, draws, persist, chunk=7)
        assert boot.dtype == np.int16 and boot.shape == (50,)
        for b in range(50):
            curve = w[draws[b]].mean(0)
            one = supported_length(curve, 32, margin=0.1, window=8, persist=persist)
            assert boot[b] == (-1 if one is None else one)
    assert len(set(boot.tolist())) > 1 and -1 in boot.tolist()  # all-flat resamples censor
    _, arrays = measure(w, plan, None, draws)
    np.testing.assert_array_equal(arrays["boot_original"], bootstrap_lengths(w, plan, draws, 0))
    assert arrays["boot_registered"].dtype == np.int16
    with pytest.raises(ValueError, match="n_resamples"):
        window_draws(0, 8, 35)
    # another model's reference (a test-time method against its plain model): per resample,
    # the mean of the resampled windows' reference values
    ref = 1.2 + 0.05 * rng.standard_normal(8)
    boot = bootstrap_lengths(w, plan, draws, 0, chunk=7, window_reference=ref)
    for b in range(50):
        curve = w[draws[b]].mean(0)
        one = supported_length(
            curve, 32, margin=0.1, window=8, persist=0, reference=float(ref[draws[b]].mean())
        )
        assert boot[b] == (-1 if one is None else one)
    assert not np.array_equal(boot, bootstrap_lengths(w, plan, draws, 0))
    with pytest.raises(ValueError, match="reference"):
        supported_lengths(w[:3], 32, margin=0.1, window=8, persist=0, reference=ref)


def test_record_round_trip_and_tamper_check(tmp_path):
    plan = quick_plan()
    m, arrays = measure(_step_windows(plan, 200), plan, t_extra=None)
    path = write_record(tmp_path, 4, "ft-4", {"format": RECORD_FORMAT, "measured": m}, arrays)
    assert path == record_paths(tmp_path, 4, "ft-4")[0] == tmp_path / "seed-4" / "ft-4.json"
    record, loaded = load_record(tmp_path, 4, "ft-4")
    assert record["measured"] == json.loads(json.dumps(m))
    assert record["arrays"]["keys"] == sorted(arrays)
    for key, value in arrays.items():
        np.testing.assert_array_equal(loaded[key], value)
        assert loaded[key].dtype == value.dtype
    assert not list(tmp_path.glob("seed-4/*.tmp*"))
    npz = record_paths(tmp_path, 4, "ft-4")[1]
    np.savez_compressed(npz, **{**arrays, "curve": arrays["curve"] + 1})
    with pytest.raises(ValueError, match="SHA-256"):
        load_record(tmp_path, 4, "ft-4")


def test_evaluate_windows_matches_evaluate():
    plan = quick_plan()
    corpus = load_corpus(plan.corpus)
    torch.manual_seed(0)
    from ropelab.lab.model import LMConfig, RopeLM

    model = RopeLM(LMConfig(**plan.model.to_dict()))
    val = torch.from_numpy(corpus.val)
    per_window = evaluate_windows(model, val, 256, 6, batch_size=4)
    assert per_window.shape == (6, 256)
    reference = evaluate(model, val, 256, 6, d_extra=plan.d_extra, batch_size=4, progress=False)
    np.testing.assert_allclose(per_window.mean(0), reference.loss, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        per_window.std(0, ddof=1) / math.sqrt(6), reference.sem, rtol=1e-4, atol=1e-6
    )


# --------------------------------------------------------------------------------------
# running and resuming
# --------------------------------------------------------------------------------------


def test_run_resume_locks_and_lost_checkpoints(tmp_path):
    plan = registered_plan(quick_plan(), models=["ft-1e6", "ft-4"])
    out, ckpt = tmp_path / "out", tmp_path / "ck"
    done = run_registered(
        plan, [2, 0], out, ckpt, wait_s=0, verbose=False, max_tasks=4, bootstrap=(20, 35)
    )
    assert done == ["pretrain-s2", "ft-1e6-s2", "ft-4-s2", "pretrain"]
    assert status(plan, [2, 0], out)["left"] == ["seed 0 ft-1e6", "seed 0 ft-4"]
    record, arrays = load_record(out, 2, "ft-1e6")
    assert record["format"] == RECORD_FORMAT and record["seed"] == 2 and record["base"] == 1e6
    assert record["train"]["seed"] == quick_plan().finetune.seed + 4
    assert record["train"]["steps"] == quick_plan().finetune.steps
    assert record["t_extra"] == pytest.approx(predicted(plan, plan.runs[0])["t_extra"])
    assert record["parent"] == "pretrain-s2" and record["parent_retrained"] is False
    assert arrays["window_loss"].shape == (8, 64)
    assert record["eval"]["bootstrap"] == {"resamples": 20, "window_draw_seed": 35}
    assert arrays["boot_registered"].shape == arrays["boot_original"].shape == (20,)
    assert record["measured"]["mean_loss_past_train"] == pytest.approx(
        float(arrays["window_past"].mean()), abs=1e-6
    )
    # the checkpoint is the model recorded: its losses reproduce the record
    model = model_from_checkpoint(checkpoint_paths(plan, ckpt)["ft-1e6-s2"])
    corpus = load_corpus(plan.corpus)
    again = evaluate_windows(model, torch.from_numpy(corpus.val), plan.eval_len, 8)
    np.testing.assert_allclose(again[:, 32:].mean(1), arrays["window_past"], rtol=1e-12)
    # a live lock (another process) is skipped; a stale one is taken over
    locks = ckpt / "registered-locks"
    (locks / "ft-1e6.lock").write_text(str(os.getppid()))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    (locks / "ft-4.lock").write_text(dead)
    assert run_registered(plan, [2, 0], out, ckpt, wait_s=0, verbose=False) == ["ft-4"]
    (locks / "ft-1e6.lock").unlink()
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert run_registered(plan, [2, 0], out, ckpt, wait_s=0, verbose=False) == ["ft-1e6"]
    assert all(p.stat().st_mtime_ns == t for p, t in stamps.items())  # nothing else rewritten
    assert run_registered(plan, [2, 0], out, ckpt, wait_s=0, verbose=False) == []
    assert not list(locks.iterdir())
    # on another machine the records are there but the checkpoints are not: the parent is
    # trained again, and the fine-tune is the same model as before
    before, _ = load_record(out, 2, "ft-4")
    for path in ckpt.glob("*.pt"):
        path.unlink()
    record_paths(out, 2, "ft-4")[0].unlink()
    assert run_registered(plan, [2], out, ckpt, wait_s=0, verbose=False) == ["ft-4-s2"]
    after, _ = load_record(out, 2, "ft-4")
    assert after["parent_retrained"] is True
    assert after["measured"] == before["measured"]


# --------------------------------------------------------------------------------------
# the committed records
# --------------------------------------------------------------------------------------


def _committed() -> list[Path]:
    return sorted(p for p in RECORDS.glob("seed-*/*.json") if p.with_suffix(".npz").exists())


def test_committed_records_follow_the_plan(registered):
    plan = registered_plan(models=[m for m in registered["models"] if m != "pretrain"])
    plan_sha = hashlib.sha256(PLAN_MD.read_bytes()).hexdigest()
    specs = {s.name: s for s in plan.all_runs()}
    total = 0
    for path in _committed():
        seed = int(path.parent.name.removeprefix("seed-"))
        assert seed in registered["seeds"] and path.stem in registered["models"]
        record, arrays = load_record(RECORDS, seed, path.stem)
        total += path.stat().st_size + path.with_suffix(".npz").stat().st_size
        assert record["format"] == RECORD_FORMAT
        assert record["plan_md_sha256"] == plan_sha, "lab/PLAN.md changed after the runs"
        spec = specs[path.stem]
        assert record["seed"] == seed and record["base"] == spec.base
        assert record["train"]["config"] == plan.train_config(spec, seed).to_dict()
        assert record["train"]["steps"] == plan.train_config(spec, seed).steps
        assert record["versions"]["torch"].startswith("2.13.0")
        assert arrays["window_loss"].shape == (128, 256)
        assert arrays["curve"].shape == (4096,)
        boot = record["eval"]["bootstrap"]
        assert boot == {"resamples": 10_000, "window_draw_seed": registered["window_draw_seed"]}
        for rule in ("registered", "original"):
            lengths = arrays[f"boot_{rule}"]
            assert lengths.shape == (10_000,) and lengths.dtype == np.int16
            point = record["measured"]["supported"][rule]["full"]
            if point is not None:  # the point estimate lies among its resamples
                assert np.quantile(lengths, 0.0) <= point <= lengths.max()
        m = record["measured"]
        assert m["supported"]["registered"]["persist"] == 128
        assert m["supported"]["original"]["persist"] == 0
        assert m["mean_loss_past_train"] == pytest.approx(arrays["window_past"].mean(), abs=1e-6)
        assert m["reference_loss"] == pytest.approx(arrays["window_reference"].mean(), abs=1e-6)
        assert float(arrays["curve"][128:].mean()) == pytest.approx(
            m["mean_loss_past_train"], abs=1e-5
        )
        binned = arrays["window_loss"].astype(np.float64)
        assert np.abs(binned[:, 8:].mean(1) - arrays["window_past"]).max() < 2e-3
        if spec.base >= plan.model.base:
            extra = math.ceil(scaling.extrapolation_bound(spec.base, 32, 128, 1e4))
            assert m["t_extra_position"] == extra
    assert total < 20_000_000  # the repository's budget for the ten seeds
