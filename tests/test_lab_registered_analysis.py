"""The registered analysis (lab/PLAN.md sections 3 and 5; ropelab.lab.registered_analysis) against
independent computations: the bootstrap's count matrices against fancy indexing and a hand-rolled
percentile, fits against planted exponents and numpy's polyfit, the verdicts at their
boundaries, synthetic records with known answers, and the stored records recomputed."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from ropelab.lab import registered_analysis as ra
from ropelab.lab import registered_verdicts as v
from ropelab.lab.registered import load_record, read_plan, window_draws, write_record
from ropelab.lab.registered_records import complete_seeds, load_records
from ropelab.lab.registered_stats import (
    draw_counts,
    masked_coefficient,
    percentile_interval,
    resampled_means,
    resampled_seed_means,
    seed_draws,
)
from ropelab.lab.results import load_results, replicate_records

ROOT = Path(__file__).resolve().parents[1]
PLAN_MD = ROOT / "lab" / "PLAN.md"
RECORDS = ROOT / "lab" / "registered"

#: Seeds whose ten records are committed (the plan's run order; update as the runs complete).
#: A seed listed here with a record missing fails the tests; seeds not listed are in progress.
COMPLETE_SEEDS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)


def _hand_percentile(values: np.ndarray, q: float) -> float:
    """The q-th percentile by sorting and linear interpolation between order statistics."""
    s = sorted(float(x) for x in values)
    pos = q / 100.0 * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (pos - lo) * (s[hi] - s[lo])


# --------------------------------------------------------------------------------------
# the bootstrap's pieces
# --------------------------------------------------------------------------------------


def test_seed_draws_and_counts():
    d = seed_draws(50, 7, 36)
    assert np.array_equal(d, np.random.default_rng(36).integers(0, 7, size=(50, 7)))
    counts = draw_counts(d, 7)
    for b in range(50):
        assert [counts[b, i] for i in range(7)] == [list(d[b]).count(i) for i in range(7)]
    with pytest.raises(ValueError):
        draw_counts(np.array([[0, 7]]), 7)


def test_resampled_means_equal_fancy_indexing():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 5))
    sd, wd = seed_draws(40, 3, 36), window_draws(40, 5, 35)
    got = resampled_means(x, draw_counts(sd, 3), draw_counts(wd, 5))
    want = [np.mean([x[s][wd[b]].mean() for s in sd[b]]) for b in range(40)]
    assert np.allclose(got, want, rtol=0, atol=1e-13)


def test_resampled_seed_means_leave_out_nan():
    per = np.array([[1.0, 2.0, np.nan], [3.0, np.nan, np.nan]])  # (2 seeds, 3 resamples)
    draws = np.array([[0, 1], [1, 1], [1, 1]])
    got = resampled_seed_means(per, draws)
    assert got[0] == 2.0 and math.isnan(got[1]) and math.isnan(got[2])
    assert resampled_seed_means(per, np.array([[0, 0], [0, 1], [0, 0]]))[1] == 2.0


def test_percentile_interval_matches_a_hand_rolled_percentile():
    values = np.array([5.0, 1.0, 4.0, 2.0, 3.0, np.nan, 10.0])
    lo, hi = percentile_interval(values, 0.05)
    assert lo == pytest.approx(_hand_percentile(values[np.isfinite(values)], 2.5), abs=1e-12)
    assert hi == pytest.approx(_hand_percentile(values[np.isfinite(values)], 97.5), abs=1e-12)
    lo7, hi7 = percentile_interval(values, 0.05 / 7)
    assert lo7 == pytest.approx(
        _hand_percentile(values[np.isfinite(values)], 100 * 0.025 / 7), abs=1e-12
    )
    assert lo7 < lo and hi7 > hi
    assert all(math.isnan(e) for e in percentile_interval(np.array([np.nan]), 0.05))


def test_masked_coefficient_recovers_planted_exponent_and_curvature():
    bases = np.array([1e5, 1e6, 3e6, 1e7])
    x = np.log(bases)
    y = np.log(np.array([[2.0, 5.0], [1.0, 1.0]]))[:, :, None] + 0.375 * x  # (2, 2, 4)
    mask = np.ones_like(y, dtype=bool)
    mask[0, 1, 3] = False  # a censored point: three left
    assert np.allclose(masked_coefficient(x, y, mask, 1, 3), 0.375, atol=1e-12, rtol=0)
    mask[1, 0, :2] = False  # two left: no exponent
    slopes = masked_coefficient(x, y, mask, 1, 3)
    assert math.isnan(slopes[1, 0]) and np.isfinite(slopes).sum() == 3
    rng = np.random.default_rng(1)
    noisy = rng.normal(size=(6, 4)) + 0.2 * x
    full = np.ones_like(noisy, dtype=bool)
    assert np.allclose(
        masked_coefficient(x, noisy, full, 1, 3), [np.polyfit(x, r, 1)[0] for r in noisy]
    )
    assert np.allclose(
        masked_coefficient(x, noisy, full, 2, 3), [np.polyfit(x, r, 2)[0] for r in noisy]
    )
    bent = 1.0 + 0.3 * x - 0.04 * x**2
    assert masked_coefficient(x, bent[None], full[:1], 2, 3)[0] == pytest.approx(-0.04)


# --------------------------------------------------------------------------------------
# the verdicts at their boundaries
# --------------------------------------------------------------------------------------


def test_verdicts_at_their_boundaries():
    assert v.below_zero(-2.0, -1e-12) == v.SUPPORT
    assert v.below_zero(-2.0, 0.0) == v.INCONCLUSIVE  # touching 0 contains it
    assert v.below_zero(0.0, 1.0) == v.INCONCLUSIVE
    assert v.below_zero(1e-12, 1.0) == v.REFUTATION
    assert v.below_zero(math.nan, 1.0) == v.INCONCLUSIVE
    target, margin = 0.375, 0.1
    lo_edge, hi_edge = target - margin, target + margin
    assert v.exponent_one_rule(lo_edge, hi_edge, target, margin) == v.SUPPORT
    assert v.exponent_one_rule(lo_edge - 1e-9, 0.4, target, margin) == v.INCONCLUSIVE
    assert v.exponent_one_rule(0.3, hi_edge + 1e-9, target, margin) == v.INCONCLUSIVE
    assert v.exponent_one_rule(0.1, target, target, margin) == v.INCONCLUSIVE  # contains, wide
    assert v.exponent_one_rule(0.3, target, target, margin) == v.SUPPORT
    assert v.exponent_one_rule(0.1, target - 1e-9, target, margin) == v.REFUTATION
    assert v.exponent_one_rule(target + 1e-9, 0.45, target, margin) == v.REFUTATION
    assert v.at_most(0.0, 0.1, 0.1) == v.SUPPORT
    assert v.at_most(0.1, 0.2, 0.1) == v.INCONCLUSIVE
    assert v.at_most(0.1 + 1e-9, 0.2, 0.1) == v.REFUTATION
    assert v.above(0.1, 0.2, 0.1) == v.INCONCLUSIVE
    assert v.above(0.1 + 1e-9, 0.2, 0.1) == v.SUPPORT
    assert v.above(0.0, 0.1, 0.1) == v.REFUTATION
    assert v.combine_rules(v.SUPPORT, v.SUPPORT) == v.SUPPORT
    assert v.combine_rules(v.REFUTATION, v.REFUTATION) == v.REFUTATION
    assert v.combine_rules(v.SUPPORT, v.INCONCLUSIVE) == v.DEPENDS
    assert v.combine_rules(v.REFUTATION, v.SUPPORT) == v.DEPENDS


# --------------------------------------------------------------------------------------
# synthetic records with known answers
# --------------------------------------------------------------------------------------

N_WINDOWS = 8
RESAMPLES = 300
BASES = {
    "pretrain": 1e4, "ft-1e4": 1e4, "ft-1e5": 2.0**8, "ft-1e6": 2.0**16, "ft-3e6": 2.0**24,
    "ft-1e7": 2.0**32, "ft-500": 500.0, "ft-60": 60.0, "ft-30": 30.0, "ft-16": 16.0,
}  # fmt: skip
DELTA = {"ft-60": -1.5, "ft-30": -1.25, "ft-16": -1.25}  # ft-500: planted offset
EXPONENT_MODELS = ("ft-1e5", "ft-1e6", "ft-3e6", "ft-1e7")


def _plan_md(tmp: Path, seeds: list[int]) -> Path:
    text = PLAN_MD.read_text()
    block = re.search(r"```registered\n.*?```", text, re.S).group(0)
    block = re.sub(r"(?m)^seeds = .*$", f"seeds = {seeds}", block)
    block = re.sub(r"(?m)^seen_seeds = .*$", "seen_seeds = [0]", block)
    block = re.sub(r"(?m)^bootstrap_resamples = .*$", f"bootstrap_resamples = {RESAMPLES}", block)
    path = tmp / "PLAN.md"
    path.write_text("# synthetic\n\n" + block + "\n")
    return path


def _write_synthetic(out: Path, seeds: list[int]) -> dict:
    """Records with planted answers; returns what was planted."""
    rng = np.random.default_rng(7)
    planted: dict = {"past": {}, "jitter": {}}
    # ft-500's offset puts 0 between the 95 % and the Bonferroni upper end of D_500 (all seeds)
    jitters = 0.2 * np.random.default_rng(8).normal(size=(len(seeds), N_WINDOWS))
    wd = np.random.default_rng(35).integers(0, N_WINDOWS, size=(RESAMPLES, N_WINDOWS))
    sd = np.random.default_rng(36).integers(0, len(seeds), size=(RESAMPLES, len(seeds)))
    j = [np.mean([jitters[s][wd[b]].mean() for s in sd[b]]) for b in range(RESAMPLES)]
    offset = -(_hand_percentile(j, 97.5) + _hand_percentile(j, 100 - 2.5 / 7)) / 2
    planted["offset_500"] = offset
    for i, seed in enumerate(seeds):
        reference = 0.75 + 0.01 * rng.normal(size=N_WINDOWS)
        control_past = reference + 2.0 + 0.1 * rng.normal(size=N_WINDOWS)
        jitter = jitters[i]
        planted["jitter"][seed] = jitter
        scale = 1 + seed % 3  # per-seed prefactor of the lengths
        for k, (name, base) in enumerate(BASES.items()):
            past = control_past + DELTA.get(name, 0.0)
            if name == "ft-500":
                past = control_past + offset + jitter
            planted["past"][(seed, name)] = past
            if name in EXPONENT_MODELS:
                step = EXPONENT_MODELS.index(name) + 1
                full = {"registered": scale * 8**step, "original": scale * 4**step}
                within, extra = reference + 0.05, reference + 0.5
                t_extra = 200 * step
            else:
                full = {"registered": 150 + k, "original": 140 + k}
                within = extra = np.full(N_WINDOWS, np.nan)
                t_extra = None
            if seed == 1 and name == "ft-1e7":
                full["registered"] = None  # censored: the seed enters with three points
            arrays = {
                "window_loss": np.zeros((N_WINDOWS, 256), dtype=np.float16),
                "window_reference": reference, "window_past": past,
                "window_within": within, "window_past_extra": extra,
            }  # fmt: skip
            for rule in ("registered", "original"):
                value = -1 if full[rule] is None else full[rule]
                arrays[f"boot_{rule}"] = np.full(RESAMPLES, value, dtype=np.int16)
            record = {
                "base": base,
                "measured": {
                    "t_extra_position": t_extra, "at_least": 4081,
                    "supported": {r: {"full": full[r]} for r in ("registered", "original")},
                },
            }  # fmt: skip
            write_record(out, seed, name, record, arrays)
    return planted


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("registered")
    seeds = [0, 1, 2, 3]
    planted = _write_synthetic(tmp / "records", seeds)
    plan_md = _plan_md(tmp, seeds)
    return tmp, plan_md, planted, ra.analyse_all(tmp / "records", plan_md)


def test_synthetic_primary_and_comparisons(synthetic):
    _, _, planted, result = synthetic
    assert result["complete"] and result["seeds_analysed"] == [0, 1, 2, 3]
    all_ = result["subsets"]["all"]
    for name in BASES:
        past = [planted["past"][(s, name)].mean() for s in range(4)]
        assert all_["primary"][name]["past"]["per_seed"] == pytest.approx(past, abs=1e-12)
    comp = all_["comparisons"]
    assert list(comp) == [
        "ft-500 vs ft-1e4", "ft-60 vs ft-1e4", "ft-30 vs ft-1e4", "ft-16 vs ft-1e4",
        "ft-60 vs ft-500", "ft-30 vs ft-60", "ft-16 vs ft-30",
    ]  # fmt: skip
    for name in ("ft-60", "ft-30", "ft-16"):  # no jitter: every resample gives the planted D
        c = comp[f"{name} vs ft-1e4"]["L_past"]
        assert c["mean"] == pytest.approx(DELTA[name], abs=1e-12)
        assert c["boot"] == pytest.approx([DELTA[name]] * 2, abs=1e-12)
        assert c["verdict"] == v.SUPPORT
    # Bonferroni (alpha/7) decides: the 95 % interval alone would call it support
    d500 = comp["ft-500 vs ft-1e4"]["L_past"]
    assert d500["boot"][1] < 0.0 < d500["boot_family"][1]
    assert d500["verdict"] == v.INCONCLUSIVE
    assert comp["ft-60 vs ft-500"]["L_past"]["verdict"] == v.SUPPORT
    assert comp["ft-30 vs ft-60"]["L_past"]["mean"] == pytest.approx(0.25, abs=1e-12)
    assert comp["ft-30 vs ft-60"]["L_past"]["verdict"] == v.REFUTATION
    assert comp["ft-16 vs ft-30"]["L_past"]["boot_family"] == [0.0, 0.0]  # exactly 0
    assert comp["ft-16 vs ft-30"]["L_past"]["verdict"] == v.INCONCLUSIVE
    # lengths: the small bases are planted longer than the control by k - 1
    length = comp["ft-16 vs ft-1e4"]["length"]
    assert length["registered"]["mean"] == 8 and length["original"]["mean"] == 8
    assert length["verdict"] == v.SUPPORT
    assert comp["ft-16 vs ft-30"]["length"]["verdict"] == v.SUPPORT


def test_synthetic_bootstrap_by_hand(synthetic):
    """D_500 carries window jitter: its interval, recomputed by a plain loop, matches."""
    _, _, planted, result = synthetic
    d = np.array(
        [planted["past"][(s, "ft-500")] - planted["past"][(s, "ft-1e4")] for s in range(4)]
    )
    wd = np.random.default_rng(35).integers(0, N_WINDOWS, size=(RESAMPLES, N_WINDOWS))
    sd = np.random.default_rng(36).integers(0, 4, size=(RESAMPLES, 4))
    stats = [np.mean([d[s][wd[b]].mean() for s in sd[b]]) for b in range(RESAMPLES)]
    c = result["subsets"]["all"]["comparisons"]["ft-500 vs ft-1e4"]["L_past"]
    assert c["boot"][0] == pytest.approx(_hand_percentile(stats, 2.5), abs=1e-12)
    assert c["boot"][1] == pytest.approx(_hand_percentile(stats, 97.5), abs=1e-12)
    assert c["boot_family"][0] == pytest.approx(_hand_percentile(stats, 2.5 / 7), abs=1e-12)
    assert c["boot_family"][1] == pytest.approx(_hand_percentile(stats, 100 - 2.5 / 7), abs=1e-12)
    means = d.mean(1)
    half = 3.182446 * means.std(ddof=1) / 2.0  # t_{0.975, 3} s / sqrt(4)
    assert c["t"] == pytest.approx([means.mean() - half, means.mean() + half], abs=1e-5)


def test_synthetic_exponent_curvature_and_theorem2(synthetic):
    _, _, _, result = synthetic
    all_ = result["subsets"]["all"]
    reg, orig = all_["exponent"]["registered"], all_["exponent"]["original"]
    assert reg["per_seed"] == pytest.approx([0.375] * 4, abs=1e-12)
    assert reg["boot"] == pytest.approx([0.375, 0.375], abs=1e-12)
    assert reg["censored_points"] == 1 and orig["censored_points"] == 0
    assert orig["mean"] == pytest.approx(0.25, abs=1e-12)
    assert reg["verdict"] == v.SUPPORT and orig["verdict"] == v.REFUTATION
    assert all_["exponent"]["verdict"] == v.DEPENDS
    for rule in ("registered", "original"):
        assert all_["curvature"][rule]["mean"] == pytest.approx(0.0, abs=1e-12)
    # a censored length counts as at_least in the mean length
    lengths = all_["supported_length"]["registered"]["ft-1e7"]
    assert lengths["censored"] == 1
    assert lengths["mean"] == pytest.approx((4096 + 4081 + 3 * 4096 + 4096) / 4)
    for name in EXPONENT_MODELS:
        t2 = all_["theorem2_loss"][name]
        assert t2["excess_within"] == pytest.approx(0.05, abs=1e-12)
        assert t2["excess_past_extra"] == pytest.approx(0.5, abs=1e-12)
        assert t2["within_verdict"] == v.SUPPORT and t2["bound_verdict"] == v.SUPPORT
    ids = [row["id"] for row in all_["verdicts"]]
    assert len(ids) == 7 + 1 + 4 + 4 and ids[7] == "exponent"


def test_synthetic_subsets_differences_and_reproducibility(synthetic):
    _, _, _, result = synthetic
    assert result["subsets"]["unseen"]["seeds"] == [1, 2, 3]
    assert result["subsets"]["seen"] is None  # one seen seed: no interval
    for diff in result["verdict_differences"]:
        unseen = {r["id"]: r["verdict"] for r in result["subsets"]["unseen"]["verdicts"]}
        assert unseen[diff["id"]] == diff["unseen"] != diff["all"]
    committed = {
        name: next(r for r in replicate_records(load_results(), name) if r["replicate"] == 0)
        for name in BASES
    }
    rows = {r["model"]: r for r in result["reproducibility"]}
    assert set(rows) == set(BASES) and all(r["seed"] == 0 for r in rows.values())
    assert (
        rows["ft-1e5"]["length_difference"]
        == 8 - committed["ft-1e5"]["measured"]["supported_length"]
    )


def test_cli_refuses_to_write_incomplete(synthetic, tmp_path, monkeypatch, capsys):
    tmp, _, _, _ = synthetic
    plan_md = _plan_md(tmp_path, [0, 1, 2, 3, 4])  # seed 4 has no record
    target = tmp_path / "registered.json"
    monkeypatch.setattr(ra, "REGISTERED_JSON", target)
    out = tmp_path / "any.json"
    args = ["--records", str(tmp / "records"), "--plan-md", str(plan_md), "--json", str(out)]
    assert ra.main([*args, "--write"]) == 2
    assert not target.exists()
    written = json.loads(out.read_text())
    assert written["complete"] is False and written["missing_seeds"] == [4]
    assert "INCOMPLETE: seeds [4]" in capsys.readouterr().out


# --------------------------------------------------------------------------------------
# the stored records
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def block():
    return read_plan(PLAN_MD)


@pytest.fixture(scope="module")
def stored(block):
    shipped = json.loads(ra.REGISTERED_JSON.read_text()) if ra.REGISTERED_JSON.exists() else None
    required = block["seeds"] if shipped is not None else COMPLETE_SEEDS
    done = complete_seeds(RECORDS, block["seeds"], block["models"])
    missing = [s for s in required if s not in done]
    assert not missing, f"records missing for seeds listed as complete: {missing}"
    return done, ra.analyse_all(RECORDS, PLAN_MD), shipped


def test_analysis_uses_the_registered_values(block):
    assert block["bootstrap_resamples"] == 10_000
    assert (block["window_draw_seed"], block["seed_draw_seed"]) == (35, 36)
    assert len(ra.comparisons(block)) == 7
    assert (block["alpha"], block["margin"], block["theorem2_exponent"]) == (0.05, 0.1, 0.375)


def test_stored_primary_results_recomputed(block, stored):
    done, result, _ = stored
    assert result["seeds_analysed"] == done
    all_ = result["subsets"]["all"]
    scalars = {
        (s, m): load_record(RECORDS, s, m)[0]["measured"] for s in done for m in block["models"]
    }
    for m in block["models"]:
        want = [scalars[(s, m)]["mean_loss_past_train"] for s in done]
        assert all_["primary"][m]["past"]["per_seed"] == pytest.approx(want, abs=2e-6)
        points = [scalars[(s, m)]["supported"]["registered"]["full"] for s in done]
        mean = np.mean([4081 if p is None else p for p in points])
        assert all_["supported_length"]["registered"][m]["mean"] == pytest.approx(mean)
    for cid, a, b in ra.comparisons(block):
        d = [
            scalars[(s, a)]["mean_loss_past_train"] - scalars[(s, b)]["mean_loss_past_train"]
            for s in done
        ]
        assert all_["comparisons"][cid]["L_past"]["per_seed"] == pytest.approx(d, abs=3e-6)
    # the grid's cells at margin 0.1 equal the binned readings recorded at run time
    cells = {(c["margin"], c["persist"]): c for c in all_["grid_descriptive"]}
    for rule, persist in (("registered", 128), ("original", 0)):
        for m in block["models"]:
            binned = [scalars[(s, m)]["supported"][rule]["binned"] for s in done]
            mean = np.mean([4081 if x is None else x for x in binned])
            assert cells[(0.1, persist)]["mean_length"][m] == pytest.approx(mean)


def test_stored_bootstrap_by_hand(block, stored):
    """The L_past comparison ft-16 vs control and the exponent (registered rule), recomputed
    with fancy indexing and numpy's polyfit over all 10 000 resamples."""
    done, result, _ = stored
    all_ = result["subsets"]["all"]
    n = len(done)
    wd = np.random.default_rng(35).integers(0, 128, size=(10_000, 128))
    sd = np.random.default_rng(36).integers(0, n, size=(10_000, n))
    past = {
        m: np.array([load_record(RECORDS, s, m)[1]["window_past"] for s in done])
        for m in ("ft-16", "ft-1e4")
    }
    d = past["ft-16"] - past["ft-1e4"]  # (n, 128)
    per_seed = np.array([d[i][wd].mean(1) for i in range(n)])  # (n, B): windows resampled
    stats = per_seed[sd, np.arange(10_000)[:, None]].mean(1)
    c = all_["comparisons"]["ft-16 vs ft-1e4"]["L_past"]
    assert c["boot"][0] == pytest.approx(_hand_percentile(stats, 2.5), abs=1e-9)
    assert c["boot"][1] == pytest.approx(_hand_percentile(stats, 97.5), abs=1e-9)
    models = block["exponent_models"]
    x = np.log([load_record(RECORDS, done[0], m)[0]["base"] for m in models])
    boot = np.array(
        [[load_record(RECORDS, s, m)[1]["boot_registered"] for m in models] for s in done]
    ).astype(np.float64)  # (n, 4, B)
    censored = (boot < 0).any(axis=1)  # (n, B)
    slopes = np.array([np.polyfit(x, np.log(np.abs(boot[i])), 1)[0] for i in range(n)])
    slopes = np.where(censored, np.nan, slopes)  # (n, B)
    picked = slopes[sd, np.arange(10_000)[:, None]]
    if not censored.any():  # otherwise the masked fit of the module is the reference
        exp = all_["exponent"]["registered"]
        assert exp["boot"][0] == pytest.approx(_hand_percentile(picked.mean(1), 2.5), abs=1e-9)
        assert exp["boot"][1] == pytest.approx(_hand_percentile(picked.mean(1), 97.5), abs=1e-9)
    rows = {r["id"]: r for r in all_["verdicts"]}
    assert rows["ft-16 vs ft-1e4"]["verdict"] == v.below_zero(*c["boot_family"])


def test_stored_subsets_and_reproducibility(block, stored):
    done, result, _ = stored
    unseen = [s for s in done if s not in block["seen_seeds"]]
    assert result["subsets"]["unseen"]["seeds"] == unseen
    committed = load_results()
    for row in result["reproducibility"]:
        old = next(
            r for r in replicate_records(committed, row["model"]) if r["replicate"] == row["seed"]
        )
        assert row["length_committed"] == old["measured"]["supported_length"]
        new = load_record(RECORDS, row["seed"], row["model"])[0]["measured"]["supported"]
        assert row["length_rerun"] == new["registered"]["full"]


def _close(a, b, path="") -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), path
        for k in a:
            _close(a[k], b[k], f"{path}/{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, (int, float)):
        assert b == pytest.approx(a, rel=1e-9, abs=1e-12), path
    else:
        assert a == b, path


def test_shipped_results_are_the_records_recomputed(stored):
    """Once ``results/registered.json`` is committed it is the ten-seed analysis, recomputed
    exactly from the records (before that, the test checks that it is absent, not skipped)."""
    _, result, shipped = stored
    if shipped is None:
        assert not ra.REGISTERED_JSON.exists()
        return
    assert shipped["complete"] and shipped["missing_seeds"] == []
    _close(shipped, json.loads(json.dumps(result)))
    assert (
        shipped["records_sha256"]
        == load_records(RECORDS, shipped["seeds_analysed"], read_plan(PLAN_MD)["models"]).sha256
    )
