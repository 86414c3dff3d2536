"""The test-time controls of lab/PLAN.md section 7 (ropelab.lab.testtime_controls): the
committed JSON is recomputed from its arrays, its plain entries are the registered records
of seed 0, and its starting lengths are T_extra and T_train."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from ropelab import scaling
from ropelab.lab.registered import load_record, read_plan
from ropelab.lab.testtime_controls import (
    CONTROL_METHODS,
    CONTROL_MODELS,
    entry_key,
    format_controls,
    load_controls,
    summarise,
)

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "lab" / "registered"


@pytest.fixture(scope="module")
def controls():
    return load_controls()


def _close(a, b, tol=1e-9):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _close(a[k], b[k], tol)
    elif isinstance(a, list | tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _close(x, y, tol)
    elif isinstance(a, float) or isinstance(b, float):
        assert math.isclose(a, b, rel_tol=tol, abs_tol=tol), (a, b)
    else:
        assert a == b


def test_every_number_is_recomputed_from_the_arrays(controls):
    result, arrays = controls
    again = summarise(arrays, result["settings"])
    _close(again["entries"], result["entries"])
    _close(again["differences"], result["differences"])


def test_the_settings_are_the_plan_s():
    result, _ = load_controls()
    block = read_plan(ROOT / "lab" / "PLAN.md")
    s = result["settings"]
    assert s["seed"] == 0
    assert s["models"] == list(CONTROL_MODELS) == block["exponent_models"]
    assert s["methods"] == list(CONTROL_METHODS) == ["ntk", "yarn"]
    assert s["resamples"] == block["bootstrap_resamples"] == 10000
    assert s["window_draw_seed"] == block["window_draw_seed"]
    assert (s["margin"], s["smooth_window"], s["persist"]) == (
        block["margin"],
        block["smooth_window"],
        block["persist"],
    )
    assert s["n_windows"] == block["eval_windows"] and s["eval_len"] == block["eval_len"]


def test_plain_entries_are_the_registered_records_of_seed_0(controls):
    result, arrays = controls
    for model in CONTROL_MODELS:
        record, rec = load_record(RECORDS, 0, model)
        key = entry_key(model, "plain")
        np.testing.assert_array_equal(arrays[f"{key}:window_past"], rec["window_past"])
        np.testing.assert_array_equal(arrays[f"{key}:curve"], rec["curve"])
        np.testing.assert_array_equal(arrays[f"{key}:boot_registered"], rec["boot_registered"])
        assert (
            result["entries"][key]["supported"]["registered"]["length"]
            == (record["measured"]["supported"]["registered"]["full"])
        )
        assert result["checkpoints"][model]["file"] == record["train"]["checkpoint"]
        # the evaluated checkpoint reproduced the record to its float16 rounding
        assert (
            result["checkpoints"][model]["largest_binned_difference_in_float16_half_spacings"]
            <= 1.01
        )


def test_the_methods_start_from_t_extra_and_from_t_train(controls):
    result, _ = controls
    for model in CONTROL_MODELS:
        base = float(model.removeprefix("ft-"))
        t_extra = round(2 * math.pi * base ** (12 / 32))  # Theorem 2, d_extra = 12 of 32
        assert t_extra == round(scaling.extrapolation_bound(base, 32, 128, 1e4))
        for method in CONTROL_METHODS:
            assert result["ref_lens"][entry_key(model, method, "reliable")] == t_extra
            assert result["ref_lens"][entry_key(model, method, "train")] == 128
            described = result["methods_described"][entry_key(model, method, "train")]
            assert described.endswith("factor 32 over 128 tokens")


def test_the_window_bootstrap_is_the_plan_s_independently_computed(controls):
    """One interval recomputed with numpy alone, from PLAN.md section 5's generator."""
    result, arrays = controls
    draws = np.random.default_rng(35).integers(0, 128, size=(10000, 128))
    a = arrays[f"{entry_key('ft-1e6', 'yarn', 'train')}:window_past"]
    b = arrays[f"{entry_key('ft-1e6', 'yarn', 'reliable')}:window_past"]
    diff = a[draws].mean(1) - b[draws].mean(1)
    lo, hi = np.percentile(diff, [2.5, 97.5])
    got = result["differences"]["ft-1e6/yarn: train - reliable"]
    assert math.isclose(got["mean"], float(np.mean(a - b)), abs_tol=1e-12)
    assert got["interval"] == pytest.approx([lo, hi], abs=1e-12)


def test_the_arrays_file_is_the_recorded_one(tmp_path):
    result, _ = load_controls()
    bad = tmp_path / "controls.npz"
    json_path = tmp_path / "controls.json"
    json_path.write_text(json.dumps(result))
    src = Path(__file__).resolve().parents[1] / "src/ropelab/lab/results/testtime_controls.npz"
    data = bytearray(src.read_bytes())
    data[-10] ^= 1
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="SHA-256"):
        load_controls(json_path, bad)


def test_the_table_names_every_model_and_start(controls):
    result, _ = controls
    table = format_controls(result)
    for model in CONTROL_MODELS:
        assert sum(line.startswith(model) for line in table.splitlines()) == 5
    assert "start at T_train minus start at L0" in table


def test_what_chapters_6_and_7_say_about_the_controls(controls):
    """Chapter 6's sentences (cell test-time): from T_train both methods fail within 171
    tokens; from L0 both hold longer than the plain model except YaRN on base 1e5; by mean
    loss past 128, YaRN is better from L0 and NTK-aware scaling from T_train, every interval
    clear of 0."""
    result, _ = controls
    entries, diffs = result["entries"], result["differences"]

    def length(model, method, start=None):
        return entries[entry_key(model, method, start)]["supported"]["registered"]["length"]

    from_train = [length(m, k, "train") for m in CONTROL_MODELS for k in CONTROL_METHODS]
    assert max(from_train) == 171
    longer = {
        (m, k): length(m, k, "reliable") > length(m, "plain")
        for m in CONTROL_MODELS
        for k in CONTROL_METHODS
    }
    assert [key for key, ok in longer.items() if not ok] == [("ft-1e5", "yarn")]
    for model in CONTROL_MODELS:
        yarn = diffs[f"{model}/yarn: train - reliable"]["interval"]
        ntk = diffs[f"{model}/ntk: train - reliable"]["interval"]
        assert yarn[0] > 0 and ntk[1] < 0


def test_from_t_train_both_methods_change_the_training_window(controls):
    """Chapter 7: started from T_train, both methods raise the loss inside the training window
    (positions 64-127: NTK-aware 0.82 to 1.01, YaRN 1.45 to 2.20 nats, the plain models
    0.74), which is why they fail at once; from L0 NTK-aware scaling stays within 0.06 of the
    plain model there."""
    result, arrays = controls
    entries = result["entries"]
    for model in CONTROL_MODELS:
        plain = entries[entry_key(model, "plain")]["L_window"]
        curve = arrays[f"{entry_key(model, 'plain')}:curve"].astype(float)
        assert entries[entry_key(model, "plain")]["L_window"] == pytest.approx(curve[64:128].mean())
        assert round(plain, 2) == 0.74
        assert entries[entry_key(model, "ntk", "reliable")]["L_window"] - plain < 0.06
    ntk = [entries[entry_key(m, "ntk", "train")]["L_window"] for m in CONTROL_MODELS]
    yarn = [entries[entry_key(m, "yarn", "train")]["L_window"] for m in CONTROL_MODELS]
    assert (round(min(ntk), 2), round(max(ntk), 2)) == (0.82, 1.01)
    assert (round(min(yarn), 2), round(max(yarn), 2)) == (1.45, 2.20)


def test_yarn_from_t_train_divides_most_planes_by_32():
    """Chapter 7: YaRN from T_train divides 11 to 13 of the 16 planes by the full factor 32
    (its ramp is 1 there) and multiplies cos and sin by 0.1 ln 32 + 1 = 1.35."""
    from ropelab.rope_config import yarn_attention_factor, yarn_ramp

    full = [
        int(np.sum(yarn_ramp(32, float(m.removeprefix("ft-")), 128) == 1)) for m in CONTROL_MODELS
    ]
    assert (min(full), max(full)) == (11, 13)
    assert round(yarn_attention_factor(32.0), 2) == 1.35
